// The runner's own policies end to end — --timeout, --idle-timeout, --max-output —
// and `start ID|NAME`: a stopped, failed or lost task run again as a new run
// with the same command, cwd and env, its output appended after a separator.

import {mkdtempSync, readFileSync, rmSync, statSync} from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import {afterEach, describe, expect, it} from 'vitest'
import {cleanupStateDirs, drover, fixture, isAlive, json, makeStateDir, readOutput, readTask, waitFor} from '../helpers/cli.js'

const node = process.execPath
const FINAL = ['succeeded', 'failed', 'stopped', 'cancelled', 'drained', 'lost']
const extraDirs: string[] = []

afterEach(() => {
  cleanupStateDirs()
  for (const dir of extraDirs.splice(0)) rmSync(dir, {recursive: true, force: true})
})

async function startTask(dir: string, command: string[], flags: string[] = []): Promise<number> {
  const result = await drover(dir, ['start', '--json', ...flags, '--', ...command])
  expect(result.exitCode, result.stderr).toBe(0)
  return json(result).id
}

const waitFinal = (dir: string, id: number, timeout = 30_000) =>
  waitFor(() => FINAL.includes(readTask(dir, id).status) && readTask(dir, id), {timeout, message: `task ${id} to end`})

const runtimeMs = (record: any) => Date.parse(record.endedAt) - Date.parse(record.startedAt)

describe('policies', () => {
  it('--timeout: a graded stop when the run is too long, status failed, reason timeout', async () => {
    const dir = makeStateDir()
    const id = await startTask(dir, [node, fixture('sleeper.mjs')], ['--timeout', '1s'])
    const record = await waitFinal(dir, id)
    expect(record).toMatchObject({status: 'failed', reason: 'timeout', signal: 'SIGTERM', exitCode: null})
    expect(runtimeMs(record)).toBeGreaterThanOrEqual(1000)
    expect(record.policies.timeoutMs).toBe(1000)
  })

  it('--idle-timeout: no output growth for that long ends the task, reason idle', async () => {
    const dir = makeStateDir()
    const id = await startTask(dir, [node, fixture('sleeper.mjs')], ['--idle-timeout', '1s'])
    const record = await waitFinal(dir, id)
    expect(record).toMatchObject({status: 'failed', reason: 'idle'})
    expect(runtimeMs(record)).toBeGreaterThanOrEqual(1000)
    expect(readOutput(dir, id)).toMatch(/^sleeper \d+ up\n$/)
  })

  it('--idle-timeout counts output growth, not time: a steadily writing task runs past it', async () => {
    const dir = makeStateDir()
    // 50 lines 100 ms apart: five seconds of output, never two seconds of silence.
    const id = await startTask(dir, [node, fixture('counter.mjs'), '50', '100', '0'], ['--idle-timeout', '2s'])
    const record = await waitFinal(dir, id)
    expect(record).toMatchObject({status: 'succeeded', exitCode: 0, reason: 'exit 0'})
    expect(runtimeMs(record)).toBeGreaterThan(2000)
    expect(readOutput(dir, id)).toContain('line 50\n')
  })

  it('--max-output: when output.log passes the size the task is stopped, reason output limit', async () => {
    const dir = makeStateDir()
    const id = await startTask(dir, [node, fixture('counter.mjs'), '1000000', '1', '0'], ['--max-output', '2KiB'])
    const record = await waitFinal(dir, id)
    expect(record).toMatchObject({status: 'failed', reason: 'output limit', signal: 'SIGTERM'})
    expect(record.policies.maxOutputBytes).toBe(2048)
    expect(statSync(path.join(dir, 'tasks', String(id), 'output.log')).size).toBeGreaterThan(2048)
    expect(readOutput(dir, id)).not.toContain('line 1000000\n')
  })

  it('--max-output is per run: a task stopped by it can be started again', async () => {
    const dir = makeStateDir()
    // Floods only in its first run; later runs print one line and wait.
    const script = "const run = process.env.DROVER_RUN; process.stdout.write((run === '1' ? 'x'.repeat(8192) : '') + `\\nrun ${run} up\\n`); setInterval(() => {}, 60000)"
    const id = await startTask(dir, [node, '-e', script], ['--max-output', '2KiB'])
    expect(await waitFinal(dir, id)).toMatchObject({status: 'failed', reason: 'output limit'})
    const again = await drover(dir, ['start', String(id), '--json'])
    expect(again.exitCode, again.stderr).toBe(0)
    expect(json(again)).toMatchObject({status: 'running', run: 2})
    // The runner checks its policies once before it first looks at requests, so by the time
    // this stop is taken the output cap has been weighed: no policy may have fired for run 2.
    const stop = json(await drover(dir, ['stop', String(id), '-t', '1', '--json'])).results[0]
    expect(stop).toMatchObject({status: 'stopped', reason: 'stopped by request'})
    const events = readFileSync(path.join(dir, 'tasks', String(id), 'events.ndjson'), 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l))
    expect(events.filter((e) => e.run === 2 && e.event === 'policy')).toEqual([])
    expect(events.filter((e) => e.run === 1 && e.event === 'policy')).toEqual([expect.objectContaining({cause: 'output'})])
  })

  it('--max-output defaults to 1 GiB, and 0 means no limit', async () => {
    const dir = makeStateDir()
    const byDefault = await startTask(dir, [node, fixture('counter.mjs'), '1', '1', '0'])
    const unlimited = await startTask(dir, [node, fixture('counter.mjs'), '1', '1', '0'], ['--max-output', '0'])
    expect((await waitFinal(dir, byDefault)).policies.maxOutputBytes).toBe(1024 ** 3)
    expect(await waitFinal(dir, unlimited)).toMatchObject({status: 'succeeded', policies: {maxOutputBytes: null}})
  })
})

describe('start ID|NAME: a new run of a finished task', () => {
  it('runs a stopped task again with the same command, cwd and env; logs shows both runs', async () => {
    const dir = makeStateDir()
    const cwd = mkdtempSync(path.join(os.tmpdir(), 'drover-cwd-'))
    extraDirs.push(cwd)
    const id = await startTask(dir, [node, fixture('control-run.mjs'), '300'], ['--name', 'again', '--cwd', cwd, '-e', 'FOO=bar'])
    const line = (run: number) => `run ${run} cwd=${cwd} FOO=bar\n`
    await waitFor(() => readOutput(dir, id).includes(line(1)), {message: 'run 1 output'})
    expect(json(await drover(dir, ['stop', String(id), '-t', '1', '--json'])).results[0].status).toBe('stopped')
    const firstPid = readTask(dir, id).worker.pid

    const again = await drover(dir, ['start', String(id)])
    expect(again.exitCode, again.stderr).toBe(0)
    expect(again.stdout).toBe(String(id))
    await waitFor(() => readOutput(dir, id).includes(line(2)), {message: 'run 2 output'})
    const record = readTask(dir, id)
    expect(record).toMatchObject({status: 'running', desired: 'running', reason: null, endedAt: null})
    expect(record.worker.pid).not.toBe(firstPid)
    expect(record.runs).toHaveLength(2)
    expect(record.runs[0]).toMatchObject({run: 1, status: 'stopped', exitCode: null, reason: 'stopped by request'})
    expect(record.runs[0].startedAt).toEqual(expect.any(String))
    expect(record.runs[0].endedAt).toEqual(expect.any(String))
    expect(record.runs[1]).toMatchObject({run: 2, status: 'running', endedAt: null, exitCode: null, resumed: false})
    expect(Date.parse(record.runs[1].startedAt)).toBeGreaterThanOrEqual(Date.parse(record.runs[0].endedAt))

    const logs = await drover(dir, ['logs', 'again'])
    expect(logs.exitCode, logs.stderr).toBe(0)
    // (the helper's execa drops the final newline)
    expect(logs.stdout).toMatch(new RegExp(`^${escape(line(1))}\\n── drover: run 2 \\(restart\\) started \\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d [+-]\\d\\d:\\d\\d ──\\n${escape(line(2).trimEnd())}$`))

    // By name too, once it has ended again; the history keeps growing.
    await drover(dir, ['stop', 'again', '-t', '1'])
    expect(readTask(dir, id).runs[1]).toMatchObject({status: 'stopped', endedAt: expect.any(String)})
    expect((await drover(dir, ['start', 'again'])).exitCode).toBe(0)
    await waitFor(() => readOutput(dir, id).includes(line(3)), {message: 'run 3 output'})
    expect(readTask(dir, id).runs.map((r: any) => r.run)).toEqual([1, 2, 3])
  })

  it('refuses with exit 4 while the task runs', async () => {
    const dir = makeStateDir()
    const id = await startTask(dir, [node, fixture('sleeper.mjs')])
    const refused = await drover(dir, ['start', String(id)])
    expect(refused.exitCode).toBe(4)
    expect(refused.stderr).toMatch(/running/)
    const asJson = await drover(dir, ['start', String(id), '--json'])
    expect(asJson.exitCode).toBe(4)
    expect(json(asJson).error).toMatchObject({exitCode: 4})
    expect(readTask(dir, id).runs).toHaveLength(1)
  })

  it('runs a failed task again, keeping each run\'s exit code', async () => {
    const dir = makeStateDir()
    const id = await startTask(dir, [node, fixture('counter.mjs'), '1', '1', '3'])
    expect(await waitFinal(dir, id)).toMatchObject({status: 'failed', exitCode: 3})
    expect((await drover(dir, ['start', String(id)])).exitCode).toBe(0)
    const record = await waitFor(() => readTask(dir, id).runs.length === 2 && FINAL.includes(readTask(dir, id).status) && readTask(dir, id), {
      timeout: 30_000,
      message: 'run 2 to end',
    })
    expect(record.runs.map((r: any) => [r.run, r.status, r.exitCode])).toEqual([
      [1, 'failed', 3],
      [2, 'failed', 3],
    ])
    expect(readOutput(dir, id)).toMatch(/^line 1\n\n── drover: run 2 \(restart\) started \d{4}-\d\d-\d\d \d\d:\d\d:\d\d [+-]\d\d:\d\d ──\nline 1\n$/)
  })

  it('runs a lost task again once its worker is gone, and refuses while its worker lives on (adopted)', async () => {
    const dir = makeStateDir()
    const id = await startTask(dir, [node, fixture('sleeper.mjs')])
    const {worker} = readTask(dir, id)
    const runnerPid = () => JSON.parse(readFileSync(path.join(dir, 'tasks', String(id), 'runner.json'), 'utf8')).pid as number
    const first = runnerPid()
    process.kill(first, 'SIGKILL')
    await waitFor(() => !isAlive(first), {timeout: 10_000, message: 'the runner to die'})

    // The worker still runs: a new runner adopts it, and it cannot be started again.
    const refused = await drover(dir, ['start', String(id)])
    expect(refused.exitCode).toBe(4)
    expect(refused.stderr).toContain(`task ${id} is running`)
    expect(json(await drover(dir, ['status', String(id), '--json']))).toMatchObject({status: 'running', workerAlive: true, runnerAlive: true})

    const adopter = runnerPid()
    process.kill(adopter, 'SIGKILL')
    process.kill(-worker.pid, 'SIGKILL')
    await waitFor(() => !isAlive(adopter), {timeout: 10_000, message: 'the adopting runner to die'})
    await waitFor(() => !isAlive(worker.pid), {timeout: 10_000, message: 'the worker to die'})
    const again = await drover(dir, ['start', String(id), '--json'])
    expect(again.exitCode, again.stderr).toBe(0)
    expect(json(again)).toMatchObject({status: 'running', run: 2})
    expect(readTask(dir, id).runs.map((r: any) => r.status)).toEqual(['lost', 'running'])
  })
})

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
}
