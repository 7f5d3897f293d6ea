// The runner's heartbeat: a small file in the task folder it rewrites every
// few seconds while it lives on another host. A pid there means nothing here,
// and a scheduler can call a job dead while its processes still run (a node
// that stopped answering), so a task placed elsewhere is lost only when the
// engine says its job is gone *and* this file has gone stale.
// Node builtins only: the runner imports it.

import {readFileSync, statSync} from 'node:fs'
import path from 'node:path'
import {currentPlatform, identityState, isSameProcess, pidExists, type PlatformContext, type ProcessIdentity} from '../platform/platform.js'
import {writeFileAtomic} from '../state/store.js'
import {clockDir, fileSystemNow} from '../state/fs-clock.js'

// A beat's age by the clock that stamped it (a remote runner's beat is stamped
// by the file server): tasks/<id> is two levels below its state dir.
const taskFolderNow = (taskDir: string) => fileSystemNow(clockDir(path.dirname(path.dirname(taskDir))))

export const DEFAULT_HEARTBEAT_MS = 10_000
// Missed beats before the heartbeat counts as stale: one slow write on a
// loaded shared file system must not make a live task lost.
const STALE_BEATS = 3

export const heartbeatFile = (taskDir: string) => path.join(taskDir, 'heartbeat')

/** The interval asked for through DROVER_HEARTBEAT_MS (tests shorten it), else the default. */
export function heartbeatMs(env: NodeJS.ProcessEnv = process.env): number {
  const value = Number(env.DROVER_HEARTBEAT_MS)
  return Number.isSafeInteger(value) && value >= 100 ? value : DEFAULT_HEARTBEAT_MS
}

export function beat(taskDir: string, info: {host: string; pid: number; everyMs: number}): void {
  try {
    writeFileAtomic(heartbeatFile(taskDir), JSON.stringify({...info, at: new Date().toISOString()}) + '\n', {durable: false})
  } catch {
    // a missed beat is what staleness allows for
  }
}

/** ms since the last beat, or null when there has been none; and how stale is stale. */
export function heartbeatAge(taskDir: string, now = taskFolderNow(taskDir)): {ageMs: number | null; staleMs: number} {
  const file = heartbeatFile(taskDir)
  let everyMs = DEFAULT_HEARTBEAT_MS
  let mtime: number
  try {
    mtime = statSync(file).mtimeMs
  } catch {
    return {ageMs: null, staleMs: STALE_BEATS * everyMs}
  }
  try {
    // the interval the runner used, so an observer with another setting judges it fairly
    const every = Number((JSON.parse(readFileSync(file, 'utf8')) as {everyMs?: unknown}).everyMs)
    if (Number.isSafeInteger(every) && every >= 100) everyMs = every
  } catch {
    // the default interval
  }
  return {ageMs: Math.max(0, now - mtime), staleMs: STALE_BEATS * everyMs}
}

/** The runner's last beat: whose (its pid) and how old; null when there is none. */
export function readHeartbeat(taskDir: string, now = taskFolderNow(taskDir)): {pid: number | null; ageMs: number; staleMs: number} | null {
  const {ageMs, staleMs} = heartbeatAge(taskDir, now)
  if (ageMs === null) return null
  let pid: number | null = null
  try {
    const value = Number((JSON.parse(readFileSync(heartbeatFile(taskDir), 'utf8')) as {pid?: unknown}).pid)
    if (Number.isSafeInteger(value)) pid = value
  } catch {
    // torn or gone meanwhile: a beat nobody can be sure is this runner's
  }
  return {pid, ageMs, staleMs}
}

// A runner that beats but whose start time cannot be read (PowerShell
// failing or hung) is still taken for alive this long after its last beat:
// longer than any stall of its own event loop on slow queries (10 s each),
// so a failing query alone never makes a live task lost.
export const UNCONFIRMED_GRACE_MS = 120_000

/**
 * Whether a runner of this host (runner.json) still lives. Elsewhere its
 * start time is read for the price of a file read. Windows, where reading
 * one starts PowerShell: no process with the pid — gone; a fresh beat of
 * that pid — alive, with nothing started; only a beat gone stale makes the
 * start time be asked. If that query fails, a runner whose beat is younger
 * than UNCONFIRMED_GRACE_MS is still alive (never signalled on that answer:
 * signals confirm identity themselves).
 */
export function localRunnerAlive(taskDir: string, runner: ProcessIdentity, ctx: PlatformContext = currentPlatform()): boolean {
  if (ctx.os !== 'win32') return isSameProcess(runner, ctx)
  if (!pidExists(runner.pid, ctx)) return false
  const last = readHeartbeat(taskDir)
  const ours = last !== null && last.pid === runner.pid
  if (ours && last.ageMs < last.staleMs) return true
  const state = identityState(runner, ctx)
  if (state === 'same') return true
  return state === 'unknown' && ours && last.ageMs < UNCONFIRMED_GRACE_MS
}
