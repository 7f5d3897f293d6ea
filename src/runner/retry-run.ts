// A failed run that is tried again: the runner records the next attempt as a
// new `queued` run with the time it may start, and joins its queue's line (the
// unlimited one when the task has no queue). The slot the failed run held is
// handed on meanwhile; the runner then sleeps until that time and advances the
// queue (handoff.ts), and if it is gone by then, the next drover command does.

import {beginRun, type TaskRecord} from '../state/record.js'
import {retryDelayMs} from './retry.js'
import {addWaiting, effectiveQueue, waitingKey} from '../state/queues.js'

/** The queued record of the next attempt, to be written in place of the failed one. */
export function queueRetry(_stateDir: string, ended: TaskRecord, now = Date.now()): TaskRecord {
  const at = new Date(now).toISOString()
  const retryAt = new Date(now + retryDelayMs(ended)).toISOString()
  const next = beginRun(ended, false, null, at, 'queued')
  return {...next, attempt: ended.attempt + 1, retryAt, queuedAt: ended.queuedAt ?? at}
}

/** After the queued record is written (never before: the advancer drops an entry whose record is not queued). */
export function joinLine(stateDir: string, queued: TaskRecord): void {
  const queue = effectiveQueue(queued)
  if (queue !== null) addWaiting(stateDir, queue, waitingKey(queued))
}
