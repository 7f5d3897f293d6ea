// Bad input on the command line and bad state dirs: every case must end in one line on
// stderr, a documented exit code (2 usage, 3 no such task, 5 state dir unusable), and a
// state dir unchanged byte for byte — paths, modes, sizes, mtimes and contents.

import {chmodSync, chownSync, existsSync, statSync, writeFileSync} from 'node:fs'
import path from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {cleanupStateDirs, drover, json, makeStateDir, type CliResult} from '../helpers/cli.js'
import {canMountTmpfs, fabricateTask, freshDir, mountTmpfs, remount, snapshot, unmountAll} from '../fixtures/rel-state.js'

/** At most `limit` CLI calls at once: the machine has two cores and other suites run too. */
async function pool<T, R>(items: T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(items.length)
  let next = 0
  const worker = async () => {
    while (next < items.length) {
      const index = next++
      results[index] = await fn(items[index])
    }
  }
  await Promise.all(Array.from({length: Math.min(limit, items.length)}, worker))
  return results
}

/** The CLI as users run it: vitest's NODE_ENV=test would make oclif print developer warnings. */
const cli = (stateDir: string, args: string[]) => drover(stateDir, args, {env: {NODE_ENV: 'production'}})

function expectOneLineError(result: CliResult, code: number, what: string): void {
  const context = `${what}\nexit ${result.exitCode}\nstdout: ${result.stdout}\nstderr: ${result.stderr}`
  expect(result.exitCode, context).toBe(code)
  expect(result.stdout, context).toBe('')
  const lines = result.stderr.trim().split('\n')
  expect(lines, context).toHaveLength(1)
  expect(lines[0], context).toMatch(/^drover: \S/)
  // A message that ends in ':' or names no detail is oclif's first line cut short.
  expect(lines[0], context).not.toMatch(/:$/)
  expect(lines[0], context).not.toMatch(/DEBUG|at .*\.js:\d+|\bError\b/)
  // drover's own sentence, never oclif's frame or wording
  expect(lines[0], context).not.toMatch(/following errors? occurred|must be provided|cannot also be provided|^drover: Parsing|Expected an integer|See more help|required arg/)
}

let dir: string
let before: Record<string, string>

beforeAll(() => {
  // Final tasks only: list and status then have nothing to reconcile, so any change is a bug.
  dir = makeStateDir()
  fabricateTask(dir, {status: 'succeeded', name: 'alpha'})
  fabricateTask(dir, {status: 'stopped'})
  fabricateTask(dir, {status: 'cancelled', env: {API_KEY: 'k'}})
  fabricateTask(dir, {status: 'drained'})
  before = snapshot(dir)
})

afterAll(() => {
  unmountAll()
  cleanupStateDirs()
})

/** Runs each case (at most three at once) and checks the message, the code and the state dir. */
async function refuseAll(cases: {args: string[]; code: number; stderr?: RegExp}[]): Promise<void> {
  await pool(cases, 3, async ({args, code, stderr}) => {
    const result = await cli(dir, args)
    expectOneLineError(result, code, JSON.stringify(args))
    if (stderr) expect(result.stderr).toMatch(stderr)
    expect(snapshot(dir), `state dir changed by ${JSON.stringify(args)}`).toEqual(before)
  })
}

// CLI calls cost ~0.3 s of CPU each, so every value is tried once on the read path (status)
// and a few on each command that writes; the parsers themselves are fuzzed in fuzz.test.ts.
const MALFORMED_IDS = ['../x', '..', '-1', '0x1', '1e9', '', '007', '9'.repeat(400), 'a'.repeat(300), 'タスク', 'e\u0301', '7\u200b', 'con']
const UNKNOWN_IDS = ['nosuch', '999']

describe('task ids and names', () => {
  it('status: every malformed ref exits 2, every unknown one 3', {timeout: 120_000}, async () => {
    await refuseAll([
      ...MALFORMED_IDS.map((ref) => ({args: ['status', ref], code: 2})),
      ...UNKNOWN_IDS.map((ref) => ({args: ['status', ref], code: 3})),
    ])
  })

  it('stop, cancel, drain, resume, logs and start <id>: malformed 2, unknown 3, nothing done to good refs beside them', {timeout: 120_000}, async () => {
    await refuseAll([
      {args: ['stop', '../x'], code: 2},
      {args: ['stop', 'nosuch'], code: 3},
      {args: ['cancel', '..'], code: 2},
      {args: ['cancel', '999'], code: 3},
      {args: ['drain', '0x1'], code: 2},
      {args: ['resume', 'タスク'], code: 2},
      {args: ['resume', 'nosuch'], code: 3},
      {args: ['logs', ''], code: 2},
      {args: ['start', '1e9'], code: 2},
      {args: ['start', 'nosuch'], code: 3},
      // One bad ref among good ones: every ref is checked before anything is done.
      {args: ['stop', '1', '../x'], code: 2},
      {args: ['resume', '4', '-1'], code: 2},
    ])
  })
})

describe('durations and sizes', () => {
  it('negative, unknown unit, overflowing, empty and meaningless zero values exit 2', {timeout: 120_000}, async () => {
    // Each bad value once and each flag at least once, in the `--flag=value` form (so '-5s'
    // is a value, not a flag) and once in the spaced form.
    await refuseAll([
      {args: ['start', '--timeout=-5s', '--', 'true'], code: 2},
      {args: ['start', '--idle-timeout', '5x', '--', 'true'], code: 2},
      {args: ['stop', '--time=1e309s', '1'], code: 2},
      {args: ['drain', '--grace=', '1'], code: 2},
      {args: ['drain', '--kill-after=1h1h', '1'], code: 2},
      {args: ['prune', '--older-than=' + '9'.repeat(30) + 'w'], code: 2},
      {args: ['prune', '--keep', '5', '--lock-wait=5 s'], code: 2},
      // Zero where it means nothing: a task told to stop before it starts.
      {args: ['start', '--timeout', '0', '--', 'true'], code: 2},
      {args: ['start', '--idle-timeout=0s', '--', 'true'], code: 2},
      {args: ['start', '--max-output=-5', '--', 'true'], code: 2},
      {args: ['start', '--max-output=5x', '--', 'true'], code: 2},
      {args: ['prune', '--max-total-size=1e309'], code: 2},
      {args: ['prune', '--max-total-size='], code: 2},
      {args: ['start', '--max-output=99999999999999999999T', '--', 'true'], code: 2},
      // oclif's parse errors in drover's words: which flag, what was wrong, the fix.
      {args: ['prune', '--keep=-1'], code: 2, stderr: /^drover: --keep must be a whole number of at least 0, got '-1'$/},
      {args: ['prune', '--keep=1.5'], code: 2},
      {args: ['logs', '1', '-n=x'], code: 2, stderr: /--tail: expected a number of lines or "all", got "x"$/},
    ])
  })

  it('--max-output 0 means no cap, and --time 0 an immediate SIGKILL: both are accepted', async () => {
    const own = makeStateDir()
    const start = await cli(own, ['start', '--json', '--max-output', '0', '--', 'true'])
    expect(start.exitCode, start.stderr).toBe(0)
    expect(json(start).policies).toEqual({timeoutMs: null, idleTimeoutMs: null, maxOutputBytes: null})
    const stop = await cli(own, ['stop', '--time', '0', String(json(start).id)])
    expect(stop.exitCode, stop.stderr).toBe(0)
  })
})

describe('usage', () => {
  it('missing -- or command, unknown flags, flags in the wrong place exit 2 (a restart of an unknown task 3)', {timeout: 90_000}, async () => {
    await refuseAll([
      {args: ['start'], code: 2},
      {args: ['start', '--'], code: 2},
      {args: ['start', '--', ''], code: 2},
      {args: ['start', '--shell', ''], code: 2},
      {args: ['start', '--shell', 'true', '--', 'true'], code: 2},
      {args: ['start', 'sleep', '5'], code: 2},
      // `start sleep`: the command without `--` reads as a task to restart, and there is none.
      {args: ['start', 'sleep'], code: 3, stderr: /start -- sleep/},
      {args: ['start', '1', '--', 'true'], code: 2},
      {args: ['start', '--bogus', '--', 'true'], code: 2},
      {args: ['start', '--name', 'x', '--name', 'y', '--', 'true'], code: 2},
      {args: ['start', '-e', 'NOEQUALS', '--', 'true'], code: 2},
      {args: ['start', '--agent', 'gpt', '--', 'true'], code: 2},
      {args: ['start', '--agent', 'codx', '--', 'true'], code: 2, stderr: /^drover: --agent: unknown value 'codx' \(did you mean codex\?\); use one of: claude, codex, gemini, qwen, copilot, opencode, generic$/},
      {args: ['start', '--base', 'main', '--', 'true'], code: 2, stderr: /^drover: --base goes with --worktree: add --worktree, or leave out --base$/},
      {args: ['start', '--follow', '--pretty', '--raw', '--', 'true'], code: 2, stderr: /^drover: --pretty and --raw do not go together: give one of them$/},
      // the forgotten `--` after --worktree: not "cannot change a task that is started again"
      {args: ['start', '--worktree', 'echo', 'hi'], code: 2, stderr: /^drover: --worktree is for a new task, and 'hi' is not a command there: put the command after --, e\.g\. drover start --worktree -- echo hi \(a branch goes as --worktree=BRANCH\)/},
      {args: ['start', '1', '--timeout', '5m'], code: 2, stderr: /^drover: --timeout cannot change task 1 when it starts again: run drover start 1 alone, or start a new task with --timeout$/},
      {args: ['list', '1'], code: 2},
      {args: ['status'], code: 2, stderr: /^drover: status needs a TASK: task id or name \(:latest for the newest task\); e.g. drover status 3$/},
      {args: ['status', '1', '2'], code: 2},
      {args: ['stop'], code: 2},
      {args: ['stop', '--all', '1'], code: 2},
      {args: ['resume', '--all', '--interrupted'], code: 2},
      {args: ['prune'], code: 2},
    ])
  })

  it('--json errors are one JSON object on stdout with the same exit code, and change nothing', async () => {
    for (const [args, code] of [
      [['status', '../x', '--json'], 2],
      [['status', 'nosuch', '--json'], 3],
      [['start', '--timeout', '5x', '--json', '--', 'true'], 2],
    ] as const) {
      const result = await cli(dir, [...args])
      expect(result.exitCode, result.stdout + result.stderr).toBe(code)
      expect(result.stdout.trim().split('\n')).toHaveLength(1)
      expect(json(result).error).toMatchObject({exitCode: code})
      expect(snapshot(dir)).toEqual(before)
    }
  })
})

describe('state dir', () => {
  it('a file in its place: exit 5 for reads and writes, the file untouched', async () => {
    const parent = makeStateDir()
    const file = path.join(parent, 'state')
    writeFileSync(file, 'not a dir', {mode: 0o600})
    const was = snapshot(parent)
    for (const args of [['list'], ['status', '1'], ['start', '--', 'true'], ['stop', '--all'], ['prune', '--keep', '1']]) {
      const result = await cli(file, args)
      expectOneLineError(result, 5, JSON.stringify(args))
      expect(result.stderr).toMatch(/not a directory/)
      expect(snapshot(parent)).toEqual(was)
    }
  })

  // Root passes every permission check, so "no permission" is a dir another uid owns (chown needs root).
  const root = process.getuid?.() === 0
  it.skipIf(!root)("another user's state dir (no permission for us in real life) is refused with exit 5" + (root ? '' : ' [skipped: chown needs root]'), async () => {
    const own = makeStateDir()
    fabricateTask(own, {status: 'succeeded'})
    chownSync(own, 65534, 65534)
    const was = snapshot(own)
    try {
      for (const args of [['list'], ['start', '--', 'true']]) {
        const result = await cli(own, args)
        expectOneLineError(result, 5, JSON.stringify(args))
        expect(result.stderr).toMatch(/another user/)
        expect(snapshot(own)).toEqual(was)
      }
    } finally {
      chownSync(own, process.getuid!(), process.getgid!())
    }
  })

  it('a state dir others may write is refused with a hint to chmod 700', async () => {
    const own = makeStateDir()
    fabricateTask(own, {status: 'succeeded'})
    for (const mode of [0o777, 0o770, 0o702]) {
      chmodSync(own, mode)
      const was = snapshot(own)
      for (const args of [['list'], ['start', '--', 'true']]) {
        const result = await cli(own, args)
        expectOneLineError(result, 5, `${mode.toString(8)} ${JSON.stringify(args)}`)
        expect(result.stderr).toContain(`chmod 700 ${own}`)
        expect(snapshot(own)).toEqual(was)
      }
    }
  })

  it('a path whose parents do not exist is created by start, every new level 0700 (a look creates none)', async () => {
    const parent = makeStateDir()
    const nested = path.join(parent, 'a', 'b', 'state')
    expect((await cli(nested, ['list'])).exitCode).toBe(0)
    expect(existsSync(path.join(parent, 'a'))).toBe(false)
    const result = await cli(nested, ['start', '--', 'true'])
    expect(result.exitCode, result.stderr).toBe(0)
    for (const level of [path.join(parent, 'a'), path.join(parent, 'a', 'b'), nested]) {
      expect((statSync(level).mode & 0o777).toString(8), level).toBe('700')
    }
  })

  const mountable = canMountTmpfs()
  // Says why in the test's own name when it cannot run (not root, or no right to mount).
  const needsMount = mountable ? '' : ' [skipped: needs root and permission to mount a tmpfs]'
  it.skipIf(!mountable)('on a read-only mount: list and status work; start, restart, resume and prune exit 5 and write nothing' + needsMount, async () => {
    const mount = mountTmpfs('4m')
    const state = freshDir(mount, 'state')
    fabricateTask(state, {status: 'succeeded'})
    // A task whose runner vanished: list must show it lost without being able to persist that.
    fabricateTask(state, {status: 'running', runner: {pid: 999_999_999, startTime: '1'}})
    remount(mount, 'ro')
    const was = snapshot(state)
    const list = await cli(state, ['list', '--json'])
    expect(list.exitCode, list.stderr).toBe(0)
    expect(json(list).map((t: any) => t.status)).toEqual(['succeeded', 'lost'])
    const status = await cli(state, ['status', '2'])
    expect(status.exitCode, status.stderr).toBe(0)
    expect(status.stdout).toMatch(/status\s+lost/)
    for (const args of [['start', '--', 'true'], ['start', '1'], ['resume', '2'], ['prune', '--older-than', '0s']]) {
      const result = await cli(state, args)
      expectOneLineError(result, 5, JSON.stringify(args))
      expect(result.stderr).toMatch(/read-only/)
    }
    expect(snapshot(state)).toEqual(was)
  })

  it.skipIf(!mountable)('a missing state dir on a read-only mount cannot be created: exit 5' + needsMount, async () => {
    const mount = mountTmpfs('1m')
    remount(mount, 'ro')
    const result = await cli(path.join(mount, 'state'), ['start', '--', 'true'])
    expectOneLineError(result, 5, 'start on a read-only parent')
    expect(result.stderr).toMatch(/read-only/)
    expect(existsSync(path.join(mount, 'state'))).toBe(false)
  })
})
