// Follow-ups from any shell: queued for an agent that is at work (its runner
// delivers them, runner/followup-run.ts), listed, withdrawn. A task that is
// not at work takes the prompt at once, as the ordinary resume it is.

import {DroverError, ExitCode, conflictError} from '../base/errors.js'
import {acquireTaskLock} from '../state/lock.js'
import {addFollowup, pendingFollowups, removeFollowup, type Followup} from '../state/followups.js'
import {isFinalStatus, type TaskRecord} from '../state/record.js'
import {dropRequest} from '../state/requests.js'
import {appendEvent, readRecord, taskPaths} from '../state/store.js'
import {reconcile} from './reconcile.js'
import {learnAgentFlags, refuseNoAgent, resumeTask} from './resume.js'
import {waitForFinal} from './wait.js'

export interface FollowupWish {
  prompt: string
  /** deliver at the next safe point: the run is drained for it (as `drain` does), then resumed with it. */
  now?: boolean
  /** keep it queued if the run fails or is stopped (dropped by default). */
  keep?: boolean
  /** `now`: how long the agent has to end its turn after STOP, and after SIGTERM until SIGKILL (drain's). */
  graceMs?: number
  killAfterMs?: number
}

/** What became of a prompt sent to a task: queued for its run at work, or a new run at once. */
export type Sent = {queued: Followup; record: TaskRecord} | {resumed: TaskRecord}

/** Statuses whose run is at work (or waits its turn): a prompt for them is queued, not a new run. */
const AT_WORK = new Set(['queued', 'starting', 'running', 'stopping'])

export async function sendFollowup(stateDir: string, start: TaskRecord, wish: FollowupWish): Promise<Sent> {
  refuseNoAgent(start)
  const record = await reconcile(stateDir, start)
  if (!AT_WORK.has(record.status)) return {resumed: await resumeTask(stateDir, record, wish.prompt)}
  // Learnt now, so the runner's delivery reads the cache: `--help` of a cold agent can take a second.
  learnAgentFlags(stateDir, record)
  const paths = taskPaths(stateDir, record.id)
  const queued = await underTaskLock(stateDir, record.id, (current) => {
    if (!AT_WORK.has(current.status)) return null
    const followup = addFollowup(paths, {prompt: wish.prompt, now: wish.now === true, keep: wish.keep === true})
    appendEvent(paths, {event: 'followup-queued', run: current.runs.length, followup: followup.n, now: followup.now, keep: followup.keep})
    // Nothing runs yet to drain in a queued task: its follow-up waits for its first run's end like any other.
    if (followup.now && current.status !== 'queued') {
      dropRequest(paths, {kind: 'drain', graceMs: wish.graceMs ?? 60_000, killAfterMs: wish.killAfterMs ?? 10_000, followup: true})
    }
    return {queued: followup, record: current}
  })
  // The run ended while we looked: the prompt opens the next run itself.
  if (queued === null) return {resumed: await resumeTask(stateDir, readOrThrow(stateDir, record.id), wish.prompt)}
  return queued
}

/**
 * After a follow-up asked for now: the record once its run has begun (or the
 * follow-up was dropped, or the task parked with it still queued).
 */
export async function waitForDelivery(stateDir: string, id: number, n: number, timeoutMs: number): Promise<TaskRecord> {
  return waitForFinal(stateDir, id, {
    timeoutMs,
    until: (record) => {
      const run = record.runs.find((r) => r.followup === n)
      if (run) return run.status !== 'starting' && run.status !== 'queued'
      return (record.droppedFollowups ?? []).some((d) => d.n === n) || isFinalStatus(record.status)
    },
  })
}

export function listFollowups(stateDir: string, record: TaskRecord): Followup[] {
  return pendingFollowups(taskPaths(stateDir, record.id), record)
}

/** Withdraws follow-ups by number (all pending ones when `numbers` is null); throws for one that is not pending. */
export async function withdrawFollowups(stateDir: string, record: TaskRecord, numbers: number[] | null): Promise<Followup[]> {
  const paths = taskPaths(stateDir, record.id)
  const withdrawn = await underTaskLock(stateDir, record.id, (current) => {
    const pending = pendingFollowups(paths, current)
    const chosen = numbers === null ? pending : numbers.map((n) => pending.find((f) => f.n === n) ?? refuseWithdraw(current, n))
    for (const f of chosen) {
      removeFollowup(paths, f.n)
      appendEvent(paths, {event: 'followup-withdrawn', run: current.runs.length, followup: f.n})
    }
    return chosen
  })
  return withdrawn
}

function refuseWithdraw(record: TaskRecord, n: number): never {
  const run = record.runs.find((r) => r.followup === n)
  if (run) throw conflictError(`task ${record.id}'s follow-up ${n} was delivered already (run ${run.run})`, {id: record.id, followup: n})
  const dropped = (record.droppedFollowups ?? []).find((d) => d.n === n)
  if (dropped) throw conflictError(`task ${record.id}'s follow-up ${n} was dropped: ${dropped.reason}`, {id: record.id, followup: n})
  throw new DroverError(`task ${record.id} has no follow-up ${n} (drover followups ${record.id} lists them)`, ExitCode.notFound, {id: record.id, followup: n})
}

/** `act` on the record as it is inside the task lock. */
async function underTaskLock<T>(stateDir: string, id: number, act: (current: TaskRecord) => T): Promise<T> {
  const release = await acquireTaskLock(stateDir, id, 15_000)
  try {
    return act(readOrThrow(stateDir, id))
  } finally {
    release()
  }
}

function readOrThrow(stateDir: string, id: number): TaskRecord {
  const read = readRecord(stateDir, id)
  if (!read.ok) throw new DroverError(`task ${id}: ${read.error}`, ExitCode.failed)
  return read.record
}
