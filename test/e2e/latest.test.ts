// `:latest`: the newest task without its id, wherever a TASK is taken — the
// commands, dependencies, the library's lookup and MCP's tools — and never a
// task name.

import {afterEach, describe, expect, it, vi} from 'vitest'
import {cleanupStateDirs, drover, json, makeStateDir, readTask, startOk, waitFor} from '../helpers/cli.js'
import {closeMcpSessions, startMcp} from '../helpers/mcp.js'

vi.setConfig({testTimeout: 60_000})
afterEach(async () => {
  await closeMcpSessions()
  cleanupStateDirs()
})

describe(':latest', () => {
  it('names the newest task in every command that takes TASK, and in --after', async () => {
    const dir = makeStateDir()
    const none = await drover(dir, ['status', ':latest'])
    expect(none.exitCode).toBe(3)
    expect(none.stderr).toContain('no such task: :latest (there are no tasks)')

    const first = await startOk(dir, ['--name', 'first', '--', 'sh', '-c', 'echo first-out'])
    const newest = await startOk(dir, ['--', 'sh', '-c', 'echo newest-out; sleep 30'])
    expect(json(await drover(dir, ['status', '--json', ':latest'])).id).toBe(newest)
    await waitFor(async () => (await drover(dir, ['logs', ':latest'])).stdout.includes('newest-out'), {message: 'the newest task\'s output'})
    // a dependency on the newest task, resolved when the start is made
    const after = await startOk(dir, ['--after', ':latest', '--', 'true'])
    expect(readTask(dir, after).after).toEqual([newest])
    // now `after` is the newest
    expect(json(await drover(dir, ['status', '--json', ':latest'])).id).toBe(after)
    expect((await drover(dir, ['stop', String(newest)])).exitCode).toBe(0)
    await waitFor(() => readTask(dir, after).status === 'skipped', {message: 'the dependent skipped'})
    const waited = await drover(dir, ['wait', ':latest'])
    expect(waited.exitCode).toBe(1)
    expect(waited.stdout).toContain(`task ${after} skipped`)
    expect((await drover(dir, ['rm', ':latest'])).exitCode).toBe(0)
    expect(json(await drover(dir, ['status', '--json', ':latest'])).id).toBe(newest)
    const again = await drover(dir, ['start', ':latest'])
    expect(again.exitCode, again.stderr).toBe(0)
    expect(readTask(dir, newest).runs).toHaveLength(2)
    expect((await drover(dir, ['cancel', ':latest'])).exitCode).toBe(0)
    expect(readTask(dir, newest).status).toBe('cancelled')
    // a task named `latest` is just a name
    const named = await startOk(dir, ['--name', 'latest', '--', 'true'])
    expect(json(await drover(dir, ['status', '--json', 'latest'])).id).toBe(named)
    expect(readTask(dir, first).status).toBe('succeeded')
  })

  it('the library and MCP look it up the same way', async () => {
    const dir = makeStateDir()
    await startOk(dir, ['--', 'true'])
    const newest = await startOk(dir, ['--name', 'two', '--', 'true'])
    const mcp = await startMcp(dir, ['--read-only'])
    const got = await mcp.call('get_task', {task: ':latest'})
    expect(got.isError, got.content[0]?.text).toBeFalsy()
    expect(got.structuredContent.task).toMatchObject({id: newest, name: 'two'})
  })
})
