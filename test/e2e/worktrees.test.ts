// `start --worktree` end to end with real git: each task on its own branch in
// its own worktree, the summary `status` shows, `diff`, later runs in the same
// worktree, rm/prune taking a worktree away only when no work is lost, and ten
// tasks at once in worktrees of one repository.

import {execa} from 'execa'
import {existsSync, readFileSync, rmSync, writeFileSync} from 'node:fs'
import path from 'node:path'
import {afterEach, describe, expect, it, vi} from 'vitest'
import {BIN, cleanupStateDirs, drover, json, makeStateDir, readTask, taskEvents, waitFor} from '../helpers/cli.js'
import {snapshot} from '../helpers/snapshot.js'
import {branches, cleanupRepos, commitFile, GIT_IDENTITY, gitIn, makeRepo, worktreePaths} from '../helpers/git.js'

vi.setConfig({testTimeout: 120_000})
afterEach(() => {
  cleanupStateDirs()
  cleanupRepos()
})

const env = GIT_IDENTITY
const ended = (dir: string, id: number) => waitFor(() => ['succeeded', 'failed'].includes(readTask(dir, id).status) && readTask(dir, id), {message: `task ${id} ended`})

async function startIn(dir: string, repo: string, args: string[], script: string): Promise<number> {
  const r = await drover(dir, ['start', ...args, '--shell', script], {cwd: repo, env})
  expect(r.stderr.replace(/^drover: task \d+ queued \(.*\)$/, '')).toBe('')
  expect(r.exitCode).toBe(0)
  return Number(r.stdout)
}

describe('start --worktree', () => {
  it('runs on a new branch in its own worktree; status shows the summary; diff; start ID runs there again', async () => {
    const dir = makeStateDir()
    const repo = makeRepo()
    const base = gitIn(repo, 'rev-parse', 'HEAD').trim()
    const id = await startIn(dir, repo, ['--worktree', '--name', 'fix'], 'echo two >> a.txt && git commit -qam two && echo new > new.txt && pwd')
    const record = await ended(dir, id)
    const wt = record.worktree
    expect(wt).toMatchObject({repo, branch: `drover/${id}-fix`, base: 'HEAD', baseCommit: base, baseDirty: false})
    expect(record.cwd).toBe(wt.path)
    // new.txt is not committed, not even added: it counts all the same
    expect(wt.summary).toMatchObject({commits: 1, filesChanged: 2, insertions: 2, deletions: 0, uncommitted: true})
    expect(gitIn(repo, 'status', '--porcelain')).toBe('')
    expect(branches(repo)).toEqual([`drover/${id}-fix`, 'main'])

    const status = await drover(dir, ['status', String(id)])
    expect(status.stdout).toContain(`worktree     ${wt.path} (branch drover/${id}-fix from ${base.slice(0, 12)})`)
    expect(status.stdout).toContain('changes      1 commit, 2 files changed, +2 -0, uncommitted changes')
    expect(json(await drover(dir, ['status', String(id), '--json'])).worktree).toEqual(wt)

    const stat = await drover(dir, ['diff', '--stat', 'fix'])
    expect(stat.exitCode).toBe(0)
    expect(stat.stdout).toBe(' a.txt   | 1 +\n new.txt | 1 +\n 2 files changed, 2 insertions(+)')
    const patch = json(await drover(dir, ['diff', String(id), '--json']))
    expect(patch).toMatchObject({id, branch: `drover/${id}-fix`, baseCommit: base, path: wt.path, stat: false})
    expect(patch.diff).toContain('+two')
    expect(patch.diff).toContain('+++ b/new.txt')

    // A new run of the task runs in the same worktree and the summary follows it.
    expect((await drover(dir, ['start', String(id)], {env})).exitCode).toBe(0)
    await waitFor(() => readTask(dir, id).runs.length === 2 && readTask(dir, id).status === 'succeeded', {message: 'second run'})
    expect(readTask(dir, id).worktree.summary).toMatchObject({commits: 2, filesChanged: 2, insertions: 3, uncommitted: true})
    expect(gitIn(wt.path, 'log', '--format=%s', '-2')).toBe('two\ntwo\n')

    const plain = await startIn(dir, repo, [], 'true')
    await ended(dir, plain)
    const none = await drover(dir, ['diff', String(plain)])
    expect(none).toMatchObject({exitCode: 2, stderr: `drover: task ${plain} has no worktree (start it with --worktree to give it one)`})
  })

  it('a branch of your own and --base; refusals leave no task and no branch', async () => {
    const dir = makeStateDir()
    const repo = makeRepo()
    const first = gitIn(repo, 'rev-parse', 'HEAD').trim()
    commitFile(repo, 'b.txt', 'b\n')
    const id = await startIn(dir, repo, ['--worktree', 'feature/x', '--base', first], 'ls')
    const record = await ended(dir, id)
    expect(record.worktree).toMatchObject({branch: 'feature/x', base: first, baseCommit: first})
    expect(record.worktree.summary).toMatchObject({commits: 0, filesChanged: 0, uncommitted: false})
    // The runner tidies up just after the final record: let it go first.
    await waitFor(async () => json(await drover(dir, ['status', String(id), '--json'])).runnerAlive === false, {message: 'the runner to exit'})
    const before = snapshot(dir)

    const outside = await drover(dir, ['start', '--worktree', '--', 'true'], {cwd: path.dirname(repo)})
    expect(outside).toMatchObject({exitCode: 2, stderr: `drover: --worktree needs a git repository: ${path.dirname(repo)} is not inside one`})
    const taken = await drover(dir, ['start', '--worktree', 'feature/x', '--', 'true'], {cwd: repo})
    expect(taken.exitCode).toBe(4)
    expect(taken.stderr).toMatch(/^drover: branch feature\/x already exists/)
    expect((await drover(dir, ['start', '--base', 'main', '--', 'true'], {cwd: repo})).exitCode).toBe(2)
    expect((await drover(dir, ['start', '--worktree', 'new', '--base', 'nope', '--', 'true'], {cwd: repo})).stderr).toBe(`drover: --base nope names no commit in ${repo}`)
    // refused before an id is handed out: not even the id counter moved
    expect(snapshot(dir)).toEqual(before)
    // asked for: a branch that exists, as it is; checked out elsewhere, git refuses it (exit 1)
    expect((await drover(dir, ['start', '--worktree', 'feature/x', '--existing-branch', '--', 'true'], {cwd: repo})).exitCode).toBe(1)
    gitIn(repo, 'branch', 'other', first)
    const onOther = await startIn(dir, repo, ['--worktree', 'other', '--existing-branch'], 'git rev-parse --abbrev-ref HEAD')
    expect((await ended(dir, onOther)).worktree).toMatchObject({branch: 'other', baseCommit: first, createdBranch: false})
    expect((await drover(dir, ['logs', String(onOther)])).stdout).toBe('other')
    expect((await drover(dir, ['rm', String(onOther)])).exitCode).toBe(0)
    expect(branches(repo)).toContain('other')
    expect((await drover(dir, ['start', '--worktree', 'y', String(id)], {cwd: repo})).exitCode).toBe(2)
    expect(json(await drover(dir, ['list', '--json'])).map((t: {id: number}) => t.id)).toEqual([id])
    expect(branches(repo)).toEqual(['feature/x', 'main', 'other'])

    // A dirty working tree is not carried: the task starts from the commit, and is told so.
    writeFileSync(path.join(repo, 'a.txt'), 'dirty\n')
    const dirty = await drover(dir, ['start', '--worktree', '--', 'cat', 'a.txt'], {cwd: repo})
    expect(dirty.stderr).toMatch(/^drover: note: uncommitted changes in .* are not in the worktree \(it starts from [0-9a-f]{12}\)$/)
    const dirtyId = Number(dirty.stdout)
    await ended(dir, dirtyId)
    expect((await drover(dir, ['logs', String(dirtyId)])).stdout).toBe('one')
  })
})

describe('--worktree with --after: the base when it starts', () => {
  it('a chained task starts from the commit its base names when it starts (work merged meanwhile); --pin-base keeps the one of its start command', async () => {
    const dir = makeStateDir()
    const repo = makeRepo()
    const gate = path.join(dir, 'gate')
    const first = await startIn(dir, repo, [], `while [ ! -e '${gate}' ]; do sleep 0.05; done`)
    const chained = await startIn(dir, repo, ['--worktree', '--after', String(first)], 'cat merged.txt')
    const pinned = await startIn(dir, repo, ['--worktree', '--pin-base', '--after', String(first)], 'ls')
    const queuedAt = gitIn(repo, 'rev-parse', 'HEAD').trim()
    expect(readTask(dir, chained)).toMatchObject({status: 'queued', worktree: {baseCommit: queuedAt}})
    // merged while they wait
    const merged = commitFile(repo, 'merged.txt', 'merged meanwhile\n')
    writeFileSync(gate, '')
    const done = await ended(dir, chained)
    expect(done.status).toBe('succeeded')
    expect(readFileSync(path.join(dir, 'tasks', String(chained), 'output.log'), 'utf8')).toBe('merged meanwhile\n')
    expect(done.worktree).toMatchObject({base: 'HEAD', baseCommit: merged})
    expect(done.worktree.summary).toMatchObject({commits: 0, filesChanged: 0})
    expect(taskEvents(dir, chained).find((e) => e.event === 'worktree-base')).toMatchObject({from: queuedAt, to: merged})
    const kept = await ended(dir, pinned)
    expect(kept.worktree).toMatchObject({baseCommit: queuedAt, pinBase: true})
    expect(readFileSync(path.join(dir, 'tasks', String(pinned), 'output.log'), 'utf8')).not.toContain('merged.txt')
  })
})

describe('rm and prune with worktrees: no commit and no uncommitted change is ever lost', () => {
  it('rm: clean without commits → worktree and branch go; unmerged commits → kept (4), --include-worktrees keeps the branch; uncommitted → kept always', async () => {
    const dir = makeStateDir()
    const repo = makeRepo()
    const clean = await startIn(dir, repo, ['--worktree'], 'true')
    const committed = await startIn(dir, repo, ['--worktree'], 'echo c > c.txt && git add c.txt && git commit -qm c')
    const dirty = await startIn(dir, repo, ['--worktree'], 'echo d > d.txt')
    for (const id of [clean, committed, dirty]) await ended(dir, id)
    const paths = Object.fromEntries([clean, committed, dirty].map((id) => [id, readTask(dir, id).worktree.path]))
    const commit = gitIn(paths[committed], 'rev-parse', 'HEAD').trim()

    const dry = json(await drover(dir, ['rm', '--dry-run', '--json', String(clean)]))
    expect(dry.removed[0].worktree).toEqual({path: paths[clean], branch: `drover/${clean}-task`, worktreeRemoved: true, branchDeleted: true, note: null})
    expect(existsSync(paths[clean])).toBe(true)

    const r = await drover(dir, ['rm', String(clean), String(committed), String(dirty)])
    expect(r.exitCode).toBe(4)
    expect(r.stdout).toMatch(new RegExp(`^removed task ${clean}: succeeded, .*, with its worktree ${paths[clean]} and branch drover/${clean}-task$`))
    expect(r.stderr).toBe(
      `drover: cannot remove task ${committed}: its branch drover/${committed}-task has 1 commit not merged (--include-worktrees removes the worktree and keeps the branch)\n` +
        `drover: cannot remove task ${dirty}: its worktree ${paths[dirty]} has uncommitted changes (commit or discard them first, or drover rm --force to discard them)`,
    )
    expect(existsSync(paths[clean])).toBe(false)
    expect(branches(repo)).toEqual([`drover/${committed}-task`, `drover/${dirty}-task`, 'main'])

    const forced = await drover(dir, ['rm', '--include-worktrees', String(committed), String(dirty)])
    expect(forced.exitCode).toBe(4)
    expect(forced.stdout).toContain(`with its worktree ${paths[committed]} (branch drover/${committed}-task kept: 1 unmerged commit)`)
    expect(forced.stderr).toMatch(new RegExp(`^drover: cannot remove task ${dirty}: its worktree .* has uncommitted changes`))
    expect(existsSync(paths[committed])).toBe(false)
    expect(gitIn(repo, 'rev-parse', `drover/${committed}-task`).trim()).toBe(commit)
    expect(existsSync(path.join(paths[dirty], 'd.txt'))).toBe(true)
    expect(worktreePaths(repo)).toEqual([repo, paths[dirty]])

    // --force: a warning first, then the uncommitted change goes with the worktree; a commit made there stays on its branch
    gitIn(paths[dirty], 'add', 'd.txt')
    gitIn(paths[dirty], '-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-qm', 'd')
    const kept = gitIn(paths[dirty], 'rev-parse', 'HEAD').trim()
    writeFileSync(path.join(paths[dirty], 'scratch.txt'), 'not committed\n')
    const dryForce = await drover(dir, ['rm', '--force', '--dry-run', String(dirty)])
    expect(dryForce.stdout).toContain(`would remove task ${dirty}`)
    expect(existsSync(path.join(paths[dirty], 'scratch.txt'))).toBe(true)
    const removed = await drover(dir, ['rm', '--force', String(dirty)])
    expect(removed.exitCode, removed.stderr).toBe(0)
    expect(removed.stderr).toBe(`drover: warning: --force discards the uncommitted changes in ${paths[dirty]} (task ${dirty}); branch drover/${dirty}-task and its commits stay`)
    expect(removed.stdout).toContain(`(uncommitted changes in ${paths[dirty]} discarded; branch drover/${dirty}-task kept: 1 unmerged commit)`)
    expect(existsSync(paths[dirty])).toBe(false)
    expect(gitIn(repo, 'rev-parse', `drover/${dirty}-task`).trim()).toBe(kept)
    expect(worktreePaths(repo)).toEqual([repo])
  })

  it('rm --force of a worktree with uncommitted changes and no commit of its own: the warning says the branch goes too, and it does', async () => {
    const dir = makeStateDir()
    const repo = makeRepo()
    const dirty = await startIn(dir, repo, ['--worktree'], 'echo d > d.txt')
    await ended(dir, dirty)
    const where = readTask(dir, dirty).worktree.path
    const removed = await drover(dir, ['rm', '--force', String(dirty)])
    expect(removed.exitCode, removed.stderr).toBe(0)
    expect(removed.stderr).toBe(`drover: warning: --force discards the uncommitted changes in ${where} (task ${dirty}); branch drover/${dirty}-task goes too (it has no unmerged commits)`)
    expect(removed.stdout).toContain(`with its worktree ${where} and branch drover/${dirty}-task`)
    expect(branches(repo)).toEqual(['main'])
  })

  it('diff: paths after --, --name-only, a pager on a terminal; a task without a worktree exits 2', async () => {
    const dir = makeStateDir()
    const repo = makeRepo()
    const id = await startIn(dir, repo, ['--worktree'], 'mkdir -p src && echo x > src/x.txt && echo y > y.txt && echo two >> a.txt')
    await ended(dir, id)
    expect((await drover(dir, ['diff', '--name-only', String(id)])).stdout).toBe('a.txt\nsrc/x.txt\ny.txt')
    const only = await drover(dir, ['diff', String(id), '--', 'src/'])
    expect(only.exitCode).toBe(0)
    expect(only.stdout).toContain('+++ b/src/x.txt')
    expect(only.stdout).not.toContain('y.txt')
    expect((await drover(dir, ['diff', '--name-only', String(id), '--', 'a.txt', 'y.txt'])).stdout).toBe('a.txt\ny.txt')
    expect(json(await drover(dir, ['diff', '--json', '--name-only', String(id), '--', 'y.txt']))).toMatchObject({nameOnly: true, paths: ['y.txt'], diff: 'y.txt\n'})
    // on a terminal through $PAGER (here a script that marks the page and prints it); piped, never
    const pager = path.join(repo, '..', `pager-${id}.sh`)
    writeFileSync(pager, '#!/bin/sh\necho "[paged LESS=$LESS]"; cat\n', {mode: 0o755})
    const quote = (arg: string) => `'${arg.replaceAll("'", "'\\''")}'`
    const onTerminal = (args: string[], pagerEnv: string) =>
      execa('script', ['-qfec', [process.execPath, BIN, 'diff', ...args].map(quote).join(' '), '/dev/null'], {env: {DROVER_STATE_DIR: dir, NO_COLOR: '1', PAGER: pagerEnv, LESS: ''}, reject: false, stdin: 'ignore', timeout: 60_000})
    const paged = String((await onTerminal(['--name-only', String(id)], pager)).stdout).replaceAll('\r\n', '\n')
    expect(paged).toBe('[paged LESS=]\na.txt\nsrc/x.txt\ny.txt')
    expect(String((await onTerminal(['--name-only', '--no-pager', String(id)], pager)).stdout).replaceAll('\r\n', '\n')).toBe('a.txt\nsrc/x.txt\ny.txt')
    expect(String((await onTerminal(['--name-only', String(id)], 'cat')).stdout).replaceAll('\r\n', '\n')).toBe('a.txt\nsrc/x.txt\ny.txt')
    expect((await drover(dir, ['diff', '--name-only', String(id)], {env: {PAGER: pager}})).stdout).not.toContain('[paged')
    expect((await drover(dir, ['diff', '--stat', '--name-only', String(id)])).exitCode).toBe(2)
  })

  it('a worktree folder deleted by hand: status and diff say so; rm cleans up (prune takes the same path), the commits kept', async () => {
    const dir = makeStateDir()
    const repo = makeRepo()
    const plain = await startIn(dir, repo, ['--worktree'], 'echo d > d.txt')
    const committed = await startIn(dir, repo, ['--worktree'], 'echo c > c.txt && git add c.txt && git commit -qm c && echo u > u.txt')
    for (const id of [plain, committed]) await ended(dir, id)
    const paths = Object.fromEntries([plain, committed].map((id) => [id, readTask(dir, id).worktree.path]))
    const commit = gitIn(paths[committed], 'rev-parse', 'HEAD').trim()
    for (const id of [plain, committed]) rmSync(paths[id], {recursive: true, force: true})

    const status = await drover(dir, ['status', String(committed)])
    expect(status.stdout).toContain(`${paths[committed]} MISSING (deleted by hand?)`)
    expect(status.stdout).toMatch(/changes +1 commit, .* on the branch; changes not committed went with the folder/)
    expect(status.stdout).not.toMatch(/uncommitted changes/)
    expect(json(await drover(dir, ['status', '--json', String(committed)])).worktreePresent).toBe(false)

    const diff = await drover(dir, ['diff', String(committed)])
    expect(diff.exitCode).toBe(0)
    expect(diff.stdout).toContain('+c')
    expect(diff.stderr).toContain(`drover: the worktree ${paths[committed]} is missing (deleted by hand?): this is the diff of its branch drover/${committed}-task`)
    expect(json(await drover(dir, ['diff', '--json', String(plain)]))).toMatchObject({present: false, diff: ''})

    // no `git worktree prune` by hand: rm removes the task and its branch without commits
    const r = await drover(dir, ['rm', String(plain)])
    expect(r.stderr).toBe('')
    expect(r.exitCode).toBe(0)
    expect(r.stdout).toContain(`with its branch drover/${plain}-task (worktree ${paths[plain]} was already gone)`)
    // unmerged commits: kept as always; --include-worktrees lets the task go and keeps the branch with its commit
    const kept = await drover(dir, ['rm', String(committed)])
    expect(kept.exitCode).toBe(4)
    expect(kept.stderr).toContain('--include-worktrees removes the task (its worktree')
    const forced = await drover(dir, ['rm', '--include-worktrees', String(committed)])
    expect(forced.exitCode, forced.stderr).toBe(0)
    expect(gitIn(repo, 'rev-parse', `drover/${committed}-task`).trim()).toBe(commit)
    expect(branches(repo)).toEqual([`drover/${committed}-task`, 'main'])
    expect(worktreePaths(repo)).toEqual([repo])
  })

  it('prune: a merged branch goes with its worktree; unmerged and dirty ones are kept and said why', async () => {
    const dir = makeStateDir()
    const repo = makeRepo()
    const merged = await startIn(dir, repo, ['--worktree'], 'echo m > m.txt && git add m.txt && git commit -qm m')
    const unmerged = await startIn(dir, repo, ['--worktree'], 'echo u > u.txt && git add u.txt && git commit -qm u')
    const dirty = await startIn(dir, repo, ['--worktree'], 'echo two >> a.txt')
    for (const id of [merged, unmerged, dirty]) await ended(dir, id)
    gitIn(repo, 'merge', '-q', '--no-edit', `drover/${merged}-task`)

    const r = await drover(dir, ['prune', '--older-than', '0s'])
    expect(r.exitCode).toBe(0)
    expect(r.stdout).toContain(`removed task ${merged}: succeeded`)
    expect(r.stdout).toContain(`kept task ${unmerged}: its branch drover/${unmerged}-task has 1 commit not merged`)
    expect(r.stdout).toContain(`kept task ${dirty}: its worktree`)
    expect(branches(repo)).toEqual([`drover/${unmerged}-task`, `drover/${dirty}-task`, 'main'].sort())

    const again = json(await drover(dir, ['prune', '--older-than', '0s', '--include-worktrees', '--json']))
    expect(again.removed.map((t: {id: number}) => t.id)).toEqual([unmerged])
    expect(again.skipped.map((t: {id: number}) => t.id)).toEqual([dirty])
    expect(branches(repo)).toEqual([`drover/${unmerged}-task`, `drover/${dirty}-task`, 'main'].sort())
  })
})

describe('ten tasks in parallel worktrees of one repository', () => {
  it('each commits on its own branch; none sees another; the repo itself is untouched', async () => {
    const dir = makeStateDir()
    const repo = makeRepo()
    const ids = await Promise.all(
      Array.from({length: 10}, (_, i) => startIn(dir, repo, ['--worktree', '--name', `agent${i}`], `echo ${i} > mine.txt && ls > seen.txt && git add mine.txt && git commit -qm "agent ${i}"`)),
    )
    expect(new Set(ids).size).toBe(10)
    for (const id of ids) await ended(dir, id)
    for (const [i, id] of ids.entries()) {
      const record = readTask(dir, id)
      expect(record.status).toBe('succeeded')
      // mine.txt committed, seen.txt (the listing) left untracked
      expect(record.worktree.summary).toMatchObject({commits: 1, filesChanged: 2, uncommitted: true})
      expect(gitIn(repo, 'show', `drover/${id}-agent${i}:mine.txt`)).toBe(`${i}\n`)
    }
    expect(branches(repo)).toHaveLength(11)
    expect(worktreePaths(repo)).toHaveLength(11)
    expect(gitIn(repo, 'status', '--porcelain')).toBe('')
    expect(gitIn(repo, 'log', '--oneline').trim().split('\n')).toHaveLength(1)
  })
})
