// Reading tasks as they truly are: records reconciled against their runners.
// Shared by every command that shows or selects tasks.

import {existsSync, readdirSync, statSync} from 'node:fs'
import path from 'node:path'
import {findTask} from './lookup.js'
import {reconcile} from './reconcile.js'
import {isFinalStatus} from './record.js'
import {isRealTaskDir, readAllRecords, readRecord, taskPaths, tasksDir, type RecordRead} from './store.js'

// `start` makes the task folder (its id) a moment before it writes task.json;
// a folder that young without a record is a task being created, not a corrupt one.
const CREATING_GRACE_MS = 5000

export function beingCreated(stateDir: string, read: RecordRead): boolean {
  if (read.ok || !read.missing) return false
  try {
    return Date.now() - statSync(taskPaths(stateDir, read.id).dir).mtimeMs < CREATING_GRACE_MS
  } catch {
    return true // removed meanwhile: not a task to show either
  }
}

/** All tasks, ascending by id; corrupt ones included as such. */
export async function loadTasks(stateDir: string): Promise<RecordRead[]> {
  const reads = readAllRecords(stateDir).filter((read) => !beingCreated(stateDir, read))
  for (const read of reads) {
    if (read.ok && !isFinalStatus(read.record.status)) read.record = await reconcile(stateDir, read.record)
  }
  return reads
}

/** How many ended tasks the table a person types shows beside the live ones. */
export const DEFAULT_LAST = 20

export interface RecentTasks {
  /** the live tasks and the newest ended ones, ascending by id; corrupt ones count as ended. */
  reads: RecordRead[]
  /** tasks left out (all of them ended, or corrupt). */
  hidden: number
}

/**
 * The live tasks plus the `last` newest ended ones (by id), reading only those
 * records: the view a person types has to cost the same at 10,000 tasks as at
 * 100. A task is live only while its runner is, and a live runner keeps
 * runner.json in the task folder, so older tasks cost one existence check each
 * instead of a record read. A runner.json left by a dead runner gets its task
 * read and reconciled (it shows, freshly lost). The one blind spot: a restart
 * of an old task in the moment before its new runner writes runner.json.
 */
export async function loadRecentTasks(stateDir: string, last: number): Promise<RecentTasks> {
  const ids = taskIdsFast(stateDir)
  const shown: RecordRead[] = []
  let skipped = 0
  const take = async (id: number): Promise<RecordRead | null> => {
    // Not dirChecked: the names came without file types, so readRecord refuses a symlinked folder itself.
    const read = readRecord(stateDir, id)
    // Not a real folder (pruned meanwhile, a link, a stray file), or one `start` is still filling: not a task.
    if ((!read.ok && !isRealTaskDir(stateDir, id)) || beingCreated(stateDir, read)) {
      skipped++
      return null
    }
    if (read.ok && !isFinalStatus(read.record.status)) read.record = await reconcile(stateDir, read.record)
    shown.push(read)
    return read
  }
  let ended = 0
  let k = ids.length - 1
  for (; k >= 0 && ended < last; k--) {
    const read = await take(ids[k])
    if (read && (!read.ok || isFinalStatus(read.record.status))) ended++
  }
  const dir = tasksDir(stateDir) + path.sep
  for (; k >= 0; k--) if (existsSync(`${dir}${ids[k]}${path.sep}runner.json`)) await take(ids[k])
  shown.sort((a, b) => a.id - b.id)
  return {reads: shown, hidden: ids.length - skipped - shown.length}
}

/**
 * Ids of the entries of tasks/ named like ids, ascending. Plain names rather
 * than file types, sorted as numbers in a typed array: at 10,000 tasks this
 * listing is most of what the recent view costs beyond the view at 100.
 */
function taskIdsFast(stateDir: string): Float64Array {
  let names: string[]
  try {
    names = readdirSync(tasksDir(stateDir))
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return new Float64Array(0)
    throw error
  }
  const ids = new Float64Array(names.length)
  let n = 0
  for (const name of names) if (/^[1-9][0-9]*$/.test(name)) ids[n++] = Number(name)
  return ids.subarray(0, n).sort()
}

/** The same window over reads already loaded (a --status filter needs them all read anyway). */
export function newestEnded(reads: RecordRead[], last: number): RecentTasks {
  const live = (read: RecordRead) => read.ok && !isFinalStatus(read.record.status)
  let ended = 0
  const kept = new Set<RecordRead>()
  for (let k = reads.length - 1; k >= 0; k--) {
    if (live(reads[k])) kept.add(reads[k])
    else if (ended < last) {
      kept.add(reads[k])
      ended++
    }
  }
  return {reads: reads.filter((read) => kept.has(read)), hidden: reads.length - kept.size}
}

/** One task by id or name, reconciled. Throws not-found (exit 3) or usage (exit 2). */
export async function loadTask(stateDir: string, ref: string): Promise<RecordRead> {
  const read = findTask(stateDir, ref)
  if (read.ok && !isFinalStatus(read.record.status)) read.record = await reconcile(stateDir, read.record)
  return read
}
