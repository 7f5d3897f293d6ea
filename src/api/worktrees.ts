// The API's view of task worktrees (`start --worktree`): the diff against the
// base. The git work itself is process/worktree.ts; this shapes it for callers.

import {DroverError, ExitCode} from '../base/errors.js'
import {worktreeDiff} from '../process/worktree.js'
import type {TaskRecord} from '../state/record.js'

export interface DiffOptions {
  /** git's `--stat` summary instead of the patch. */
  stat?: boolean
  /** ANSI colour in the text (for a terminal). */
  color?: boolean
}

/** The stable --json shape of `drover diff`. */
export interface DiffResult {
  id: number
  branch: string
  /** the ref the branch started from, and the commit it named then. */
  base: string
  baseCommit: string
  path: string
  stat: boolean
  /** git's output: the patch (or the --stat table) of the worktree against the base commit. */
  diff: string
}

export function taskDiff(record: TaskRecord, opts: DiffOptions = {}): DiffResult {
  const worktree = record.worktree
  if (!worktree) {
    throw new DroverError(`task ${record.id} has no worktree (start it with --worktree to give it one)`, ExitCode.failed, {id: record.id})
  }
  let diff: string
  try {
    diff = worktreeDiff(worktree, opts)
  } catch (error) {
    if (error instanceof DroverError) throw error
    throw new DroverError(`task ${record.id}: ${(error as Error).message}`, ExitCode.failed, {id: record.id})
  }
  return {id: record.id, branch: worktree.branch, base: worktree.base, baseCommit: worktree.baseCommit, path: worktree.path, stat: opts.stat ?? false, diff}
}
