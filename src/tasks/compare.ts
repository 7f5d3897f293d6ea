// What `drover compare` needs of a group's attempts beyond their records: the
// work each left in its worktree, read from git now (its summary from the end
// of its last run when the folder is gone), and a wait until every attempt
// has ended and its check has said what it thinks of the work.

import {existsSync} from 'node:fs'
import {summarizeWorktree} from '../process/worktree.js'
import {checkAbandoned, checkDue, settleAbandonedCheck} from '../runner/check.js'
import {hooksPending} from '../runner/exit-hooks.js'
import {fireHooks} from '../runner/local-executor.js'
import {isFinalStatus, type TaskRecord, type WorktreeSummary} from '../state/record.js'
import {readRecord, taskPaths} from '../state/store.js'
import {reconcile} from './reconcile.js'
import {Wakeup} from './wakeup.js'

/** Whether the task's check of its last run is still to come or under way. */
export const checkPending = (record: TaskRecord): boolean => checkDue(record) || record.check?.result?.status === 'running'

/** Whether the attempt is done with: ended, and its check (if it has one) over. */
export const attemptSettled = (record: TaskRecord): boolean => isFinalStatus(record.status) && !checkPending(record)

/**
 * The worktree's work against its base: read from git now (`present`), else
 * the summary its last run left (the folder gone, git failing); null without
 * a worktree or a summary.
 */
export function workOf(record: TaskRecord): {summary: WorktreeSummary; present: boolean} | null {
  const worktree = record.worktree
  if (!worktree) return null
  if (existsSync(worktree.path)) {
    try {
      const summary = summarizeWorktree(worktree)
      if (summary) return {summary, present: true}
    } catch {
      // the recorded summary still says something
    }
  }
  return worktree.summary ? {summary: worktree.summary, present: false} : null
}

/** The records with each check whose process was killed under it settled (settleAbandonedCheck). */
export async function settleAbandonedChecks(stateDir: string, records: TaskRecord[]): Promise<TaskRecord[]> {
  return Promise.all(records.map((record) => (checkAbandoned(record) ? settleAbandonedCheck(stateDir, record) : record)))
}

/**
 * Waits until every task given is settled (attemptSettled), or `timeoutMs`
 * passed, or `signal` aborted; the records as last read. Wakes on a change of
 * a task's folder and polls as a safety net, reconciling a live task now and
 * then (a dead runner must not make it hang), starting the check of an
 * ended one whose writer died before it could (as `list` does), and settling
 * a check whose process was killed under it.
 */
export async function waitSettled(stateDir: string, ids: number[], opts: {timeoutMs?: number; signal?: AbortSignal} = {}): Promise<TaskRecord[]> {
  const deadline = opts.timeoutMs === undefined ? Infinity : Date.now() + opts.timeoutMs
  const wakeup = new Wakeup().watch(ids.map((id) => taskPaths(stateDir, id).dir))
  const onAbort = () => wakeup.wake()
  opts.signal?.addEventListener('abort', onAbort)
  let lastLook = 0
  try {
    for (;;) {
      const look = Date.now() - lastLook > 1000
      if (look) lastLook = Date.now()
      const records: TaskRecord[] = []
      for (const id of ids) {
        const read = readRecord(stateDir, id)
        if (!read.ok) continue
        let record = read.record
        if (look && !isFinalStatus(record.status)) record = await reconcile(stateDir, record)
        if (look && hooksPending(stateDir, record)) fireHooks(stateDir, record)
        if (look && checkAbandoned(record)) record = await settleAbandonedCheck(stateDir, record)
        records.push(record)
      }
      if (records.every(attemptSettled) || Date.now() >= deadline || opts.signal?.aborted) return records
      await wakeup.sleep(Math.min(250, Math.max(1, deadline - Date.now())))
    }
  } finally {
    opts.signal?.removeEventListener('abort', onAbort)
    wakeup.close()
  }
}
