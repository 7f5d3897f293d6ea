// A task's own git worktree: made at `start --worktree` on a new branch from
// a base commit, summarised against that base when a run ends, diffed on
// demand, and taken away by prune/rm only when no commit and no uncommitted
// change can be lost. Every decision re-reads git; the record only says where.

import {existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import path from 'node:path'
import {conflictError, DroverError, ExitCode, usageError} from '../base/errors.js'
import type {WorktreeInfo, WorktreeSummary} from '../state/record.js'
import {git, GitError, gitTest, parseShortstat} from './git.js'
import {branchTip, commitsSince, mergedInto} from './branch-state.js'

export interface WorktreeRequest {
  /** the directory `start` was asked to run in: must be inside a git working tree. */
  cwd: string
  /** where worktrees of this state dir live. */
  root: string
  id: number
  name: string | null
  /** the new branch; default `drover/<id>-<name>`. */
  branch: string | null
  /** the commit-ish to start from; default HEAD. */
  base: string | null
  /** run on `branch` as it is, though it exists already (it is then never deleted). */
  existingBranch?: boolean
  /** keep the base commit resolved now, even if the task starts later (see refreshBase). */
  pinBase?: boolean
}

export const defaultBranch = (id: number, name: string | null) => `drover/${id}-${name ?? 'task'}`

/** What planWorktree found: the repository and the commit the new branch starts from. */
export interface WorktreePlan {
  top: string
  base: string
  baseCommit: string
  /** the local branch the base names (HEAD's for HEAD), or null: where `drover merge` goes by default. */
  baseBranch: string | null
}

/**
 * Every refusal of a worktree that needs no task id — not in a repository, a
 * base that names no commit, a bad or taken branch name given — checked before
 * the id is handed out, so a refused start leaves the state dir as it was.
 * Only the default branch (`drover/<id>-<name>`) waits for the id.
 */
export function planWorktree(req: Pick<WorktreeRequest, 'cwd' | 'branch' | 'base' | 'existingBranch'>): WorktreePlan {
  let top: string
  try {
    top = git(req.cwd, ['rev-parse', '--show-toplevel']).trim()
  } catch (error) {
    if (error instanceof GitError && error.status === null) throw new DroverError(`--worktree: ${error.detail}`, ExitCode.failed)
    throw usageError(`--worktree needs a git repository: ${req.cwd} is not inside one`)
  }
  const exists = req.branch !== null && branchExists(top, req.branch)
  if (req.existingBranch) {
    if (req.branch === null || !exists) throw usageError(`--existing-branch: ${req.branch === null ? 'name the branch: --worktree BRANCH' : `there is no branch ${req.branch} in ${top}`}`)
    if (req.base !== null) throw usageError('--existing-branch runs on the branch as it is: leave out --base')
  }
  const base = req.existingBranch ? `refs/heads/${req.branch}` : (req.base ?? 'HEAD')
  let baseCommit: string
  try {
    baseCommit = git(top, ['rev-parse', '--verify', '--quiet', `${base}^{commit}`]).trim()
  } catch {
    throw usageError(req.base === null ? `--worktree: ${top} has no commit yet to start a branch from` : `--base ${base} names no commit in ${top}`)
  }
  if (req.branch !== null) checkNewBranch(top, req.branch, exists, req.existingBranch ?? false)
  return {top, base, baseCommit, baseBranch: req.existingBranch ? null : localBranchOf(top, base)}
}

/** The local branch a ref names (HEAD: the branch checked out), or null (a tag, a commit, a detached HEAD). */
export function localBranchOf(top: string, ref: string): string | null {
  try {
    const full = git(top, ['rev-parse', '--symbolic-full-name', ref]).trim()
    return full.startsWith('refs/heads/') ? full.slice('refs/heads/'.length) : null
  } catch {
    return null
  }
}

const branchExists = (top: string, branch: string) => gitTest(top, ['show-ref', '--verify', '--quiet', `refs/heads/${branch}`])

function checkNewBranch(top: string, branch: string, exists: boolean, existingBranch: boolean): void {
  try {
    git(top, ['check-ref-format', '--branch', branch])
  } catch {
    throw usageError(`--worktree: ${JSON.stringify(branch)} is not a valid branch name`)
  }
  if (exists && !existingBranch) {
    throw conflictError(`branch ${branch} already exists in ${top}; name a new one (--worktree NAME), or run on it with --existing-branch`, {branch})
  }
}

/**
 * Makes the worktree and returns it with the task's cwd inside it (the same
 * subdirectory `start` ran in, so `start --worktree` from `repo/pkg` runs in
 * `worktree/pkg`). The base is a commit: uncommitted changes of the repo's
 * working tree stay where they are (recorded as `baseDirty`, never refused),
 * so an agent starts from exactly what the branch says.
 */
export function createWorktree(req: WorktreeRequest, plan: WorktreePlan = planWorktree(req)): {info: WorktreeInfo; cwd: string} {
  const {top, base, baseCommit, baseBranch} = plan
  const branch = req.branch ?? defaultBranch(req.id, req.name)
  if (req.branch === null) checkNewBranch(top, branch, branchExists(top, branch), false)
  const baseDirty = req.base === null && !req.existingBranch && git(top, ['status', '--porcelain', '--untracked-files=no']).trim() !== ''
  const worktreePath = path.join(req.root, req.name ? `${req.id}-${req.name}` : String(req.id))
  mkdirSync(req.root, {recursive: true, mode: 0o700})
  // A worktree folder deleted by hand stays registered until pruned, and a
  // registered path cannot be added again.
  git(top, ['worktree', 'prune'])
  // git itself refuses a branch checked out in another worktree.
  addWorktree(top, req.existingBranch ? ['worktree', 'add', '--quiet', worktreePath, branch] : ['worktree', 'add', '--quiet', '-b', branch, worktreePath, baseCommit])
  const rel = path.relative(top, path.resolve(req.cwd))
  const cwd = rel === '' || rel.startsWith('..') ? worktreePath : path.join(worktreePath, rel)
  const created = req.existingBranch ? {createdBranch: false} : {}
  const pinned = req.pinBase ? {pinBase: true} : {}
  return {info: {repo: top, path: worktreePath, branch, base, baseCommit, baseDirty, ...created, ...pinned, baseBranch, summary: null}, cwd}
}

/**
 * When a task's first run starts: its worktree was made when the task was
 * created (the branch name needs the id, and a refusal must come at once),
 * but a task that waited (`--after`, a queue) should start from what its base
 * names now — a chained agent must see the work merged while it waited. The
 * untouched worktree and its branch are moved to the base's commit now.
 * Returns the new info, or null when nothing moves: the base is pinned
 * (`--pin-base`), the branch existed before the task, the base still names
 * the same commit, or the worktree is no longer exactly the old base (someone
 * worked in it: that work is never reset away).
 */
export function refreshBase(info: WorktreeInfo): WorktreeInfo | null {
  if (info.pinBase || info.createdBranch === false || !existsSync(info.path)) return null
  let now: string
  try {
    now = git(info.repo, ['rev-parse', '--verify', '--quiet', `${info.base}^{commit}`]).trim()
  } catch {
    return null // the base ref is gone: the commit fixed at creation stands
  }
  if (now === info.baseCommit) return null
  const head = git(info.path, ['rev-parse', 'HEAD']).trim()
  if (head !== info.baseCommit || git(info.path, ['status', '--porcelain']).trim() !== '') return null
  git(info.path, ['reset', '--hard', '--quiet', now])
  return {...info, baseCommit: now}
}

// Ten `start --worktree` at once on one repo race for git's lock files
// (config.lock when git records the new branch); a moment later each succeeds.
function addWorktree(top: string, args: string[]): void {
  const deadline = Date.now() + 10_000
  for (let attempt = 0; ; attempt++) {
    try {
      git(top, args)
      return
    } catch (error) {
      const busy = error instanceof GitError && /\.lock\b|lock file|Unable to create/i.test(error.detail)
      if (!busy || Date.now() > deadline) {
        throw new DroverError(`--worktree: ${error instanceof GitError ? error.detail : String(error)}`, ExitCode.failed)
      }
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 20 + attempt * 10)
    }
  }
}

/**
 * Runs `fn` with an index of its own holding every file of the worktree as it
 * is — tracked and untracked (not ignored), committed or not — so a diff
 * against the base shows all the work, new files included, while the
 * worktree's own index is never touched. An agent that cannot commit (codex's
 * sandbox keeps .git read-only) leaves its work as new, untracked files.
 */
function withWholeTree<T>(info: WorktreeInfo, fn: (env: NodeJS.ProcessEnv) => T): T {
  const dir = mkdtempSync(path.join(tmpdir(), 'drover-index-'))
  const env = {GIT_INDEX_FILE: path.join(dir, 'index')}
  try {
    git(info.path, ['read-tree', 'HEAD'], {env})
    git(info.path, ['add', '--all'], {env})
    return fn(env)
  } finally {
    rmSync(dir, {recursive: true, force: true})
  }
}

/** What the worktree holds against its base now; null when its folder is gone. */
export function summarizeWorktree(info: WorktreeInfo, at = new Date().toISOString()): WorktreeSummary | null {
  if (!existsSync(info.path)) return null
  const head = git(info.path, ['rev-parse', 'HEAD']).trim()
  const commits = Number(git(info.path, ['rev-list', '--count', `${info.baseCommit}..HEAD`]).trim()) || 0
  const stat = withWholeTree(info, (env) => parseShortstat(git(info.path, ['diff', '--cached', '--shortstat', info.baseCommit], {env})))
  const uncommitted = git(info.path, ['status', '--porcelain']).trim() !== ''
  return {head, commits, ...stat, uncommitted, at}
}

/**
 * The diff against the base: of the worktree as it is (its commits, changes
 * not committed and new files), or of the branch when the folder is gone.
 */
export function worktreeDiff(info: WorktreeInfo, opts: {stat?: boolean; nameOnly?: boolean; color?: boolean; paths?: string[]} = {}): string {
  const flags = [`--color=${opts.color ? 'always' : 'never'}`, ...(opts.stat ? ['--stat'] : []), ...(opts.nameOnly ? ['--name-only'] : [])]
  // pathspecs after `--`, so a path named like a flag or a ref stays a path
  const paths = opts.paths && opts.paths.length > 0 ? ['--', ...opts.paths] : []
  if (existsSync(info.path)) return withWholeTree(info, (env) => git(info.path, ['diff', '--cached', ...flags, info.baseCommit, ...paths], {env}))
  if (existsSync(info.repo) && gitTest(info.repo, ['show-ref', '--verify', '--quiet', `refs/heads/${info.branch}`])) {
    return git(info.repo, ['diff', ...flags, info.baseCommit, `refs/heads/${info.branch}`, ...paths])
  }
  throw new DroverError(`the worktree ${info.path} and its branch ${info.branch} are gone: nothing to diff`, ExitCode.failed)
}

/**
 * The tree of the worktree's work as it is — tracked and untracked, committed
 * or not — written into the repository's objects (one `git write-tree` of an
 * index of its own); its branch's tree when the folder is gone.
 */
export function workTree(info: WorktreeInfo): {tree: string; present: boolean} {
  if (existsSync(info.path)) return {tree: withWholeTree(info, (env) => git(info.path, ['write-tree'], {env}).trim()), present: true}
  if (existsSync(info.repo) && gitTest(info.repo, ['show-ref', '--verify', '--quiet', `refs/heads/${info.branch}`])) {
    return {tree: git(info.repo, ['rev-parse', `refs/heads/${info.branch}^{tree}`]).trim(), present: false}
  }
  throw new DroverError(`the worktree ${info.path} and its branch ${info.branch} are gone: nothing to diff`, ExitCode.failed)
}

/** Whether two working trees belong to one repository (the same object store: linked worktrees of it count). */
export function sameRepository(a: string, b: string): boolean {
  const common = (dir: string) => realpathSync(path.resolve(dir, git(dir, ['rev-parse', '--git-common-dir']).trim()))
  try {
    return common(a) === common(b)
  } catch {
    return false
  }
}

/** What two tasks' work differs in: git's diff from `a`'s tree to `b`'s, run in `a`'s repository (both are in it). */
export function worktreesDiff(a: WorktreeInfo, b: WorktreeInfo, opts: {stat?: boolean; nameOnly?: boolean; color?: boolean; paths?: string[]} = {}): {diff: string; present: [boolean, boolean]} {
  const from = workTree(a)
  const to = workTree(b)
  const flags = [`--color=${opts.color ? 'always' : 'never'}`, ...(opts.stat ? ['--stat'] : []), ...(opts.nameOnly ? ['--name-only'] : [])]
  const paths = opts.paths && opts.paths.length > 0 ? ['--', ...opts.paths] : []
  return {diff: git(a.repo, ['diff', ...flags, from.tree, to.tree, ...paths]), present: [from.present, to.present]}
}

/**
 * How far removing a task may go with its worktree: false keeps a task whose
 * branch has unmerged commits; true removes its clean worktree and keeps the
 * branch; 'force' (`rm --force`) also removes a worktree with uncommitted
 * changes, discarding them — the branch goes by the same rule (kept with any unmerged commit);
 * 'discard' (`rm --discard`) throws the work away: the worktree whatever it
 * holds, and the branch with its unmerged commits, which it names.
 */
export type WorktreeRule = boolean | 'force' | 'discard'

/** What removing a task may do with its worktree. */
export type WorktreeVerdict =
  | {keep: true; reason: string}
  | {keep: false; removeWorktree: boolean; deleteBranch: boolean; note: string | null; discardUncommitted?: boolean; discarded?: DiscardedCommit[]}

/** A commit a discard deleted with its branch: still in git's object store until it is pruned, so `git branch NAME <sha>` brings it back. */
export interface DiscardedCommit {
  sha: string
  subject: string
}

/**
 * The rule that never loses work: a worktree with uncommitted changes stays
 * (and so does its task); a branch goes only when it has no commits beyond
 * the base or they are merged (reachable from the repo's HEAD or the base
 * ref). With `includeWorktrees`, a branch with other commits keeps the task
 * from blocking: the clean worktree goes and the branch stays.
 */
export function worktreeVerdict(info: WorktreeInfo, includeWorktrees: WorktreeRule): WorktreeVerdict {
  const present = existsSync(info.path)
  if (!existsSync(info.repo)) {
    // The repository itself is gone: there is nothing git could keep or lose.
    return {keep: false, removeWorktree: false, deleteBranch: false, note: null}
  }
  const dirty = present && git(info.path, ['status', '--porcelain']).trim() !== ''
  if (includeWorktrees === 'discard') return discardVerdict(info, present, dirty)
  if (dirty && includeWorktrees !== 'force') {
    return {keep: true, reason: `its worktree ${info.path} has uncommitted changes (commit or discard them first, or drover rm --force to discard them)`}
  }
  const verdict = branchVerdict(info, present, includeWorktrees !== false)
  if (!dirty || verdict.keep) return verdict
  // --force: the uncommitted changes go with the worktree; the branch keeps every commit (never deleted while it has unmerged ones)
  const discarded = `uncommitted changes in ${info.path} discarded`
  return {...verdict, discardUncommitted: true, note: verdict.note ? `${discarded}; ${verdict.note}` : discarded}
}

/** `rm --discard`: everything goes, and the note names what: uncommitted changes, and each commit no other branch has. */
function discardVerdict(info: WorktreeInfo, present: boolean, dirty: boolean): WorktreeVerdict {
  const tip = branchTip(info.repo, info.branch)
  const uncommitted = dirty ? `uncommitted changes in ${info.path} discarded` : null
  const notes = (...parts: (string | null)[]) => parts.filter(Boolean).join('; ') || null
  if (tip === null) return {keep: false, removeWorktree: present, deleteBranch: false, discardUncommitted: dirty, note: notes(uncommitted)}
  if (info.createdBranch === false) {
    return {keep: false, removeWorktree: present, deleteBranch: false, discardUncommitted: dirty, note: notes(uncommitted, `branch ${info.branch} kept: it existed before the task`)}
  }
  const discarded = tip === info.baseCommit || merged(info, tip) ? [] : commitsSince(info.repo, info.baseCommit, tip)
  const plural = discarded.length === 1 ? '' : 's'
  const commits = discarded.length === 0 ? null : `branch ${info.branch} deleted with ${discarded.length} unmerged commit${plural}: ${discarded.map((c) => `${c.sha.slice(0, 12)} ${c.subject}`).join('; ')} (git branch ${info.branch} ${tip.slice(0, 12)} brings them back until git prunes unreachable commits)`
  return {keep: false, removeWorktree: present, deleteBranch: true, discardUncommitted: dirty, note: notes(uncommitted, commits), discarded}
}

function branchVerdict(info: WorktreeInfo, present: boolean, includeWorktrees: boolean): WorktreeVerdict {
  const tip = branchTip(info.repo, info.branch)
  const gone = present ? null : `worktree ${info.path} was already gone`
  if (tip === null) return {keep: false, removeWorktree: present, deleteBranch: false, note: gone}
  // A branch the task did not make stays, with every commit on it: only the clean worktree goes.
  if (info.createdBranch === false) return {keep: false, removeWorktree: present, deleteBranch: false, note: `branch ${info.branch} kept: it existed before the task`}
  if (tip === info.baseCommit || merged(info, tip)) return {keep: false, removeWorktree: present, deleteBranch: true, note: gone}
  const commits = Number(git(info.repo, ['rev-list', '--count', `${info.baseCommit}..${tip}`]).trim()) || 0
  const unmerged = `its branch ${info.branch} has ${commits} commit${commits === 1 ? '' : 's'} not merged`
  if (!includeWorktrees) {
    const what = present ? 'the worktree' : `the task (its worktree ${info.path} is gone already)`
    return {keep: true, reason: `${unmerged} (--include-worktrees removes ${what} and keeps the branch)`}
  }
  return {keep: false, removeWorktree: present, deleteBranch: false, note: `branch ${info.branch} kept: ${commits} unmerged commit${commits === 1 ? '' : 's'}`}
}

/** Merged into the repository's HEAD, the base ref or the base branch: by git's reckoning, or in content (a squash, a rebase). */
function merged(info: WorktreeInfo, tip: string): boolean {
  const targets = new Set(['HEAD', info.base, ...(info.baseBranch ? [info.baseBranch] : []), ...(info.merged ? [info.merged.into] : [])])
  for (const into of targets) {
    if (into === `refs/heads/${info.branch}` || into === info.branch) continue
    if (mergedInto(info.repo, into, tip, info.baseCommit)) return true
  }
  return false
}

/** What removing did: the worktree folder, and whether the branch went with it. */
export interface WorktreeRemoval {
  path: string
  branch: string
  worktreeRemoved: boolean
  branchDeleted: boolean
  note: string | null
  /** `rm --discard`: the unmerged commits deleted with the branch (newest first). */
  discarded?: DiscardedCommit[]
}

/** Carries out a verdict that lets the task go. git itself refuses a dirty worktree here, a second guard. */
export function removeWorktree(info: WorktreeInfo, verdict: Extract<WorktreeVerdict, {keep: false}>): WorktreeRemoval {
  // A folder deleted by hand stays registered in git, and git refuses to
  // delete a branch "checked out" there: forget the missing worktree first.
  if (!existsSync(info.path) && existsSync(info.repo)) git(info.repo, ['worktree', 'prune'])
  if (verdict.removeWorktree) git(info.repo, ['worktree', 'remove', ...(verdict.discardUncommitted ? ['--force'] : []), info.path])
  if (verdict.deleteBranch) git(info.repo, ['branch', '-D', info.branch])
  if (existsSync(info.repo)) git(info.repo, ['worktree', 'prune'])
  return {path: info.path, branch: info.branch, worktreeRemoved: verdict.removeWorktree, branchDeleted: verdict.deleteBranch, note: verdict.note, ...(verdict.discarded ? {discarded: verdict.discarded} : {})}
}
