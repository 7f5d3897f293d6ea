// A task whose record names an agent this drover does not know — as a newer
// drover, with one more agent, writes it into a shared state dir — reads as
// that name in every view and is handled as generic: never shown as corrupt.

import {writeFileSync} from 'node:fs'
import {afterEach, describe, expect, it} from 'vitest'
import {cleanupStateDirs, drover, fixture, json, makeStateDir, readOutput, readTask, waitFor} from '../helpers/cli.js'
import {closeMcpSessions, startMcp} from '../helpers/mcp.js'
import {taskPaths} from '../../src/state/store.js'

afterEach(async () => {
  await closeMcpSessions()
  cleanupStateDirs()
})

const FUTURE = 'some-future-agent'

describe('an agent this drover does not know', () => {
  it('reads as its name in list, status, --json and MCP, and resumes as a generic task would', async () => {
    const dir = makeStateDir()
    const started = await drover(dir, ['start', '--name', 'newer', '--', process.execPath, fixture('agent-generic.mjs')], {env: {FAKE_AGENT_TURN_MS: '100', FAKE_AGENT_TURNS: '100000'}})
    expect(started.exitCode, started.stderr).toBe(0)
    const id = Number(started.stdout.trim())
    await waitFor(() => readOutput(dir, id).includes('count 1\n'), {message: 'the worker counting'})
    const drained = await drover(dir, ['drain', String(id), '--grace', '5s', '--json'])
    expect(drained.exitCode, drained.stderr).toBe(0)
    const ended = readTask(dir, id)
    expect(ended.status).toBe('drained')

    // what a newer drover records for its own agent: the name, the checkpoint's profile, the usage it read
    const agentInfo = {turns: 3, costUsd: null, inputTokens: 120, outputTokens: 40, sessionId: 'future-session-1', lastEvent: 'done', session: null, error: null}
    writeFileSync(taskPaths(dir, id).record, JSON.stringify({...ended, agent: FUTURE, agentInfo, checkpoint: {...ended.checkpoint, profile: FUTURE, sessionId: 'future-session-1'}}))

    const table = await drover(dir, ['list'])
    expect(table.exitCode, table.stderr).toBe(0)
    expect(table.stdout).toMatch(new RegExp(`^${id}\\s+newer\\s+drained`, 'm'))
    expect(table.stdout).not.toMatch(/corrupt/)
    const listed = json(await drover(dir, ['list', '--json']))
    expect(listed).toMatchObject([{id, status: 'drained', agent: FUTURE}])

    const status = await drover(dir, ['status', String(id)])
    expect(status.exitCode, status.stderr).toBe(0)
    expect(status.stdout).toMatch(new RegExp(`^agent\\s+${FUTURE}$`, 'm'))
    expect(status.stdout).toMatch(new RegExp(`^checkpoint\\s+${FUTURE} session future-session-1`, 'm'))
    const detail = json(await drover(dir, ['status', String(id), '--json']))
    expect(detail).toMatchObject({id, status: 'drained', agent: FUTURE, checkpoint: {profile: FUTURE}})

    // an MCP client that listed the tools validates each result against the tool's output schema: the name must pass it
    const mcp = await startMcp(dir)
    await mcp.client.listTools()
    const got = await mcp.call('get_task', {task: id})
    expect(got.isError, JSON.stringify(got.content)).toBeFalsy()
    expect(got.structuredContent.task).toMatchObject({id, agent: FUTURE})
    const tasks = await mcp.call('list_tasks', {})
    expect(tasks.isError, JSON.stringify(tasks.content)).toBeFalsy()

    // generic handling: the same command again with DROVER_RESUME=1 (no agent grammar learnt from its --help)
    const resumed = await drover(dir, ['resume', String(id), '--json'])
    expect(resumed.exitCode, resumed.stderr).toBe(0)
    await waitFor(() => /resuming at count [1-9]/.test(readOutput(dir, id)), {message: 'the worker resumed from its saved count'})
    const running = readTask(dir, id)
    expect(running).toMatchObject({agent: FUTURE, status: 'running'})
    expect(running.runs.at(-1)).toMatchObject({resumed: true, command: null})
    const stopped = await drover(dir, ['stop', String(id), '--json'])
    expect(stopped.exitCode, stopped.stderr).toBe(0)
  })
})
