// `drover merge`: a --worktree task's branch brought into the branch it
// started from, under the task lock (no run may start meanwhile), only once
// the task has ended; the merge is then recorded on the task (worktree.merged
// and a `merged` event), a conflict as a `merge-conflict` event. The git work
// is process/worktree-merge.ts.

import {conflictError, DroverError, ExitCode, usageError} from '../base/errors.js'
import {mergeWorktree, type MergeMode, type MergeOutcome} from '../process/worktree-merge.js'
import {summarizeWorktree} from '../process/worktree.js'
import {commitRecord} from '../runner/commit-record.js'
import {acquireTaskLock} from '../state/lock.js'
import {isFinalStatus, type TaskRecord} from '../state/record.js'
import {appendEvent, readRecord, taskPaths} from '../state/store.js'
import {reconcile} from './reconcile.js'

export interface MergeTaskOptions {
  mode?: MergeMode
  into?: string
  /** commit what the worktree holds uncommitted first (one commit), rather than refuse. */
  commit?: boolean
}

export async function mergeTask(stateDir: string, found: TaskRecord, opts: MergeTaskOptions): Promise<{record: TaskRecord; outcome: MergeOutcome}> {
  const id = found.id
  if (!found.worktree) throw usageError(`task ${id} has no worktree (only a task started with --worktree has a branch to merge)`)
  // a runner found gone is recorded as such first: a lost task is ended, and mergeable
  await reconcile(stateDir, found)
  const release = await acquireTaskLock(stateDir, id, 5000)
  try {
    const read = readRecord(stateDir, id)
    if (!read.ok) throw new DroverError(`task ${id}: ${read.error}`, ExitCode.failed, {id})
    const record = read.record
    if (!isFinalStatus(record.status)) {
      throw conflictError(`task ${id} is ${record.status}: its branch is merged once it has ended (drover wait ${id}, or drain or stop it first)`, {id, status: record.status})
    }
    const worktree = record.worktree!
    const paths = taskPaths(stateDir, id)
    let outcome: MergeOutcome
    try {
      outcome = mergeWorktree({info: worktree, id, name: record.name, mode: opts.mode ?? 'merge', into: opts.into, commitUncommitted: opts.commit})
    } catch (error) {
      const conflicts = error instanceof DroverError && error.exitCode === ExitCode.conflict ? (error.data as {conflicts?: string[]} | undefined)?.conflicts : undefined
      if (conflicts) appendEvent(paths, {event: 'merge-conflict', run: record.runs.length, mode: opts.mode ?? 'merge', into: opts.into ?? null, conflicts})
      throw error
    }
    const at = new Date().toISOString()
    const merged = {into: outcome.into, mode: outcome.mode, commit: outcome.commit, commits: outcome.commits, at}
    let summary = worktree.summary
    try {
      summary = summarizeWorktree({...worktree, baseCommit: outcome.onto ?? worktree.baseCommit}, at) ?? summary
    } catch {
      // the summary is a courtesy; the merge is done
    }
    // a rebased branch starts from the target's tip now: the base its diff and summary are against
    const rebased = outcome.onto ? {baseCommit: outcome.onto} : {}
    const next: TaskRecord = {...record, worktree: {...worktree, ...rebased, summary, merged}}
    commitRecord(stateDir, next, record.status, {fire: null})
    appendEvent(paths, {event: 'merged', run: record.runs.length, ...merged, fastForward: outcome.fastForward, ...(outcome.committedWork ? {committedWork: outcome.committedWork} : {})})
    return {record: next, outcome}
  } finally {
    release()
  }
}
