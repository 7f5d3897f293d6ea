// Changing a queued task's place: a new priority (tsp -u's "next, please" is
// `first`), or another queue. Only while it waits: a task that started keeps
// the slot it holds. The waiting entry is re-filed the way every queue change
// is made (queues.ts in state/): the new entry before the record, the old one
// removed after, under the locks of both queues and then the task's — the
// order the advancer takes them — so it is never claimed half-moved.

import {conflictError, DroverError, ExitCode, usageError} from '../base/errors.js'
import {acquireLock, LockBusyError, taskLockPath} from '../state/lock.js'
import {findTask} from './lookup.js'
import {addWaiting, effectiveQueue, MAX_PRIORITY, queueLockPath, removeWaiting, waitingKey, waitingKeys, idOfKey} from '../state/queues.js'
import type {TaskRecord} from '../state/record.js'
import {appendEvent, readRecord, taskPaths} from '../state/store.js'
import {commitRecord} from '../runner/commit-record.js'
import {isEngineQueued} from '../runner/executor.js'
import {checkPriority, queueForStart} from './queues.js'

export interface QueueMove {
  /** the new priority (-999…999). */
  priority?: number
  /** ahead of every task waiting in its queue now: the highest priority there plus one (at most 999). */
  first?: boolean
  /** wait in this queue instead (an existing one, or a new name that is no near miss of one). */
  queue?: string
}

const LOCK_WAIT_MS = 5000

export async function moveQueued(stateDir: string, ref: string, move: QueueMove): Promise<TaskRecord> {
  if (move.priority !== undefined && move.first) throw usageError('give --priority N or --first, not both')
  if (move.priority === undefined && !move.first && move.queue === undefined) throw usageError('nothing to change: give --priority N, --first or --to QUEUE')
  if (move.priority !== undefined) checkPriority(move.priority)
  const target = move.queue === undefined ? undefined : queueForStart(stateDir, move.queue)
  const found = findTask(stateDir, ref)
  if (!found.ok) throw new DroverError(`task ${found.id} is corrupt: ${found.error}`, ExitCode.failed, {id: found.id})
  const from = effectiveQueue(found.record)
  const to = effectiveQueue({...found.record, queue: target ?? found.record.queue})
  // both queues' locks, in name order (two moves the other way round never wait on each other), then the task's
  const queues = [...new Set([from, to].filter((q): q is string => q !== null))].sort()
  const releases: (() => void)[] = []
  try {
    for (const q of queues) releases.push(await lock(queueLockPath(stateDir, q), found.id))
    releases.push(await lock(taskLockPath(stateDir, found.id), found.id))
    const read = readRecord(stateDir, found.id)
    if (!read.ok) throw new DroverError(`task ${found.id} is corrupt: ${read.error}`, ExitCode.failed, {id: found.id})
    const record = read.record
    if (record.status !== 'queued' || isEngineQueued(record) || effectiveQueue(record) !== from) {
      throw conflictError(`task ${record.id} is ${record.status === 'queued' ? 'waiting in Slurm\'s queue' : record.status}: only a task waiting in a drover queue can be moved`, {id: record.id, status: record.status})
    }
    const queue = target ?? record.queue
    const priority = move.first ? firstPriority(stateDir, to!, record.id) : (move.priority ?? record.priority)
    const next: TaskRecord = {...record, queue, priority, queuedAt: record.queuedAt ?? new Date().toISOString()}
    if (to !== null) addWaiting(stateDir, to, waitingKey(next))
    commitRecord(stateDir, next, record.status, {fire: null})
    if (from !== null && (from !== to || waitingKey(record) !== waitingKey(next))) removeWaiting(stateDir, from, waitingKey(record))
    appendEvent(taskPaths(stateDir, record.id), {event: 'moved', run: record.runs.length, queue, priority})
    return next
  } finally {
    for (const release of releases.reverse()) release()
  }
}

/** One above the highest priority waiting in `queue` (the task itself aside), at most 999. */
function firstPriority(stateDir: string, queue: string, id: number): number {
  let highest = Number.NEGATIVE_INFINITY
  for (const key of waitingKeys(stateDir, queue)) {
    if (idOfKey(key) === id) continue
    const read = readRecord(stateDir, idOfKey(key))
    if (read.ok && read.record.status === 'queued') highest = Math.max(highest, read.record.priority)
  }
  return highest === Number.NEGATIVE_INFINITY ? 0 : Math.min(MAX_PRIORITY, highest + 1)
}

async function lock(file: string, id: number): Promise<() => void> {
  try {
    return await acquireLock(file, {waitMs: LOCK_WAIT_MS})
  } catch (error) {
    if (error instanceof LockBusyError) throw conflictError(`task ${id}'s queue is busy; try again`, {id})
    throw error
  }
}
