// How a run ended, from what the runner saw: the final status, reason, exit
// code or signal, and a drain's checkpoint. One pure function, so every way a
// run can end is decided in one place and tested without processes.

import {drainCheckpoint, type StopOutcome} from '../process/process-tree.js'
import type {Checkpoint, EndCause, EndingStatus, TaskRecord} from '../state/record.js'
import {stopEndCause, stopReason} from '../process/stop-plan.js'
import {profileOf} from '../agents/registry.js'

/** Said of a worker's end seen by a runner that is not its parent: no exit status reaches it. */
export const UNKNOWN_EXIT = 'exit code unknown: its runner had died, and the runner that adopted it is not its parent'

export interface RunEnd {
  status: EndingStatus
  cause: EndCause
  reason: string
  exitCode: number | null
  signal: string | null
  checkpoint?: Checkpoint
}

export interface RunSeen {
  record: TaskRecord
  /** the worker's exit as its parent saw it; both null for an adopted worker. */
  exit: {code: number | null; signal: string | null}
  /** the graded stop that ended it, if one did. */
  stop: StopOutcome | null
  adopted: boolean
  sessionDir: string
  /** asked only for a failure: whether the disk is full (the likely cause). */
  diskFull: () => boolean
  /**
   * Whether the OS says which signal killed a process (platform.exitShowsSignal):
   * on Windows a worker ended by `taskkill /F` reports an exit code it never
   * chose (1 on Windows, 0 under Wine). Defaults to true.
   */
  exitShowsSignal?: boolean
}

export function runEnd(seen: RunSeen): RunEnd {
  const {code, signal} = seen.exit
  // A worker that failed on its own while a drain waited (exit 3 before any signal of drover's) keeps its
  // failure: `drained` would hide it from `list --status failed` and offer a resume of a run that broke.
  // (A stop is what the user asked for, however the worker took it: it stays `stopped`.)
  const pausing = seen.stop !== null && (seen.stop.plan.cause === 'drain' || seen.stop.plan.cause === 'budget')
  const failedOnItsOwn = pausing && !seen.stop!.forced && !seen.adopted && (code === null ? signal !== null : code !== 0)
  if (seen.stop && !failedOnItsOwn) {
    const {plan, killedAfterMs} = seen.stop
    // Where exits carry no signal, the runner's own forced kill is what ended the worker: not "exit 0".
    const forcedKill = killedAfterMs !== null && signal === null && seen.exitShowsSignal === false
    const end: RunEnd = {
      status: plan.status,
      cause: stopEndCause(plan, killedAfterMs),
      reason: stopReason(plan, killedAfterMs),
      exitCode: forcedKill ? null : code,
      signal: forcedKill ? 'SIGKILL' : signal,
    }
    if (plan.cause === 'drain' || plan.cause === 'budget') end.checkpoint = drainCheckpoint(seen.record, seen.sessionDir, seen.stop)
    return end
  }
  if (seen.adopted) {
    // An agent's own final event is the best witness of how it ended.
    const info = seen.record.agentInfo
    const profile = profileOf(seen.record.agent)
    const succeeded = !!info && !!profile?.reportedSuccess(info)
    return {status: succeeded ? 'succeeded' : 'failed', cause: 'exit-unknown', reason: succeeded ? `${UNKNOWN_EXIT}; the agent reported success` : UNKNOWN_EXIT, exitCode: null, signal: null}
  }
  // An attached session (a person's, on a terminal) is judged by its exit alone: no stream of it was read.
  const attached = seen.record.runs.at(-1)?.attached === true
  const limit = attached ? null : seen.record.agentInfo?.limit
  if (code === 0) {
    const failure = attached ? null : exitZeroFailure(seen.record)
    if (!failure) return {status: 'succeeded', cause: 'exit', reason: 'exit 0', exitCode: 0, signal: null}
    if (limit) return {status: 'failed', cause: 'usage-limit', reason: `exit 0: usage limit${limit.resetAt ? `, resets ${limit.resetAt}` : ''}`, exitCode: 0, signal: null}
    return {status: 'failed', cause: 'agent-error', reason: failure, exitCode: 0, signal: null}
  }
  // The agent said why: a provider's usage limit is the reason people need to read.
  if (limit && code !== null) {
    return {status: 'failed', cause: 'usage-limit', reason: `exit ${code}: usage limit${limit.resetAt ? `, resets ${limit.resetAt}` : ''}`, exitCode: code, signal: null}
  }
  // A worker that failed on a full disk most likely failed because of it: say so.
  const full = seen.diskFull() ? ' (no space left on device)' : ''
  if (code !== null) return {status: 'failed', cause: 'exit', reason: `exit ${code}${full}`, exitCode: code, signal: null}
  return {status: 'failed', cause: 'signal', reason: `killed by ${signal}${full}`, exitCode: null, signal}
}

/**
 * Why an exit 0 is no success, or null when it is one: gemini exits 0 when
 * SIGTERMed mid-turn, opencode after an error; without the agent's own
 * success event such a run was cut short or failed.
 */
function exitZeroFailure(record: TaskRecord): string | null {
  const profile = profileOf(record.agent)
  const info = record.agentInfo
  if (profile?.exitZeroWithoutResult !== 'interrupted' || (info && profile.reportedSuccess(info))) return null
  if (info?.error) return `exit 0, but ${profile.name} reported an error`
  return `exit 0 without ${profile.name}'s result: interrupted`
}
