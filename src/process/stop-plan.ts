// What a graded stop does, step by step, for each way a task can be ended.
// Pure data: the runner executes the steps; tests read them directly.

import type {StopSignal} from '../platform/platform.js'
import type {EndCause, EndingStatus} from '../state/record.js'

export type StopCause = 'stop' | 'cancel' | 'drain' | 'timeout' | 'idle' | 'output' | 'budget'

export interface StopStep {
  /** word written into the control file at this step. */
  control?: 'WRAP_UP' | 'STOP'
  /** signal sent to the whole tree at this step. */
  signal?: Extract<StopSignal, 'SIGTERM' | 'SIGKILL'>
  /** how long to wait for the tree to die before the next step. */
  waitMs: number
  /**
   * Move on to the next step early, the moment the worker is at a safe point
   * (an agent that cannot cooperate, between tool calls): a drain then signals
   * it there rather than mid-tool when the grace runs out.
   */
  untilSafePoint?: boolean
}

export interface StopPlan {
  cause: StopCause
  steps: StopStep[]
  /** final status when the tree is gone. */
  status: EndingStatus
  requestIds: string[]
  /** what the reason adds (a budget: which limit was reached). */
  detail?: string
}

export const DEFAULT_STOP_GRACE_MS = 10_000
export const CANCEL_GRACE_MS = 2_000
export const DEFAULT_DRAIN_GRACE_MS = 60_000
export const DEFAULT_DRAIN_KILL_AFTER_MS = 10_000
/** After SIGKILL, how long to wait for the kernel to take the processes away. */
const AFTER_KILL_MS = 5_000

// A cancel outranks everything (the user wants it gone now); a stop outranks a
// drain and the runner's own policies; otherwise the first plan stays.
const RANK: Record<StopCause, number> = {timeout: 0, idle: 0, output: 0, budget: 1, drain: 1, stop: 2, cancel: 3}

export function outranks(next: StopCause, current: StopCause): boolean {
  return RANK[next] > RANK[current]
}

const scheduleOf = (plan: StopPlan) => plan.steps.reduce((sum, step) => sum + step.waitMs, 0)

/**
 * Whether a new plan replaces the one under way: a stronger cause, or the same
 * cause on a shorter schedule (`stop -t 30`, then an impatient `stop -t 1`; or a
 * runner adopting a worker, which starts the plan of a request again).
 */
export function supersedes(next: StopPlan, current: StopPlan): boolean {
  return outranks(next.cause, current.cause) || (next.cause === current.cause && scheduleOf(next) < scheduleOf(current))
}

export function planFor(
  cause: StopCause,
  opts: {graceMs?: number; wrapUp?: boolean; killAfterMs?: number; requestId?: string; detail?: string} = {},
): StopPlan {
  const requestIds = opts.requestId ? [opts.requestId] : []
  const kill: StopStep = {signal: 'SIGKILL', waitMs: AFTER_KILL_MS}
  switch (cause) {
    case 'cancel':
      return {cause, status: 'cancelled', requestIds, steps: [{control: 'STOP', signal: 'SIGTERM', waitMs: CANCEL_GRACE_MS}, kill]}
    // A budget ends the session the way a drain does (a checkpoint a resume
    // with a higher budget continues): the agent is not failing, it is paused.
    case 'budget':
    case 'drain':
      return {
        cause,
        status: 'drained',
        requestIds,
        ...(opts.detail ? {detail: opts.detail} : {}),
        steps: [
          {control: 'STOP', waitMs: opts.graceMs ?? DEFAULT_DRAIN_GRACE_MS, untilSafePoint: true},
          {signal: 'SIGTERM', waitMs: opts.killAfterMs ?? DEFAULT_DRAIN_KILL_AFTER_MS},
          kill,
        ],
      }
    case 'stop': {
      const grace = opts.graceMs ?? DEFAULT_STOP_GRACE_MS
      const steps: StopStep[] = opts.wrapUp ? [{control: 'WRAP_UP', waitMs: grace}] : []
      steps.push({control: 'STOP', signal: 'SIGTERM', waitMs: grace}, kill)
      return {cause, status: 'stopped', requestIds, steps}
    }
    default:
      return {
        cause,
        status: 'failed',
        requestIds,
        steps: [{control: 'STOP', signal: 'SIGTERM', waitMs: opts.graceMs ?? DEFAULT_STOP_GRACE_MS}, kill],
      }
  }
}

const seconds = (ms: number) => `${Math.round(ms / 100) / 10} s`

/** The reason recorded for the final status. */
/** The cause a graded stop's end is recorded with: a stop whose grace ran out is `stop-killed` (its table label says so). */
export function stopEndCause(plan: Pick<StopPlan, 'cause'>, killedAfterMs: number | null): EndCause {
  switch (plan.cause) {
    case 'stop':
      return killedAfterMs === null ? 'stop' : 'stop-killed'
    case 'output':
      return 'output-limit'
    default:
      return plan.cause
  }
}

export function stopReason(plan: StopPlan, killedAfterMs: number | null): string {
  const killed = killedAfterMs === null ? '' : `, killed after ${seconds(killedAfterMs)}`
  switch (plan.cause) {
    case 'stop':
      return killedAfterMs === null ? 'stopped by request' : `killed after ${seconds(killedAfterMs)}`
    case 'cancel':
      return `cancelled by request${killed}`
    case 'drain':
      return `drained${killed}`
    case 'budget':
      return `budget${plan.detail ? `: ${plan.detail}` : ''}${killed}`
    case 'timeout':
      return `timeout${killed}`
    case 'idle':
      return `idle${killed}`
    case 'output':
      return `output limit${killed}`
  }
}
