// The API's view of `drover merge`: the options a front-end passes, checked
// whole, and the stable --json shape of what was done. The git work is
// process/worktree-merge.ts; the task side (lock, record, events) tasks/merge.ts.

import {usageError} from '../base/errors.js'
import {MERGE_MODES, type MergeMode} from '../process/worktree-merge.js'
import type {TaskRecord} from '../state/record.js'
import {checkShape} from './option-shapes.js'

export type {MergeMode}
export {MERGE_MODES}

export interface MergeOptions {
  /** `merge` (git's merge, a fast-forward when it can be; the default), `squash` (one commit), or `rebase` (the branch onto the target, then a fast-forward). */
  mode?: MergeMode
  /** the branch to merge into; default the branch the task started from. */
  into?: string
  /** commit the work the worktree holds uncommitted first (one commit), rather than refuse (exit 4). */
  commit?: boolean
}

/** `drover merge --json`. */
export interface MergeResult {
  id: number
  branch: string
  into: string
  mode: MergeMode
  /** the checkout the merge was made in (where `into` is checked out). */
  checkout: string
  /** the tip of `into` after the merge. */
  commit: string
  /** the branch's commits brought in; 0 when `into` had every one already. */
  commits: number
  fastForward: boolean
  /** the commit made of the worktree's uncommitted work (`commit: true`), or null. */
  committedWork: string | null
}

export function checkMergeOptions(opts: MergeOptions): void {
  checkShape(opts, {mode: MERGE_MODES, into: 'string', commit: 'boolean'}, 'merge option')
  if (opts.into !== undefined && opts.into.trim() === '') throw usageError('--into needs a branch name')
}

export async function mergeResult(stateDir: string, record: TaskRecord, opts: MergeOptions): Promise<MergeResult> {
  const {mergeTask} = await import('../tasks/merge.js')
  const {outcome} = await mergeTask(stateDir, record, opts)
  const {into, checkout, mode, commit, commits, fastForward, committedWork} = outcome
  return {id: record.id, branch: record.worktree!.branch, into, mode, checkout, commit, commits, fastForward, committedWork}
}

/** What a merge did, in one line for people: the CLI's answer, top's footer, the dashboard's notice. */
export function mergeSentence(r: MergeResult): string {
  const plural = r.commits === 1 ? '' : 's'
  if (r.commits === 0 && r.committedWork === null) return `task ${r.id}: ${r.into} has all of ${r.branch} already; nothing to merge`
  const how = r.mode === 'squash' ? 'squashed into one commit' : r.mode === 'rebase' ? 'rebased, then fast-forwarded' : r.fastForward ? 'fast-forwarded' : 'merged'
  const work = r.committedWork ? ` (its uncommitted work committed first as ${r.committedWork.slice(0, 12)})` : ''
  return `task ${r.id}: ${r.commits} commit${plural} of ${r.branch} ${how} into ${r.into}${work}; ${r.into} is at ${r.commit.slice(0, 12)} in ${r.checkout}`
}
