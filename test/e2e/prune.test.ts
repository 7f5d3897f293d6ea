// `drover prune` end to end with real runners and workers: each rule against a mix
// of live and ended tasks, dry runs, output for humans, cron and --json, twenty
// prunes at once, prune racing starts and `logs -f`, and symlinks planted inside.

import {execa} from 'execa'
import {spawn} from 'node:child_process'
import {existsSync, mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync, utimesSync, writeFileSync} from 'node:fs'
import path from 'node:path'
import {afterEach, describe, expect, it} from 'vitest'
import {acquireLock, stateLockPath} from '../../src/state/lock.js'
import {processStartTime} from '../../src/platform/platform.js'
import {ensureStateDir} from '../../src/state/statedir.js'
import {taskPaths} from '../../src/state/store.js'
import {makeTask, snapshot} from '../fixtures/prune-state.js'
import {BIN, cleanupStateDirs, drover, fixture, isAlive, json, makeStateDir, readTask, waitFor, startOk} from '../helpers/cli.js'
import {childrenKilledAfterEach} from '../helpers/sleepers.js'

const node = process.execPath
const ESC = '\u001B'
const FINAL = ['succeeded', 'failed', 'stopped', 'cancelled', 'drained', 'lost']
afterEach(() => cleanupStateDirs())
// registered after the clean-up, so run before it, as the kill came first
const children = childrenKilledAfterEach()


const waitStatus = (stateDir: string, id: number, status: string) =>
  waitFor(() => readTask(stateDir, id).status === status, {timeout: 20_000, message: `task ${id} to be ${status}`})

const removedIds = (result: {removed: {id: number}[]}) => result.removed.map((t) => t.id).sort((a, b) => a - b)
const taskDirs = (stateDir: string) => readdirSync(path.join(stateDir, 'tasks')).sort((a, b) => Number(a) - Number(b))

async function pruneJson(stateDir: string, args: string[]) {
  const result = await drover(stateDir, ['prune', ...args, '--json'])
  expect(result.exitCode, result.stderr + result.stdout).toBe(0)
  return json(result)
}

/** Real tasks: succeeded, failed, stopped, drained (with a checkpoint), ended in that order, and one running. */
async function realMix(stateDir: string) {
  const succeeded = await startOk(stateDir, ['--', node, fixture('counter.mjs'), '2', '10', '0'])
  await waitStatus(stateDir, succeeded, 'succeeded')
  const failed = await startOk(stateDir, ['--', node, fixture('counter.mjs'), '2', '10', '3'])
  await waitStatus(stateDir, failed, 'failed')
  const stopped = await startOk(stateDir, ['--', node, fixture('sleeper.mjs')])
  expect((await drover(stateDir, ['stop', String(stopped)])).exitCode).toBe(0)
  await waitStatus(stateDir, stopped, 'stopped')
  const drained = await startOk(stateDir, ['--', node, fixture('sleeper.mjs')])
  expect((await drover(stateDir, ['drain', String(drained), '--grace', '1s'])).exitCode).toBe(0)
  await waitStatus(stateDir, drained, 'drained')
  expect(readTask(stateDir, drained).checkpoint).not.toBeNull()
  const running = await startOk(stateDir, ['--', node, fixture('sleeper.mjs')])
  return {succeeded, failed, stopped, drained, running}
}

describe('prune beside queued work', () => {
  it('a dry run with a queued task reports, and the task stays queued (it has no runner to have lost)', async () => {
    const dir = makeStateDir()
    const done = await startOk(dir, ['--', node, '-e', '0'])
    await waitStatus(dir, done, 'succeeded')
    expect((await drover(dir, ['queue', 'set', 'held', '--parallel', '1'])).exitCode).toBe(0)
    expect((await drover(dir, ['queue', 'pause', 'held'])).exitCode).toBe(0)
    const queued = await startOk(dir, ['--queue', 'held', '--', node, '-e', '0'])
    expect(readTask(dir, queued).status).toBe('queued')
    const before = snapshot(dir)
    const dry = await pruneJson(dir, ['--keep', '0', '--dry-run'])
    expect(removedIds(dry)).toEqual([done])
    expect(snapshot(dir)).toEqual(before)
    const real = await pruneJson(dir, ['--keep', '0'])
    expect(removedIds(real)).toEqual([done])
    expect(readTask(dir, queued).status).toBe('queued')
  })
})

describe('prune rules on real tasks', () => {
  it('each rule removes exactly what it should; the running task survives them all', async () => {
    const dir = makeStateDir()
    const t = await realMix(dir)
    const runnerPid = JSON.parse(readFileSync(taskPaths(dir, t.running).runner, 'utf8')).pid as number

    const none = await drover(dir, ['prune'])
    expect(none.exitCode).toBe(2)
    expect(none.stderr).toMatch(/^drover: say what to prune: [^\n]*$/)
    expect((await drover(dir, ['prune', '--status', 'failed'])).exitCode).toBe(2)
    expect((await drover(dir, ['prune', '--status', 'running', '--keep', '0'])).exitCode).toBe(2)
    expect((await drover(dir, ['prune', '--older-than', 'soon'])).exitCode).toBe(2)

    // A dry run of the widest prune changes not a byte.
    const before = snapshot(dir)
    const dry = await pruneJson(dir, ['--keep', '0', '--older-than', '0s', '--max-total-size', '0', '--include-checkpoints', '--dry-run'])
    expect(snapshot(dir)).toEqual(before)
    expect(removedIds(dry)).toEqual([t.succeeded, t.failed, t.stopped, t.drained])
    expect(dry.dryRun).toBe(true)

    // Nothing ended an hour ago.
    expect((await pruneJson(dir, ['--older-than', '1h'])).removed).toEqual([])
    // --status narrows.
    expect(removedIds(await pruneJson(dir, ['--older-than', '0s', '--status', 'failed']))).toEqual([t.failed])
    // --keep 1: of succeeded, stopped, drained the newest (drained) stays, and would anyway: it has a checkpoint.
    const kept = await pruneJson(dir, ['--keep', '1'])
    expect(removedIds(kept)).toEqual([t.succeeded, t.stopped])
    // The checkpoint protects the drained task from every rule …
    const guarded = await pruneJson(dir, ['--keep', '0', '--older-than', '0s', '--max-total-size', '0'])
    expect(guarded.removed).toEqual([])
    expect(guarded.skipped).toEqual([{id: t.drained, reason: expect.stringContaining('checkpoint')}])
    // … until asked for.
    const text = await drover(dir, ['prune', '--older-than', '0s', '--include-checkpoints'])
    expect(text.exitCode).toBe(0)
    expect(text.stdout).toMatch(new RegExp(`^removed task ${t.drained}: drained, ended .*, [\\d.]+ (B|KiB)\\nremoved 1 task, reclaimed [\\d.]+ (B|KiB); 1 task kept$`))
    expect(text.stdout).not.toContain(ESC)

    expect(taskDirs(dir)).toEqual([String(t.running)])
    expect(readTask(dir, t.running).status).toBe('running')
    expect(isAlive(runnerPid)).toBe(true)
    // Nothing left to do: exit 0, and silence with -q.
    const idle = await drover(dir, ['prune', '--older-than', '0s'])
    expect([idle.exitCode, idle.stdout]).toEqual([0, 'no tasks to prune; 1 task kept'])
    expect(await drover(dir, ['prune', '--older-than', '0s', '-q'])).toMatchObject({exitCode: 0, stdout: '', stderr: ''})
  })

  it('--json is one stable object', async () => {
    const dir = makeStateDir()
    ensureStateDir(dir)
    const id = makeTask(dir, {status: 'failed', endedAt: '2020-01-01T00:00:00.000Z'})
    const result = await pruneJson(dir, ['--older-than', '0s'])
    expect(result).toEqual({
      dryRun: false,
      removed: [{id, name: `job${id}`, status: 'failed', endedAt: '2020-01-01T00:00:00.000Z', bytes: expect.any(Number)}],
      kept: 0,
      skipped: [],
      errors: [],
      bytesReclaimed: result.removed[0].bytes,
      debris: [],
      corrupt: [],
    })
    expect(result.bytesReclaimed).toBeGreaterThan(100)
  })

  it('a prune that cannot get the lock in time exits 4 with one line and removes nothing', async () => {
    const dir = makeStateDir()
    ensureStateDir(dir)
    const id = makeTask(dir, {status: 'succeeded'})
    const release = await acquireLock(stateLockPath(dir, 'prune'))
    try {
      const result = await drover(dir, ['prune', '--older-than', '0s', '--lock-wait', '1s'])
      expect(result.exitCode).toBe(4)
      expect(result.stderr).toMatch(/^drover: another prune \(pid \d+\) is still running; nothing was removed, try again later$/)
      expect(json(await drover(dir, ['prune', '--older-than', '0s', '--lock-wait', '0s', '--json'])).error.exitCode).toBe(4)
      expect(taskDirs(dir)).toEqual([String(id)])
    } finally {
      release()
    }
  })
})

describe('prune and corrupt records', () => {
  /** Two ended tasks, one corrupt record, one folder whose task.json went missing long ago. */
  function corruptMix(dir: string) {
    ensureStateDir(dir)
    const ok = makeTask(dir, {status: 'failed', endedAt: '2020-01-01T00:00:00.000Z'})
    const torn = makeTask(dir, {status: 'succeeded', endedAt: '2020-01-02T00:00:00.000Z'})
    writeFileSync(taskPaths(dir, torn).record, '{"schemaVersion": 1, "id": ')
    const empty = makeTask(dir, {status: 'succeeded', endedAt: '2020-01-03T00:00:00.000Z'})
    rmSync(taskPaths(dir, empty).record)
    const old = new Date(Date.now() - 60_000)
    utimesSync(taskPaths(dir, empty).dir, old, old)
    const young = makeTask(dir, {status: 'succeeded'})
    rmSync(taskPaths(dir, young).record) // what a concurrent start looks like a moment before it writes task.json
    return {ok, torn, empty, young}
  }

  it('are reported, human and JSON, and kept by every rule', async () => {
    const dir = makeStateDir()
    const t = corruptMix(dir)
    const listed = json(await drover(dir, ['list', '--json']))
    expect(listed.map((x: any) => [x.id, x.status])).toEqual([[t.ok, 'failed'], [t.torn, 'corrupt'], [t.empty, 'corrupt']])

    const text = await drover(dir, ['prune', '--older-than', '0s', '--max-total-size', '0'])
    expect(text.exitCode, text.stderr).toBe(0)
    expect(text.stdout).toContain(`kept corrupt task ${t.torn} (--include-corrupt removes it): task.json is corrupt: not valid JSON`)
    expect(text.stdout).toContain(`kept corrupt task ${t.empty} (--include-corrupt removes it): task.json is missing`)
    expect(text.stdout).toMatch(/removed 1 task, reclaimed .*; 3 tasks kept$/)
    expect(taskDirs(dir)).toEqual([t.torn, t.empty, t.young].map(String))

    const asJson = await pruneJson(dir, ['--keep', '0'])
    expect(asJson.corrupt).toEqual([
      {id: t.torn, error: expect.stringContaining('not valid JSON')},
      {id: t.empty, error: 'task.json is missing'},
    ])
    expect(asJson.removed).toEqual([])
    expect(taskDirs(dir)).toEqual([t.torn, t.empty, t.young].map(String))
  })

  it('go only with --include-corrupt (alone or beside rules); a dry run first changes nothing', async () => {
    const dir = makeStateDir()
    const t = corruptMix(dir)
    const before = snapshot(dir)
    const dry = await pruneJson(dir, ['--include-corrupt', '--dry-run'])
    expect(dry.removed.map((r: any) => [r.id, r.status, r.endedAt])).toEqual([[t.torn, 'corrupt', null], [t.empty, 'corrupt', null]])
    expect(snapshot(dir)).toEqual(before)

    const text = await drover(dir, ['prune', '--include-corrupt'])
    expect(text.exitCode, text.stderr).toBe(0)
    expect(text.stdout).toMatch(new RegExp(`^removed task ${t.torn}: corrupt, [\\d.]+ (B|KiB)$`, 'm'))
    // The ended task is no rule's pick, and the folder being created is nobody's to remove.
    expect(taskDirs(dir)).toEqual([t.ok, t.young].map(String))
  })
})

describe('prune under concurrency', () => {
  it('20 prunes at once over 500 ended tasks: no error, each task removed once, survivors intact', {timeout: 180_000}, async () => {
    const dir = makeStateDir()
    ensureStateDir(dir)
    const base = Date.now() - 3_600_000
    const made = Array.from({length: 500}, (_, i) => makeTask(dir, {status: i % 3 === 0 ? 'failed' : 'succeeded', endedAt: new Date(base + i * 1000).toISOString()}))
    const running = await startOk(dir, ['--', node, fixture('sleeper.mjs')])
    const survivors = made.slice(-50)
    const records = Object.fromEntries([...survivors, running].map((id) => [id, readFileSync(taskPaths(dir, id).record, 'utf8')]))

    // Meanwhile `list` must never show a half-removed task.
    let pruning = true
    const lists = (async () => {
      let count = 0
      while (pruning) {
        const listed = json(await drover(dir, ['list', '--json']))
        expect(listed.filter((task: {status: string}) => task.status === 'corrupt')).toEqual([])
        count++
      }
      return count
    })()
    const results = await Promise.all(Array.from({length: 20}, () => drover(dir, ['prune', '--keep', '50', '--json'], {timeout: 120_000})))
    pruning = false
    expect(await lists).toBeGreaterThan(0)

    for (const result of results) expect([result.exitCode, result.stderr]).toEqual([0, ''])
    const removed = results.flatMap((result) => removedIds(json(result))).sort((a, b) => a - b)
    expect(removed).toEqual(made.slice(0, 450))
    expect(taskDirs(dir).map(Number)).toEqual([...survivors, running])
    for (const id of [...survivors, running]) expect(readFileSync(taskPaths(dir, id).record, 'utf8')).toBe(records[id])
    // Removed ids are never handed out again.
    const next = await startOk(dir, ['--', node, fixture('counter.mjs'), '1', '10', '0'])
    expect(next).toBe(running + 1)
  })

  it('prune while starts and a logs -f run: no crash, no live task touched', {timeout: 120_000}, async () => {
    const dir = makeStateDir()
    const live = await startOk(dir, ['--', node, fixture('sleeper.mjs')])
    const liveRecord = readFileSync(taskPaths(dir, live).record, 'utf8')
    const followed = await startOk(dir, ['--', node, fixture('counter.mjs'), '30', '200', '0'])
    const follow = drover(dir, ['logs', '-f', String(followed)])
    const starts = (async () => {
      const ids: number[] = []
      for (let i = 0; i < 6; i++) ids.push(await startOk(dir, ['--', node, fixture('counter.mjs'), '2', '10', '0']))
      return ids
    })()
    const prunes = (async () => {
      const outputs = []
      for (let i = 0; i < 6; i++) outputs.push(await drover(dir, ['prune', '--older-than', '0s', '--json']))
      return outputs
    })()
    const [started, pruneResults, followResult] = await Promise.all([starts, prunes, follow])

    expect(new Set([live, followed, ...started]).size).toBe(8)
    for (const result of pruneResults) {
      expect([result.exitCode, result.stderr]).toEqual([0, ''])
      const removed = json(result).removed as {id: number; status: string}[]
      for (const task of removed) expect(FINAL).toContain(task.status)
      expect(removed.map((t) => t.id)).not.toContain(live)
    }
    // The follower saw the task end (exit 0), or saw it pruned first: one line, exit 3, whether it was
    // following by then or still looking the task up (on a loaded machine the task may be gone already).
    if (followResult.exitCode === 0) expect(followResult.stdout).toMatch(/line 30$/)
    else {
      expect(followResult.exitCode).toBe(3)
      expect([`drover: task ${followed} was removed while following`, `drover: no such task: ${followed}`]).toContain(followResult.stderr)
    }
    expect(readFileSync(taskPaths(dir, live).record, 'utf8')).toBe(liveRecord)
    const runnerPid = JSON.parse(readFileSync(taskPaths(dir, live).runner, 'utf8')).pid as number
    expect(isAlive(runnerPid)).toBe(true)
  })

  it('logs -f on a task that gets pruned ends with a one-line notice', async () => {
    const dir = makeStateDir()
    ensureStateDir(dir)
    // A stand-in runner we control: while it lives the task is running.
    const runner = spawn(node, [fixture('sleeper.mjs'), '120'], {stdio: 'ignore'})
    children.push(runner)
    await waitFor(() => processStartTime(runner.pid!) !== null, {message: 'runner up'})
    const id = makeTask(dir, {status: 'running', runnerPid: runner.pid})
    writeFileSync(taskPaths(dir, id).output, 'first line\nsecond line\n')

    const follower = execa(node, [BIN, 'logs', '-f', String(id)], {env: {DROVER_STATE_DIR: dir, NO_COLOR: '1'}, reject: false, stdin: 'ignore'})
    let out = ''
    follower.stdout!.on('data', (chunk) => (out += chunk))
    await waitFor(() => out.includes('second line\n'), {message: 'logs -f to print the log'})
    // Freeze the follower so the prune certainly happens between two of its looks.
    process.kill(follower.pid!, 'SIGSTOP')
    try {
      const gone = new Promise((resolve) => runner.once('exit', resolve))
      runner.kill('SIGKILL')
      await gone
      const result = await pruneJson(dir, ['--older-than', '0s'])
      expect(result.removed).toEqual([expect.objectContaining({id, status: 'lost'})])
    } finally {
      process.kill(follower.pid!, 'SIGCONT')
    }
    const end = await follower
    expect(end.exitCode).toBe(3)
    expect(end.stderr).toBe(`drover: task ${id} was removed while following`)
    expect(out).toBe('first line\nsecond line\n')
  })
})

describe('prune and symlinks', () => {
  it('a symlink planted in a task folder is removed as a link; the file outside survives', async () => {
    const dir = makeStateDir()
    const outside = makeStateDir()
    const secret = path.join(outside, 'secret.txt')
    writeFileSync(secret, 'not drover’s to delete')
    mkdirSync(path.join(outside, 'project'))
    writeFileSync(path.join(outside, 'project', 'main.c'), 'int main(){}')
    const id = await startOk(dir, ['--', node, fixture('counter.mjs'), '1', '10', '0'])
    await waitStatus(dir, id, 'succeeded')
    symlinkSync(secret, path.join(taskPaths(dir, id).dir, 'planted'))
    symlinkSync(path.join(outside, 'project'), path.join(taskPaths(dir, id).session, 'project'))
    symlinkSync(path.join(outside, 'project'), path.join(dir, 'tasks', String(id + 100)))

    const result = await pruneJson(dir, ['--older-than', '0s'])
    expect(removedIds(result)).toEqual([id])
    expect(result.debris).toEqual([String(id + 100)])
    expect(taskDirs(dir)).toEqual([])
    expect(readFileSync(secret, 'utf8')).toBe('not drover’s to delete')
    expect(existsSync(path.join(outside, 'project', 'main.c'))).toBe(true)
  })
})

describe('prune output', () => {
  it('in cron: plain lines, no colour, no progress; on a terminal with many tasks: listr2 progress', async () => {
    const dir = makeStateDir()
    ensureStateDir(dir)
    for (let i = 0; i < 120; i++) makeTask(dir, {status: 'succeeded'})
    const plain = await drover(dir, ['prune', '--keep', '60'], {env: {NO_COLOR: ''}})
    expect(plain.exitCode).toBe(0)
    expect(plain.stdout).not.toContain(ESC)
    expect(plain.stdout.split('\n').filter((line) => line.startsWith('removed task '))).toHaveLength(60)

    if (process.platform !== 'linux' || !existsSync('/usr/bin/script')) return
    // `script` gives the prune a pseudo-terminal, as an interactive shell would.
    const tty = await execa('script', ['-qec', `stty cols 120 rows 40; ${node} ${BIN} prune --older-than 0s --color`, '/dev/null'], {
      env: {DROVER_STATE_DIR: dir, NO_COLOR: '', TERM: 'xterm'},
      reject: false,
      stdin: 'ignore',
    })
    expect(tty.exitCode).toBe(0)
    expect(tty.stdout).toContain('Removed 60 tasks')
    expect(tty.stdout).toMatch(/removed 60 tasks, reclaimed [\d.]+ KiB; 0 tasks kept/)
    expect(tty.stdout).not.toMatch(/removed task \d+/)
    expect(taskDirs(dir)).toEqual([])
  })
})
