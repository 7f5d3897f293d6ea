// The ended-task summary: immutable segments in summary/ holding the records
// of tasks that are done with, so the reads that cover every task (list
// --json, -q, --all, name lookup) need not read 100,000 task.json files. A
// cache, never the source of truth, and it cannot lie:
//
// 1. Every record write touches the task's live hint first (store.ts).
// 2. A reader takes an entry only for an id in tasks/ without a hint; a
//    hinted id, one without an entry, or one whose entry does not decode is
//    read from its record. Any segment failing the cheap checks
//    (summary-codec.ts), or one from the future (a high water above the ids
//    handed out), and the whole summary is put aside: every record is read.
// 3. A hint is removed only by a fold: under the summary lock and the task
//    lock, the record re-read, done with (ended, not lost while meant to
//    run, no live runner), written into a new segment (fsynced, renamed,
//    the folder fsynced) — then the hint unlinked, then the locks released.
//    Every other writer of the record holds the task lock; the runner is dead.
// 4. A builder (a full reader that read many unsummarised records) holds the
//    summary lock from before it reads them until its segment is renamed in,
//    and never removes a hint: a record rewritten meanwhile got a hint first.
// 5. A newer seq wins for an id; a compaction writes every current entry
//    under a fresh seq, then removes the older segments. A crash anywhere
//    leaves whole segments (rename is atomic) and hints that outlive their
//    fold: the worst it costs is reading records again.
//
// 6. Every entry names the stamp its task.json had when its record was read
//    to be summarised (identity, size, change time); a reader uses it only
//    while the file has that stamp — a stat per entry — so a record changed
//    or damaged by hand since is read as it is now.
//
// Wall-clock times are never used here.

import {closeSync, constants as fsc, fsyncSync, mkdirSync, openSync, readdirSync, readFileSync, statSync, unlinkSync} from 'node:fs'
import path from 'node:path'
import {acquireLock, stateLockPath, taskLockPath, type Release} from './lock.js'
import {DIR_MODE, listed, liveDir, NOFOLLOW, summaryDir, tasksDir} from './layout.js'
import {retryOnBusySync} from '../platform/platform.js'
import {liveHints, meantToRun} from './live-index.js'
import type {TaskRecord} from './record.js'
import {isRealTaskDir, readHighWater, readRecord, writeFileAtomic} from './store.js'
import {encodeEntry, encodeSegment, entryLine, parseSegment, stampOf, type RecordStamp, type SummaryEntry} from './summary-codec.js'

export {decodeEntry, entryView, hasView, recordMayHold, type RecordStamp, type SummaryEntry} from './summary-codec.js'

const recordFile = (stateDir: string, id: number) => `${tasksDir(stateDir)}${path.sep}${id}${path.sep}task.json`

/** A task.json's stamp now (rule 6), or null when it cannot be stat'ed. Taken before the record is read, so a change after it shows. */
export function recordStamp(stateDir: string, id: number): RecordStamp | null {
  try {
    const stats = statSync(recordFile(stateDir, id), {throwIfNoEntry: false})
    return stats ? stampOf(stats) : null
  } catch {
    return null
  }
}

/**
 * Whether the entry's record is its task.json as it is now: the file has the
 * stamp the entry names. One stat: the price of a summary that cannot hide a
 * record changed by hand.
 */
export function stampHolds(stateDir: string, entry: SummaryEntry): boolean {
  const {stamps, stampAt: at} = entry
  if (stamps === null || at < 0) return false
  const now = recordStamp(stateDir, entry.id)
  return now !== null && now[0] === stamps[at] && now[1] === stamps[at + 1] && now[2] === stamps[at + 2]
}

/** A record read to be summarised, with the stamp its file had before the read. */
export interface StampedRecord {
  record: TaskRecord
  stamp: RecordStamp
}

/** How the API renders a record's `list --json` view (null: not a pure function of the record), and that shape's version. */
export interface ViewRenderer {
  version: number
  render(record: TaskRecord): string | null
}

const SEGMENT = /^seg-(\d{12})\.ndjson$/
export const segmentName = (seq: number) => `seg-${String(seq).padStart(12, '0')}.ndjson`
/** More segments than this (or more superseded entries than current ones) and a full reader compacts. */
export const COMPACT_ABOVE = 16
/** A full reader that had to read at least this many unsummarised, unhinted records writes them into a segment. */
export const BUILD_MIN = 32
/** One fold writes at most this many entries (and holds as many task locks). */
const FOLD_BATCH = 512

export const summaryLockPath = (stateDir: string) => stateLockPath(stateDir, 'summary')

/** The segments' seqs, ascending, and the temp files dead writers left (dot names). */
export function listSegments(stateDir: string): {seqs: number[]; temps: string[]} {
  let names: string[]
  try {
    names = readdirSync(summaryDir(stateDir))
  } catch {
    return {seqs: [], temps: []}
  }
  const seqs: number[] = []
  const temps: string[] = []
  for (const name of names) {
    const m = SEGMENT.exec(name)
    if (m) seqs.push(Number(m[1]))
    else if (name.startsWith('.seg-')) temps.push(name)
  }
  return {seqs: seqs.sort((a, b) => a - b), temps}
}

/**
 * The newest entry per id, in an array indexed by id: ids are dense, and at
 * 100,000 entries a Map keyed by the ids of a Float64Array cost more than
 * reading the segment.
 */
export class EntryTable {
  private readonly byId: (SummaryEntry | undefined)[] = []
  private readonly ids: number[] = []
  get size(): number {
    return this.ids.length
  }
  get(id: number): SummaryEntry | undefined {
    return this.byId[id]
  }
  has(id: number): boolean {
    return this.byId[id] !== undefined
  }
  set(id: number, entry: SummaryEntry): void {
    if (this.byId[id] === undefined) this.ids.push(id)
    this.byId[id] = entry
  }
  /** Ascending by id. */
  *[Symbol.iterator](): IterableIterator<[number, SummaryEntry]> {
    for (const id of this.ids.sort((a, b) => a - b)) yield [id, this.byId[id]!]
  }
  *keys(): IterableIterator<number> {
    for (const [id] of this) yield id
  }
  *values(): IterableIterator<SummaryEntry> {
    for (const [, entry] of this) yield entry
  }
}

export interface LoadedSummary {
  /** false: some segment failed a check; `error` says which and why, and no entry is to be used. */
  ok: boolean
  error: string | null
  seqs: number[]
  /** the newest entry per id. */
  entries: EntryTable
  /** entry lines in all segments (more than entries.size: some are superseded). */
  lines: number
}

/** The ids handed out: last-id's mark, or the highest task folder when that is higher (a state dir from before the mark). */
export function currentHighWater(stateDir: string, ids: ArrayLike<number>): number {
  return Math.max(readHighWater(stateDir), ids.length > 0 ? ids[ids.length - 1] : 0)
}

/** A segment's bytes: never decoded whole — entries are cut out of them (summary-codec.ts). */
export function readSegmentBytes(file: string): Buffer {
  return retryOnBusySync(() => readFileSync(file, {flag: (fsc.O_RDONLY | NOFOLLOW) as unknown as string}))
}

/**
 * Every segment, checked. A segment removed while this read (a compaction
 * finished meanwhile) sends it round again: its entries are in a newer one.
 */
export function loadSummary(stateDir: string, highWater: number): LoadedSummary {
  for (let attempt = 0; ; attempt++) {
    const {seqs} = listSegments(stateDir)
    const loaded: LoadedSummary = {ok: true, error: null, seqs, entries: new EntryTable(), lines: 0}
    let vanished = false
    for (const seq of seqs) {
      let bytes: Buffer
      try {
        bytes = readSegmentBytes(path.join(summaryDir(stateDir), segmentName(seq)))
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
          vanished = true
          break
        }
        return {...loaded, ok: false, error: `${segmentName(seq)} cannot be read: ${(error as Error).message}`}
      }
      const parsed = parseSegment(bytes, seq)
      if (!parsed.ok) return {...loaded, ok: false, error: `${segmentName(seq)}: ${parsed.error}`}
      if (parsed.header.highWater > highWater) {
        return {...loaded, ok: false, error: `${segmentName(seq)} is from the future: high water ${parsed.header.highWater}, ids handed out ${highWater}`}
      }
      for (const entry of parsed.entries) loaded.entries.set(entry.id, entry)
      loaded.lines += parsed.entries.length
    }
    if (!vanished) return loaded
    if (attempt >= 3) return {...loaded, ok: false, error: 'its segments kept changing while read'}
  }
}

/**
 * Whether a full reader holding the lock should merge the segments: many of
 * them, or more lines superseded or of tasks since removed (prune) than
 * lines in use (`used`: entries of ids in tasks/).
 */
export const compactionDue = (summary: LoadedSummary, used: number) => summary.seqs.length > COMPACT_ABOVE || summary.lines - used > used

function fsyncDir(dir: string): void {
  // Windows cannot open a folder for fsync; there the rename is what it is.
  if (process.platform === 'win32') return
  const fd = openSync(dir, 'r')
  try {
    fsyncSync(fd)
  } finally {
    closeSync(fd)
  }
}

/**
 * Writes one segment: temp file (dot name) + fsync + rename + fsync of the
 * folder, so once this returns the segment outlives a power loss — a fold
 * removes hints only after that. The caller holds the summary lock.
 */
export function writeSegment(stateDir: string, seq: number, highWater: number, lines: Buffer[], views: number | undefined): void {
  const dir = summaryDir(stateDir)
  mkdirSync(dir, {recursive: true, mode: DIR_MODE})
  const header = {summary: 1, seq, highWater, count: lines.length, ...(views === undefined ? {} : {views})}
  // writeFileAtomic names its temp `.<name>.<unique>.tmp`: a dot name, never taken for a segment.
  writeFileAtomic(path.join(dir, segmentName(seq)), encodeSegment(header, lines))
  fsyncDir(dir)
}

/** Removes the segments below `seq` and dead writers' temp files; the caller holds the summary lock and has written `seq`. */
function removeOlder(stateDir: string, seq: number): void {
  const {seqs, temps} = listSegments(stateDir)
  const dir = summaryDir(stateDir)
  for (const name of [...seqs.filter((s) => s < seq).map(segmentName), ...temps]) {
    try {
      unlinkSync(path.join(dir, name))
    } catch {
      // gone already
    }
  }
}

const nextSeq = (stateDir: string) => (listSegments(stateDir).seqs.at(-1) ?? 0) + 1

function newLine({record, stamp}: StampedRecord, views: ViewRenderer | undefined): Buffer {
  return encodeEntry({record, stamp, view: views?.render(record)})
}

/** The summary lock if it is free now, else null: a busy summary is skipped, never waited for. */
export async function trySummaryLock(stateDir: string): Promise<Release | null> {
  try {
    return await acquireLock(summaryLockPath(stateDir), {waitMs: 0})
  } catch {
    return null
  }
}

export interface FoldOptions {
  runnerAlive: (record: TaskRecord) => boolean
  /** what still waits on an ended record being read (its exit hooks, not yet claimed): its hint stays. */
  pending?: (record: TaskRecord) => boolean
  views?: ViewRenderer
}

/**
 * Rule 3: folds the hints of `ids` whose tasks are done with into a segment,
 * then removes those hints; the hint of a task whose folder is gone is just
 * removed. Best effort — a busy lock, a read-only state dir, a full disk:
 * the hints stay, and the next reader tries. Returns the ids whose hints went.
 */
export async function foldHints(
  stateDir: string,
  ids: number[],
  opts: FoldOptions,
): Promise<number[]> {
  if (ids.length === 0) return []
  const releaseSummary = await trySummaryLock(stateDir)
  if (!releaseSummary) return []
  const folded: number[] = []
  try {
    for (let k = 0; k < ids.length; k += FOLD_BATCH) folded.push(...(await foldBatch(stateDir, ids.slice(k, k + FOLD_BATCH), opts)))
  } catch {
    // a failing disk: what was folded stays folded, the rest keeps its hints
  } finally {
    releaseSummary()
  }
  return folded
}

async function foldBatch(stateDir: string, ids: number[], opts: FoldOptions): Promise<number[]> {
  const held: Release[] = []
  const records: StampedRecord[] = []
  const drop: number[] = []
  try {
    for (const id of ids) {
      let release: Release
      try {
        release = await acquireLock(taskLockPath(stateDir, id), {waitMs: 0})
      } catch {
        continue // busy: someone is writing it; its hint stays
      }
      const stamp = recordStamp(stateDir, id)
      const read = readRecord(stateDir, id)
      // Ids are never reused: a task folder gone is gone for good.
      const gone = !read.ok && read.missing && !isRealTaskDir(stateDir, id)
      const done = read.ok && stamp !== null && !meantToRun(read.record) && !opts.runnerAlive(read.record) && !(opts.pending?.(read.record) ?? false)
      if (!gone && !done) {
        release()
        continue
      }
      held.push(release)
      drop.push(id)
      if (read.ok && stamp) records.push({record: read.record, stamp})
    }
    if (records.length > 0) {
      const high = Math.max(readHighWater(stateDir), ...records.map((r) => r.record.id))
      writeSegment(stateDir, nextSeq(stateDir), high, records.map((r) => newLine(r, opts.views)), opts.views?.version)
    }
    const removed: number[] = []
    for (const id of drop) {
      try {
        unlinkSync(path.join(liveDir(stateDir), String(id)))
        removed.push(id)
      } catch {
        // gone already, or read-only
      }
    }
    return removed
  } finally {
    for (const release of held) release()
  }
}

export interface SummaryUpdate {
  /** the task ids listed, ascending: entries of other ids are dropped by a compaction. */
  ids: ArrayLike<number>
  /** ended records read while the lock was held (their stamps taken before), of ids without a hint when listed. */
  fresh: StampedRecord[]
  views?: ViewRenderer
}

/**
 * Rules 4 and 5, for a full reader holding the summary lock (taken before
 * it read `fresh`): adds the fresh records as a segment; merges every
 * segment into one when they are many or mostly superseded; and rebuilds a
 * summary that fails its checks — the fresh records under a seq above every
 * seq seen, then the old segments removed. Errors (a full disk) are the
 * caller's to ignore: the summary is a cache.
 */
export function updateSummary(stateDir: string, update: SummaryUpdate): void {
  const high = currentHighWater(stateDir, update.ids)
  const current = loadSummary(stateDir, high)
  const seq = (current.seqs.at(-1) ?? 0) + 1
  if (!current.ok) {
    writeSegment(stateDir, seq, high, update.fresh.map((r) => newLine(r, update.views)), update.views?.version)
    removeOlder(stateDir, seq)
    return
  }
  // Every fresh record had no entry whose stamp held: none, or one of a record changed since (rule 6), which this one supersedes.
  const {fresh} = update
  let used = 0
  for (const id of update.ids as Float64Array) if (current.entries.has(id)) used++
  if (!compactionDue(current, used) && listSegments(stateDir).temps.length === 0) {
    if (fresh.length > 0) writeSegment(stateDir, seq, high, fresh.map((r) => newLine(r, update.views)), update.views?.version)
    return
  }
  // One version of views in the merged segment: the renderer's, else the newest there is.
  let views = update.views?.version
  for (const entry of current.entries.values()) if (views === undefined || (entry.views !== undefined && entry.views > views)) views = entry.views
  const lines = new Map<number, Buffer>()
  for (const [id, entry] of current.entries) {
    if (!listed(update.ids as Float64Array, id)) continue // pruned: ids are never reused
    lines.set(id, entryLine(entry, entry.views === views))
  }
  for (const record of fresh) lines.set(record.record.id, newLine(record, update.views))
  const merged = [...lines.entries()].sort((a, b) => a[0] - b[0]).map(([, line]) => line)
  writeSegment(stateDir, seq, high, merged, views)
  removeOlder(stateDir, seq)
}

/**
 * How a full reader goes through every task: the ids in tasks/, the hints,
 * and the summary's entry for each id it may use (rule 2). `null` hints: the
 * state dir has no live index, so no entry is used.
 */
export interface TaskPlan {
  ids: Float64Array
  hinted: Set<number>
  summary: LoadedSummary
  /** the entry to use for an id (no hint, and its stamp holds: a stat), or undefined: read its record. */
  entryFor(id: number): SummaryEntry | undefined
  /** unhinted ids without an entry: what a builder would add. */
  unsummarised: number
  /** ids in tasks/ with an entry. */
  used: number
  /** the state dir has a live index: without one no summary is used or built (its first record write makes one). */
  indexed: boolean
}

/** The plan of a full read; `load` is how the summary is read: whole, or only its views (view-index.ts). */
export function planTaskReads(stateDir: string, ids: Float64Array, load: (stateDir: string, highWater: number) => LoadedSummary = loadSummary): TaskPlan {
  const hints = liveHints(stateDir)
  const hinted = new Set(hints ?? [])
  const summary: LoadedSummary =
    hints === null
      ? {ok: false, error: 'no live index', seqs: listSegments(stateDir).seqs, entries: new EntryTable(), lines: 0}
      : load(stateDir, currentHighWater(stateDir, ids))
  const entries = summary.ok ? summary.entries : new EntryTable()
  let unsummarised = 0
  let used = 0
  for (const id of ids) {
    if (entries.has(id)) used++
    else if (!hinted.has(id)) unsummarised++
  }
  const entryFor = (id: number) => {
    if (hinted.has(id)) return undefined
    const entry = entries.get(id)
    return entry && stampHolds(stateDir, entry) ? entry : undefined
  }
  return {ids, hinted, summary, entryFor, unsummarised, used, indexed: hints !== null}
}

/** Whether the summary wants more than new entries: a rebuild (a segment failed its checks) or a compaction. */
export const repairWanted = (plan: TaskPlan) => plan.indexed && ((!plan.summary.ok && plan.summary.seqs.length > 0) || (plan.summary.ok && compactionDue(plan.summary, plan.used)))

/**
 * Whether a full reader that read `plan` should take the summary lock before
 * reading the records it must. Not in a state dir without a live index (one
 * made later would have to hint every summarised task, see live-hint.ts).
 */
export const buildWanted = (plan: TaskPlan) => (plan.indexed && plan.unsummarised >= BUILD_MIN) || repairWanted(plan)
