// The API's view of task worktrees (`start --worktree`): the diff against the
// base, and what the worktree holds now. The git work itself is
// process/worktree.ts; this shapes it for callers.

import {existsSync} from 'node:fs'
import {DroverError, ExitCode} from '../base/errors.js'
import {sameRepository, summarizeWorktree, worktreeDiff, worktreesDiff} from '../process/worktree.js'
import type {TaskRecord, WorktreeInfo, WorktreeSummary} from '../state/record.js'

export type {WorktreeSummary}

export interface DiffOptions {
  /** git's `--stat` summary instead of the patch. */
  stat?: boolean
  /** git's `--name-only`: the paths changed, one a line. */
  nameOnly?: boolean
  /** only these paths (git pathspecs, relative to the worktree's top). */
  paths?: string[]
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
  nameOnly: boolean
  /** the pathspecs the diff was limited to (empty: all). */
  paths: string[]
  /** the worktree folder is there; false: it was deleted by hand, and the diff is its branch's (its commits only). */
  present: boolean
  /** git's output: the patch (or the --stat table) of the worktree against the base commit. */
  diff: string
}

export function taskDiff(record: TaskRecord, opts: DiffOptions = {}): DiffResult {
  const worktree = worktreeOf(record)
  const present = existsSync(worktree.path)
  const diff = withTaskErrors(record, () => worktreeDiff(worktree, opts))
  const {branch, base, baseCommit, path} = worktree
  return {id: record.id, branch, base, baseCommit, path, stat: opts.stat ?? false, nameOnly: opts.nameOnly ?? false, paths: opts.paths ?? [], present, diff}
}

/** The stable --json shape of `drover diff A B`: from A's work to B's. */
export interface PairDiffResult {
  ids: [number, number]
  branches: [string, string]
  /** the commits the two branches started from; the same for two tasks started from one base. */
  baseCommits: [string, string]
  sameBase: boolean
  stat: boolean
  nameOnly: boolean
  paths: string[]
  /** whether each worktree folder is there (else that side is its branch's commits). */
  present: [boolean, boolean]
  /** git's diff from the first task's work to the second's. */
  diff: string
}

/**
 * What tells two tasks' work apart: for agents given one job from one base,
 * where their answers differ. Both need a worktree in the same repository
 * (exit 2 otherwise); each side is its work as it is, committed or not.
 */
export function taskPairDiff(a: TaskRecord, b: TaskRecord, opts: DiffOptions = {}): PairDiffResult {
  const [wa, wb] = [worktreeOf(a), worktreeOf(b)]
  if (!withTaskErrors(a, () => sameRepository(wa.repo, wb.repo))) {
    throw new DroverError(`tasks ${a.id} and ${b.id} are of different repositories (${wa.repo}, ${wb.repo}): nothing to compare`, ExitCode.usage, {ids: [a.id, b.id]})
  }
  const {diff, present} = withTaskErrors(a, () => worktreesDiff(wa, wb, opts))
  return {
    ids: [a.id, b.id],
    branches: [wa.branch, wb.branch],
    baseCommits: [wa.baseCommit, wb.baseCommit],
    sameBase: wa.baseCommit === wb.baseCommit,
    stat: opts.stat ?? false,
    nameOnly: opts.nameOnly ?? false,
    paths: opts.paths ?? [],
    present,
    diff,
  }
}

/** A task's worktree and what it holds against its base. */
export interface WorktreeStatus {
  id: number
  branch: string
  base: string
  baseCommit: string
  path: string
  /** the worktree folder is still there (else the summary is the one recorded when a run last ended). */
  present: boolean
  /** the repo had uncommitted changes at start, which the worktree does not have. */
  baseDirty: boolean
  summary: WorktreeSummary | null
}

/**
 * The worktree as it is now, read from git (a running agent's work so far);
 * when its folder is gone, the summary recorded when a run last ended.
 */
export function taskWorktree(record: TaskRecord): WorktreeStatus {
  const worktree = worktreeOf(record)
  const now = withTaskErrors(record, () => summarizeWorktree(worktree))
  const {branch, base, baseCommit, path, baseDirty} = worktree
  return {id: record.id, branch, base, baseCommit, path, present: now !== null, baseDirty, summary: now ?? worktree.summary}
}

function worktreeOf(record: TaskRecord): WorktreeInfo {
  if (record.worktree) return record.worktree
  // exit 2: asking a plain task for its worktree is a mistake in what was asked, as git's "not a git repository" is
  throw new DroverError(`task ${record.id} has no worktree (start it with --worktree to give it one)`, ExitCode.usage, {id: record.id})
}

function withTaskErrors<T>(record: TaskRecord, fn: () => T): T {
  try {
    return fn()
  } catch (error) {
    if (error instanceof DroverError) throw error
    throw new DroverError(`task ${record.id}: ${(error as Error).message}`, ExitCode.failed, {id: record.id})
  }
}
