// The one way a run ends or pauses. Whoever records an ending — the task's
// runner, or a command holding the task lock because no runner will (a stop of
// an orphaned worker, a queued task cancelled, a runner found gone) — calls
// settle, which does what follows in one order: the record (and with it the
// status hooks, commit-record.ts), the `exit` event, a retry's next attempt or
// the follow-ups queued, the queue bookkeeping, the exit hooks. Later
// features that react to a status change hook in here, not at each caller.
// It is in the runner's layer because the runner uses it, so it loads no
// more than the runner may (the lock module only when a lock is asked for).

import type {ChildProcess} from 'node:child_process'
import {fireExitHooks, type RunnerEntry} from './exit-hooks.js'
import {joinLine, queueRetry} from './retry-run.js'
import {retryable} from './retry.js'
import {followupsAtEnd, type LearnFlags} from './followup-run.js'
import {removeFollowup, type Followup} from '../state/followups.js'
import {AFTER_QUEUE, effectiveQueue, removeActive, removeWaiting, waitingKey} from '../state/queues.js'
import {isFinalStatus, settledRecord, type Ending, type TaskRecord, type TaskStatus} from '../state/record.js'
import {appendEvent, readRecord, taskPaths} from '../state/store.js'
import {commitRecord, noteBetween, type Committed} from './commit-record.js'

/** An ending and what it sets beside the status (a checkpoint, `desired`, the worktree's summary). */
export interface Settlement extends Ending {
  set?: Partial<TaskRecord>
  /** more fields for the event the ending is journalled with. */
  event?: Record<string, unknown>
}

export interface SettleOptions {
  /** how the hook supervisors are started: this bundle (a runner) or the built runner (a command). */
  entry: RunnerEntry
  /**
   * The runner's end of a run that went well: the first follow-up queued is
   * delivered, the record written being its run (runner/followup-run.ts),
   * its command made with the agent's grammar learnt so. The caller holds the
   * task lock, which the commands that queue one take too.
   */
  deliverFollowup?: LearnFlags
  /** the runner writes through its own commit (its disk reserve, its copy of the record); everyone else through commitRecord. */
  commit?: (record: TaskRecord, from: TaskStatus) => Committed
}

export interface Settled {
  /** the record as written: the ended run, or the queued next attempt of a retry. */
  record: TaskRecord
  /** the run as it ended (before a retry queued the next attempt). */
  ended: TaskRecord
  retried: boolean
  /** the follow-up whose run the record written opens (the runner goes on to run it), or null. */
  delivered: Followup | null
  /** the supervisors started for the exit hooks and the status hooks, if any. */
  hooks: ChildProcess | null
  statusHooks: ChildProcess | null
}

/**
 * Ends (or pauses) the current run of `record`, which the caller may write:
 * it is the task's live runner, or it holds the task lock and re-read the
 * record inside it (settleTask does both).
 */
export function settle(stateDir: string, record: TaskRecord, settlement: Settlement, options: SettleOptions): Settled {
  const {set, event, ...ending} = settlement
  const ended: TaskRecord = {...settledRecord(record, ending), ...set}
  const final = isFinalStatus(ended.status)
  const retry = final && retryable(ended) ? queueRetry(stateDir, ended) : null
  // A run tried again keeps its follow-ups for the attempt that ends for good.
  const followups = final && !retry ? followupsAtEnd(stateDir, ended, options.deliverFollowup ?? null) : null
  // A run that opens its next at once: a retry's attempt queued, a follow-up's run started.
  const next = retry ?? (followups?.delivered ? followups.record : null)
  const written = next ?? followups?.record ?? ended
  // Its end happened in memory only, before the record written: the status hooks hear of both, in order.
  if (next) noteBetween(stateDir, record.status, ended)
  const from = next ? ended.status : record.status
  const committed = options.commit ? options.commit(written, from) : commitRecord(stateDir, written, from, {fire: options.entry})

  const paths = taskPaths(stateDir, record.id)
  const run = ended.runs.length
  journal(paths, final ? {event: 'exit', run, status: ended.status, cause: ended.cause, reason: ended.reason, exitCode: ended.exitCode, signal: ended.signal, ...event} : {event: ended.status, run, cause: ended.cause, ...event})
  if (retry) {
    joinLine(stateDir, retry)
    journal(paths, {event: 'retry', run: retry.runs.length, attempt: retry.attempt, of: retry.retryMax + 1, at: retry.retryAt})
  }
  const delivered = followups?.delivered ?? null
  if (delivered) {
    removeFollowup(paths, delivered.n)
    journal(paths, {event: 'followup', run: run + 1, followup: delivered.n})
  }
  for (const dropped of followups?.dropped ?? []) {
    removeFollowup(paths, dropped.n)
    journal(paths, {event: 'followup-dropped', run, followup: dropped.n, reason: dropped.reason})
  }

  // Queue bookkeeping: a run that ended while queued leaves its line; one that
  // ended for good (or waits for a retry, holding nothing) frees its slot.
  if (record.status === 'queued') {
    const line = effectiveQueue(record)
    if (line !== null) removeWaiting(stateDir, line, waitingKey(record))
  }
  // A follow-up's run goes on in the slot of the run it follows.
  if (final && !delivered) {
    // @after too, whatever the record says now: a retried attempt held its slot there, and its retryAt is gone once it started.
    for (const queue of new Set([effectiveQueue(record), record.queue, AFTER_QUEUE])) {
      if (queue !== null) removeActive(stateDir, queue, record.id)
    }
  }

  // Exit hooks: once per final status, after the record says it (a retry's queued attempt is not final).
  const hooks = isFinalStatus(written.status) ? fireExitHooks(stateDir, written, options.entry) : null
  return {record: written, ended, retried: retry !== null, delivered, hooks, statusHooks: committed.hooks}
}

/**
 * The record as the ending would leave it, written nowhere: what a dry run
 * shows (prune), and the ended run a new run opens on at once (`start ID` on a
 * task whose runner vanished: the new run's record is the one written).
 */
export function endedInMemory(record: TaskRecord, settlement: Settlement): TaskRecord {
  const {set, event: _event, ...ending} = settlement
  return {...settledRecord(record, ending), ...set}
}

/** What a locked settle decided: end the run so, or leave the record as it is (null). */
export type Decide = (current: TaskRecord) => Settlement | null | Promise<Settlement | null>

/**
 * settle for a command, not the runner: under the task lock, on the record as
 * it is inside the lock (another command or the runner may have ended the run
 * meanwhile), as `decide` says — it may act first (stop an orphaned tree),
 * and returns null to leave the record. `after` runs under the lock once the
 * record is written. Throws the lock's errors (busy, read-only) to the caller.
 */
export async function settleTask(
  stateDir: string,
  id: number,
  decide: Decide,
  options: SettleOptions & {waitMs: number; after?: (settled: Settled) => void},
): Promise<{current: TaskRecord | null; settled: Settled | null}> {
  // Loaded only here: the lock module brings node:crypto, ~2 MB of RSS every runner would carry.
  const {acquireLock, taskLockPath} = await import('../state/lock.js')
  const release = await acquireLock(taskLockPath(stateDir, id), {waitMs: options.waitMs})
  try {
    const read = readRecord(stateDir, id)
    if (!read.ok) return {current: null, settled: null}
    const settlement = await decide(read.record)
    if (!settlement) return {current: read.record, settled: null}
    const settled = settle(stateDir, read.record, settlement, options)
    options.after?.(settled)
    return {current: settled.record, settled}
  } finally {
    release()
  }
}

/** The journal is for people: a full disk must not keep an ending from being recorded. */
function journal(paths: ReturnType<typeof taskPaths>, event: {event: string} & Record<string, unknown>): void {
  try {
    appendEvent(paths, event)
  } catch {
    // the record says it
  }
}
