// The one way a record is written, whoever writes it: the runner, settle.ts,
// `start`/`resume`, the queue advancer, a queue move. Every write names the
// status the record had before it, so a change of status is noticed here and
// nowhere else — the status hooks and notifications hear of every change of
// every writer (status-hooks.ts), and a new writer cannot forget them
// (test/scripts/settle.test.ts holds writeRecord to this module).

import type {ChildProcess} from 'node:child_process'
import type {TaskRecord, TaskStatus} from '../state/record.js'
import {noteStatusChange} from '../state/status-changes.js'
import {writeRecord} from '../state/store.js'
import type {RunnerEntry} from './exit-hooks.js'
import {fireStatusHooks} from './status-hooks.js'

export interface CommitOptions {
  /** wraps the write: the runner's goes through its disk reserve. */
  guard?: (write: () => void) => void
  /**
   * Where the status-hook supervisor is started from, or null to leave it to
   * the caller: a runner recording `running` starts it only once `start` has
   * its answer, so a hook costs a start nothing.
   */
  fire: RunnerEntry | null
}

export interface Committed {
  /** a change was noted for the status hooks. */
  noted: boolean
  /** the supervisor started for it, if any. */
  hooks: ChildProcess | null
}

/** Writes `next`, whose status was `from` before (null: a new task), and tells the status hooks of a change. */
export function commitRecord(stateDir: string, next: TaskRecord, from: TaskStatus | null, opts: CommitOptions): Committed {
  const write = () => writeRecord(stateDir, next)
  if (opts.guard) opts.guard(write)
  else write()
  const noted = noteStatusChange(stateDir, from, next)
  return {noted, hooks: noted && opts.fire ? fireStatusHooks(stateDir, next.id, opts.fire) : null}
}

/**
 * A change that happened in memory only, on the way to the record written
 * next (a run that ended `failed` before its retry was queued; a `lost` run a
 * resume opens its new run on): its hooks hear of it, in its place.
 */
export function noteBetween(stateDir: string, from: TaskStatus | null, between: TaskRecord): void {
  noteStatusChange(stateDir, from, between)
}
