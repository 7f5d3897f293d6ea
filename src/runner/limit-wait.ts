// `--on-limit wait`: a run that ended on a provider's usage limit is not the
// end. The task's own runner records `waiting` with the time the limit lifts,
// sleeps (there is no daemon), answers stop/cancel/drain meanwhile, and at
// that time hands the task to `drover resume`, which continues the agent's
// own conversation exactly as a person's resume would.

import {spawn} from 'node:child_process'
import {closeSync, existsSync} from 'node:fs'
import path from 'node:path'
import {sessionRefusal} from '../agents/profiles.js'
import type {EndCause, EndingStatus, TaskRecord, TaskStatus} from '../state/record.js'
import type {Committed} from './commit-record.js'
import {selfEntry} from './exit-hooks.js'
import {settle} from './settle.js'
import {profileOf} from '../agents/registry.js'
import {readRequests} from '../state/requests.js'
import {openAppend, readRecord, taskPaths, type TaskPaths} from '../state/store.js'

/** Past the reset time the provider names: our clock and theirs need not agree to the second. */
export const LIMIT_MARGIN_MS = 5_000
/** Without a reset time: 1 min, 2, 4 … up to an hour between tries. */
const BACKOFF_FIRST_MS = 60_000
const BACKOFF_CAP_MS = 3_600_000

/**
 * When the runner should resume a run that ended as `record` says (epoch ms),
 * or null when the run's end stands: not asked to wait, no limit seen, or no
 * session the agent could continue.
 */
export function limitWaitUntil(record: TaskRecord, now = Date.now()): number | null {
  const limit = record.agentInfo?.limit
  if (record.policies.onLimit !== 'wait' || !limit || record.runs.at(-1)?.attached || !profileOf(record.agent) || sessionRefusal(record) !== null) return null
  if (limit.resetAt !== null) return Math.max(Date.parse(limit.resetAt) + LIMIT_MARGIN_MS, now + 1000)
  return now + Math.min(BACKOFF_FIRST_MS * 2 ** (record.limitWaits ?? 0), BACKOFF_CAP_MS)
}

/** What of its runner the wait uses: the record, its writes, its end. */
export interface WaitingRunner {
  stateDir: string
  id: number
  paths: TaskPaths
  record: () => TaskRecord
  commit: (next: TaskRecord, from?: TaskStatus) => Committed
  event: (name: string, extra?: Record<string, unknown>) => void
  finish: (status: EndingStatus, outcome: {cause: EndCause; reason: string; exitCode?: number | null; signal?: string | null}, extra?: Partial<TaskRecord>) => void
  /** a request file answered by the end the runner records. */
  handled: (file: string) => void
  logError: (text: string) => void
}

const TICK_MS = 250
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))

/**
 * Records `waiting` until `until`, answering requests meanwhile (cancel, stop
 * and drain end the task as they would a running one; a `resume` that opened
 * a new run takes it over), then resumes the task through the CLI.
 */
export async function waitForLimit(runner: WaitingRunner, until: number, end: {cause: EndCause; reason: string; exitCode: number | null; signal: string | null}): Promise<void> {
  const untilIso = new Date(until).toISOString()
  const waits = (runner.record().limitWaits ?? 0) + 1
  settle(
    runner.stateDir,
    runner.record(),
    {
      status: 'waiting',
      cause: 'usage-limit',
      reason: `${end.reason}; waiting until ${untilIso}`,
      exitCode: end.exitCode,
      signal: end.signal,
      set: {waitUntil: untilIso, limitWaits: waits},
      event: {until: untilIso, attempt: waits},
    },
    {entry: selfEntry(), commit: runner.commit},
  )
  const runs = runner.record().runs.length
  const ended = {waitUntil: null}
  for (;;) {
    const requests = readRequests(runner.paths)
    for (const {file} of requests) runner.handled(file)
    const kinds = new Set(requests.map(({request}) => request.kind))
    if (kinds.has('cancel')) return finishWaiting(runner, runs, 'cancelled', {cause: 'cancel', reason: 'cancelled by request while waiting for a usage limit'}, {...ended, desired: 'stopped'})
    if (kinds.has('stop')) return finishWaiting(runner, runs, 'stopped', {cause: 'stop', reason: 'stopped by request while waiting for a usage limit'}, {...ended, desired: 'stopped'})
    if (kinds.has('drain')) {
      const record = runner.record()
      const checkpoint = {profile: record.agent, sessionId: record.agentInfo?.sessionId ?? null, sessionDir: runner.paths.session, forced: false, mode: 'cooperative' as const, tookMs: 0, at: new Date().toISOString()}
      return finishWaiting(runner, runs, 'drained', {cause: 'drain', reason: 'drained while waiting for a usage limit'}, {...ended, checkpoint})
    }
    // `drover resume` cut the wait short: the task is the next run's now.
    if (resumedElsewhere(runner, runs)) return
    if (Date.now() >= until) break
    await sleep(Math.min(TICK_MS, Math.max(10, until - Date.now())))
  }
  const problem = await resumeThroughCli(runner.stateDir, runner.id)
  if (problem) {
    runner.logError(`drover runner: could not resume task ${runner.id} after its usage limit: ${problem}\n`)
    const reason = `${end.reason}; the usage limit lifted but the resume failed: ${problem}`
    await finishWaiting(runner, runs, 'failed', {cause: end.cause, reason, exitCode: end.exitCode, signal: end.signal}, ended)
  }
}

function resumedElsewhere(runner: WaitingRunner, runs: number): boolean {
  const read = readRecord(runner.stateDir, runner.id)
  return !read.ok || read.record.status !== 'waiting' || read.record.runs.length !== runs
}

/** Ends a wait under the task lock, which `resume` also takes: a resume that won the race is left alone. */
async function finishWaiting(
  runner: WaitingRunner,
  runs: number,
  status: EndingStatus,
  outcome: {cause: EndCause; reason: string; exitCode?: number | null; signal?: string | null},
  extra: Partial<TaskRecord>,
): Promise<void> {
  // Loaded only here: the lock module brings node:crypto, ~2 MB of RSS that
  // every runner would otherwise carry for a moment most never reach.
  const {acquireLock, taskLockPath} = await import('../state/lock.js')
  let release: (() => void) | null = null
  try {
    release = await acquireLock(taskLockPath(runner.stateDir, runner.id), {waitMs: 10_000})
  } catch {
    // the lock is stuck: the record is still this runner's to write
  }
  try {
    if (!resumedElsewhere(runner, runs)) runner.finish(status, outcome, extra)
  } finally {
    release?.()
  }
}

/** drover's own CLI beside this runner (dist/runner.cjs → bin/run.js), or null. */
function droverBin(): string | null {
  let dir = path.dirname(process.argv[1] ?? '')
  for (let i = 0; i < 4; i++) {
    const bin = path.join(dir, 'bin', 'run.js')
    if (existsSync(bin)) return bin
    dir = path.dirname(dir)
  }
  return null
}

/**
 * Runs `drover resume ID` and resolves when it is done (the new run is
 * running, or refused): it takes the task lock, learns the agent's flags and
 * starts the next runner. Its messages go to runner.log.
 */
function resumeThroughCli(stateDir: string, id: number): Promise<string | null> {
  const bin = droverBin()
  if (!bin) return Promise.resolve('drover itself was not found beside its runner')
  const log = openAppend(taskPaths(stateDir, id).runnerLog)
  return new Promise((resolve) => {
    try {
      const child = spawn(process.execPath, [bin, 'resume', String(id), '--state-dir', stateDir, '-q'], {
        stdio: ['ignore', log, log],
        windowsHide: true,
      })
      child.once('error', (error) => resolve(error.message))
      child.once('exit', (code) => resolve(code === 0 ? null : `drover resume exited ${code}`))
    } catch (error) {
      resolve((error as Error).message)
    } finally {
      closeSync(log)
    }
  })
}
