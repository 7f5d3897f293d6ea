// Reconcile on read: a record says what its runner last wrote; this module
// checks whether that runner still lives. When it vanished without recording
// an end, a worker that still runs (same pid and start time) gets a new runner
// that adopts it — supervision survives a runner crash — and only work that is
// really gone is finalised as `lost`. Either happens once, under the task lock.

import {taskMark} from '../process/worker.js'
import {currentPlatform, listGroupMembers, processStartTime, startedNoEarlierThan} from '../platform/platform.js'
import {isFinalStatus, type TaskRecord} from '../state/record.js'
import {appendEvent, readRecord, readRunnerIdentity, readTreeFile, safeUnlink, taskPaths} from '../state/store.js'
import {ProcessTree, stopLeftovers, stopMarked, stopUnwatched} from '../process/process-tree.js'
export {readRunnerIdentity}
import {reservePath} from '../runner/reserve.js'
import type {RunnerPresence} from '../runner/executor.js'
import {runnerEntry} from '../runner/local-executor.js'
import {endedInMemory, settleTask, type Settlement} from '../runner/settle.js'
import {executorOf, workerAliveHere} from '../runner/executors.js'
export {executorOf}

export type {RunnerPresence as RunnerState} from '../runner/executor.js'

export function runnerState(stateDir: string, record: TaskRecord): RunnerPresence {
  return executorOf(record).observe(stateDir, record)
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
  if (isFinalStatus(record.status) || record.status === 'queued') return record
  const presence = runnerState(stateDir, record)
  if (presence === 'starting') return withEngineReason(stateDir, record)
  if (presence !== 'gone') return record
  // What the lock holder decided, kept for a state dir that cannot be written (read-only, full): the truth is still told.
  let lost: Settlement | null = null
  let kept: TaskRecord | null = null
  try {
    const {current, settled} = await settleTask(
      stateDir,
      record.id,
      async (fresh) => {
        if (isFinalStatus(fresh.status) || fresh.status === 'queued' || runnerState(stateDir, fresh) !== 'gone') return null
        if (fresh.status !== 'starting' && executorOf(fresh).capabilities.adopt && workerAlive(fresh)) {
          kept = await adoptWorker(stateDir, fresh)
          if (kept) return null
        }
        // The worker lives and no runner could take it over: nothing of a task may outlive its final status.
        const unwatched = fresh.status !== 'starting' && !fresh.keepChildren && workerAlive(fresh)
        const left = unwatched ? await stopUnwatchedWorker(stateDir, fresh) : await stopOrphans(stateDir, fresh)
        lost = lostSettlement(fresh, left, executorOf(fresh).explain?.(stateDir, fresh)?.reason, unwatched, unreached(stateDir, fresh))
        return lost
      },
      {
        entry: runnerEntry(),
        waitMs: 5000,
        after: () => {
          safeUnlink(taskPaths(stateDir, record.id).runner)
          // The dead runner's disk-full ballast is nobody's now.
          safeUnlink(reservePath(taskPaths(stateDir, record.id).dir))
        },
      },
    )
    if (settled) return settled.record
    return kept ?? current ?? endedInMemory(record, lostSettlement(record))
  } catch {
    // busy, read-only or full: report the truth without persisting it
    return endedInMemory(record, lost ?? lostSettlement(record))
  }
}

/** A new runner for a live worker whose runner died; the record as it then is, or null if it could not take over. */
async function adoptWorker(stateDir: string, record: TaskRecord): Promise<TaskRecord | null> {
  const paths = taskPaths(stateDir, record.id)
  // The dead runner's identity file would make the new runner look dead too until it writes its own.
  safeUnlink(paths.runner)
  try {
    await executorOf(record).submit(stateDir, record.id, {adopt: true})
  } catch {
    return null
  }
  const read = readRecord(stateDir, record.id)
  if (!read.ok) return null
  return runnerState(stateDir, read.record) === 'alive' || isFinalStatus(read.record.status) ? read.record : null
}

function lostSettlement(record: TaskRecord, leftovers = 0, engine?: string | null, unwatched = false, unreachedNote?: string | null): Settlement {
  const base =
    record.status === 'starting' ? 'runner never started' : unwatched ? 'runner vanished and no new runner could take the worker over' : 'runner vanished without recording an end'
  const reason = engine ? `${base} (${engine})` : base
  const notes = [reason, leftovers > 0 ? `${leftovers} leftover process${leftovers === 1 ? '' : 'es'} stopped` : null, unreachedNote ?? null]
  return {status: 'lost', cause: 'runner-lost', reason: notes.filter(Boolean).join('; ')}
}

/**
 * A task whose processes ran on another host (Slurm): what its runner saw of
 * the tree (the worker, tree.json) may outlive it there — a scheduler's
 * default process tracking misses what left the runner's tree, and the runner
 * that would stop them is gone. drover signals no process of another host, so
 * the lost reason names them for a person to check; null when there is none
 * to name or drover stops them itself (stopOrphans).
 */
function unreached(stateDir: string, record: TaskRecord): string | null {
  if (record.keepChildren || executorOf(record).capabilities.directControl) return null
  const pids = [...new Set([record.worker?.pid, ...readTreeFile(taskPaths(stateDir, record.id)).map((identity) => identity.pid)])].filter((pid) => pid !== undefined)
  if (pids.length === 0) return null
  return `its processes on ${record.host ?? 'its node'} were not checked (pid${pids.length === 1 ? '' : 's'} ${pids.join(', ')}): drover signals no process of another host`
}

/** See stopUnwatched: the worker's tree, stopped with its events in the task's journal. */
async function stopUnwatchedWorker(stateDir: string, record: TaskRecord): Promise<number> {
  const paths = taskPaths(stateDir, record.id)
  const run = record.runs.at(-1)?.run ?? 0
  return stopUnwatched(record.worker!, readTreeFile(paths), taskMark(paths), (name, extra) => appendEvent(paths, {event: name, run, ...extra}))
}

/**
 * Runner and worker both gone (a crash, an OOM kill, a kill -9 of the two):
 * what the worker started may live on — its background jobs in its group,
 * children that left with setsid. Nothing of a task may outlive its final
 * status, so before `lost` is recorded they are stopped, found by the group
 * id (reserved while any member lives) and by tree.json, the runner's list
 * of the tree it saw — every one checked against its start time.
 */
async function stopOrphans(stateDir: string, record: TaskRecord): Promise<number> {
  const worker = record.worker
  if (record.keepChildren || workerAlive(record) || !executorOf(record).capabilities.directControl) return 0
  const paths = taskPaths(stateDir, record.id)
  const run = record.runs.at(-1)?.run ?? 0
  // a runner that died between spawning the worker and recording it: only the task's mark finds its processes
  if (!worker) return stopMarked(taskMark(paths), (name, extra) => appendEvent(paths, {event: name, run, ...extra}))
  const tree = new ProcessTree(worker, () => true, currentPlatform(), {group: false, marks: taskMark(paths)})
  // The group id is the worker's pid: while that pid is free, a group under it
  // can only be the worker's own (a pid stays reserved while a group uses it);
  // once the pid names a new process, the group could be the newcomer's.
  const members = processStartTime(worker.pid) === null ? listGroupMembers(worker.pid).filter((m) => startedNoEarlierThan(m.startTime, worker.startTime)) : []
  tree.remember([...readTreeFile(paths), ...members])
  return stopLeftovers(tree, (name, extra) => appendEvent(paths, {event: name, run, ...extra}))
}

/** A task waiting in a scheduler's queue shows why it waits, in memory only: the runner writes the record once it runs. */
export function withEngineReason(stateDir: string, record: TaskRecord): TaskRecord {
  const note = record.status === 'starting' ? executorOf(record).explain?.(stateDir, record) : null
  return note ? {...record, reason: note.reason, engineWait: note.waiting} : record
}

/**
 * Whether the worker of a (possibly lost) task is still the live process we
 * started. Only where drover can check it: a pid recorded on another host
 * names nothing here.
 */
export function workerAlive(record: TaskRecord): boolean {
  return workerAliveHere(record)
}
