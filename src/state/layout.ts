// Where things are in a state dir: the task folders and their files, the
// live index and the derived index, the file modes drover writes with, and the
// listing of task ids. Only names and listings — no record is read here — so
// the modules that write records (store.ts) and mark them (live-hint.ts) can
// share it without importing each other.

import {constants as fsc, readdirSync} from 'node:fs'
import path from 'node:path'

// O_NOFOLLOW makes every open refuse a symlink planted in place of one of our
// files; Windows has no such flag (and no unprivileged symlinks), hence `?? 0`.
export const NOFOLLOW = fsc.O_NOFOLLOW ?? 0
export const FILE_MODE = 0o600
export const DIR_MODE = 0o700

/** A lock being made (its dir with owner.json, before its rename into place) and one being released: lock.ts names them, fs-clock.ts sweeps those a killed process left. */
export const LOCK_DRAFT_SUFFIX = '.draft'
export const LOCK_GRAVE_SUFFIX = '.released'

export interface TaskPaths {
  dir: string
  record: string
  output: string
  events: string
  control: string
  requests: string
  session: string
  runner: string
  runnerLog: string
  /** claude's `--settings` file with drover's drain hook (written at each launch). */
  agentSettings: string
  /**
   * The worker's descendants the runner has seen (pid + start time), kept as
   * they appear: when runner and worker both vanish, what they left behind
   * can still be found and stopped before the task is recorded lost.
   */
  tree: string
  /** follow-ups queued for the agent (state/followups.ts). */
  followups: string
}

// The tasks dir of the last state dir asked for: every command uses one state
// dir, and path.join's normalising was a fifth of `list` at 10,000 tasks.
let tasksDirMemo: {stateDir: string; tasks: string} | null = null

export function tasksDir(stateDir: string): string {
  if (tasksDirMemo?.stateDir !== stateDir) tasksDirMemo = {stateDir, tasks: path.join(stateDir, 'tasks')}
  return tasksDirMemo.tasks
}

/** Where `start --worktree` puts the tasks' git worktrees: beside tasks/, never inside a repository. */
export const worktreesDir = (stateDir: string) => path.join(stateDir, 'worktrees')

export const taskDir = (stateDir: string, id: number) => tasksDir(stateDir) + path.sep + id

export function taskPaths(stateDir: string, id: number): TaskPaths {
  const dir = taskDir(stateDir, id)
  const at = (name: string) => dir + path.sep + name
  return {
    dir,
    record: at('task.json'),
    output: at('output.log'),
    events: at('events.ndjson'),
    control: at('control'),
    requests: at('requests'),
    session: at('session'),
    runner: at('runner.json'),
    runnerLog: at('runner.log'),
    agentSettings: at('claude-settings.json'),
    tree: at('tree.json'),
    followups: at('followups'),
  }
}

let uniqueCounter = 0
/**
 * A name part no other writer uses at the same time: pid + time + a counter.
 * Not node:crypto — loading it costs the runner ~2 MB of RSS per live task.
 */
export function uniqueSuffix(): string {
  uniqueCounter += 1
  return `${process.pid}-${Date.now().toString(36)}-${uniqueCounter.toString(36)}${Math.floor(Math.random() * 0xffff).toString(36)}`
}

/** The live index (live-index.ts): live/<id> for every task whose record must be read, not taken from the derived index. */
export const liveDir = (stateDir: string) => path.join(stateDir, 'live')

/** The derived index (index.ts, index-listing.ts): segments of the tasks done with, and the kept listing of tasks/. */
export const indexDir = (stateDir: string) => path.join(stateDir, 'index')

/** Ids of the task folders present, ascending. Dot entries (temp, trash) and symlinks are not tasks. */
export function listTaskIds(stateDir: string): number[] {
  let entries
  try {
    entries = readdirSync(tasksDir(stateDir), {withFileTypes: true})
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return []
    throw error
  }
  const ids: number[] = []
  for (const entry of entries) {
    if (!entry.isDirectory() || !/^[1-9][0-9]*$/.test(entry.name)) continue
    ids.push(Number(entry.name))
  }
  return ids.sort((a, b) => a - b)
}


/**
 * Ids of the entries of a tasks/ folder named like ids, ascending. Plain names
 * rather than file types, sorted as numbers in a typed array: at 10,000 tasks
 * this listing is most of what the recent view costs beyond the view at 100.
 */
export function idsIn(dir: string): Float64Array {
  let names: string[]
  try {
    names = readdirSync(dir)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return new Float64Array(0)
    throw error
  }
  const ids = new Float64Array(names.length)
  let n = 0
  for (const name of names) if (/^[1-9][0-9]*$/.test(name)) ids[n++] = Number(name)
  return ids.subarray(0, n).sort()
}

/** Where `id` is, or would go, in a sorted id list: the count of ids below it. */
export function lowerBound(ids: ArrayLike<number>, id: number): number {
  let lo = 0
  let hi = ids.length
  while (lo < hi) {
    const mid = (lo + hi) >> 1
    if (ids[mid] < id) lo = mid + 1
    else hi = mid
  }
  return lo
}

/** Whether a sorted id list holds id (binary search: the list may hold 100,000). */
export function listed(ids: Float64Array, id: number): boolean {
  let lo = 0
  let hi = ids.length - 1
  while (lo <= hi) {
    const mid = (lo + hi) >> 1
    if (ids[mid] === id) return true
    if (ids[mid] < id) lo = mid + 1
    else hi = mid - 1
  }
  return false
}
