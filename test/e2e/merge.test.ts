// `drover merge`, `rm --discard` and `diff A B` end to end in real git
// repositories: a merge (fast-forward or not), a squash, a rebase, each
// recorded on the task; conflicts left as git leaves them (exit 4); refusals
// that change nothing (a dirty target, a live task, uncommitted work); a
// branch merged by a squash or a rebase by hand counts as merged for rm; a
// discard names the commits it throws away, which git can still bring back;
// two tasks' work compared.

import {existsSync, readFileSync, writeFileSync} from 'node:fs'
import path from 'node:path'
import {afterEach, describe, expect, it, vi} from 'vitest'
import {cleanupStateDirs, drover, json, makeStateDir, readTask, taskEvents} from '../helpers/cli.js'
import {branches, cleanupRepos, commitFile, GIT_IDENTITY, gitIn, makeRepo, worktreePaths} from '../helpers/git.js'
import {workedTask} from '../helpers/worktree-task.js'

vi.setConfig({testTimeout: 120_000})
afterEach(() => {
  cleanupStateDirs()
  cleanupRepos()
})

const env = GIT_IDENTITY

const worked = workedTask
const tip = (repo: string, ref: string) => gitIn(repo, 'rev-parse', ref).trim()
const merge = (dir: string, args: string[]) => drover(dir, ['merge', ...args], {env})

describe('drover merge', () => {
  it('fast-forwards the branch it started from, records the merge, and rm then deletes the branch', async () => {
    const dir = makeStateDir()
    const repo = makeRepo()
    const task = await worked(dir, repo, 'echo two >> a.txt && git commit -qam two', ['--name', 'fix'])
    expect(task.worktree.baseBranch).toBe('main')
    const r = await merge(dir, ['fix', '--json'])
    expect(r.exitCode, r.stderr).toBe(0)
    const branchTip = tip(repo, task.worktree.branch)
    expect(json(r)).toEqual({id: task.id, branch: task.worktree.branch, into: 'main', mode: 'merge', checkout: repo, commit: branchTip, commits: 1, fastForward: true, committedWork: null})
    expect(tip(repo, 'main')).toBe(branchTip)
    expect(readFileSync(path.join(repo, 'a.txt'), 'utf8')).toBe('one\ntwo\n')
    expect(readTask(dir, task.id).worktree.merged).toMatchObject({into: 'main', mode: 'merge', commit: branchTip, commits: 1})
    expect(taskEvents(dir, task.id).at(-1)).toMatchObject({event: 'merged', into: 'main', fastForward: true})
    expect((await drover(dir, ['status', 'fix'])).stdout).toMatch(/merged +into main, 1 commit, now at [0-9a-f]{12}/)
    const human = await merge(dir, ['fix'])
    expect(human.stdout).toBe(`task ${task.id}: main has all of ${task.worktree.branch} already; nothing to merge`)
    expect((await drover(dir, ['rm', 'fix'])).exitCode).toBe(0)
    expect(branches(repo)).toEqual(['main'])
  })

  it('makes a merge commit when the target moved on', async () => {
    const dir = makeStateDir()
    const repo = makeRepo()
    const task = await worked(dir, repo, 'echo new > new.txt && git add new.txt && git commit -qm new')
    commitFile(repo, 'other.txt', 'other\n')
    const r = json(await merge(dir, [String(task.id), '--json']))
    expect(r).toMatchObject({mode: 'merge', commits: 1, fastForward: false})
    expect(gitIn(repo, 'log', '--merges', '--format=%s').trim()).toBe(`Merge branch '${task.worktree.branch}'`)
    expect(existsSync(path.join(repo, 'new.txt'))).toBe(true)
  })

  it('--squash makes one commit naming the task; the branch then counts as merged for rm', async () => {
    const dir = makeStateDir()
    const repo = makeRepo()
    const task = await worked(dir, repo, 'echo two >> a.txt && git commit -qam two && echo three >> a.txt && git commit -qam three', ['--name', 'sq'])
    commitFile(repo, 'other.txt', 'other\n')
    const before = tip(repo, 'main')
    const r = json(await merge(dir, ['sq', '--squash', '--json']))
    expect(r).toMatchObject({mode: 'squash', commits: 2, fastForward: false})
    expect(gitIn(repo, 'rev-list', '--count', `${before}..main`).trim()).toBe('1')
    expect(gitIn(repo, 'log', '-1', '--format=%B', 'main').trim()).toBe(`task ${task.id} (sq): the work of ${task.worktree.branch}\n\n* two\n* three`)
    // not an ancestor of main, yet every change of it is there: rm deletes it
    expect((await drover(dir, ['rm', 'sq'])).exitCode).toBe(0)
    expect(branches(repo)).toEqual(['main'])
  })

  it('--rebase rebases the branch onto the target, then fast-forwards it: a straight history', async () => {
    const dir = makeStateDir()
    const repo = makeRepo()
    const task = await worked(dir, repo, 'echo new > new.txt && git add new.txt && git commit -qm new')
    const moved = commitFile(repo, 'other.txt', 'other\n')
    const r = json(await merge(dir, [String(task.id), '--rebase', '--json']))
    expect(r).toMatchObject({mode: 'rebase', commits: 1, fastForward: true})
    expect(gitIn(repo, 'log', '--merges', '--format=%H').trim()).toBe('')
    expect(gitIn(repo, 'log', '--format=%s', 'main').trim().split('\n')).toEqual(['new', 'change other.txt', 'first'])
    expect(readTask(dir, task.id).worktree).toMatchObject({baseCommit: moved, merged: {mode: 'rebase'}})
  })

  it('a conflict is left as git leaves it, said with its files (exit 4), and not recorded as a merge', async () => {
    const dir = makeStateDir()
    const repo = makeRepo()
    const task = await worked(dir, repo, 'echo theirs > a.txt && git commit -qam theirs')
    const ours = commitFile(repo, 'a.txt', 'ours\n')
    const r = await merge(dir, [String(task.id)])
    expect(r.exitCode).toBe(4)
    expect(r.stderr).toBe(`drover: merging ${task.worktree.branch} into main conflicts in a.txt; ${repo} is as git left it: resolve and commit there, or undo with git -C ${repo} merge --abort`)
    expect(readFileSync(path.join(repo, 'a.txt'), 'utf8')).toMatch(/^<<<<<<< HEAD\nours\n=======\ntheirs\n>>>>>>> /)
    expect(existsSync(path.join(repo, '.git', 'MERGE_HEAD'))).toBe(true)
    expect(readTask(dir, task.id).worktree.merged ?? null).toBeNull()
    expect(taskEvents(dir, task.id).at(-1)).toMatchObject({event: 'merge-conflict', conflicts: ['a.txt']})
    // …and while that merge is under way, another is refused
    const again = await merge(dir, [String(task.id), '--squash'])
    expect(again.exitCode).toBe(4)
    expect(again.stderr).toMatch(/a merge is under way in /)
    gitIn(repo, 'merge', '--abort')

    // a rebase that conflicts leaves the task's worktree mid-rebase
    const rebase = await merge(dir, [String(task.id), '--rebase'])
    expect(rebase.exitCode).toBe(4)
    expect(rebase.stderr).toMatch(new RegExp(`rebasing ${task.worktree.branch} onto main stopped on a conflict in a\\.txt; the worktree .* is as git left it`))
    expect(existsSync(gitIn(task.worktree.path, 'rev-parse', '--git-path', 'rebase-merge').trim())).toBe(true)
    expect(tip(repo, 'main')).toBe(ours)
  })

  it('refuses, changing nothing: a dirty target, a live task, work not committed (unless --commit), a missing branch, a task with no worktree', async () => {
    const dir = makeStateDir()
    const repo = makeRepo()
    const task = await worked(dir, repo, 'echo two >> a.txt && git commit -qam two')
    const main = tip(repo, 'main')
    writeFileSync(path.join(repo, 'a.txt'), 'local edit\n')
    const dirty = await merge(dir, [String(task.id)])
    expect(dirty.exitCode).toBe(4)
    expect(dirty.stderr).toBe(`drover: ${repo} (branch main) has uncommitted changes: commit or stash them first, so the merge is all that changes there`)
    expect(readFileSync(path.join(repo, 'a.txt'), 'utf8')).toBe('local edit\n')
    gitIn(repo, 'checkout', 'a.txt')

    expect((await merge(dir, [String(task.id), '--into', 'nosuch'])).exitCode).toBe(2)
    expect((await drover(dir, ['merge', String(task.id), '--squash', '--rebase'])).exitCode).toBe(2)

    writeFileSync(path.join(task.worktree.path, 'left.txt'), 'left\n')
    const left = await merge(dir, [String(task.id)])
    expect(left.exitCode).toBe(4)
    expect(left.stderr).toMatch(/holds work not committed, which a merge would leave out: commit it there, or merge with --commit/)
    expect(tip(repo, 'main')).toBe(main)
    const committed = json(await merge(dir, [String(task.id), '--commit', '--json']))
    expect(committed).toMatchObject({commits: 2, fastForward: true})
    expect(gitIn(repo, 'log', '-1', '--format=%s', 'main').trim()).toBe(`drover: the work task ${task.id} left uncommitted`)
    expect(existsSync(path.join(repo, 'left.txt'))).toBe(true)

    const live = await drover(dir, ['start', '--worktree', '--', 'sleep', '30'], {cwd: repo, env})
    const running = await merge(dir, [live.stdout.trim()])
    expect(running.exitCode).toBe(4)
    expect(running.stderr).toMatch(/is running: its branch is merged once it has ended/)
    await drover(dir, ['cancel', live.stdout.trim()])

    const plain = await drover(dir, ['start', '--', 'true'])
    expect((await merge(dir, [plain.stdout.trim()])).exitCode).toBe(2)
  })
})

describe('rm and merged branches', () => {
  it('a squash merge or a rebase made by hand counts as merged: rm deletes the branch', async () => {
    const dir = makeStateDir()
    const repo = makeRepo()
    const squashed = await worked(dir, repo, 'echo two >> a.txt && git commit -qam two && echo new > new.txt && git add new.txt && git commit -qm new')
    const picked = await worked(dir, repo, 'echo p > p.txt && git add p.txt && git commit -qm p')
    const kept = await worked(dir, repo, 'echo k > k.txt && git add k.txt && git commit -qm k')
    commitFile(repo, 'other.txt', 'other\n')
    gitIn(repo, 'merge', '--squash', '-q', squashed.worktree.branch)
    gitIn(repo, 'commit', '-qm', 'squash by hand')
    gitIn(repo, 'cherry-pick', picked.worktree.branch)
    const r = await drover(dir, ['rm', String(squashed.id), String(picked.id), String(kept.id)])
    expect(r.exitCode).toBe(4)
    expect(r.stderr).toMatch(new RegExp(`cannot remove task ${kept.id}: its branch ${kept.worktree.branch} has 1 commit not merged`))
    expect(branches(repo)).toEqual([kept.worktree.branch, 'main'])
  })

  it('rm --discard throws the work away — worktree, branch, unmerged commits — and names each commit, which git can bring back', async () => {
    const dir = makeStateDir()
    const repo = makeRepo()
    const task = await worked(dir, repo, 'echo two >> a.txt && git commit -qam two && echo three >> a.txt && git commit -qam three && echo wip > wip.txt')
    const commits = gitIn(repo, 'log', '--format=%H %s', `main..${task.worktree.branch}`).trim().split('\n')
    const r = await drover(dir, ['rm', '--discard', String(task.id), '--json'])
    expect(r.exitCode, r.stderr).toBe(0)
    const removed = json(r).removed[0].worktree
    expect(removed).toMatchObject({worktreeRemoved: true, branchDeleted: true})
    expect(removed.discarded.map((c: {sha: string; subject: string}) => `${c.sha} ${c.subject}`)).toEqual(commits)
    expect(branches(repo)).toEqual(['main'])
    expect(worktreePaths(repo)).toEqual([repo])
    expect(existsSync(task.worktree.path)).toBe(false)
    // the commits are named so they can be brought back
    const newest = commits[0].split(' ')[0]
    gitIn(repo, 'branch', 'back', newest)
    expect(gitIn(repo, 'log', '--format=%s', 'main..back').trim().split('\n')).toEqual(['three', 'two'])

    const human = await worked(dir, repo, 'echo x > x.txt && git add x.txt && git commit -qm x')
    const line = (await drover(dir, ['rm', '--discard', String(human.id)])).stdout
    const sha = human.worktree.summary.head
    expect(line).toContain(`branch ${human.worktree.branch} deleted with 1 unmerged commit: ${sha.slice(0, 12)} x (git branch ${human.worktree.branch} ${sha.slice(0, 12)} brings them back`)
  })
})

describe('drover diff A B', () => {
  it("shows how two tasks' work differs, from the first to the second; refuses tasks of two repositories", async () => {
    const dir = makeStateDir()
    const repo = makeRepo()
    const a = await worked(dir, repo, 'echo A > a.txt && git commit -qam A', ['--name', 'first'])
    const b = await worked(dir, repo, 'echo B > a.txt && echo only-b > b.txt', ['--name', 'second'])
    const r = await drover(dir, ['diff', 'first', 'second', '--no-pager'])
    expect(r.exitCode, r.stderr).toBe(0)
    expect(r.stdout).toContain('-A\n+B')
    expect(r.stdout).toContain('+++ b/b.txt')
    const j = json(await drover(dir, ['diff', 'first', 'second', '--stat', '--json']))
    expect(j).toMatchObject({ids: [a.id, b.id], branches: [a.worktree.branch, b.worktree.branch], sameBase: true, stat: true, present: [true, true]})
    expect(j.diff).toMatch(/2 files changed/)
    const other = await worked(dir, makeRepo(), 'true')
    const mixed = await drover(dir, ['diff', 'first', String(other.id)])
    expect(mixed.exitCode).toBe(2)
    expect(mixed.stderr).toMatch(/are of different repositories/)
  })
})
