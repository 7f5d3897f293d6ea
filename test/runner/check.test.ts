// A task's check, run for real in a state dir: its result recorded on the run
// it checked (running first, then passed or failed with its exit code and the
// end of its output), bounded however much it writes, stopped with everything
// it started at its timeout; a run not to be judged (cancelled, skipped) or a
// record that moved on to a new run gets no check; the exit hooks then see
// the check's result.

import {mkdirSync, readFileSync, rmSync} from 'node:fs'
import path from 'node:path'
import {afterEach, describe, expect, it} from 'vitest'
import {prepareStart} from '../../src/api/start-options.js'
import {CHECK_OUTPUT_BYTES, checkAbandoned, checkDue, runCheck, settleAbandonedCheck} from '../../src/runner/check.js'
import {fireExitHooks} from '../../src/runner/exit-hooks.js'
import {runnerEntry} from '../../src/runner/standby.js'
import {beginRun, type TaskRecord} from '../../src/state/record.js'
import {ensureStateDir} from '../../src/state/statedir.js'
import {readEvents, readRecord, taskPaths, writeRecord} from '../../src/state/store.js'
import {newRecord} from '../../src/tasks/launch.js'
import {loadTask} from '../../src/tasks/read.js'
import {cleanupStateDirs, isAlive, makeStateDir, makeTempDir, waitFor} from '../helpers/cli.js'
import {posixOnly} from '../helpers/skips.js'
import {moveTo} from '../helpers/record-moves.js'

afterEach(() => cleanupStateDirs())

/** Task 1, ended `status` in `cwd`, with `check` as its check. */
function ended(stateDir: string, check: string, opts: {status?: 'succeeded' | 'cancelled' | 'drained'; cwd?: string; timeoutMs?: number; onExit?: string} = {}): TaskRecord {
  const cwd = opts.cwd ?? makeTempDir('drover-check-cwd-')
  const spec = prepareStart({command: ['true'], cwd, check, checkTimeoutMs: opts.timeoutMs, onExit: opts.onExit}).spec
  ensureStateDir(stateDir)
  mkdirSync(taskPaths(stateDir, 1).dir, {recursive: true})
  const record = moveTo({...moveTo(newRecord(1, spec), {status: 'running'}), worker: {pid: 4321, startTime: '1'}}, {status: opts.status ?? 'succeeded', exitCode: 0})
  writeRecord(stateDir, record)
  return record
}

const stored = (stateDir: string): TaskRecord => {
  const read = readRecord(stateDir, 1)
  if (!read.ok) throw new Error(read.error)
  return read.record
}

posixOnly('shell lines for checks').describe('a task check', () => {
  it('is due once a run ended with work to judge, not when it was cancelled, nor once it has a result', () => {
    const stateDir = makeStateDir()
    const record = ended(stateDir, 'true')
    expect(checkDue(record)).toBe(true)
    expect(checkDue({...record, status: 'cancelled'})).toBe(false)
    expect(checkDue({...record, status: 'skipped'})).toBe(false)
    expect(checkDue({...record, check: null})).toBe(false)
    expect(checkDue({...record, status: 'running'})).toBe(false)
    const result = {run: 1, status: 'passed' as const, exitCode: 0, signal: null, reason: null, output: '', outputBytes: 0, startedAt: '', endedAt: '', checker: null}
    expect(checkDue({...record, check: {...record.check!, result}})).toBe(false)
    // a later run is checked once it has ended too
    const resumed = moveTo(beginRun({...record, check: {...record.check!, result}}, true), {status: 'running'})
    expect(checkDue(resumed)).toBe(false)
    expect(checkDue(moveTo(resumed, {status: 'failed', exitCode: 1}))).toBe(true)
  })

  it('records running, then passed or failed with its exit code and the end of what it wrote, in the task cwd with the task environment', async () => {
    const stateDir = makeStateDir()
    const record = ended(stateDir, 'pwd; echo "task $DROVER_TASK_ID $DROVER_STATUS run $DROVER_RUN"; echo oops >&2; exit 4')
    let seenRunning = false
    const watching = waitFor(() => (seenRunning = stored(stateDir).check?.result?.status === 'running'), {interval: 5, timeout: 5000}).catch(() => null)
    await runCheck(stateDir, record, {...process.env, DROVER_TASK_ID: '1', DROVER_STATUS: 'succeeded', DROVER_RUN: '1'})
    await watching
    const result = stored(stateDir).check!.result!
    expect(result).toMatchObject({run: 1, status: 'failed', exitCode: 4, signal: null, reason: null, output: `${record.cwd}\ntask 1 succeeded run 1\noops\n`})
    expect(result.outputBytes).toBe(result.output.length)
    expect(Date.parse(result.endedAt!)).toBeGreaterThanOrEqual(Date.parse(result.startedAt))
    expect(seenRunning || stored(stateDir).check!.result!.status === 'failed').toBe(true)
    expect(readEvents(taskPaths(stateDir, 1)).filter((e) => e.event === 'check')).toEqual([expect.objectContaining({run: 1, status: 'failed', exitCode: 4})])
    // the record as it was, but for the check's result
    expect({...stored(stateDir), check: null}).toEqual({...record, check: null})
  })

  it('keeps only the last 8 KiB of a long output, cut at a character, and counts every byte', async () => {
    const stateDir = makeStateDir()
    const record = ended(stateDir, `node -e "process.stdout.write('é'.repeat(20000) + 'THE END')"`)
    await runCheck(stateDir, record, process.env)
    const result = stored(stateDir).check!.result!
    expect(result.status).toBe('passed')
    expect(result.outputBytes).toBe(40000 + 7)
    expect(result.output.endsWith('THE END')).toBe(true)
    expect(Buffer.byteLength(result.output)).toBeLessThanOrEqual(CHECK_OUTPUT_BYTES)
    expect(Buffer.byteLength(result.output)).toBeGreaterThan(CHECK_OUTPUT_BYTES - 2)
    expect(result.output).not.toContain('\uFFFD')
  })

  it('stops a check past its timeout with what it started, and says so', async () => {
    const stateDir = makeStateDir()
    const pidFile = path.join(stateDir, 'child.pid')
    const record = ended(stateDir, `sleep 30 & echo $! > '${pidFile}'; wait`, {timeoutMs: 300})
    const started = Date.now()
    await runCheck(stateDir, record, process.env)
    expect(Date.now() - started).toBeLessThan(10_000)
    expect(stored(stateDir).check!.result).toMatchObject({status: 'failed', reason: 'timed out after 300ms'})
    const child = Number(readFileSync(pidFile, 'utf8'))
    await waitFor(() => !isAlive(child), {message: 'the check\'s own child stopped too'})
  })

  it('ends once the check exited, though a child that left its group holds its output open', async () => {
    const stateDir = makeStateDir()
    const pidFile = path.join(stateDir, 'child.pid')
    const record = ended(stateDir, `setsid sleep 30 & echo $! > '${pidFile}'; echo checked`, {timeoutMs: 60_000})
    const started = Date.now()
    try {
      await runCheck(stateDir, record, process.env)
      expect(Date.now() - started).toBeLessThan(15_000)
      expect(stored(stateDir).check!.result).toMatchObject({status: 'passed', exitCode: 0, output: 'checked\n'})
    } finally {
      process.kill(Number(readFileSync(pidFile, 'utf8')), 'SIGKILL')
    }
  })

  it('fails a check whose working directory is gone, and records nothing on a record that moved on to a new run', async () => {
    const stateDir = makeStateDir()
    const cwd = makeTempDir('drover-check-gone-')
    const record = ended(stateDir, 'true', {cwd})
    rmSync(cwd, {recursive: true, force: true})
    await runCheck(stateDir, record, process.env)
    expect(stored(stateDir).check!.result).toMatchObject({status: 'failed', reason: 'its working directory is gone'})

    const other = makeStateDir()
    const first = ended(other, 'echo never')
    writeRecord(other, beginRun(first, true))
    await runCheck(other, first, process.env)
    expect(stored(other).check!.result).toBeNull()
    expect(readEvents(taskPaths(other, 1)).filter((e) => e.event === 'check')).toEqual([])
  })

  it('runs from the exit-hook supervisor before the exit hooks, which see its result; not for a cancelled run', async () => {
    const stateDir = makeStateDir()
    const seen = path.join(stateDir, 'seen.json')
    const record = ended(stateDir, 'echo checked', {onExit: `cat > '${seen}'`})
    fireExitHooks(stateDir, record, runnerEntry())
    await waitFor(() => {
      try {
        return JSON.parse(readFileSync(seen, 'utf8'))
      } catch {
        return null
      }
    }, {message: 'the exit hook ran', timeout: 15_000})
    expect(JSON.parse(readFileSync(seen, 'utf8')).check.result).toMatchObject({status: 'passed', output: 'checked\n'})

    const cancelled = makeStateDir()
    const log = path.join(cancelled, 'hook.txt')
    const dropped = ended(cancelled, `echo ran > '${log}.check'`, {status: 'cancelled', onExit: `echo hook > '${log}'`})
    fireExitHooks(cancelled, dropped, runnerEntry())
    await waitFor(() => readFileSync(log, 'utf8') === 'hook\n', {message: 'the exit hook ran', timeout: 15_000}).catch(() => null)
    expect(stored(cancelled).check!.result).toBeNull()
    expect(() => readFileSync(`${log}.check`)).toThrow()
  })

  it('reads as interrupted once its process is killed under it: what it started is stopped, and the record says so', async () => {
    const stateDir = makeStateDir()
    const pidFile = path.join(stateDir, 'child.pid')
    const record = ended(stateDir, `sleep 60 & echo $! > '${pidFile}'; wait`)
    fireExitHooks(stateDir, record, runnerEntry())
    const running = await waitFor(() => {
      const result = stored(stateDir).check?.result
      return result?.status === 'running' && readFileSync(pidFile, 'utf8').trim() !== '' ? result : null
    }, {message: 'the check is under way', timeout: 15_000}).catch(() => null)
    expect(running?.checker?.pid).toBeGreaterThan(0)
    expect(running!.checker!.pid).not.toBe(process.pid)
    expect(checkAbandoned(stored(stateDir))).toBe(false)
    const child = Number(readFileSync(pidFile, 'utf8'))
    process.kill(running!.checker!.pid, 'SIGKILL')
    await waitFor(() => checkAbandoned(stored(stateDir)), {message: 'the checker is gone'})
    // the check's own process outlived it (its own group): still running, for now
    expect(isAlive(child)).toBe(true)
    // `status` (loadTask) settles it as it reads it
    const read = await loadTask(stateDir, '1')
    if (!read.ok) throw new Error(read.error)
    const settled = read.record
    expect(settled.check!.result).toMatchObject({status: 'failed', reason: expect.stringMatching(/^interrupted/), checker: null})
    expect(stored(stateDir).check!.result).toEqual(settled.check!.result)
    await waitFor(() => !isAlive(child), {message: "the check's leftover child stopped"})
    expect(readEvents(taskPaths(stateDir, 1)).filter((e) => e.event === 'check')).toEqual([expect.objectContaining({status: 'failed', reason: expect.stringMatching(/^interrupted/)})])
    // settled once: a second look changes nothing
    expect(await settleAbandonedCheck(stateDir, settled)).toEqual(settled)
  })
})
