// The runner's heartbeat: a small file in the task folder it rewrites every
// few seconds while it lives on another host. A pid there means nothing here,
// and a scheduler can call a job dead while its processes still run (a node
// that stopped answering), so a task placed elsewhere is lost only when the
// engine says its job is gone *and* this file has gone stale.
// Node builtins only: the runner imports it.

import {readFileSync, statSync} from 'node:fs'
import path from 'node:path'
import {writeFileAtomic} from '../state/store.js'

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
export function heartbeatAge(taskDir: string, now = Date.now()): {ageMs: number | null; staleMs: number} {
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
