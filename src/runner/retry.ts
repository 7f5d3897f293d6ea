// Retries: whether a run that ended is tried again, and when. Only failed
// exits are (a non-zero exit, a signal from outside, an unknown exit of an
// adopted worker), never a stop, cancel or drain, never a command that could
// not start, and a --timeout only with --retry-on timeout. The delay doubles
// with each attempt, with ±20 % jitter so tasks that failed together (a rate
// limit) do not all come back at the same moment.

import type {EndCause, TaskRecord} from '../state/record.js'

export const DEFAULT_RETRY_DELAY_MS = 1000
const MAX_DELAY_MS = 3_600_000

/** Causes of a failed run worth trying again: the program's own failure, not a policy's or drover's. */
const RETRIED: ReadonlySet<EndCause | null> = new Set<EndCause | null>(['exit', 'signal', 'exit-unknown', 'agent-error', 'usage-limit'])

export function retryable(ended: TaskRecord): boolean {
  if (ended.status !== 'failed' || ended.attempt > ended.retryMax) return false
  if (ended.worker === null) return false // never ran: the same again would fail the same way
  if (ended.runs.at(-1)?.attached) return false // a person's session, ended as they ended it
  if (ended.cause === 'timeout') return ended.retryOnTimeout
  return RETRIED.has(ended.cause)
}

/** The delay before attempt `attempt + 1`. */
export function retryDelayMs(ended: Pick<TaskRecord, 'attempt' | 'retryDelayMs'>, random = Math.random): number {
  const base = (ended.retryDelayMs ?? DEFAULT_RETRY_DELAY_MS) * 2 ** (ended.attempt - 1)
  return Math.round(Math.min(MAX_DELAY_MS, base) * (0.8 + 0.4 * random()))
}
