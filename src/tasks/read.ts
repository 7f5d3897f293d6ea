// Reading tasks as they truly are: records reconciled against their runners.
// Shared by every command that shows or selects tasks.

import {existsSync, statSync} from 'node:fs'
import path from 'node:path'
import {listed} from '../state/layout.js'
import {taskIdsKept} from '../state/index-listing.js'
import {liveHints, meantToRun} from '../state/live-index.js'
import {findTask} from './lookup.js'
import {reconcile} from './reconcile.js'
import {fireHooks} from '../runner/local-executor.js'
import {hooksPending} from '../runner/exit-hooks.js'
import {statusHooksPending} from '../state/status-changes.js'
import {runnerAlive} from '../runner/executors.js'
import {isFinalStatus} from '../state/record.js'
import {ageByFileSystem, clockDir} from '../state/fs-clock.js'
import {isAbandonedCreation, isRealTaskDir, listTaskIds, readFoundTask, readRecord, taskPaths, tasksDir, type RecordRead} from '../state/store.js'
import {
  BUILD_MIN,
  buildWanted,
  decodeEntry,
  foldHints,
  planTaskReads,
  recordStamp,
  renderedText,
  repairWanted,
  tryIndexLock,
  updateIndex,
  type Column,
  type IndexEntry,
  type IndexRenderer,
  type StampedRecord,
  unindexedIds,
} from '../state/index.js'

// `start` makes the task folder (its id) a moment before it writes task.json;
// a folder that young without a record is a task being created, not a corrupt one.
// Young by the file system's clock, which stamped the folder: by this
// process's clock, stepped ahead, a start in progress looked abandoned.
const CREATING_GRACE_MS = 5000

export function beingCreated(stateDir: string, read: RecordRead): boolean {
  if (read.ok || !read.missing) return false
  try {
    return ageByFileSystem(statSync(taskPaths(stateDir, read.id).dir).mtimeMs, clockDir(stateDir)) < CREATING_GRACE_MS
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

/** What the index-aware reads take: how the API renders the columns the index keeps, and which of them the caller uses. */
export interface IndexOptions {
  render?: IndexRenderer
  /** the columns of an entry the caller uses (default: its record). */
  columns?: readonly Column[]
}

/** A task as a full read found it: its record read, or the index's entry for it (not decoded yet). */
export type TaskSource = RecordRead | IndexEntry

const isEntry = (source: TaskSource): source is IndexEntry => 'segment' in source

/**
 * Folds the hints of tasks whose record, read just now, shows them done with
 * (index.ts rule 3: under its lock and the task's, each record read again,
 * best effort): so whichever command read them — the default `list`, `list
 * --json`, `wait --all` — the next reader takes them from the index, and
 * the live index stays about as small as what runs.
 */
export async function foldDone(stateDir: string, ids: number[], render?: IndexRenderer): Promise<void> {
  await foldHints(stateDir, ids, {runnerAlive: (record) => runnerAlive(stateDir, record.id, record), pending: (record) => hooksPending(stateDir, record) || statusHooksPending(stateDir, record.id), render})
}

/**
 * Every task, ascending by id, through the derived index (index.ts): an
 * entry for each id it may use, the record for every other one. Having had
 * to read many records no entry stood for (or finding the index damaged, in
 * many segments, or of another renderer), it leaves them indexed for the
 * next reader — holding the index lock from before it reads them (rule 4) —
 * and folds the hints of the ended tasks it read (foldDone).
 */
export async function loadTaskSources(stateDir: string, opts: IndexOptions = {}): Promise<{sources: TaskSource[]; hinted: ReadonlySet<number>}> {
  const ids = taskIdsKept(stateDir)
  const plan = planTaskReads(stateDir, ids, opts.columns ?? ['record'], opts.render?.version)
  const release = buildWanted(plan) ? await tryIndexLock(stateDir) : null
  const done: number[] = []
  let result: {sources: TaskSource[]; hinted: ReadonlySet<number>}
  try {
    const sources: TaskSource[] = []
    const fresh: StampedRecord[] = []
    for (const id of ids) {
      const entry = plan.entryFor(id)
      if (entry) {
        sources.push(entry)
        continue
      }
      // A builder stamps what it may index before reading it.
      const stamp = release && !plan.hinted.has(id) ? recordStamp(stateDir, id) : null
      // Not dirChecked: the names came without file types, so readRecord refuses a symlinked folder itself.
      const read = readRecord(stateDir, id)
      // Not a real folder (pruned meanwhile, a link, a stray file), or one `start` is filling or left empty: not a task.
      if ((!read.ok && !isRealTaskDir(stateDir, id)) || notATask(stateDir, read)) continue
      // Ended and without a hint: its record changes only through a write, which marks it first (rule 1).
      if (stamp && read.ok && isFinalStatus(read.record.status)) fresh.push({record: read.record, stamp})
      if (read.ok && plan.hinted.has(id) && !meantToRun(read.record)) done.push(id)
      sources.push(read)
    }
    // Nothing to add (the unindexed were live, corrupt or not tasks yet) and nothing to repair: the index stays as it is.
    if (release && (fresh.length > 0 || repairWanted(plan))) {
      try {
        updateIndex(stateDir, {ids, fresh, render: opts.render})
      } catch {
        // a full or read-only disk: the index is a cache, the records were read
      }
    }
    result = {sources, hinted: plan.hinted}
  } finally {
    release?.()
  }
  await foldDone(stateDir, done, opts.render)
  return result
}

/** The entry's record, or — should it not decode — the task's record read from disk. */
function entryRead(stateDir: string, entry: IndexEntry): RecordRead {
  const record = decodeEntry(entry)
  return record ? {ok: true, id: entry.id, record} : readRecord(stateDir, entry.id)
}

/**
 * Every task's record read, ascending by id, as readAllRecords finds them but
 * with the index's entry standing in for an ended task's record where it
 * may (planTaskReads): what prune plans from, 10,000 files fewer to open. It
 * writes nothing, not even the index a full read would leave behind, so a
 * dry run can take it; nor does it reconcile or settle hooks: the caller
 * judges live records. An entry that does not decode is read from its record.
 */
export function readEveryRecord(stateDir: string): RecordRead[] {
  const ids = listTaskIds(stateDir)
  const plan = planTaskReads(stateDir, Float64Array.from(ids))
  const reads: RecordRead[] = []
  for (const id of ids) {
    const entry = plan.entryFor(id)
    const read = entry ? entryRead(stateDir, entry) : readRecord(stateDir, id, {dirChecked: true})
    if (readFoundTask(stateDir, read)) reads.push(read)
  }
  return reads
}

/** A source as a record read, reconciled when live (an indexed task never is), exit hooks settled. */
async function settled(stateDir: string, source: TaskSource, hinted: ReadonlySet<number>): Promise<RecordRead> {
  if (isEntry(source)) return entryRead(stateDir, source)
  if (source.ok && !isFinalStatus(source.record.status)) source.record = await reconcile(stateDir, source.record)
  settleHooks(stateDir, source, hinted)
  return source
}

/** All tasks, ascending by id; corrupt ones included as such. */
export async function loadTasks(stateDir: string, opts: IndexOptions = {}): Promise<RecordRead[]> {
  const {sources, hinted} = await loadTaskSources(stateDir, opts)
  const reads: RecordRead[] = new Array(sources.length)
  for (let k = 0; k < sources.length; k++) reads[k] = await settled(stateDir, sources[k], hinted)
  return reads
}

/**
 * Every task as the index's entry where that holds a view of the renderer's
 * version (its bytes are the task's `list --json` object) — or with `rows`,
 * the cells of its table row instead — else as a record read to render: what
 * `list --json`, `list -q` and `list --all` print without parsing 100,000
 * records.
 */
export async function loadTaskViews(stateDir: string, render: IndexRenderer, rows = false): Promise<(IndexEntry | RecordRead)[]> {
  const column = rows ? 'row' : 'view'
  const {sources, hinted} = await loadTaskSources(stateDir, {render, columns: [column]})
  for (let k = 0; k < sources.length; k++) {
    const source = sources[k]
    if (!isEntry(source) || renderedText(source, column, render.version) === null) sources[k] = await settled(stateDir, source, hinted)
  }
  return sources
}

export {isEntry}

/**
 * The ids of every task, ascending — what `list -q` prints with no filter —
 * reading only the records of the ids no segment holds and of the hinted
 * ones: an id needs nothing an entry says, so no entry's stamp is checked
 * (the stat of every task.json that makes up most of a full read's cost at
 * 100,000 tasks). Whatever an indexed task's task.json holds now, changed or
 * damaged, it is a task: a full read lists it (as corrupt if need be) too.
 * With no index to use, or one a builder should add many records to, it is
 * the full read.
 */
export async function loadTaskIds(stateDir: string, render: IndexRenderer): Promise<number[]> {
  const ids = taskIdsKept(stateDir)
  const hints = liveHints(stateDir)
  const unindexed = hints === null ? null : unindexedIds(stateDir, ids)
  const hinted = new Set(hints)
  if (unindexed === null || unindexed.filter((id) => !hinted.has(id)).length >= BUILD_MIN) return (await loadTaskViews(stateDir, render)).map((source) => source.id)
  const toRead = new Set(unindexed)
  for (const id of hinted) if (listed(ids, id)) toRead.add(id)
  const out: number[] = []
  const done: number[] = []
  for (const id of ids) {
    if (!toRead.has(id)) {
      out.push(id)
      continue
    }
    const read = await readShown(stateDir, id, hinted)
    if (!read) continue
    if (read.ok && hinted.has(id) && !meantToRun(read.record)) done.push(id)
    out.push(id)
  }
  await foldDone(stateDir, done, render)
  return out
}

/** How many ended tasks the table a person types shows beside the live ones. */
export const DEFAULT_LAST = 20

/** The ids in tasks/ when the caller has them listed already (index-listing.ts). */
export interface ListingOptions {
  ids?: Float64Array
}

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
export async function loadRecentTasks(stateDir: string, last: number, opts: IndexOptions & ListingOptions = {}): Promise<RecentTasks> {
  const ids = opts.ids ?? taskIdsKept(stateDir)
  const hints = liveHints(stateDir)
  const hinted = new Set(hints ?? [])
  const shown: RecordRead[] = []
  const doneIds = new Set<number>()
  let skipped = 0
  // Reads and reconciles one task; shows it unless `liveOnly` and it is done with.
  const take = async (id: number, liveOnly = false): Promise<RecordRead | null> => {
    const read = await readShown(stateDir, id, hinted)
    if (!read) {
      skipped++
      return null
    }
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
  // Hints of tasks now ended or gone are folded into the index (rule 3:
  // under its lock and the task's, best effort), so the index stays about as
  // small as what runs.
  await foldDone(
    stateDir,
    (hints ?? []).filter((id) => doneIds.has(id) || !listed(ids, id)),
    opts.render,
  )
  shown.sort((a, b) => a.id - b.id)
  return {reads: shown, hidden: ids.length - skipped - shown.length}
}

/**
 * The `limit` newest tasks by id, oldest first, and how many tasks there are
 * (folders not looked at count as tasks, as `list`'s hidden ones do): one page
 * of every task (MCP's list_tasks) reading only the records it shows.
 */
export async function loadNewestTasks(stateDir: string, limit: number, opts: ListingOptions = {}): Promise<{reads: RecordRead[]; total: number}> {
  const ids = opts.ids ?? taskIdsKept(stateDir)
  const hinted = new Set(liveHints(stateDir) ?? [])
  const reads: RecordRead[] = []
  let skipped = 0
  for (let k = ids.length - 1; k >= 0 && reads.length < limit; k--) {
    const read = await readShown(stateDir, ids[k], hinted)
    if (read) reads.push(read)
    else skipped++
  }
  return {reads: reads.reverse(), total: ids.length - skipped}
}

/** One task's record as a view shows it (reconciled when live, exit hooks settled), or null for a folder that is no task. */
async function readShown(stateDir: string, id: number, hinted: ReadonlySet<number>): Promise<RecordRead | null> {
  // Not dirChecked: the names came without file types, so readRecord refuses a symlinked folder itself.
  const read = readRecord(stateDir, id)
  // Not a real folder (pruned meanwhile, a link, a stray file), or one `start` is filling or left empty: not a task.
  if ((!read.ok && !isRealTaskDir(stateDir, id)) || notATask(stateDir, read)) return null
  if (read.ok && !isFinalStatus(read.record.status)) read.record = await reconcile(stateDir, read.record)
  settleHooks(stateDir, read, hinted)
  return read
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

/** One task by id or name, reconciled (its check too, when its process was killed). Throws not-found (exit 3) or usage (exit 2). */
export async function loadTask(stateDir: string, ref: string): Promise<RecordRead> {
  const read = findTask(stateDir, ref)
  if (read.ok && !isFinalStatus(read.record.status)) read.record = await reconcile(stateDir, read.record)
  if (read.ok && read.record.check?.result?.status === 'running') {
    const {settleAbandonedCheck} = await import('../runner/check.js')
    read.record = await settleAbandonedCheck(stateDir, read.record)
  }
  return read
}
