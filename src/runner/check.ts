// A task's check (`start --check CMD`, config.json's `check`): a shell command
// run in the task's cwd — its worktree — once a run has ended with work to
// judge, its exit code and the end of its output recorded on the task, so the
// attempts of a fan-out can be compared by what their work does, not only by
// how their agents ended (`drover compare`).
//
// It is a consumer of the final status, as the exit hooks are: the exit-hook
// supervisor (exit-hooks.ts) runs it first, under the same claim, so it runs
// once per run that ended, never delays the final record or the next `start`,
// and is fired again by `list` when its writer died before the spawn. The
// exit hooks then see the record with the check's result. Its result is
// written under the task lock (the runner is gone by then) onto the run it
// checked; a new run opened meanwhile keeps its record, and the check stays
// in the journal (`check` events).
//
// While it runs, the result names the process running it (`checker`) and the
// check's processes carry a mark of their own: a check whose process was
// killed (SIGKILL, a restart) would read "running" for ever, so a reader that
// finds its checker gone stops what it left and records it as interrupted
// (settleAbandonedCheck: `compare`, `status`).

import {spawn} from 'node:child_process'
import {existsSync} from 'node:fs'
import {formatDuration} from '../base/parse.js'
import {identityState, processStartTime, shellCommand, signalChildGroup} from '../platform/platform.js'
import {isFinalStatus, type CheckResult, type TaskRecord} from '../state/record.js'
import {appendEvent, readRecord, taskPaths} from '../state/store.js'
import {commitRecord} from './commit-record.js'

export const DEFAULT_CHECK_TIMEOUT_MS = 10 * 60_000
/** The end of a check's output kept on the record: a test run's verdict is at its end. */
export const CHECK_OUTPUT_BYTES = 8192
const KILL_AFTER_MS = 5000
const OUTPUT_AFTER_EXIT_MS = 2000

/**
 * Whether the run the record ended is to be checked: the task has a check,
 * and the run ended with work to judge — not cancelled (thrown away) nor
 * skipped (never ran) — and has no result yet.
 */
export function checkDue(record: TaskRecord): boolean {
  const check = record.check
  if (!check || !isFinalStatus(record.status) || record.status === 'cancelled' || record.status === 'skipped') return false
  return check.result?.run !== record.runs.length
}

/** The last `limit` bytes of a stream's chunks, and how many there were in all. */
class Tail {
  private chunks: Buffer[] = []
  private held = 0
  total = 0

  constructor(private readonly limit: number) {}

  add(chunk: Buffer): void {
    this.total += chunk.length
    this.chunks.push(chunk)
    this.held += chunk.length
    while (this.chunks.length > 1 && this.held - this.chunks[0].length >= this.limit) this.held -= this.chunks.shift()!.length
  }

  text(): string {
    const all = Buffer.concat(this.chunks)
    // cut at a character's start, so no half of one shows
    let from = Math.max(0, all.length - this.limit)
    while (from < all.length && (all[from] & 0xc0) === 0x80) from++
    return all.subarray(from).toString('utf8')
  }
}

/** What marks the processes of a run's check: unique per state dir, task and run. */
const checkMark = (stateDir: string, id: number, run: number): Record<string, string> => ({DROVER_CHECK_OF: `${taskPaths(stateDir, id).control}#${run}`})

/** Runs the check of the run `record` ended, recording it as it starts and once it is over. */
export async function runCheck(stateDir: string, record: TaskRecord, env: NodeJS.ProcessEnv): Promise<void> {
  const check = record.check!
  const run = record.runs.length
  const startedAt = new Date().toISOString()
  const base = {run, exitCode: null, signal: null, reason: null, output: '', outputBytes: 0, startedAt, endedAt: null}
  const me = processStartTime(process.pid)
  const checker = me === null ? null : {pid: process.pid, startTime: me}
  if ((await recordResult(stateDir, record.id, run, {...base, status: 'running', checker})) === null) return
  const markedEnv = {...env, ...checkMark(stateDir, record.id, run)}
  const result = await execute(check.command, existsSync(record.cwd) ? record.cwd : null, markedEnv, check.timeoutMs ?? DEFAULT_CHECK_TIMEOUT_MS)
  const done: CheckResult = {...base, ...result, endedAt: new Date().toISOString(), checker: null}
  await recordResult(stateDir, record.id, run, done)
  try {
    appendEvent(taskPaths(stateDir, record.id), {event: 'check', run, status: done.status, exitCode: done.exitCode, signal: done.signal, ...(done.reason ? {reason: done.reason} : {})})
  } catch {
    // a full disk: the record says it
  }
}

type Outcome = Pick<CheckResult, 'status' | 'exitCode' | 'signal' | 'reason' | 'output' | 'outputBytes'>

/** The command through the user's shell, in its own process group (its timeout stops what it started too). */
function execute(command: string, cwd: string | null, env: NodeJS.ProcessEnv, timeoutMs: number): Promise<Outcome> {
  const failed = (reason: string): Outcome => ({status: 'failed', exitCode: null, signal: null, reason, output: '', outputBytes: 0})
  if (cwd === null) return Promise.resolve(failed('its working directory is gone'))
  return new Promise((resolve) => {
    const [program, ...args] = shellCommand(command)
    const tail = new Tail(CHECK_OUTPUT_BYTES)
    let child
    try {
      child = spawn(program, args, {cwd, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true, windowsHide: true})
    } catch (error) {
      resolve(failed(`could not start: ${(error as Error).message}`))
      return
    }
    child.stdout?.on('data', (chunk: Buffer) => tail.add(chunk))
    child.stderr?.on('data', (chunk: Buffer) => tail.add(chunk))
    let timedOut = false
    let exited = false
    child.once('exit', () => {
      exited = true
      // Its result is in. What it left holding its output (a setsid child) gets a moment to finish
      // writing, not the whole timeout: then the pipes are let go and the output is what came.
      setTimeout(() => {
        child.stdout?.destroy()
        child.stderr?.destroy()
      }, OUTPUT_AFTER_EXIT_MS).unref()
    })
    // Its output is read to the end ('close', below), which a background job of the check may hold
    // open after the check itself exited: its group is signalled only while it is still the check's.
    const signalGroup = (signal: 'SIGTERM' | 'SIGKILL') => signalChildGroup(child.pid, exited, signal)
    const term = setTimeout(() => {
      timedOut = true
      signalGroup('SIGTERM')
    }, timeoutMs)
    const kill = setTimeout(() => signalGroup('SIGKILL'), timeoutMs + KILL_AFTER_MS)
    const finish = (outcome: Outcome) => {
      clearTimeout(term)
      clearTimeout(kill)
      resolve(outcome)
    }
    child.once('error', (error) => finish(failed(`could not start: ${error.message}`)))
    // 'close', not 'exit': the output read to its end
    child.once('close', (code, signal) => {
      const output = {output: tail.text(), outputBytes: tail.total}
      if (timedOut) finish({status: 'failed', exitCode: code, signal, reason: `timed out after ${formatDuration(timeoutMs)}`, ...output})
      else finish({status: code === 0 ? 'passed' : 'failed', exitCode: code, signal, reason: null, ...output})
    })
  })
}

/**
 * Writes the check's result onto the record, under the task lock, when the
 * record still ends the run checked; false when it does not (a new run was
 * opened, the task removed, `still` says no): then the check is not run, or
 * not recorded there. Resolves to the record written, else null.
 */
async function recordResult(stateDir: string, id: number, run: number, result: CheckResult, still: (now: TaskRecord) => boolean = () => true): Promise<TaskRecord | null> {
  // Loaded only here, as settle.ts loads it: the lock module is no runner's everyday load.
  const {acquireTaskLock} = await import('../state/lock.js')
  let release
  try {
    release = await acquireTaskLock(stateDir, id, 30_000)
  } catch {
    return null
  }
  try {
    const read = readRecord(stateDir, id)
    if (!read.ok || !read.record.check || read.record.runs.length !== run || !isFinalStatus(read.record.status) || !still(read.record)) return null
    const next = {...read.record, check: {...read.record.check!, result}}
    commitRecord(stateDir, next, read.record.status, {fire: null})
    return next
  } finally {
    release()
  }
}

/**
 * Whether the record's check reads "running" but the process running it is
 * gone (killed, the machine restarted): it will never end by itself. A
 * checker whose start time cannot be read is given the benefit of the doubt.
 */
export function checkAbandoned(record: TaskRecord): boolean {
  const result = record.check?.result
  if (result?.status !== 'running') return false
  if (result.checker === null) return true
  const state = identityState(result.checker)
  return state === 'gone' || state === 'other'
}

/**
 * Settles a check whose process is gone (checkAbandoned): stops every process
 * it left (by its mark, each checked against its start time), then records
 * it as failed, interrupted, under the task lock. Resolves to the record as
 * it is now.
 */
export async function settleAbandonedCheck(stateDir: string, record: TaskRecord): Promise<TaskRecord> {
  if (!checkAbandoned(record)) return record
  const result = record.check!.result!
  const {stopMarked} = await import('../process/process-tree.js')
  await stopMarked(checkMark(stateDir, record.id, result.run), () => {})
  const settled: CheckResult = {
    ...result,
    status: 'failed',
    reason: 'interrupted: the process running it stopped before it ended',
    endedAt: new Date().toISOString(),
    checker: null,
  }
  const sameCheck = (now: TaskRecord) => now.check?.result?.status === 'running' && now.check.result.startedAt === result.startedAt
  const written = await recordResult(stateDir, record.id, result.run, settled, sameCheck)
  if (written) {
    try {
      appendEvent(taskPaths(stateDir, record.id), {event: 'check', run: result.run, status: 'failed', exitCode: null, signal: null, reason: settled.reason})
    } catch {
      // a full disk: the record says it
    }
    return written
  }
  const read = readRecord(stateDir, record.id)
  return read.ok ? read.record : record
}
