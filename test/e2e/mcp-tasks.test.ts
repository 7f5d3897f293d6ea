// `drover mcp` running tasks for a client: the real server as a child process,
// driven by the SDK's own Client. Output read page by page with cursors while
// it is written, waits with progress, stop/cancel/drain/resume, and tasks that
// outlive the server and the client.

import {spawn} from 'node:child_process'
import {afterEach, describe, expect, it} from 'vitest'
import {BIN, cleanupStateDirs, drover, fixture, isAlive, json, makeStateDir, readTask, waitFor} from '../helpers/cli.js'
import {closeMcpSessions, startMcp} from '../helpers/mcp.js'

afterEach(async () => {
  await closeMcpSessions()
  cleanupStateDirs()
})

describe('drover mcp: tasks', () => {
  it('reads 10,000 lines incrementally with cursors while they are written, none lost or repeated, then waits for the final record', async () => {
    const stateDir = makeStateDir()
    const mcp = await startMcp(stateDir)
    const started = await mcp.call('start_task', {command: [process.execPath, fixture('mcp-lines.mjs'), '10000'], name: 'lines'})
    expect(started.isError).toBeFalsy()
    const id = started.structuredContent.task.id
    let text = ''
    let cursor = 0
    let pages = 0
    let readWhileRunning = 0
    for (;;) {
      const page = (await mcp.call('read_output', {task: 'lines', cursor, maxBytes: 4096})).structuredContent
      expect(page.offset).toBe(cursor)
      text += page.text
      cursor = page.nextCursor
      pages++
      if (page.status === 'running') readWhileRunning++
      if (page.complete) break
    }
    const lines = text.split('\n')
    expect(lines.pop()).toBe('')
    expect(lines.length).toBe(10_000)
    expect(lines.every((line, i) => line === `line ${i + 1}`)).toBe(true)
    // It was read as it grew, not all at the end.
    expect(pages).toBeGreaterThan(10)
    expect(readWhileRunning).toBeGreaterThan(1)

    const waited = await mcp.call('wait_tasks', {tasks: [id]})
    expect(waited.structuredContent).toMatchObject({ended: [id], pending: [], timedOut: false})
    expect(waited.structuredContent.tasks[0]).toMatchObject({id, status: 'succeeded', exitCode: 0})
    const record = (await mcp.call('get_task', {task: id})).structuredContent.task
    // The worker is gone with the final record; the runner writes it and exits a moment later.
    expect(record).toMatchObject({id, name: 'lines', status: 'succeeded', workerAlive: false})
    let runnerAlive = record.runnerAlive
    await waitFor(async () => !(runnerAlive = (await mcp.call('get_task', {task: id})).structuredContent.task.runnerAlive), {message: 'runner gone after the final record'})
    expect(runnerAlive).toBe(false)
    // The cursor at the end reads nothing more; a tail reads the last lines.
    expect((await mcp.call('read_output', {task: id, cursor})).structuredContent).toMatchObject({text: '', complete: true, more: false})
    expect((await mcp.call('read_output', {task: id, tail: 2})).structuredContent.text).toBe('line 9999\nline 10000\n')
  })

  it("reads an agent's event stream as a transcript, or raw", async () => {
    const stateDir = makeStateDir()
    const mcp = await startMcp(stateDir)
    const home = makeStateDir()
    const command = [process.execPath, fixture('agent-claude.mjs'), '-p', 'count', '--output-format', 'stream-json', '--verbose']
    const started = await mcp.call('start_task', {command, agent: 'claude', env: {HOME: home, FAKE_AGENT_TURNS: '2', FAKE_AGENT_TURN_MS: '10'}})
    const id = started.structuredContent.task.id
    expect((await mcp.call('wait_tasks', {tasks: [id]})).structuredContent.tasks[0]).toMatchObject({status: 'succeeded', agent: 'claude'})
    const transcript = (await mcp.call('read_output', {task: id, cursor: 0})).structuredContent
    expect(transcript.text).toMatch(/^\[session [0-9a-f-]+/)
    expect(transcript.text).toMatch(/^→ Bash /m)
    expect(transcript.text).toMatch(/^\[result: success/m)
    expect(transcript.text).not.toMatch(/"type":/)
    const raw = (await mcp.call('read_output', {task: id, cursor: 0, format: 'raw'})).structuredContent
    expect(raw.text).toMatch(/^\{"type":"system"/)
    // The cursor is a byte offset of the raw log either way.
    expect(transcript.nextCursor).toBe(raw.nextCursor)
    expect(raw.nextCursor).toBe(raw.size)
  })

  it('a 40-line tool result with FAIL on line 20: read_output and `logs --pretty` show its head, tail and the failure', async () => {
    const stateDir = makeStateDir()
    const mcp = await startMcp(stateDir)
    const id = json(await drover(stateDir, ['start', '--json', '--agent', 'claude', '--', process.execPath, fixture('agent-failing-tool.mjs')])).id
    expect((await mcp.call('wait_tasks', {tasks: [id]})).structuredContent.tasks[0]).toMatchObject({status: 'succeeded'})
    const text = (await mcp.call('read_output', {task: id, cursor: 0})).structuredContent.text
    expect(text).toContain(['← ok 1 passes', '  ok 2 passes', '  ok 3 passes', '  … 16 more lines', '  FAIL test/math.test.ts > adds', '  … 17 more lines', '  ok 38 passes'].join('\n'))
    const pretty = await drover(stateDir, ['logs', '--pretty', String(id)])
    expect(pretty.stdout).toContain(['    ok 3 passes', '    … 16 more lines (--full shows them)', '    FAIL test/math.test.ts > adds', '    … 17 more lines (--full shows them)', '    ok 38 passes'].join('\n'))
  })

  it('wait_tasks returns at the first end in "any" mode, reports a timeout without stopping anything, and sends progress', async () => {
    const stateDir = makeStateDir()
    const mcp = await startMcp(stateDir)
    const quick = (await mcp.call('start_task', {command: [process.execPath, fixture('counter.mjs'), '3', '200']})).structuredContent.task.id
    const slow = (await mcp.call('start_task', {command: [process.execPath, fixture('sleeper.mjs')]})).structuredContent.task.id
    const progress: {progress: number; total?: number}[] = []
    const any = await mcp.client.callTool({name: 'wait_tasks', arguments: {tasks: [quick, slow], mode: 'any', timeoutSeconds: 30}}, undefined, {
      onprogress: (p) => progress.push(p),
      timeout: 60_000,
    })
    expect(any.structuredContent).toMatchObject({ended: [quick], pending: [slow], timedOut: false})
    expect(progress).toContainEqual(expect.objectContaining({progress: 1, total: 2}))

    const timedOut = await mcp.call('wait_tasks', {tasks: [slow], timeoutSeconds: 0.5})
    expect(timedOut.structuredContent).toMatchObject({ended: [], pending: [slow], timedOut: true})
    expect(readTask(stateDir, slow).status).toBe('running')
  })

  it('caps every wait at --max-wait, whatever timeoutSeconds asks', async () => {
    const stateDir = makeStateDir()
    const mcp = await startMcp(stateDir, ['--max-wait', '1'])
    const slow = (await mcp.call('start_task', {command: [process.execPath, fixture('sleeper.mjs')]})).structuredContent.task.id
    const began = Date.now()
    const waited = await mcp.call('wait_tasks', {tasks: [slow], timeoutSeconds: 600})
    expect(waited.structuredContent).toMatchObject({ended: [], pending: [slow], timedOut: true})
    // 1 s asked; the bound is generous for a loaded machine, far below the 600 s requested
    expect(Date.now() - began).toBeLessThan(15_000)
    expect(readTask(stateDir, slow).status).toBe('running')
  })

  it('stops, cancels, drains and resumes tasks', async () => {
    const stateDir = makeStateDir()
    const mcp = await startMcp(stateDir)
    const sleeper = {command: [process.execPath, fixture('sleeper.mjs')]}
    const ids: number[] = []
    for (const name of ['s1', 's2', 's3', 's4']) ids.push((await mcp.call('start_task', {...sleeper, name})).structuredContent.task.id)

    const stopped = await mcp.call('stop_task', {task: 's1', graceSeconds: 2})
    expect(stopped.structuredContent.result).toMatchObject({id: ids[0], accepted: true, status: 'stopped', final: true})
    const again = await mcp.call('stop_task', {task: 's1'})
    expect(again.isError).toBeFalsy()
    expect(again.structuredContent.result).toMatchObject({accepted: false, status: 'stopped'})

    const cancelled = await mcp.call('cancel_task', {task: ids[1]})
    expect(cancelled.structuredContent.result).toMatchObject({id: ids[1], accepted: true, status: 'cancelled'})

    // The sleepers ignore STOP: the drain takes its whole grace, with a progress heartbeat meanwhile.
    const heartbeats: {progress: number}[] = []
    const drained = (await mcp.client.callTool({name: 'drain_tasks', arguments: {tasks: ['s3', ids[3]], graceSeconds: 6, killAfterSeconds: 1}}, undefined, {
      onprogress: (p) => heartbeats.push(p),
      timeout: 60_000,
    })) as {structuredContent: {results: {status: string}[]}}
    expect(drained.structuredContent.results.map((r) => r.status)).toEqual(['drained', 'drained'])
    expect(heartbeats.length).toBeGreaterThanOrEqual(1)

    const resumed = await mcp.call('resume_task', {task: 's3'})
    expect(resumed.isError, resumed.content[0]?.text).toBeFalsy()
    expect(resumed.structuredContent.task).toMatchObject({id: ids[2], status: 'running', run: 2})
    // A cancelled task is not resumed: a conflict, exit 4.
    const refused = await mcp.call('resume_task', {task: ids[1]})
    expect(refused).toMatchObject({isError: true, _meta: {exitCode: 4}})

    const all = await mcp.call('drain_tasks', {all: true, graceSeconds: 1, killAfterSeconds: 1})
    expect(all.structuredContent.results).toEqual([expect.objectContaining({id: ids[2], status: 'drained'})])
    // The CLI sees what the server did: the state dir is the only state.
    const listed = json<{id: number; status: string}[]>(await drover(stateDir, ['list', '--all', '--json']))
    expect(listed.map((t) => t.status)).toEqual(['stopped', 'cancelled', 'drained', 'drained'])
  })

  it('a client killed mid-wait ends the server, and the task keeps running', async () => {
    const stateDir = makeStateDir()
    const client = spawn(process.execPath, [fixture('mcp-client-wait.mjs'), BIN, stateDir, fixture('sleeper.mjs')], {stdio: ['ignore', 'pipe', 'inherit']})
    let out = ''
    client.stdout.on('data', (chunk) => (out += chunk))
    const ready = await waitFor(() => /^waiting (\d+) (\d+)$/m.exec(out), {timeout: 30_000, message: 'the client to start a task and wait'})
    const [serverPid, taskId] = [Number(ready[1]), Number(ready[2])]
    expect(isAlive(serverPid)).toBe(true)
    client.kill('SIGKILL')
    // Its stdin closed, the server ends within 1 s (margin for a loaded machine).
    const killedAt = Date.now()
    await waitFor(() => !isAlive(serverPid), {timeout: 5000, message: 'the server to exit'})
    expect(Date.now() - killedAt).toBeLessThan(4000)
    const task = readTask(stateDir, taskId)
    expect(task.status).toBe('running')
    expect(isAlive(task.worker.pid)).toBe(true)
    expect(json(await drover(stateDir, ['status', String(taskId), '--json']))).toMatchObject({status: 'running', workerAlive: true})
  })

  it('closing stdin ends the server within a second', async () => {
    const stateDir = makeStateDir()
    const server = spawn(process.execPath, [BIN, 'mcp', '--state-dir', stateDir], {stdio: ['pipe', 'pipe', 'inherit']})
    let out = ''
    server.stdout.on('data', (chunk) => (out += chunk))
    const init = {jsonrpc: '2.0', id: 1, method: 'initialize', params: {protocolVersion: '2025-06-18', capabilities: {}, clientInfo: {name: 't', version: '1'}}}
    server.stdin.write(JSON.stringify(init) + '\n')
    await waitFor(() => out.includes('"id":1'), {timeout: 30_000, message: 'the initialize answer'})
    const exited = new Promise<number | null>((resolve) => server.on('exit', (code) => resolve(code)))
    const closedAt = Date.now()
    server.stdin.end()
    expect(await exited).toBe(0)
    // The bound is 1 s; the margin is for a loaded 2-core machine.
    expect(Date.now() - closedAt).toBeLessThan(2500)
  })
})
