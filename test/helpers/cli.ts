// Shared test plumbing: a private temp state dir per test, running the built
// CLI as a real process, polling with deadlines (never fixed sleeps), and
// killing whatever a test left running.

import {execa} from 'execa'
import {chmodSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync} from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import {expect} from 'vitest'
import {fileURLToPath} from 'node:url'
import {identityState, processStartTime} from '../../src/platform/platform.js'

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..')
export const BIN = path.join(ROOT, 'bin', 'run.js')
export const FIXTURES = path.join(ROOT, 'test', 'fixtures')

export const fixture = (name: string) => path.join(FIXTURES, name)

const made: string[] = []

/** A temp dir of the test's own (fixtures, homes, repos), removed with its state dirs by cleanupStateDirs. */
export function makeTempDir(prefix: string): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), prefix))
  made.push(dir)
  return dir
}

/** `drover start …` that must succeed: the new task's id. */
export async function startOk(stateDir: string, args: string[]): Promise<number> {
  const r = await drover(stateDir, ['start', ...args])
  expect(r.exitCode, r.stderr).toBe(0)
  return Number(r.stdout.trim())
}

/** The fake claude (fixtures/agent-claude.mjs) at work as task `agent`, in a HOME of its own: `turns` turns of 150 ms each. */
export function startFakeClaude(stateDir: string, turns: number): Promise<number> {
  return startOk(stateDir, [
    '--agent', 'claude', '--name', 'agent',
    '-e', `HOME=${makeStateDir()}`, '-e', `FAKE_AGENT_TURNS=${turns}`, '-e', 'FAKE_AGENT_TURN_MS=150',
    '--', process.execPath, fixture('agent-claude.mjs'), '-p', 'count', '--output-format', 'stream-json', '--verbose',
  ])
}

/** The task's events journal, one object per line. */
export function taskEvents(stateDir: string, id: number): any[] {
  return readFileSync(path.join(stateDir, 'tasks', String(id), 'events.ndjson'), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line))
}

export function makeStateDir(): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'drover-test-'))
  chmodSync(dir, 0o700)
  made.push(dir)
  return dir
}

export interface CliResult {
  stdout: string
  stderr: string
  exitCode: number
}

export async function drover(
  stateDir: string,
  args: string[],
  opts: {env?: Record<string, string>; timeout?: number; cwd?: string} = {},
): Promise<CliResult> {
  const result = await execa(process.execPath, [BIN, ...args], {
    env: {DROVER_STATE_DIR: stateDir, NO_COLOR: '1', ...opts.env},
    reject: false,
    timeout: opts.timeout ?? 60_000,
    cwd: opts.cwd,
    stdin: 'ignore',
  })
  return {stdout: String(result.stdout), stderr: String(result.stderr), exitCode: result.exitCode ?? -1}
}

/** Parses stdout as JSON, failing the test with the whole output when it is not. */
export function json<T = any>(result: CliResult): T {
  try {
    return JSON.parse(result.stdout) as T
  } catch {
    throw new Error(`stdout is not JSON (exit ${result.exitCode}):\n${result.stdout}\nstderr:\n${result.stderr}`)
  }
}

export async function waitFor<T>(
  check: () => T | Promise<T>,
  opts: {timeout?: number; interval?: number; message?: string} = {},
): Promise<NonNullable<T>> {
  const deadline = Date.now() + (opts.timeout ?? 15_000)
  let last: unknown
  for (;;) {
    try {
      const value = await check()
      if (value) return value as NonNullable<T>
    } catch (error) {
      last = error
    }
    if (Date.now() > deadline) {
      throw new Error(`timed out waiting for ${opts.message ?? 'condition'}${last ? `: ${String(last)}` : ''}`)
    }
    await new Promise((resolve) => setTimeout(resolve, opts.interval ?? 50))
  }
}

export function readTask(stateDir: string, id: number): any {
  return JSON.parse(readFileSync(path.join(stateDir, 'tasks', String(id), 'task.json'), 'utf8'))
}

export function readOutput(stateDir: string, id: number): string {
  return readFileSync(path.join(stateDir, 'tasks', String(id), 'output.log'), 'utf8')
}

/** Alive and not a zombie (zombies linger here until reaped). */
export function isAlive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    const state = stat.slice(stat.lastIndexOf(')') + 2).split(' ')[0]
    return state !== 'Z' && state !== 'X'
  } catch {
    return false
  }
}

// Start times of the pids in leftover lists, read as each was added (Linux: one small file read).
const noted = new Map<number, string | null>()

/**
 * A list for the pids (or process groups) a test may leave behind, each noted
 * with its start time as it is added, so that killLeftovers signals only the
 * very process noted: a pid that ended meanwhile may be anyone's by then — on
 * a busy machine (pid_max 32768, other suites beside) within seconds, and one
 * such SIGKILL can end another suite's process.
 */
export function leftoverList(): number[] {
  const list: number[] = []
  const push = list.push.bind(list)
  list.push = (...pids: number[]) => {
    if (process.platform === 'linux') for (const pid of pids) noted.set(pid, processStartTime(pid))
    return push(...pids)
  }
  return list
}

function killQuietly(pid: number, group: boolean): void {
  // 0 (a pid file read empty, -null) is the caller's own group: this whole test run
  if (!Number.isSafeInteger(pid) || pid <= 1) return
  const was = noted.get(pid)
  noted.delete(pid)
  if (was !== undefined) {
    const now = processStartTime(pid)
    // someone else's now; or gone when noted, so nothing of ours under its number (a group's
    // members keep the number from being reused, so a group is still signalled)
    if ((now !== null && now !== was) || (was === null && !group)) return
  }
  try {
    process.kill(group ? -pid : pid, 'SIGKILL')
  } catch {
    // gone already
  }
}

/** SIGKILLs, then forgets, every pid and process group a test left behind. */
export function killLeftovers(pids: number[], groups: number[] = []): void {
  for (const pgid of groups.splice(0)) killQuietly(pgid, true)
  for (const pid of pids.splice(0)) killQuietly(pid, false)
}

/**
 * The pid a file names, only while that very process lives: its start time
 * read now equals the one recorded. Records a test made up (the benchmarks'
 * task maker numbers pids 20000 and up) and pids reused since must never be
 * signalled: a process group of that number may be the test run's own.
 */
function readIdentity(file: string, pick: (json: any) => {pid?: unknown; startTime?: unknown} | undefined): number | null {
  try {
    const found = pick(JSON.parse(readFileSync(file, 'utf8')))
    if (typeof found?.pid !== 'number' || typeof found.startTime !== 'string') return null
    // identityState, not a start time read outright: on Windows it finds a pid gone without starting PowerShell (hundreds of made-up records)
    return identityState({pid: found.pid, startTime: found.startTime}) === 'same' ? found.pid : null
  } catch {
    return null // no such file, corrupt or partial: nothing of ours to kill
  }
}

/** Kills every live runner and worker group recorded in the state dirs this test file made, then removes them. */
export function cleanupStateDirs(): void {
  for (const dir of made.splice(0)) {
    const tasks = path.join(dir, 'tasks')
    if (existsSync(tasks)) {
      for (const entry of readdirSync(tasks)) {
        const worker = readIdentity(path.join(tasks, entry, 'task.json'), (record) => record.worker)
        if (worker) killQuietly(worker, true)
        const runner = readIdentity(path.join(tasks, entry, 'runner.json'), (file) => file)
        if (runner) killQuietly(runner, false)
      }
    }
    // A killed worker may still be flushing into its folder, and a reader a test closed (top, the
    // dashboard) may still be folding into index/ while it exits, slowly on a loaded machine: retry
    // ENOTEMPTY for up to 3 s (0.5 s failed top's tests at a load average of 8).
    rmSync(dir, {recursive: true, force: true, maxRetries: 30, retryDelay: 100})
  }
}
