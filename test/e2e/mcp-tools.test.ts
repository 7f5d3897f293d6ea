// `drover mcp`'s surface as a client sees it: the real server as a child
// process, driven by the SDK's own Client. The tools, their schemas and
// annotations; --read-only and --allow prune; every kind of bad call as a tool
// error with the CLI's exit code and nothing changed on disk; many calls at
// once; resources with subscriptions.

import {writeFileSync} from 'node:fs'
import path from 'node:path'
import {afterEach, describe, expect, it} from 'vitest'
import {cleanupStateDirs, drover, fixture, json, makeStateDir, readTask, waitFor} from '../helpers/cli.js'
import {closeMcpSessions, exitCodeOf, startMcp} from '../helpers/mcp.js'
import {snapshot} from '../helpers/snapshot.js'

afterEach(async () => {
  await closeMcpSessions()
  cleanupStateDirs()
})

const ALL_TOOLS = ['start_task', 'list_tasks', 'get_task', 'read_output', 'wait_tasks', 'stop_task', 'cancel_task', 'drain_tasks', 'resume_task', 'send_followup', 'merge_task', 'queue_status', 'compare_attempts']
const READ_TOOLS = ['list_tasks', 'get_task', 'read_output', 'wait_tasks', 'queue_status', 'compare_attempts']
// what `drover start` takes, as start_task's arguments
const START_OPTIONS = ['command', 'shell', 'name', 'cwd', 'env', 'agent', 'timeout', 'idleTimeout', 'queue', 'priority', 'after', 'afterEnded', 'worktree', 'base', 'existingBranch', 'maxTurns', 'maxTokens', 'maxCostUsd', 'onLimit', 'retry', 'retryDelay', 'retryOnTimeout', 'ifAbsent']

describe('drover mcp: tools', () => {
  it('lists its tools with descriptions, input and output schemas and annotations', async () => {
    const mcp = await startMcp(makeStateDir())
    const {tools} = await mcp.client.listTools()
    expect(tools.map((t) => t.name)).toEqual(ALL_TOOLS)
    for (const tool of tools) {
      expect(tool.description!.length, tool.name).toBeGreaterThan(80)
      expect(tool.inputSchema.type).toBe('object')
      expect(tool.outputSchema?.type, tool.name).toBe('object')
      expect(tool.annotations).toMatchObject({readOnlyHint: READ_TOOLS.includes(tool.name)})
    }
    const start = tools.find((t) => t.name === 'start_task')!
    expect(Object.keys(start.inputSchema.properties!)).toEqual(expect.arrayContaining(START_OPTIONS))
    expect(start.inputSchema.properties!.timeout).toMatchObject({type: 'string'})
    expect(Object.keys(tools.find((t) => t.name === 'resume_task')!.inputSchema.properties!)).toEqual(['task', 'prompt', 'maxTurns', 'maxTokens', 'maxCostUsd'])
    expect(tools.find((t) => t.name === 'queue_status')!.outputSchema!.properties).toHaveProperty('queues')
    expect(start.description).toMatch(/keep running when the MCP client disconnects/)
    const read = tools.find((t) => t.name === 'read_output')!
    expect(read.outputSchema!.properties).toHaveProperty('nextCursor')
    expect(tools.find((t) => t.name === 'cancel_task')!.annotations).toMatchObject({destructiveHint: true})
    expect(mcp.client.getInstructions()).toMatch(/stop_task/)
  })

  it('--read-only offers only the tools that change nothing; --allow prune adds prune_tasks', async () => {
    const stateDir = makeStateDir()
    const readOnly = await startMcp(stateDir, ['--read-only'])
    expect((await readOnly.client.listTools()).tools.map((t) => t.name)).toEqual(READ_TOOLS)
    const refused = await readOnly.call('start_task', {command: ['true']})
    expect(refused).toMatchObject({isError: true, _meta: {exitCode: 2}})
    expect(refused.content[0].text).toMatch(/read-only/)

    const pruning = await startMcp(stateDir, ['--allow', 'prune'])
    expect((await pruning.client.listTools()).tools.map((t) => t.name)).toEqual([...ALL_TOOLS, 'prune_tasks'])
    const id = (await pruning.call('start_task', {shell: 'exit 0'})).structuredContent.task.id
    await pruning.call('wait_tasks', {tasks: [id]})
    // The runner tidies up just after the final record, and prune leaves a task whose runner lives: let it go first.
    await waitFor(async () => (await pruning.call('get_task', {task: id})).structuredContent.task.runnerAlive === false, {message: 'the runner to exit'})
    const pruned = await pruning.call('prune_tasks', {olderThanSeconds: 0})
    expect(pruned.structuredContent.removed.map((t: {id: number}) => t.id)).toEqual([id])
    expect(json(await drover(stateDir, ['list', '--all', '--json']))).toEqual([])
  })

  it('answers every kind of bad call with a tool error carrying the CLI exit code, and changes nothing on disk', async () => {
    const stateDir = makeStateDir()
    const mcp = await startMcp(stateDir, ['--allow', 'prune'])
    const done = (await mcp.call('start_task', {command: [process.execPath, fixture('counter.mjs'), '2', '10'], name: 'done'})).structuredContent.task.id
    await mcp.call('wait_tasks', {tasks: [done]})
    // The runner tidies up (its reserve, runner.json) just after the final record: let it go first.
    await waitFor(async () => (await mcp.call('get_task', {task: done})).structuredContent.task.runnerAlive === false, {message: 'the runner to exit'})
    writeFileSync(path.join(stateDir, 'marker'), 'x')
    const before = snapshot(stateDir)
    const bad: [string, Record<string, unknown>, number, RegExp][] = [
      ['start_task', {}, 2, /exactly one of command/],
      ['start_task', {command: ['true'], shell: 'true'}, 2, /exactly one of command/],
      ['start_task', {command: []}, 2, /command/],
      ['start_task', {command: 'echo hi'}, 2, /command: .*array/i],
      ['start_task', {command: ['echo hi']}, 2, /whole line is one argument/],
      ['start_task', {shell: 'claude -p hi', agent: 'claude'}, 2, /needs its command as argv, not a shell script/],
      ['start_task', {shell: '   '}, 2, /shell script is empty/],
      ['start_task', {command: ['true'], env: {'1BAD': 'x'}}, 2, /invalid variable name/],
      ['start_task', {command: ['true'], name: '9lives'}, 2, /invalid task name/],
      ['start_task', {command: ['true'], timeout: '-1s'}, 2, /^timeout: duration must not be negative/],
      ['start_task', {command: ['true'], idleTimeout: '0s'}, 2, /^idleTimeout: /],
      ['start_task', {command: [process.execPath, '-e', '0'], cwd: 42}, 2, /cwd/],
      ['start_task', {command: ['/']}, 2, /is a directory, not a command/],
      ['start_task', {command: ['true'], agent: 'gpt'}, 2, /agent/],
      ['start_task', {command: ['true'], bogus: 1}, 2, /unknown argument bogus/],
      ['get_task', {}, 2, /task/],
      ['get_task', {task: true}, 2, /expected a task id/],
      ['get_task', {task: 1.5}, 2, /expected a task id/],
      ['get_task', {task: 99}, 3, /no such task: 99/],
      ['get_task', {task: 'nope'}, 3, /no such task: nope/],
      ['get_task', {task: '007'}, 2, /invalid task id/],
      ['read_output', {task: 99}, 3, /no such task/],
      ['read_output', {task: done, cursor: -5}, 2, /cursor/],
      ['wait_tasks', {tasks: []}, 2, /tasks/],
      ['wait_tasks', {tasks: [done, 'ghost']}, 3, /no such task: ghost/],
      ['stop_task', {task: 'ghost'}, 3, /no such task/],
      ['cancel_task', {task: 42}, 3, /no such task/],
      ['drain_tasks', {}, 2, /give tasks, or all: true/],
      ['drain_tasks', {tasks: ['done'], all: true}, 2, /not both/],
      ['drain_tasks', {tasks: ['done', 'ghost']}, 3, /no such task: ghost/],
      ['resume_task', {task: 'ghost'}, 3, /no such task/],
      ['prune_tasks', {}, 2, /say what to prune/],
      ['no_such_tool', {}, 2, /unknown tool/],
    ]
    for (const [tool, args, code, message] of bad) {
      const result = await mcp.call(tool, args)
      const label = `${tool} ${JSON.stringify(args)} → ${result.content[0]?.text}`
      expect(result.isError, label).toBe(true)
      expect(exitCodeOf(result), label).toBe(code)
      expect(result._meta?.exitCode, label).toBe(code)
      expect(result.content[0].text, label).toMatch(message)
      expect(result.content[0].text, label).not.toMatch(/\n/)
    }
    expect(snapshot(stateDir)).toEqual(before)

    // A program that does not exist is the runner's to find, as with `drover start`: the task is recorded failed, exit 1.
    const missing = await mcp.call('start_task', {command: ['no-such-program-for-drover']})
    expect(missing).toMatchObject({isError: true, _meta: {exitCode: 1}})
    expect(missing.content[0].text).toMatch(/^task \d+ failed to start: .*no-such-program-for-drover/)

    // A conflict: the name of a live task (exit 4); no task is made for it.
    const busy = (await mcp.call('start_task', {command: [process.execPath, fixture('sleeper.mjs')], name: 'busy'})).structuredContent.task.id
    const taken = await mcp.call('start_task', {command: ['true'], name: 'busy'})
    expect(taken).toMatchObject({isError: true, _meta: {exitCode: 4}})
    expect(taken.content[0].text).toMatch(new RegExp(`name 'busy' is taken by task ${busy}`))
    expect(json<{id: number}[]>(await drover(stateDir, ['list', '--all', '--json'])).map((t) => t.id)).toEqual([done, done + 1, busy])
  })

  it('masks secrets in every result as the CLI does', async () => {
    const stateDir = makeStateDir()
    const mcp = await startMcp(stateDir)
    const started = await mcp.call('start_task', {command: ['sh', '-c', 'exit 0', 'postgres://me:hunter2@db/x'], env: {TOKEN: 'hunter2'}})
    const id = started.structuredContent.task.id
    const results = [started, await mcp.call('get_task', {task: id}), await mcp.call('list_tasks', {}), await mcp.call('wait_tasks', {tasks: [id]})]
    for (const result of results) {
      expect(JSON.stringify(result)).not.toContain('hunter2')
      expect(JSON.stringify(result)).toContain('***')
    }
    expect(readTask(stateDir, id).env).toEqual({TOKEN: 'hunter2'})
  })

  it('serves 20 tool calls at once', async () => {
    const stateDir = makeStateDir()
    const mcp = await startMcp(stateDir)
    const calls = Array.from({length: 20}, (_, i) =>
      i % 4 === 0
        ? mcp.call('start_task', {command: [process.execPath, fixture('counter.mjs'), '3', '10'], name: `c${i}`})
        : i % 4 === 1
          ? mcp.call('list_tasks', {})
          : i % 4 === 2
            ? mcp.call('get_task', {task: 'nope'})
            : mcp.call('read_output', {task: 'nope'}),
    )
    const results = await Promise.all(calls)
    results.forEach((result, i) => expect(result.isError ?? false, `call ${i}: ${result.content[0]?.text}`).toBe(i % 4 >= 2))
    const ids = results.filter((_, i) => i % 4 === 0).map((r) => r.structuredContent.task.id)
    expect(new Set(ids).size).toBe(5)
    const waited = await mcp.call('wait_tasks', {tasks: ids})
    expect(waited.structuredContent.tasks.map((t: {status: string}) => t.status)).toEqual(Array(5).fill('succeeded'))
  })

  it('holds no state of its own: a second server and the CLI see and control the same tasks', async () => {
    const stateDir = makeStateDir()
    const [one, two] = [await startMcp(stateDir), await startMcp(stateDir)]
    const id = (await one.call('start_task', {command: [process.execPath, fixture('sleeper.mjs')], name: 'shared'})).structuredContent.task.id
    expect((await two.call('list_tasks', {status: ['running']})).structuredContent.tasks.map((t: {id: number}) => t.id)).toEqual([id])
    const waiting = one.call('wait_tasks', {tasks: ['shared'], timeoutSeconds: 60})
    expect((await drover(stateDir, ['stop', 'shared'])).exitCode).toBe(0)
    expect((await waiting).structuredContent).toMatchObject({ended: [id], timedOut: false, tasks: [expect.objectContaining({status: 'stopped'})]})
    expect((await two.call('get_task', {task: id})).structuredContent.task.status).toBe('stopped')
  })

  it("offers each task's record and output as resources, and notifies subscribers when they change", async () => {
    const stateDir = makeStateDir()
    const mcp = await startMcp(stateDir)
    const id = (await mcp.call('start_task', {command: [process.execPath, fixture('counter.mjs'), '40', '50'], name: 'res'})).structuredContent.task.id
    const {resources} = await mcp.client.listResources()
    expect(resources.map((r) => r.uri)).toEqual([`drover://task/${id}`, `drover://task/${id}/output`])
    const updated: string[] = []
    const {ResourceUpdatedNotificationSchema} = await import('@modelcontextprotocol/sdk/types.js')
    mcp.client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => void updated.push(n.params.uri))
    await mcp.client.subscribeResource({uri: `drover://task/${id}/output`})
    await mcp.client.subscribeResource({uri: 'drover://task/res'})
    await waitFor(() => updated.includes(`drover://task/${id}/output`), {message: 'an output update'})
    await mcp.call('wait_tasks', {tasks: [id]})
    await waitFor(() => updated.includes('drover://task/res'), {message: 'a record update'})
    const output = await mcp.client.readResource({uri: `drover://task/${id}/output`})
    expect(output.contents[0].text).toMatch(/^line 1\n[\s\S]*line 40\n$/)
    const record = await mcp.client.readResource({uri: 'drover://task/res'})
    expect(JSON.parse(String(record.contents[0].text))).toMatchObject({id, status: 'succeeded'})
    await expect(mcp.client.readResource({uri: 'drover://task/ghost'})).rejects.toThrow(/no such task/)

    // A task coming or going changes the list.
    let listChanged = 0
    const {ResourceListChangedNotificationSchema} = await import('@modelcontextprotocol/sdk/types.js')
    mcp.client.setNotificationHandler(ResourceListChangedNotificationSchema, () => void listChanged++)
    await mcp.call('start_task', {shell: 'exit 0'})
    await waitFor(() => listChanged > 0, {message: 'resources/list_changed'})
  })

  it('refuses an unusable state dir before serving: one line on stderr, exit 5', async () => {
    const stateDir = makeStateDir()
    const file = path.join(stateDir, 'not-a-dir')
    writeFileSync(file, '')
    const result = await drover(stateDir, ['mcp', '--state-dir', file])
    expect(result.exitCode).toBe(5)
    expect(result.stdout).toBe('')
    expect(result.stderr.trim().split('\n')).toHaveLength(1)
  })
})
