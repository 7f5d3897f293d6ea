// Queues on disk, readable with `ls` and `cat`: a queue's settings are one
// JSON file, and its members are empty files in two folders — `waiting/`
// (named so that sorting the names gives the order they start in) and
// `active/` (one per task holding a slot). The records stay the truth; the
// folders are an index kept a step ahead of them (an entry is written before
// the record moves and removed only after), so after a crash an entry may be
// stale, which the advancer sees and drops, but a slot is never uncounted.
//
//   queues/<name>.json             {"name","parallel","paused"}
//   queues/<name>/waiting/<key>    key = <1000 - priority>-<queuedAt ms>-<id>
//   queues/<name>/active/<id>
//   locks/queue-<name>.lock        held while members are counted and claimed

import {mkdirSync, readdirSync, rmdirSync, writeFileSync, type Dirent} from 'node:fs'
import path from 'node:path'
import {readOwnFile, safeUnlink, writeFileAtomic, DIR_MODE, FILE_MODE} from './store.js'
import type {TaskRecord} from './record.js'

export interface QueueConfig {
  name: string
  /** how many of its tasks may hold a slot (starting, running or stopping) at once. */
  parallel: number
  /** a paused queue starts nothing; running tasks go on. */
  paused: boolean
}

/** A queue nobody configured runs one task at a time, like nq and pueue's default group. */
export const DEFAULT_PARALLEL = 1

/**
 * Tasks with dependencies (or a retry's delay) but no queue wait in this one, which has no limit.
 * It cannot clash with a user's queue: their names start with a letter.
 */
export const AFTER_QUEUE = '@after'

export const MAX_PRIORITY = 999

export const queuesDir = (stateDir: string) => path.join(stateDir, 'queues')
const configPath = (stateDir: string, name: string) => path.join(queuesDir(stateDir), `${name}.json`)
const waitingDir = (stateDir: string, name: string) => path.join(queuesDir(stateDir), name, 'waiting')
const activeDir = (stateDir: string, name: string) => path.join(queuesDir(stateDir), name, 'active')

export const queueLockPath = (stateDir: string, name: string) => path.join(stateDir, 'locks', `queue-${name}.lock`)

/** The queue a task's runs wait in: its own, or the unlimited one (dependencies, a retry's delay), or none. */
export function effectiveQueue(record: Pick<TaskRecord, 'queue' | 'after' | 'afterEnded'> & {retryAt?: string | null}): string | null {
  if (record.queue !== null) return record.queue
  return record.after.length > 0 || record.afterEnded.length > 0 || (record.retryAt ?? null) !== null ? AFTER_QUEUE : null
}

export function readQueueConfig(stateDir: string, name: string): QueueConfig {
  if (name === AFTER_QUEUE) return {name, parallel: Number.POSITIVE_INFINITY, paused: false}
  try {
    const value = JSON.parse(readOwnFile(configPath(stateDir, name))) as Partial<QueueConfig>
    return {
      name,
      parallel: Number.isSafeInteger(value.parallel) && value.parallel! > 0 ? value.parallel! : DEFAULT_PARALLEL,
      paused: value.paused === true,
    }
  } catch {
    return {name, parallel: DEFAULT_PARALLEL, paused: false}
  }
}

/** Written under the queue's lock by the caller, so a change never interleaves with a count. */
export function writeQueueConfig(stateDir: string, config: QueueConfig): void {
  ensureQueueDirs(stateDir, config.name)
  writeFileAtomic(configPath(stateDir, config.name), JSON.stringify(config) + '\n')
}

export function ensureQueueDirs(stateDir: string, name: string): void {
  mkdirSync(waitingDir(stateDir, name), {recursive: true, mode: DIR_MODE})
  mkdirSync(activeDir(stateDir, name), {recursive: true, mode: DIR_MODE})
}

/** Forgets an empty queue: its settings and its (empty) folders. The caller holds its lock and has checked it is empty. */
export function removeQueueFiles(stateDir: string, name: string): void {
  safeUnlink(configPath(stateDir, name))
  for (const dir of [waitingDir(stateDir, name), activeDir(stateDir, name), path.join(queuesDir(stateDir), name)]) {
    try {
      rmdirSync(dir)
    } catch {
      // already gone; a folder that is not empty was refilled meanwhile and stays
    }
  }
}

/** Every queue that has settings or members, the dependency queue included. */
export function listQueueNames(stateDir: string): string[] {
  let entries: Dirent[]
  try {
    entries = readdirSync(queuesDir(stateDir), {withFileTypes: true})
  } catch {
    return []
  }
  const names = new Set<string>()
  // A queue may be named `a.json`: only a file's name loses the suffix.
  for (const entry of entries) {
    if (entry.isDirectory()) names.add(entry.name)
    else if (entry.isFile() && entry.name.endsWith('.json')) names.add(entry.name.slice(0, -5))
  }
  return [...names].sort()
}

/**
 * A waiting entry's name sorts into start order: higher priority first, then
 * the time the task joined the queue (kept when a run is queued again, so an
 * interrupted task keeps its place), then the id.
 */
export function waitingKey(record: Pick<TaskRecord, 'id' | 'priority' | 'queuedAt'>): string {
  const rank = String(MAX_PRIORITY + 1 - record.priority).padStart(4, '0')
  const at = String(Date.parse(record.queuedAt ?? '') || 0).padStart(15, '0')
  return `${rank}-${at}-${String(record.id).padStart(12, '0')}`
}

export const idOfKey = (key: string): number => Number(key.slice(key.lastIndexOf('-') + 1))

function names(dir: string): string[] {
  try {
    return readdirSync(dir).sort()
  } catch {
    return []
  }
}

export const waitingKeys = (stateDir: string, name: string) => names(waitingDir(stateDir, name)).filter((key) => /^\d{4}-\d{15}-\d{12}$/.test(key))
export const activeIds = (stateDir: string, name: string) =>
  names(activeDir(stateDir, name))
    .filter((entry) => /^[1-9]\d*$/.test(entry))
    .map(Number)

export function addWaiting(stateDir: string, name: string, key: string): void {
  ensureQueueDirs(stateDir, name)
  writeFileSync(path.join(waitingDir(stateDir, name), key), '', {mode: FILE_MODE})
}

export const removeWaiting = (stateDir: string, name: string, key: string) => safeUnlink(path.join(waitingDir(stateDir, name), key))

export function addActive(stateDir: string, name: string, id: number): void {
  ensureQueueDirs(stateDir, name)
  writeFileSync(path.join(activeDir(stateDir, name), String(id)), '', {mode: FILE_MODE})
}

export const removeActive = (stateDir: string, name: string, id: number) => safeUnlink(path.join(activeDir(stateDir, name), String(id)))

/** 1-based place of a queued task in its queue's line, or null when it is not waiting there. */
export function queuePosition(stateDir: string, record: TaskRecord): number | null {
  const queue = effectiveQueue(record)
  if (record.status !== 'queued' || queue === null) return null
  const index = waitingKeys(stateDir, queue).indexOf(waitingKey(record))
  return index === -1 ? null : index + 1
}
