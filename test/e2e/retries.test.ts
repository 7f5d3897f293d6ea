// Retries end to end: a failed run is tried again up to N times, each attempt
// a new run of the same task, with a doubling delay; stops, cancels and limits
// are never retried (a timeout only with --retry-on timeout); the delay holds
// no queue slot; hooks fire once, at the real end.

import {existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync} from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import {afterEach, describe, expect, it, vi} from 'vitest'
import {startOk, taskEvents, cleanupStateDirs, drover, isAlive, json, killLeftovers, leftoverList, makeStateDir, readTask, waitFor} from '../helpers/cli.js'

vi.setConfig({testTimeout: 120_000})
const leftovers = leftoverList()
afterEach(() => {
  cleanupStateDirs()
  killLeftovers(leftovers)
})

const isFinal = (s: string) => !['queued', 'starting', 'running', 'stopping'].includes(s)

/** The runner of a task's run, read from runner.json while the run lasts (it waits out the retry's delay after, named nowhere). */
async function runnerOf(dir: string, id: number): Promise<number> {
  const file = path.join(dir, 'tasks', String(id), 'runner.json')
  const pid = await waitFor(() => existsSync(file) && (JSON.parse(readFileSync(file, 'utf8')) as {pid: number}).pid, {message: 'runner.json'})
  leftovers.push(pid)
  return pid
}

/** A task whose first run fails after 1.5 s, then waits an hour to retry; its runner's pid. */
async function waitingToRetry(dir: string): Promise<{id: number; runner: number}> {
  const id = await startOk(dir, ['--name', 'rw', '--retry', '1', '--retry-delay', '1h', '--', 'sh', '-c', 'sleep 1.5; exit 1'])
  const runner = await runnerOf(dir, id)
  await waitFor(() => readTask(dir, id).status === 'queued' && readTask(dir, id).retryAt !== null, {message: 'waiting to retry'})
  expect(isAlive(runner)).toBe(true) // it waits out the delay, to start the attempt on time
  return {id, runner}
}

describe('retries', () => {
  it('a failing task runs 1 + N times with a doubling delay, shows its attempt, and ends with the last exit code; hooks fire once', async () => {
    const dir = makeStateDir()
    const id = await startOk(dir, ['--retry', '2', '--retry-delay', '1s', '--on-exit', 'echo "$DROVER_STATUS"', '--', 'sh', '-c', 'exit 3'])
    const seen = await waitFor(() => {
      const t = readTask(dir, id)
      return t.status === 'queued' && t.retryAt ? t : null
    })
    const shown = json(await drover(dir, ['status', String(id), '--json']))
    expect(shown).toMatchObject({retryMax: 2})
    expect(shown.attempt).toBeGreaterThanOrEqual(2)
    expect(seen.runs[0]).toMatchObject({status: 'failed', exitCode: 3})
    const waited = await drover(dir, ['wait', String(id)])
    expect(waited.exitCode).toBe(3)
    const task = readTask(dir, id)
    expect(task).toMatchObject({status: 'failed', exitCode: 3, attempt: 3})
    expect(task.runs.map((r: any) => r.status)).toEqual(['failed', 'failed', 'failed'])
    const list = (await drover(dir, ['status', String(id)])).stdout
    expect(list).toMatch(/attempt\s+3 of 3/)
    // Delays: 1 s ±20 %, then 2 s ±20 %.
    const all = taskEvents(dir, id)
    const delays = all.filter((e) => e.event === 'retry').map((e) => Date.parse(e.at) - Date.parse(e.ts))
    expect(delays).toHaveLength(2)
    expect(delays[0]).toBeGreaterThanOrEqual(790)
    expect(delays[0]).toBeLessThanOrEqual(1210)
    expect(delays[1]).toBeGreaterThanOrEqual(1590)
    expect(delays[1]).toBeLessThanOrEqual(2410)
    // Each attempt started no earlier than its time.
    const starts = all.filter((e) => e.event === 'started').map((e) => Date.parse(e.ts))
    const ats = all.filter((e) => e.event === 'retry').map((e) => Date.parse(e.at))
    expect(starts[1]).toBeGreaterThanOrEqual(ats[0])
    expect(starts[2]).toBeGreaterThanOrEqual(ats[1])
    await waitFor(() => existsSync(path.join(dir, 'tasks', String(id), 'hooks.log')) && readFileSync(path.join(dir, 'tasks', String(id), 'hooks.log'), 'utf8') === 'failed\n')
    await drover(dir, ['list'])
    expect(readFileSync(path.join(dir, 'tasks', String(id), 'hooks.log'), 'utf8')).toBe('failed\n')
  })

  it('status shows the retry delay and the exit hook (JSON too), and its times in local 24-hour form', async () => {
    const dir = makeStateDir()
    const id = await startOk(dir, ['--retry', '2', '--retry-delay', '1h', '--retry-on', 'timeout', '--on-exit', 'echo "$DROVER_STATUS"', '--hook-timeout', '5s', '--', 'sh', '-c', 'exit 3'])
    const queued = await waitFor(() => {
      const t = readTask(dir, id)
      return t.status === 'queued' && t.retryAt ? t : null
    })
    const shown = json(await drover(dir, ['status', String(id), '--json']))
    expect(shown).toMatchObject({retryMax: 2, retryDelayMs: 3_600_000, retryOnTimeout: true, onExit: 'echo "$DROVER_STATUS"', hookTimeoutMs: 5000, retryAt: queued.retryAt})
    expect(shown.retryAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/)
    const text = (await drover(dir, ['status', String(id)], {env: {TZ: 'Asia/Kolkata'}})).stdout
    expect(text).toMatch(/^retry +up to 2 times after a failed run, 1h00m before the first, doubling each time; a run stopped by --timeout too$/m)
    expect(text).toMatch(/^on exit +echo "\$DROVER_STATUS" \(stopped after 5s; output in hooks\.log\)$/m)
    // local time (UTC+05:30 here), 24-hour, no ISO string anywhere
    const local = new Date(Date.parse(queued.retryAt) + 5.5 * 3_600_000).toISOString().replace('T', ' ').slice(0, 19)
    expect(text).toContain(`next starts ${local} (in `)
    expect(text).not.toMatch(/\d\dT\d\d:/)
    expect(text).toMatch(new RegExp(`^reason +waiting for attempt 2 of 3 at ${local}`, 'm'))
    await drover(dir, ['cancel', String(id)])
  })

  it('stops retrying once an attempt succeeds', async () => {
    const dir = makeStateDir()
    const counter = path.join(mkdtempSync(path.join(os.tmpdir(), 'drover-retry-')), 'n')
    const script = `n=$(cat '${counter}' 2>/dev/null || echo 0); n=$((n+1)); echo $n > '${counter}'; [ $n -ge 2 ]`
    const id = await startOk(dir, ['--retry', '5', '--retry-delay', '0s', '--shell', script])
    await waitFor(() => isFinal(readTask(dir, id).status) && readTask(dir, id).runs.length >= 2)
    expect(readTask(dir, id)).toMatchObject({status: 'succeeded', attempt: 2})
    expect(readFileSync(counter, 'utf8').trim()).toBe('2')
  })

  it('never retries a stop, a cancel or a limit; a timeout only with --retry-on timeout', async () => {
    const dir = makeStateDir()
    const stopped = await startOk(dir, ['--retry', '3', '--', 'sleep', '30'])
    expect((await drover(dir, ['stop', String(stopped), '--time', '1s'])).exitCode).toBe(0)
    const cancelled = await startOk(dir, ['--retry', '3', '--', 'sleep', '30'])
    expect((await drover(dir, ['cancel', String(cancelled)])).exitCode).toBe(0)
    const timeout = await startOk(dir, ['--retry', '3', '--timeout', '1s', '--', 'sleep', '30'])
    const retriedTimeout = await startOk(dir, ['--retry', '1', '--retry-delay', '0s', '--retry-on', 'timeout', '--timeout', '1s', '--', 'sleep', '30'])
    await waitFor(() => [timeout, retriedTimeout].every((id) => isFinal(readTask(dir, id).status)), {timeout: 60_000})
    expect(readTask(dir, stopped)).toMatchObject({status: 'stopped', attempt: 1})
    expect(readTask(dir, stopped).runs).toHaveLength(1)
    expect(readTask(dir, cancelled).runs).toHaveLength(1)
    expect(readTask(dir, timeout).runs).toHaveLength(1)
    expect(readTask(dir, retriedTimeout).runs.map((r: any) => r.reason)).toEqual([expect.stringMatching(/^timeout/), expect.stringMatching(/^timeout/)])
  })

  it('a stop while waiting to retry says so; start ID afterwards starts now, attempts afresh', async () => {
    const dir = makeStateDir()
    const id = await startOk(dir, ['--name', 'rr', '--retry', '3', '--retry-delay', '60s', '--', 'sh', '-c', 'exit 1'])
    await waitFor(() => readTask(dir, id).status === 'queued' && readTask(dir, id).retryAt !== null, {message: 'waiting to retry'})
    expect((await drover(dir, ['stop', 'rr'])).exitCode).toBe(0)
    const stopped = readTask(dir, id)
    expect(stopped).toMatchObject({status: 'stopped', retryAt: null, reason: 'stopped while waiting to retry: attempt 2 of 4 never started (run 1 failed, exit 1)'})
    expect((await drover(dir, ['status', 'rr'])).stdout).not.toMatch(/next starts/)
    const again = await drover(dir, ['start', 'rr'])
    expect(again.exitCode, again.stderr).toBe(0)
    expect(again.stderr).not.toMatch(/queued/)
    // the new run starts at once (not at the old retry's time, a minute away) and fails into its own first retry wait
    await waitFor(() => readTask(dir, id).runs.length >= 4, {timeout: 20_000, message: 'run 3 ran now and its retry waits'})
    const task = readTask(dir, id)
    expect(task.runs[2]).toMatchObject({status: 'failed', exitCode: 1})
    expect(task.attempt).toBe(2)
    expect((await drover(dir, ['cancel', 'rr'])).exitCode).toBe(0)
    expect(readTask(dir, id).reason).toBe('cancelled while waiting to retry: attempt 2 of 4 never started (run 3 failed, exit 1)')
  })

  it('the runner waiting out a retry ends once the task is stopped or cancelled (final: none of its processes may outlive that), or its state dir is gone', async () => {
    for (const end of ['stop', 'cancel'] as const) {
      const dir = makeStateDir()
      const {runner} = await waitingToRetry(dir)
      expect((await drover(dir, [end, 'rw'])).exitCode).toBe(0)
      await waitFor(() => !isAlive(runner), {timeout: 5000, message: `the waiting runner gone after ${end}`})
    }
    const dir = makeStateDir()
    const {runner} = await waitingToRetry(dir)
    rmSync(dir, {recursive: true, force: true, maxRetries: 5, retryDelay: 100})
    await waitFor(() => !isAlive(runner), {timeout: 5000, message: 'the waiting runner gone with its state dir'})
  })

  it('waiting to retry holds no queue slot', async () => {
    const dir = makeStateDir()
    const flag = path.join(mkdtempSync(path.join(os.tmpdir(), 'drover-retry-')), 'b-ran')
    const a = await startOk(dir, ['--queue', 'r', '--retry', '1', '--retry-delay', '4s', '--', 'sh', '-c', 'exit 1'])
    const b = await startOk(dir, ['--queue', 'r', '--', 'sh', '-c', `touch '${flag}'`])
    await waitFor(() => existsSync(flag), {message: 'b ran during a\'s delay'})
    expect(readTask(dir, a)).toMatchObject({status: 'queued', attempt: 2})
    await waitFor(() => isFinal(readTask(dir, a).status), {timeout: 30_000})
    expect(readTask(dir, a).runs).toHaveLength(2)
    expect(readTask(dir, b).status).toBe('succeeded')
    writeFileSync(flag, '')
  })
})
