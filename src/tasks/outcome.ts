// How a task's outcome is worded for people, in one place so that list,
// status, stop, cancel, drain and prune say it alike: the status, then only
// what the recorded reason adds to it ("stopped (by request)", never
// "stopped (stopped by request)"). JSON keeps the raw reason.

import type {CheckResult, EndCause, TaskStatus} from '../state/record.js'

/** What the reason says beyond the status word, or null when it says nothing more. */
export function reasonDetail(status: TaskStatus | 'corrupt', reason: string | null): string | null {
  if (!reason || reason === status) return null
  let detail = reason
  if (detail.startsWith(`${status} `) || detail.startsWith(`${status}, `)) detail = detail.slice(status.length).replace(/^,? /, '')
  // "by request (runner was gone)" inside parentheses of its own reads as one clause.
  return detail.replace(/ \(([^()]*)\)$/, ', $1')
}

/** "failed (exit 3)", "stopped (by request)", "drained (killed after 10 s)", "succeeded". */
export function describeOutcome(status: TaskStatus, reason: string | null): string {
  const detail = reasonDetail(status, reason)
  return detail ? `${status} (${detail})` : status
}

const two = (n: number) => String(n).padStart(2, '0')
/** HH:MM:SS in local time, as every human view writes times (the record's are UTC). */
function localClock(iso: string): string {
  const d = new Date(iso)
  return Number.isNaN(d.getTime()) ? iso : `${two(d.getHours())}:${two(d.getMinutes())}:${two(d.getSeconds())}`
}

/** The policies a failed run is labelled by, as the table words them. */
const POLICY_LABEL: Partial<Record<EndCause, string>> = {timeout: 'timeout', idle: 'idle', 'output-limit': 'output limit'}

/**
 * The short form for a table cell: the status with the one fact that tells
 * outcomes apart — the exit code, the signal, the limit that stopped it.
 */
export function outcomeLabel(task: {
  status: TaskStatus
  /** why the run ended: what tells the outcomes apart (the reason is never read). */
  cause?: EndCause | null
  /** a job waiting in its engine's own queue (Slurm). */
  engineWait?: {engine: string; reason: string} | null
  exitCode: number | null
  signal: string | null
  forced?: boolean
  queue?: string | null
  position?: number | null
  queuePaused?: boolean
  attempt?: number
  retryMax?: number
  retryAt?: string | null
}): string {
  const {status} = task
  switch (status) {
    case 'queued': {
      // waiting in the engine's own queue (Slurm): its reason, e.g. `queued (Slurm: Resources)`
      if (task.engineWait) return `queued (${task.engineWait.engine}: ${task.engineWait.reason})`
      if (task.retryAt) return `queued (retry ${task.attempt}/${(task.retryMax ?? 0) + 1} at ${localClock(task.retryAt)})`
      const paused = task.queuePaused ? ', paused' : ''
      if (task.queue && task.position) return `queued (#${task.position} in ${task.queue}${paused})`
      return task.queue ? `queued (${task.queue}${paused})` : 'queued (after)'
    }
    case 'skipped':
      return 'skipped'
    case 'failed': {
      const policy = task.cause ? POLICY_LABEL[task.cause] : undefined
      if (policy) return `failed (${policy})`
      if (task.exitCode !== null) return `failed (${task.exitCode})`
      if (task.signal) return `failed (${task.signal})`
      if (task.cause === 'not-found') return 'failed (not found)'
      return 'failed'
    }
    case 'stopped':
      return task.cause === 'stop-killed' ? 'stopped (killed)' : 'stopped'
    case 'drained':
      // a budget drain says so: it is resumed differently (with a higher budget)
      if (task.cause === 'budget') return task.forced ? 'drained (budget, forced)' : 'drained (budget)'
      return task.forced ? 'drained (forced)' : 'drained'
    default:
      return status
  }
}

/**
 * A check's result in a few words, as `status` and `compare` show it:
 * `passed`, `failed (exit 1)`, `failed (timed out after 10m00s)`, `running`.
 */
export function checkLabel(result: Pick<CheckResult, 'status' | 'exitCode' | 'signal' | 'reason'> | null): string {
  if (result === null) return 'not run yet'
  if (result.status !== 'failed') return result.status
  const why = result.reason ?? (result.signal ? `killed by ${result.signal}` : result.exitCode !== null ? `exit ${result.exitCode}` : null)
  return why ? `failed (${why})` : 'failed'
}
