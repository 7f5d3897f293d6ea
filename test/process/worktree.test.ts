// A task's git worktree against real git in temp repos: how it is made (and
// refused), what its summary and diff say, and the removal rule that never
// loses a commit or an uncommitted change — one case each.

import {existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync} from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import {afterEach, describe, expect, it} from 'vitest'
import {createWorktree, planWorktree, refreshBase, removeWorktree, summarizeWorktree, worktreeDiff, worktreeVerdict} from '../../src/process/worktree.js'
import {parseShortstat} from '../../src/process/git.js'
import {DroverError} from '../../src/base/errors.js'
import {wineLacks} from '../helpers/skips.js'
import {branches, cleanupRepos, commitFile, gitIn, makeRepo, worktreePaths} from '../helpers/git.js'

const roots: string[] = []
afterEach(() => {
  cleanupRepos()
  for (const dir of roots.splice(0)) rmSync(dir, {recursive: true, force: true})
})

const root = () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'drover-wt-'))
  roots.push(dir)
  return dir
}

function make(repo: string, over: Partial<Parameters<typeof createWorktree>[0]> = {}) {
  return createWorktree({cwd: repo, root: root(), id: 7, name: 'fix', branch: null, base: null, ...over})
}

const exitOf = (fn: () => unknown) => {
  try {
    fn()
  } catch (error) {
    if (error instanceof DroverError) return [error.exitCode, error.message] as const
    throw error
  }
  throw new Error('did not throw')
}

wineLacks('git for Windows').describe('making a worktree', () => {
  it('a new branch drover/<id>-<name> from HEAD, the cwd mapped into it, base recorded', () => {
    const repo = makeRepo()
    mkdirSync(path.join(repo, 'pkg'))
    const head = gitIn(repo, 'rev-parse', 'HEAD').trim()
    const {info, cwd} = make(repo, {cwd: path.join(repo, 'pkg')})
    expect(info).toMatchObject({repo, branch: 'drover/7-fix', base: 'HEAD', baseCommit: head, baseDirty: false, summary: null})
    expect(path.basename(info.path)).toBe('7-fix')
    expect(cwd).toBe(path.join(info.path, 'pkg'))
    expect(gitIn(info.path, 'rev-parse', '--abbrev-ref', 'HEAD').trim()).toBe('drover/7-fix')
    expect(worktreePaths(repo)).toContain(info.path)
  })

  it('--base names the start; a branch name of ours is used as given', () => {
    const repo = makeRepo()
    const first = gitIn(repo, 'rev-parse', 'HEAD').trim()
    commitFile(repo, 'b.txt', 'b\n')
    const {info} = make(repo, {base: first, branch: 'feature/x'})
    expect(info.baseCommit).toBe(first)
    expect(info.base).toBe(first)
    expect(existsSync(path.join(info.path, 'b.txt'))).toBe(false)
    expect(branches(repo)).toContain('feature/x')
  })

  it('refuses outside a repository (2), an existing branch (4), a bad base or branch name (2)', () => {
    const repo = makeRepo()
    expect(exitOf(() => make(repo, {cwd: root()}))).toEqual([2, expect.stringMatching(/needs a git repository/)])
    expect(exitOf(() => make(repo, {branch: 'main'}))).toEqual([4, expect.stringMatching(/^branch main already exists.*--existing-branch$/)])
    expect(exitOf(() => make(repo, {base: 'nosuch'}))).toEqual([2, '--base nosuch names no commit in ' + repo])
    expect(exitOf(() => make(repo, {branch: 'bad..name'}))).toEqual([2, expect.stringMatching(/not a valid branch name/)])
    expect(branches(repo)).toEqual(['main'])
  })

  it('planWorktree makes every refusal that needs no task id, and makes nothing; only the default branch waits for the id', () => {
    const repo = makeRepo()
    expect(exitOf(() => planWorktree({cwd: root(), branch: null, base: null}))).toEqual([2, expect.stringMatching(/needs a git repository/)])
    expect(exitOf(() => planWorktree({cwd: repo, branch: 'main', base: null}))[0]).toBe(4)
    expect(exitOf(() => planWorktree({cwd: repo, branch: null, base: 'nosuch'}))[0]).toBe(2)
    expect(exitOf(() => planWorktree({cwd: repo, branch: 'bad..name', base: null}))[0]).toBe(2)
    expect(exitOf(() => planWorktree({cwd: repo, branch: null, base: null, existingBranch: true}))[0]).toBe(2)
    const plan = planWorktree({cwd: repo, branch: null, base: null})
    expect(plan).toEqual({top: repo, base: 'HEAD', baseCommit: gitIn(repo, 'rev-parse', 'HEAD').trim(), baseBranch: 'main'})
    expect(worktreePaths(repo)).toEqual([repo])
    gitIn(repo, 'branch', 'drover/7-fix')
    expect(exitOf(() => make(repo))).toEqual([4, expect.stringMatching(/^branch drover\/7-fix already exists/)])
    expect(branches(repo)).toEqual(['drover/7-fix', 'main'])
  })

  it('--existing-branch runs on a branch as it is, and that branch is never deleted', () => {
    const repo = makeRepo()
    gitIn(repo, 'branch', 'feature')
    const tip = commitFile(repo, 'main-only.txt', 'x\n')
    expect(exitOf(() => make(repo, {branch: 'nosuch', existingBranch: true}))).toEqual([2, expect.stringMatching(/there is no branch nosuch/)])
    expect(exitOf(() => make(repo, {branch: 'feature', existingBranch: true, base: 'main'}))).toEqual([2, expect.stringMatching(/leave out --base/)])
    // git refuses a branch checked out elsewhere (main is, in the repo itself)
    expect(exitOf(() => make(repo, {branch: 'main', existingBranch: true}))[0]).toBe(1)
    const {info} = make(repo, {branch: 'feature', existingBranch: true})
    expect(info).toMatchObject({branch: 'feature', base: 'refs/heads/feature', createdBranch: false, baseDirty: false})
    expect(info.baseCommit).not.toBe(tip)
    const verdict = worktreeVerdict(info, false)
    expect(verdict).toEqual({keep: false, removeWorktree: true, deleteBranch: false, note: 'branch feature kept: it existed before the task'})
    removeWorktree(info, verdict as never)
    expect(branches(repo)).toEqual(['feature', 'main'])
  })

  it('a dirty working tree is not carried and not refused: baseDirty says so', () => {
    const repo = makeRepo()
    writeFileSync(path.join(repo, 'a.txt'), 'changed\n')
    const {info} = make(repo)
    expect(info.baseDirty).toBe(true)
    expect(gitIn(info.path, 'show', 'HEAD:a.txt')).toBe('one\n')
    expect(summarizeWorktree(info)!.uncommitted).toBe(false)
  })
})

wineLacks('git for Windows').describe('summary and diff', () => {
  it('counts commits, files, lines against the base — new files too — and uncommitted work; the index is not touched', () => {
    const repo = makeRepo()
    const {info} = make(repo)
    expect(summarizeWorktree(info, 'now')).toEqual({head: info.baseCommit, commits: 0, filesChanged: 0, insertions: 0, deletions: 0, uncommitted: false, at: 'now'})
    commitFile(info.path, 'a.txt', 'two\nthree\n')
    const head = commitFile(info.path, 'c.txt', 'c\n')
    writeFileSync(path.join(info.path, 'untracked.txt'), 'u\n')
    expect(summarizeWorktree(info, 'now')).toEqual({head, commits: 2, filesChanged: 3, insertions: 4, deletions: 1, uncommitted: true, at: 'now'})
    expect(worktreeDiff(info, {stat: true})).toMatch(/a.txt +\| 3 \+\+-\n c.txt +\| 1 \+\n untracked.txt \| 1 \+\n 3 files changed, 4 insertions\(\+\), 1 deletion\(-\)/)
    expect(worktreeDiff(info)).toContain('+three')
    expect(worktreeDiff(info)).toContain('+++ b/untracked.txt')
    // still untracked as far as the worktree's own index knows
    expect(gitIn(info.path, 'status', '--porcelain')).toBe('?? untracked.txt\n')
  })

  it('parses shortstat in all its forms', () => {
    expect(parseShortstat('')).toEqual({filesChanged: 0, insertions: 0, deletions: 0})
    expect(parseShortstat(' 1 file changed, 1 deletion(-)\n')).toEqual({filesChanged: 1, insertions: 0, deletions: 1})
    expect(parseShortstat(' 3 files changed, 10 insertions(+), 2 deletions(-)')).toEqual({filesChanged: 3, insertions: 10, deletions: 2})
  })
})

wineLacks('git for Windows').describe('removal never loses work', () => {
  it('no commits, clean: worktree and branch go', () => {
    const repo = makeRepo()
    const {info} = make(repo)
    const verdict = worktreeVerdict(info, false)
    expect(verdict).toEqual({keep: false, removeWorktree: true, deleteBranch: true, note: null})
    removeWorktree(info, verdict as never)
    expect(existsSync(info.path)).toBe(false)
    expect(branches(repo)).toEqual(['main'])
    expect(worktreePaths(repo)).toEqual([repo])
  })

  it('commits merged into HEAD: worktree and branch go, the commit stays on main', () => {
    const repo = makeRepo()
    const {info} = make(repo)
    const commit = commitFile(info.path, 'c.txt', 'c\n')
    gitIn(repo, 'merge', '-q', '--ff-only', info.branch)
    const verdict = worktreeVerdict(info, false)
    expect(verdict).toMatchObject({keep: false, deleteBranch: true})
    removeWorktree(info, verdict as never)
    expect(branches(repo)).toEqual(['main'])
    expect(gitIn(repo, 'cat-file', '-t', commit).trim()).toBe('commit')
  })

  it('unmerged commits: the task is kept; with includeWorktrees the worktree goes and the branch stays', () => {
    const repo = makeRepo()
    const {info} = make(repo)
    const commit = commitFile(info.path, 'c.txt', 'c\n')
    expect(worktreeVerdict(info, false)).toEqual({keep: true, reason: `its branch drover/7-fix has 1 commit not merged (--include-worktrees removes the worktree and keeps the branch)`})
    const verdict = worktreeVerdict(info, true)
    expect(verdict).toEqual({keep: false, removeWorktree: true, deleteBranch: false, note: 'branch drover/7-fix kept: 1 unmerged commit'})
    removeWorktree(info, verdict as never)
    expect(existsSync(info.path)).toBe(false)
    expect(gitIn(repo, 'rev-parse', 'drover/7-fix').trim()).toBe(commit)
  })

  it('uncommitted changes (tracked or untracked) keep the task, even with includeWorktrees', () => {
    const repo = makeRepo()
    const {info} = make(repo)
    writeFileSync(path.join(info.path, 'new.txt'), 'x\n')
    for (const include of [false, true]) {
      expect(worktreeVerdict(info, include)).toEqual({keep: true, reason: `its worktree ${info.path} has uncommitted changes (commit or discard them first, or drover rm --force to discard them)`})
    }
  })

  it("'force' (rm --force) removes a dirty worktree, discarding its changes; a branch without commits goes, one with commits stays", () => {
    const repo = makeRepo()
    const {info} = make(repo)
    writeFileSync(path.join(info.path, 'new.txt'), 'x\n')
    expect(worktreeVerdict(info, 'force')).toEqual({keep: false, removeWorktree: true, deleteBranch: true, discardUncommitted: true, note: `uncommitted changes in ${info.path} discarded`})
    commitFile(info.path, 'c.txt', 'c\n')
    writeFileSync(path.join(info.path, 'new2.txt'), 'y\n')
    const verdict = worktreeVerdict(info, 'force')
    expect(verdict).toEqual({keep: false, removeWorktree: true, deleteBranch: false, discardUncommitted: true, note: `uncommitted changes in ${info.path} discarded; branch ${info.branch} kept: 1 unmerged commit`})
  })

  it('a worktree folder deleted by hand: its registration is pruned, the branch judged as usual', () => {
    const repo = makeRepo()
    const {info} = make(repo)
    gitIn(repo, 'worktree', 'remove', '--force', info.path)
    const verdict = worktreeVerdict(info, false)
    expect(verdict).toEqual({keep: false, removeWorktree: false, deleteBranch: true, note: `worktree ${info.path} was already gone`})
    removeWorktree(info, verdict as never)
    expect(branches(repo)).toEqual(['main'])
  })
})

wineLacks('git for Windows').describe('refreshBase: a waiting task starts from what its base names when it starts', () => {
  it('moves an untouched worktree to the new commit; never one with work in it, a pinned one, or an existing branch', () => {
    const repo = makeRepo()
    const {info} = make(repo)
    expect(refreshBase(info)).toBeNull() // nothing moved yet
    const merged = commitFile(repo, 'm.txt', 'm\n')
    const moved = refreshBase(info)
    expect(moved).toEqual({...info, baseCommit: merged})
    expect(gitIn(info.path, 'rev-parse', 'HEAD').trim()).toBe(merged)
    expect(existsSync(path.join(info.path, 'm.txt'))).toBe(true)

    const pinned = make(repo, {id: 8, pinBase: true}).info
    commitFile(repo, 'n.txt', 'n\n')
    expect(pinned.pinBase).toBe(true)
    expect(refreshBase(pinned)).toBeNull()

    const touched = make(repo, {id: 9}).info
    writeFileSync(path.join(touched.path, 'wip.txt'), 'work\n')
    commitFile(repo, 'o.txt', 'o\n')
    expect(refreshBase(touched)).toBeNull()
    expect(existsSync(path.join(touched.path, 'wip.txt'))).toBe(true)
  })
})
