// Reconcile on read: a record says what its runner last wrote; this module
// checks whether that runner still lives. When it vanished without recording
// an end, a worker that still runs (same pid and start time) gets a new runner
// that adopts it — supervision survives a runner crash — and only work that is
// really gone is finalised as `lost`. Either happens once, under the task lock.

import {statSync} from 'node:fs'
import {isSameProcess} from '../platform/platform.js'
import {isFinalStatus, transition, type TaskRecord} from '../state/record.js'
import {appendEvent, readRecord, readRunnerIdentity, safeUnlink, taskPaths, writeRecord} from '../state/store.js'
export {readRunnerIdentity}
import {acquireLock, taskLockPath} from '../state/lock.js'
import {reservePath} from '../state/reserve.js'
import {fireHooks, startRunner} from '../runner/local-executor.js'

// A runner is given this long to write runner.json after `start` created the
// record; past it, a `starting` task without a runner was never launched.
const STARTUP_GRACE_MS = 15_000

export type RunnerState = 'alive' | 'starting' | 'gone'

export function runnerState(stateDir: string, record: TaskRecord): RunnerState {
  const runner = readRunnerIdentity(stateDir, record.id)
  if (runner) return isSameProcess(runner) ? 'alive' : 'gone'
  if (record.status === 'starting') {
    // A resumed or restarted run has no time of its own until its runner
    // records `running`, and createdAt may be days old. Nothing rewrites a
    // `starting` record after the run was opened, so the file's mtime is when
    // this run began: without it a second `resume` racing the first would take
    // the run still starting for abandoned and start another.
    const opened = Math.max(Date.parse(record.createdAt) || 0, recordWrittenAt(stateDir, record.id))
    if (Date.now() - opened < STARTUP_GRACE_MS) return 'starting'
  }
  return 'gone'
}

function recordWrittenAt(stateDir: string, id: number): number {
  try {
    return statSync(taskPaths(stateDir, id).record).mtimeMs
  } catch {
    return 0
  }
}

/**
 * Returns the record as it truly is. A non-final task whose runner is gone is
 * finalised `lost` on disk (best effort: a read-only state dir still gets the
 * truth in memory). The lock plus the re-read inside it make sure that two
 * commands reconciling at once finalise it only once, and never overwrite an
 * end the runner recorded in the meantime.
 */
export async function reconcile(stateDir: string, record: TaskRecord): Promise<TaskRecord> {
  // A queued task has no runner to check: it is waiting, not running.
  if (isFinalStatus(record.status) || record.status === 'queued' || runnerState(stateDir, record) !== 'gone') return record
  let release: (() => void) | null = null
  try {
    release = await acquireLock(taskLockPath(stateDir, record.id), {waitMs: 5000})
  } catch {
    return markLost(record)
  }
  try {
    const fresh = readRecord(stateDir, record.id)
    if (!fresh.ok) return markLost(record)
    if (isFinalStatus(fresh.record.status) || fresh.record.status === 'queued' || runnerState(stateDir, fresh.record) !== 'gone') return fresh.record
    if (fresh.record.status !== 'starting' && workerAlive(fresh.record)) {
      const adopted = await adoptWorker(stateDir, fresh.record)
      if (adopted) return adopted
    }
    const lost = markLost(fresh.record)
    try {
      writeRecord(stateDir, lost)
      appendEvent(taskPaths(stateDir, record.id), {event: 'lost', run: lost.runs.at(-1)?.run ?? 0, reason: lost.reason})
      safeUnlink(taskPaths(stateDir, record.id).runner)
      // The dead runner's disk-full ballast is nobody's now.
      safeUnlink(reservePath(taskPaths(stateDir, record.id).dir))
      fireHooks(stateDir, lost)
    } catch {
      // read-only or full: report the truth without persisting it
    }
    return lost
  } finally {
    release()
  }
}

/** A new runner for a live worker whose runner died; the record as it then is, or null if it could not take over. */
async function adoptWorker(stateDir: string, record: TaskRecord): Promise<TaskRecord | null> {
  const paths = taskPaths(stateDir, record.id)
  // The dead runner's identity file would make the new runner look dead too until it writes its own.
  safeUnlink(paths.runner)
  try {
    await startRunner(stateDir, record.id, {adopt: true})
  } catch {
    return null
  }
  const read = readRecord(stateDir, record.id)
  if (!read.ok) return null
  return runnerState(stateDir, read.record) === 'alive' || isFinalStatus(read.record.status) ? read.record : null
}

function markLost(record: TaskRecord): TaskRecord {
  const reason = record.status === 'starting' ? 'runner never started' : 'runner vanished without recording an end'
  return transition(record, {status: 'lost', reason})
}

/** Whether the worker of a (possibly lost) task is still the live process we started. */
export function workerAlive(record: TaskRecord): boolean {
  return record.worker !== null && isSameProcess(record.worker)
}
