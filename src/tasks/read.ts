// Reading tasks as they truly are: records reconciled against their runners.
// Shared by every command that shows or selects tasks.

import {existsSync, readdirSync, statSync} from 'node:fs'
import path from 'node:path'
import {dropHintIfDone, liveHints, meantToRun} from '../state/live-index.js'
import {findTask} from '../state/lookup.js'
import {reconcile} from './reconcile.js'
import {fireHooks} from '../runner/local-executor.js'
import {runnerAlive} from '../runner/executors.js'
import {isFinalStatus} from '../state/record.js'
import {isAbandonedCreation, isRealTaskDir, readAllRecords, readRecord, taskPaths, tasksDir, type RecordRead} from '../state/store.js'

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

/** A folder without a record that is no task to show: one `start` is filling, or one it left empty (killed before the record). */
export function notATask(stateDir: string, read: RecordRead): boolean {
  return beingCreated(stateDir, read) || (!read.ok && read.missing && isAbandonedCreation(stateDir, read.id))
}

/**
 * The exit hooks of a task that ended lately, if nobody claimed them: the
 * writer of a final status claims and fires them right after the record,
 * and one killed in between leaves them unclaimed. The task's live hint
 * outlives that moment (list drops it only after this), so looking at hinted
 * tasks alone finds every such end; the claim is exclusive, so hooks someone
 * fired already are not fired again.
 */
function settleHooks(stateDir: string, read: RecordRead, hinted: ReadonlySet<number>): void {
  if (read.ok && hinted.has(read.id) && isFinalStatus(read.record.status)) fireHooks(stateDir, read.record)
}

/** All tasks, ascending by id; corrupt ones included as such. */
export async function loadTasks(stateDir: string): Promise<RecordRead[]> {
  const reads = readAllRecords(stateDir).filter((read) => !notATask(stateDir, read))
  const hinted = new Set(liveHints(stateDir) ?? [])
  for (const read of reads) {
    if (read.ok && !isFinalStatus(read.record.status)) read.record = await reconcile(stateDir, read.record)
    settleHooks(stateDir, read, hinted)
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
 * 100. Live tasks among the older ids are found through the live index
 * (live-index.ts): a hint per task that may be live, dropped here once its
 * record shows the task is done with. Older tasks show only while meant to
 * run: live, or lost while running (what `resume --interrupted` brings back);
 * any other ended one is among the hidden. A state dir without an index yet
 * (none started by this drover) has each older folder checked for the
 * runner.json a live runner keeps instead — read-only, as list must be.
 */
export async function loadRecentTasks(stateDir: string, last: number): Promise<RecentTasks> {
  const ids = taskIdsFast(stateDir)
  const hints = liveHints(stateDir)
  const hinted = new Set(hints ?? [])
  const shown: RecordRead[] = []
  const doneIds = new Set<number>()
  let skipped = 0
  // Reads and reconciles one task; shows it unless `liveOnly` and it is done with.
  const take = async (id: number, liveOnly = false): Promise<RecordRead | null> => {
    // Not dirChecked: the names came without file types, so readRecord refuses a symlinked folder itself.
    const read = readRecord(stateDir, id)
    // Not a real folder (pruned meanwhile, a link, a stray file), or one `start` is filling or left empty: not a task.
    if ((!read.ok && !isRealTaskDir(stateDir, id)) || notATask(stateDir, read)) {
      skipped++
      return null
    }
    if (read.ok && !isFinalStatus(read.record.status)) read.record = await reconcile(stateDir, read.record)
    settleHooks(stateDir, read, hinted)
    if (read.ok && !meantToRun(read.record)) doneIds.add(id)
    if (!liveOnly || !doneIds.has(id)) shown.push(read)
    return read
  }
  let ended = 0
  let k = ids.length - 1
  for (; k >= 0 && ended < last; k--) {
    const read = await take(ids[k])
    if (read && (!read.ok || isFinalStatus(read.record.status))) ended++
  }
  const older = k >= 0 ? ids[k] : 0
  if (hints !== null) {
    for (const id of hints.sort((a, b) => a - b)) if (id <= older && listed(ids, id)) await take(id, true)
  } else {
    const dir = tasksDir(stateDir) + path.sep
    for (; k >= 0; k--) if (existsSync(`${dir}${ids[k]}${path.sep}runner.json`)) await take(ids[k], true)
  }
  // Hints of tasks now ended or gone are dropped (under the task lock, best
  // effort), so the index stays about as small as what runs.
  for (const id of hints ?? []) if (doneIds.has(id) || !listed(ids, id)) await dropHintIfDone(stateDir, id, (record) => runnerAlive(stateDir, id, record))
  shown.sort((a, b) => a.id - b.id)
  return {reads: shown, hidden: ids.length - skipped - shown.length}
}

/** Whether a sorted id list holds id (binary search: the list may hold 10,000). */
function listed(ids: Float64Array, id: number): boolean {
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
