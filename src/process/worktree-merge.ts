// Bringing a task's branch into another (`drover merge`): a merge (git's own,
// fast-forward when it can be), a squash (one commit of all the work), or a
// rebase of the branch onto the target then a fast-forward. It happens in
// the checkout where the target branch is checked out — the user's own —
// after refusing what would go wrong half-way: a dirty checkout, one with a
// merge or rebase under way, work left uncommitted in the task's worktree.
// A conflict is left exactly as git leaves it, and said (exit 4): never
// undone behind the user's back, never a half-merge passed off as done.

import {existsSync} from 'node:fs'
import path from 'node:path'
import {conflictError, DroverError, ExitCode, usageError} from '../base/errors.js'
import type {WorktreeInfo, WorktreeMerge} from '../state/record.js'
import {git, GitError, gitTest} from './git.js'

export type MergeMode = WorktreeMerge['mode']
export const MERGE_MODES: readonly MergeMode[] = ['merge', 'squash', 'rebase']

export interface MergeRequest {
  info: WorktreeInfo
  id: number
  name: string | null
  mode: MergeMode
  /** the branch to bring the work into; default the base branch (baseBranch, else the branch `base` names, else the repository's). */
  into?: string
  /** commit what the worktree holds uncommitted first (one commit), rather than refuse. */
  commitUncommitted?: boolean
}

export interface MergeOutcome {
  into: string
  /** the checkout the target branch is checked out in, where the merge was made. */
  checkout: string
  mode: MergeMode
  /** the tip of `into` after the merge. */
  commit: string
  /** the branch's commits brought in (0: it held nothing `into` had not). */
  commits: number
  fastForward: boolean
  /** the commit made of the worktree's uncommitted work first, or null. */
  committedWork: string | null
  /** a rebase: the commit the branch now starts from (the target's tip before), which is its base from then on. */
  onto: string | null
}

const branchRef = (branch: string) => `refs/heads/${branch}`

function tipOf(repo: string, branch: string): string | null {
  try {
    return git(repo, ['rev-parse', '--verify', '--quiet', `${branchRef(branch)}^{commit}`]).trim()
  } catch {
    return null
  }
}

/** The branch a merge goes into when none is named: the one the task started from. */
export function defaultTarget(info: WorktreeInfo): string | null {
  if (info.baseBranch) return info.baseBranch
  if (info.createdBranch === false) return null
  // a task made before drover recorded the base branch: what its base names now
  try {
    const full = git(info.repo, ['rev-parse', '--symbolic-full-name', info.base]).trim()
    return full.startsWith('refs/heads/') ? full.slice('refs/heads/'.length) : null
  } catch {
    return null
  }
}

/** Where `branch` is checked out among the repository's worktrees, or null. */
export function checkoutOf(repo: string, branch: string): string | null {
  let current: string | null = null
  for (const line of git(repo, ['worktree', 'list', '--porcelain']).split('\n')) {
    if (line.startsWith('worktree ')) current = line.slice('worktree '.length)
    else if (line === `branch ${branchRef(branch)}` && current !== null) return current
  }
  return null
}

/** What is under way in a checkout that a merge must not walk into (git's own state files), or null. */
function underWay(checkout: string): string | null {
  for (const [file, what] of [
    ['MERGE_HEAD', 'a merge'],
    ['rebase-merge', 'a rebase'],
    ['rebase-apply', 'a rebase'],
    ['CHERRY_PICK_HEAD', 'a cherry-pick'],
    ['REVERT_HEAD', 'a revert'],
  ] as const) {
    const at = git(checkout, ['rev-parse', '--git-path', file]).trim()
    if (existsSync(path.resolve(checkout, at))) return what
  }
  return null
}

const uncommitted = (dir: string, untracked = true) => git(dir, ['status', '--porcelain', ...(untracked ? [] : ['--untracked-files=no'])]).trim() !== ''

/** The paths git left in conflict in `dir`. */
const conflicted = (dir: string) => git(dir, ['diff', '--name-only', '--diff-filter=U']).split('\n').filter(Boolean)

/** Checks everything a merge needs before git is asked to change anything; returns the target and its checkout. */
function plan(req: MergeRequest): {into: string; checkout: string; tip: string; present: boolean} {
  const {info} = req
  if (!existsSync(info.repo)) throw new DroverError(`task ${req.id}: its repository ${info.repo} is gone`, ExitCode.failed, {id: req.id})
  const tip = tipOf(info.repo, info.branch)
  if (tip === null) throw new DroverError(`task ${req.id}: its branch ${info.branch} is gone from ${info.repo}: nothing to merge`, ExitCode.failed, {id: req.id})
  const into = req.into ?? defaultTarget(info)
  if (into === null) throw usageError(`task ${req.id} did not start from a branch (${info.createdBranch === false ? 'it runs on an existing branch' : `its base is ${info.base}`}): name one with --into BRANCH`)
  if (into === info.branch) throw usageError(`--into ${into} is the task's own branch`)
  if (tipOf(info.repo, into) === null) throw usageError(`there is no branch ${into} in ${info.repo}`)
  const checkout = checkoutOf(info.repo, into)
  if (checkout === null) throw conflictError(`branch ${into} is not checked out in any worktree of ${info.repo}: check it out there (git -C ${info.repo} switch ${into}) and merge again`, {id: req.id, into})
  const busy = underWay(checkout)
  if (busy) throw conflictError(`${busy} is under way in ${checkout}: finish or abort it first`, {id: req.id, into})
  if (uncommitted(checkout, false)) throw conflictError(`${checkout} (branch ${into}) has uncommitted changes: commit or stash them first, so the merge is all that changes there`, {id: req.id, into})
  const present = existsSync(info.path)
  if (present && uncommitted(info.path) && !req.commitUncommitted) {
    throw conflictError(`task ${req.id}'s worktree ${info.path} holds work not committed, which a merge would leave out: commit it there, or merge with --commit (one commit of it all)`, {id: req.id})
  }
  if (req.mode === 'rebase' && !present) throw conflictError(`task ${req.id}'s worktree ${info.path} is gone, and a rebase needs it: merge or squash instead`, {id: req.id})
  return {into, checkout, tip, present}
}

/** Runs a git step that may stop on a conflict: a conflict is exit 4 with what git left and how to go on or back. */
function step(dir: string, args: string[], onConflict: (files: string[]) => string): string {
  try {
    return git(dir, args)
  } catch (error) {
    if (!(error instanceof GitError)) throw error
    const files = conflicted(dir)
    if (files.length > 0) throw conflictError(onConflict(files), {conflicts: files})
    throw new DroverError(`git ${args[0]} failed in ${dir}: ${error.detail}`, ExitCode.failed)
  }
}

const listed = (files: string[]) => files.slice(0, 10).join(', ') + (files.length > 10 ? ` and ${files.length - 10} more` : '')

export function mergeWorktree(req: MergeRequest): MergeOutcome {
  const {info, mode} = req
  const {into, checkout, present} = plan(req)
  let committedWork: string | null = null
  if (present && req.commitUncommitted && uncommitted(info.path)) {
    git(info.path, ['add', '--all'])
    git(info.path, ['commit', '--quiet', '-m', `drover: the work task ${req.id} left uncommitted`])
    committedWork = git(info.path, ['rev-parse', 'HEAD']).trim()
  }
  const before = tipOf(info.repo, into)!
  const tip = tipOf(info.repo, info.branch)!
  const commits = Number(git(info.repo, ['rev-list', '--count', `${before}..${tip}`]).trim()) || 0
  const task = `task ${req.id}${req.name ? ` (${req.name})` : ''}`
  if (mode === 'rebase') {
    step(info.path, ['rebase', '--quiet', into], (files) =>
      `rebasing ${info.branch} onto ${into} stopped on a conflict in ${listed(files)}; the worktree ${info.path} is as git left it: resolve there and git rebase --continue, or git -C ${info.path} rebase --abort; then drover merge ${req.id} --rebase again`,
    )
    git(checkout, ['merge', '--ff-only', '--quiet', info.branch])
  } else if (mode === 'squash') {
    step(checkout, ['merge', '--squash', '--quiet', info.branch], (files) =>
      `squashing ${info.branch} into ${into} conflicts in ${listed(files)}; ${checkout} is as git left it: resolve and commit there, or undo with git -C ${checkout} reset --merge`,
    )
    if (gitTest(checkout, ['diff', '--cached', '--quiet'])) {
      // nothing staged: every change of the branch is in `into` already
    } else {
      const subjects = git(info.repo, ['log', '--reverse', '--format=* %s', `${before}..${tip}`]).trim()
      git(checkout, ['commit', '--quiet', '-m', `${task}: the work of ${info.branch}${subjects ? `\n\n${subjects}` : ''}`])
    }
  } else {
    step(checkout, ['merge', '--no-edit', '--quiet', info.branch], (files) =>
      `merging ${info.branch} into ${into} conflicts in ${listed(files)}; ${checkout} is as git left it: resolve and commit there, or undo with git -C ${checkout} merge --abort`,
    )
  }
  const commit = tipOf(info.repo, into)!
  return {into, checkout, mode, commit, commits, fastForward: commit === tipOf(info.repo, info.branch) && commit !== before, committedWork, onto: mode === 'rebase' ? before : null}
}
