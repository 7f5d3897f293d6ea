// The status changes a task's status hooks are still to hear of: one line per
// change, appended to the task's status-changes.ndjson by whoever writes the
// record (runner/commit-record.ts, the one way a record is written), and read
// in order by the status-hook supervisor (runner/status-hooks.ts), which keeps
// how far it got in .status-hooks-done. A task without status hooks gets no
// file: the cost of the feature, unused, is one existsSync per status change.
// Each line holds the record as the change left it, so a hook that runs later
// (after a slow one before it) still sees the task as it was at its change.

import {closeSync, existsSync, readFileSync, constants as fsc, statSync, writeSync} from 'node:fs'
import path from 'node:path'
import type {EndCause, TaskRecord, TaskStatus} from './record.js'
import {NOFOLLOW} from './layout.js'
import {openAppend, taskPaths, writeFileAtomic} from './store.js'

/** The state dir's own status hook, run at every status change of every task. */
export const sharedStatusHookPath = (stateDir: string) => path.join(stateDir, 'hooks', 'on-status')

export function statusHookFiles(stateDir: string, id: number): {changes: string; done: string; lock: string} {
  const dir = taskPaths(stateDir, id).dir
  return {changes: path.join(dir, 'status-changes.ndjson'), done: path.join(dir, '.status-hooks-done'), lock: path.join(dir, '.status-hooks.lock')}
}

/** Whether a status change of this task has anyone to tell: its --on-status, its --notify targets, or the state dir's hook. */
export function hasStatusHooks(stateDir: string, record: Pick<TaskRecord, 'onStatus' | 'notify'>): boolean {
  return Boolean(record.onStatus) || (record.notify?.length ?? 0) > 0 || existsSync(sharedStatusHookPath(stateDir))
}

/** One change, as a hook hears of it. */
export interface StatusChange {
  status: TaskStatus
  /** the status before (null: the task was just created). */
  previous: TaskStatus | null
  run: number
  at: string
  reason: string | null
  cause: EndCause | null
  record: TaskRecord
}

/**
 * Notes `record`'s change from `previous` for its hooks, when it is a change
 * and someone listens. Returns whether a line was written (the caller then
 * starts a supervisor, now or once it may). Never throws: a full disk must
 * not keep a status from being recorded, and the record says it anyway.
 */
export function noteStatusChange(stateDir: string, previous: TaskStatus | null, record: TaskRecord): boolean {
  if (previous === record.status || !hasStatusHooks(stateDir, record)) return false
  const change: StatusChange = {
    status: record.status,
    previous,
    run: record.runs.length,
    at: new Date().toISOString(),
    reason: record.reason,
    cause: record.cause,
    record,
  }
  try {
    const fd = openAppend(statusHookFiles(stateDir, record.id).changes)
    try {
      writeSync(fd, JSON.stringify(change) + '\n')
    } finally {
      closeSync(fd)
    }
    return true
  } catch {
    return false
  }
}

/** The byte offset up to which the changes have been told. */
export function toldUpTo(stateDir: string, id: number): number {
  try {
    return Number(readFileSync(statusHookFiles(stateDir, id).done, 'utf8').trim()) || 0
  } catch {
    return 0
  }
}

export function markTold(stateDir: string, id: number, offset: number): void {
  writeFileAtomic(statusHookFiles(stateDir, id).done, `${offset}\n`)
}

/** The whole changes not told yet, from `from`, with the offset past each (a line still being written waits). */
export function untoldChanges(stateDir: string, id: number, from: number): {change: StatusChange | null; end: number}[] {
  let bytes: Buffer
  try {
    bytes = readFileSync(statusHookFiles(stateDir, id).changes, {flag: (fsc.O_RDONLY | NOFOLLOW) as unknown as string})
  } catch {
    return []
  }
  const out: {change: StatusChange | null; end: number}[] = []
  let start = from
  for (;;) {
    const nl = bytes.indexOf(10, start)
    if (nl < 0) break
    let change: StatusChange | null = null
    try {
      change = JSON.parse(bytes.toString('utf8', start, nl)) as StatusChange
    } catch {
      // a line torn by a crash: skipped (null), never told
    }
    out.push({change, end: nl + 1})
    start = nl + 1
  }
  return out
}

/**
 * Whether changes wait with no supervisor at them: lines past the told
 * offset, and the supervisor's lock not held. What a later command looks at
 * to start one that a writer killed mid-way never started.
 */
export function statusHooksPending(stateDir: string, id: number): boolean {
  const files = statusHookFiles(stateDir, id)
  let size: number
  try {
    size = statSync(files.changes).size
  } catch {
    return false
  }
  return size > toldUpTo(stateDir, id) && !existsSync(files.lock)
}
