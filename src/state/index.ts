// The derived index's segments (index/seg-<seq>, in the format of
// index-format.ts): the tasks that are done with, each with its record, its
// `list --json` view, its table row and its name, so the reads that cover
// every task (list --json, -q, --all, a name lookup) need not read 100,000
// task.json files — and each takes only the column it needs. A cache, never
// the source of truth, and it cannot lie:
//
// 1. Every record write touches the task's live hint first (store.ts).
// 2. A reader takes an entry only for an id in tasks/ without a hint, and
//    only while its task.json has the stamp the entry names (identity, size,
//    change time: a stat), so a record changed or damaged by hand since is
//    read as it is now. A segment failing its checks (index-format.ts) and
//    the reader that finds it removes every segment (a reader of other
//    columns would not see the damage): every record is read until a
//    builder indexes them again. One from the future (a high water above the
//    ids handed out) and no segment is used, nor removed: the next builder
//    rebuilds the index.
// 3. A hint is removed only by a fold: under the index lock and the task
//    lock, the record re-read, done with (ended, not lost while meant to
//    run, no live runner), written into a new segment (fsynced, renamed,
//    the folder fsynced) — then the hint unlinked, then the locks released.
// 4. A builder (a full reader that read many unindexed records) holds the
//    index lock from before it reads them until its segment is renamed in,
//    and never removes a hint: a record rewritten meanwhile got a hint first.
// 5. A newer seq wins for an id; a compaction writes every current entry
//    under a fresh seq, then removes the older segments. A crash anywhere
//    leaves whole segments (rename is atomic) and hints that outlive their
//    fold: the worst it costs is reading records again.
// 6. The view and row columns are the renderer's (the API's) of one version,
//    named in the header; a reader of another version renders from the
//    record column, and the next compaction makes them anew.
//
// Wall-clock times are never used here.

import {closeSync, fsyncSync, mkdirSync, openSync, readdirSync, statSync, unlinkSync} from 'node:fs'
import path from 'node:path'
import {checkRecord} from './record-codec.js'
import {acquireLock, stateLockPath, taskLockPath, type Release} from './lock.js'
import {DIR_MODE, indexDir, liveDir, listed, lowerBound, tasksDir} from './layout.js'
import {liveHints, meantToRun} from './live-index.js'
import type {TaskRecord} from './record.js'
import {isRealTaskDir, readHighWater, readRecord, writeFileAtomic} from './store.js'
import {unlinkQuietly} from './fs-clock.js'
import {COLUMNS, packIndexFile, readIndexFile, STAMP_FIELDS, stampOf, textStart, type Column, type ColumnData, type IndexFile, type RecordStamp} from './index-format.js'

export {stampOf, type Column, type RecordStamp} from './index-format.js'

/** How the API renders what the view and row columns hold; `version` names both. */
export interface IndexRenderer {
  version: string
  /** a record's `list --json` view as compact JSON text; null: not a pure function of the record. */
  view(record: TaskRecord): string | null
  /** the cells of a table row, from the view; null when they cannot be made so. */
  row(view: Buffer): string[] | null
}

/** A segment as read: the columns asked for, the stamps, its renderer's version. */
export interface Segment {
  seq: number
  ids: Float64Array
  render: string | undefined
  stamps: Float64Array | null
  columns: Partial<Record<Column, ColumnData>>
}

/** One task's entry: text `k` of each column of its segment. */
export interface IndexEntry {
  id: number
  segment: Segment
  k: number
}

/** Where the entry's text of `column` starts in that column's bytes; -1 when the column was not read or the text is empty. */
export function textAt(entry: IndexEntry, column: Column): number {
  const data = entry.segment.columns[column]
  if (!data) return -1
  const start = textStart(data, entry.k)
  return data.ends[entry.k] > start ? start : -1
}

/** The entry's text of `column` (a view of the bytes), or null. */
export function textOf(entry: IndexEntry, column: Column): Buffer | null {
  const start = textAt(entry, column)
  return start < 0 ? null : entry.segment.columns[column]!.bytes.subarray(start, entry.segment.columns[column]!.ends[entry.k])
}

/** The entry's view or row text when the segment's renderer is `version`'s; null else. */
export const renderedText = (entry: IndexEntry, column: 'view' | 'row', version: string) => (entry.segment.render === version ? textOf(entry, column) : null)

/** The entry's record, validated as a task.json is; null when it was not read or does not decode (read the record then). */
export function decodeEntry(entry: IndexEntry): TaskRecord | null {
  const text = textOf(entry, 'record')
  if (!text) return null
  try {
    const record = checkRecord(JSON.parse(text.toString('utf8')))
    return record.id === entry.id ? record : null
  } catch {
    return null
  }
}

const recordFile = (stateDir: string, id: number) => `${tasksDir(stateDir)}${path.sep}${id}${path.sep}task.json`

/** A task.json's stamp now, or null when it cannot be stat'ed. Taken before the record is read, so a change after it shows. */
export function recordStamp(stateDir: string, id: number): RecordStamp | null {
  try {
    const stats = statSync(recordFile(stateDir, id), {throwIfNoEntry: false})
    return stats ? stampOf(stats) : null
  } catch {
    return null
  }
}

/** Rule 2: whether the entry's texts are of its task.json as it is now. One stat. */
export function stampHolds(stateDir: string, entry: IndexEntry): boolean {
  const {stamps} = entry.segment
  const at = entry.k * STAMP_FIELDS
  if (stamps === null || stamps[at + 2] === 0) return false
  const now = recordStamp(stateDir, entry.id)
  return now !== null && now[0] === stamps[at] && now[1] === stamps[at + 1] && now[2] === stamps[at + 2]
}

const SEGMENT = /^seg-(\d{12})$/
export const segmentName = (seq: number) => `seg-${String(seq).padStart(12, '0')}`
/** More segments than this (or more superseded entries than current ones) and a full reader compacts. */
export const COMPACT_ABOVE = 16
/** A full reader that had to read at least this many unindexed, unhinted records writes them into a segment. */
export const BUILD_MIN = 32
/** One fold writes at most this many entries (and holds as many task locks). */
const FOLD_BATCH = 512

export const indexLockPath = (stateDir: string) => stateLockPath(stateDir, 'index')

/** The segments' seqs, ascending, and the temp files dead writers left (dot names). */
export function listSegments(stateDir: string): {seqs: number[]; temps: string[]} {
  let names: string[]
  try {
    names = readdirSync(indexDir(stateDir))
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
 * The newest entry per id, as two typed arrays indexed by id (ids are dense):
 * an object per entry made only when asked for. A Map of 100,000 cost more than
 * reading the segment, and an object per entry cost a name lookup at 100,000
 * tasks more than its read (half its 370 ms, in the collector).
 */
export class EntryTable {
  private readonly segments: Segment[] = []
  /** per segment (as in `segments`): how many newest entries it holds. */
  private readonly held: number[] = []
  /** per id: 1 + the index of its segment in `segments`, 0 for none. */
  private slot: Int32Array
  private pos: Int32Array
  size = 0
  constructor(highWater = 0) {
    this.slot = new Int32Array(highWater + 1)
    this.pos = new Int32Array(highWater + 1)
  }
  private slotOf(segment: Segment): number {
    const last = this.segments.length
    if (last > 0 && this.segments[last - 1] === segment) return last
    const at = this.segments.indexOf(segment)
    if (at >= 0) return at + 1
    this.segments.push(segment)
    this.held.push(0)
    return last + 1
  }
  /** The segment holding `id`'s newest entry, without making the entry. */
  segmentOf(id: number): Segment | undefined {
    const slot = id < this.slot.length ? this.slot[id] : 0
    return slot === 0 ? undefined : this.segments[slot - 1]
  }
  get(id: number): IndexEntry | undefined {
    const segment = this.segmentOf(id)
    return segment === undefined ? undefined : {id, segment, k: this.pos[id]}
  }
  has(id: number): boolean {
    return id < this.slot.length && this.slot[id] !== 0
  }
  set(id: number, segment: Segment, k: number): void {
    if (id >= this.slot.length) this.grow(id)
    const before = this.slot[id]
    if (before === 0) this.size++
    else this.held[before - 1]--
    this.slot[id] = this.slotOf(segment)
    this.held[this.slot[id] - 1]++
    this.pos[id] = k
  }
  /** Those of `ids` no entry is held for, in their order: one loop in here (filter.call on a typed array reads each element through V8's generic, slow path). */
  unheld(ids: ArrayLike<number>): number[] {
    const {slot} = this
    const out: number[] = []
    for (let i = 0, n = ids.length; i < n; i++) {
      const id = ids[i]
      if (id >= slot.length || slot[id] === 0) out.push(id)
    }
    return out
  }
  /** set(ids[k], segment, k) for every k: one loop in here, as a segment's 100,000 entries are read once a process. */
  setAll(segment: Segment, ids: Float64Array): void {
    if (ids.length > 0 && ids[ids.length - 1] >= this.slot.length) this.grow(ids[ids.length - 1])
    const s = this.slotOf(segment)
    const {slot, pos, held} = this
    let added = 0
    for (let k = 0; k < ids.length; k++) {
      const id = ids[k]
      const before = slot[id]
      if (before === 0) added++
      else held[before - 1]--
      slot[id] = s
      pos[id] = k
    }
    held[s - 1] += ids.length
    this.size += added
  }
  private grow(id: number): void {
    const slot = new Int32Array(Math.max(id + 1, this.slot.length * 2))
    const pos = new Int32Array(slot.length)
    slot.set(this.slot)
    pos.set(this.pos)
    this.slot = slot
    this.pos = pos
  }
  /** Ascending by id. */
  *[Symbol.iterator](): IterableIterator<[number, IndexEntry]> {
    for (let id = 0; id < this.slot.length; id++) if (this.slot[id] !== 0) yield [id, this.get(id)!]
  }
  *values(): IterableIterator<IndexEntry> {
    for (const [, entry] of this) yield entry
  }
  /** The segments some newest entry is in. */
  usedSegments(): Set<Segment> {
    return new Set(this.segments.filter((_, at) => this.held[at] > 0))
  }
}

export interface LoadedIndex {
  /** false: some segment failed a check; `error` says which and why, and no entry is to be used. */
  ok: boolean
  error: string | null
  seqs: number[]
  /** every segment read, oldest first. */
  segments: Segment[]
  /** the newest entry per id (left empty for a reader that searches `segments` itself: loadIndex's `fill`). */
  entries: EntryTable
  /** entries in all segments (more than entries.size: some are superseded). */
  lines: number
  /** current entries whose segment's renderer is not the reader's (rule 6): a full reader makes them anew. */
  stale: number
}

/** The ids handed out: last-id's mark, or the highest task folder when that is higher (a state dir from before the mark). */
export function currentHighWater(stateDir: string, ids: ArrayLike<number>): number {
  return Math.max(readHighWater(stateDir), ids.length > 0 ? ids[ids.length - 1] : 0)
}

/**
 * Every segment, checked, with the columns a reader wants: where a segment's
 * renderer is not `render`'s version (stale: rule 6), its record column
 * stands in for the view and row columns asked. A segment removed while this read (a
 * compaction finished meanwhile) sends it round again.
 */
export function loadIndex(stateDir: string, highWater: number, wanted: readonly Column[], render?: string, stamps = true, fill = true): LoadedIndex {
  for (let attempt = 0; ; attempt++) {
    const {seqs} = listSegments(stateDir)
    const loaded: LoadedIndex = {ok: true, error: null, seqs, segments: [], entries: new EntryTable(fill ? highWater : 0), lines: 0, stale: 0}
    let vanished = false
    for (const seq of seqs) {
      const read = readIndexFile(
        path.join(indexDir(stateDir), segmentName(seq)),
        (header) => (header.render !== render && wanted.some((c) => c === 'view' || c === 'row') ? [...wanted.filter((c) => c !== 'view' && c !== 'row'), 'record'] : wanted),
        stamps,
      )
      if (read === 'vanished') {
        vanished = true
        break
      }
      const damage = typeof read === 'string' ? read : segmentDamage(read, seq)
      if (typeof read === 'string' || damage !== null) {
        // No segment is written twice, so a damaged one stays damaged, and a reader of
        // other columns would not see it: its finder puts the whole index away for good.
        for (const other of listSegments(stateDir).seqs) unlinkQuietly(path.join(indexDir(stateDir), segmentName(other)))
        return {...loaded, ok: false, error: `${segmentName(seq)}: ${damage}`}
      }
      const {header, ids} = read
      if (header.highWater > highWater) return {...loaded, ok: false, error: `${segmentName(seq)} is from the future: high water ${header.highWater}, ids handed out ${highWater}`}
      const segment: Segment = {seq, ids, render: typeof header.render === 'string' ? header.render : undefined, stamps: read.stamps, columns: read.columns}
      const stale = render !== undefined && segment.render !== render
      loaded.segments.push(segment)
      if (fill && !stale && loaded.stale === 0) loaded.entries.setAll(segment, ids)
      else if (fill) {
        for (let k = 0; k < ids.length; k++) {
          const before = loaded.entries.segmentOf(ids[k])
          if (before && before.render !== render) loaded.stale--
          loaded.entries.set(ids[k], segment, k)
          if (stale) loaded.stale++
        }
      }
      loaded.lines += ids.length
    }
    if (vanished && attempt < 3) continue
    if (vanished) return {...loaded, ok: false, error: 'its segments kept changing while read'}
    return loaded
  }
}

/** Why a segment read whole is not what its name says, or null. */
function segmentDamage({header, ids, columns}: IndexFile, seq: number): string | null {
  if (header.kind !== 'segment' || header.seq !== seq) return 'not the segment its name says'
  return columns.view && !viewsAreTheirs(columns.view, ids) ? 'a view is not its task’s' : null
}

/** Every view opens with `{"id":ID,` and closes with `}`: its own task's, and whole. */
function viewsAreTheirs(view: ColumnData, ids: Float64Array): boolean {
  const {bytes, ends} = view
  for (let k = 0; k < ids.length; k++) {
    const start = textStart(view, k)
    const end = ends[k]
    if (end === start) continue
    const prefix = `{"id":${ids[k]},`
    if (bytes[end - 1] !== 0x7d || end - start < prefix.length) return false
    for (let i = 0; i < prefix.length; i++) if (bytes[start + i] !== prefix.charCodeAt(i)) return false
  }
  return true
}

/** Whether a full reader holding the lock should merge the segments: many of them, or mostly superseded (or pruned). */
export const compactionDue = (index: LoadedIndex, used: number) => index.seqs.length > COMPACT_ABOVE || index.lines - used > used

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

/** A record to write into a segment, with the stamp its file had before it was read. */
export interface StampedRecord {
  record: TaskRecord
  stamp: RecordStamp | null
}

/** One task as a segment holds it: its stamp and its texts, in COLUMNS' order. */
interface SegmentItem {
  id: number
  stamp: ArrayLike<number> | null
  texts: (Buffer | string | null)[]
}

/** A record's item: its texts made now (no view or row without a renderer). */
function itemOf({record, stamp}: StampedRecord, render: IndexRenderer | undefined): SegmentItem {
  const view = render?.view(record) ?? null
  const cells = view ? render!.row(Buffer.from(view)) : null
  // a row whose cells hold a tab or a newline is not kept: the view gives it
  const row = cells && !cells.some((cell) => cell.includes('\t') || cell.includes('\n')) ? cells.join('\t') : null
  return {id: record.id, stamp, texts: [JSON.stringify(record), view, row, record.name]}
}

/** An entry's item: its texts as they are when its segment has the renderer's version, else made anew from its record; null when that does not decode. */
function itemOfEntry(entry: IndexEntry, render: IndexRenderer | undefined): SegmentItem | null {
  const {stamps} = entry.segment
  const at = entry.k * STAMP_FIELDS
  const stamp = stamps && stamps[at + 2] !== 0 ? stamps.subarray(at, at + STAMP_FIELDS) : null
  if (entry.segment.render === render?.version && entry.segment.columns.record) return {id: entry.id, stamp, texts: COLUMNS.map((c) => textOf(entry, c))}
  const record = decodeEntry(entry)
  return record ? itemOf({record, stamp: stamp as RecordStamp | null}, render) : null
}

/**
 * Writes one segment of `items` (one per id, any order): temp file + fsync +
 * rename + fsync of the folder, so once this returns it outlives a power
 * loss — a fold removes hints only after that. The caller holds the index
 * lock.
 */
function writeSegment(stateDir: string, seq: number, highWater: number, items: SegmentItem[], render: IndexRenderer | undefined): void {
  items.sort((a, b) => a.id - b.id)
  const dir = indexDir(stateDir)
  mkdirSync(dir, {recursive: true, mode: DIR_MODE})
  const stamps = new Float64Array(items.length * STAMP_FIELDS)
  items.forEach(({stamp}, k) => stamp && stamps.set(stamp, k * STAMP_FIELDS))
  const columns = Object.fromEntries(COLUMNS.map((c, n) => [c, items.map((item) => item.texts[n])]))
  const head = {kind: 'segment' as const, seq, highWater, ...(render ? {render: render.version} : {})}
  // writeFileAtomic names its temp `.<name>.<unique>.tmp`: a dot name, never taken for a segment.
  writeFileAtomic(path.join(dir, segmentName(seq)), packIndexFile(head, items.map((item) => item.id), stamps, columns))
  fsyncDir(dir)
}

/** Removes the segments below `seq` and dead writers' temp files; the caller holds the index lock and has written `seq`. */
function removeOlder(stateDir: string, seq: number): void {
  const {seqs, temps} = listSegments(stateDir)
  for (const name of [...seqs.filter((s) => s < seq).map(segmentName), ...temps]) {
    try {
      unlinkSync(path.join(indexDir(stateDir), name))
    } catch {
      // gone already
    }
  }
}

const nextSeq = (stateDir: string) => (listSegments(stateDir).seqs.at(-1) ?? 0) + 1

/** The index lock if it is free now, else null: a busy index is skipped, never waited for. */
export async function tryIndexLock(stateDir: string): Promise<Release | null> {
  try {
    return await acquireLock(indexLockPath(stateDir), {waitMs: 0})
  } catch {
    return null
  }
}

export interface FoldOptions {
  runnerAlive: (record: TaskRecord) => boolean
  /** what still waits on an ended record being read (its exit hooks, not yet claimed): its hint stays. */
  pending?: (record: TaskRecord) => boolean
  render?: IndexRenderer
}

/**
 * Rule 3: folds the hints of `ids` whose tasks are done with into a segment,
 * then removes those hints; the hint of a task whose folder is gone is just
 * removed. Best effort — a busy lock, a read-only state dir, a full disk:
 * the hints stay, and the next reader tries. Returns the ids whose hints went.
 */
export async function foldHints(stateDir: string, ids: number[], opts: FoldOptions): Promise<number[]> {
  if (ids.length === 0) return []
  const release = await tryIndexLock(stateDir)
  if (!release) return []
  const folded: number[] = []
  try {
    const sorted = [...ids].sort((a, b) => a - b)
    for (let k = 0; k < sorted.length; k += FOLD_BATCH) folded.push(...(await foldBatch(stateDir, sorted.slice(k, k + FOLD_BATCH), opts)))
  } catch {
    // a failing disk: what was folded stays folded, the rest keeps its hints
  } finally {
    release()
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
      writeSegment(stateDir, nextSeq(stateDir), high, records.map((r) => itemOf(r, opts.render)), opts.render)
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

export interface IndexUpdate {
  /** the task ids listed, ascending: entries of other ids are dropped by a compaction. */
  ids: Float64Array
  /** ended records read while the lock was held (their stamps taken before), of ids without a hint when listed. */
  fresh: StampedRecord[]
  render?: IndexRenderer
}

/**
 * Rules 4 to 6, for a full reader holding the index lock (taken before it
 * read `fresh`): adds the fresh records as a segment; merges every segment
 * into one when they are many or mostly superseded, copying the texts of
 * its renderer's version as they are; makes anew, alone, the segments of
 * another renderer; and rebuilds an index that fails its checks — the fresh
 * records under a seq above every seq seen, then the old segments removed.
 * Errors (a full disk) are the caller's to ignore: the index is a cache.
 */
export function updateIndex(stateDir: string, update: IndexUpdate): void {
  const {render} = update
  const high = currentHighWater(stateDir, update.ids)
  // The ids alone decide what to do; the texts are read only to merge or make anew.
  const current = loadIndex(stateDir, high, [], render?.version, false)
  let seq = (current.seqs.at(-1) ?? 0) + 1
  const fresh = update.fresh.map((r) => itemOf(r, render))
  const freshIds = new Set(fresh.map((f) => f.id))
  if (!current.ok) {
    writeSegment(stateDir, seq, high, fresh, render)
    removeOlder(stateDir, seq)
    return
  }
  let used = 0
  for (const id of update.ids) if (current.entries.has(id)) used++
  // Every current entry of a listed id (pruned ones go: ids are never reused), from `segments` or all.
  const kept = (segments?: Set<number>) => {
    const whole = loadIndex(stateDir, high, COLUMNS, render?.version)
    const items: SegmentItem[] = []
    for (const [id, entry] of whole.ok ? whole.entries : new EntryTable()) {
      if ((segments && !segments.has(entry.segment.seq)) || !listed(update.ids, id) || freshIds.has(id)) continue
      const item = itemOfEntry(entry, render)
      if (item) items.push(item)
    }
    return whole.ok ? items : null
  }
  if (compactionDue(current, used) || listSegments(stateDir).temps.length > 0) {
    const items = kept()
    if (items === null) return // changed meanwhile: the next reader sees to it
    writeSegment(stateDir, seq, high, [...items, ...fresh], render)
    removeOlder(stateDir, seq)
    return
  }
  if (fresh.length > 0) writeSegment(stateDir, seq++, high, fresh, render)
  if (!render || current.stale === 0) return
  // Rule 6: the segments of another renderer, their entries still current made anew under a newer seq; then they go.
  const stale = new Set<number>()
  for (const segment of current.entries.usedSegments()) if (segment.render !== render.version) stale.add(segment.seq)
  const items = kept(stale)
  if (items === null) return
  if (items.length > 0) writeSegment(stateDir, seq, high, items, render)
  for (const old of stale) unlinkQuietly(path.join(indexDir(stateDir), segmentName(old)))
}

/**
 * How a full reader goes through every task: the ids in tasks/, the hints,
 * and the index's entry for each id it may use (rule 2). `null` hints: the
 * state dir has no live index, so no entry is used.
 */
export interface TaskPlan {
  ids: Float64Array
  hinted: Set<number>
  index: LoadedIndex
  /** the entry to use for an id (no hint, and its stamp holds: a stat), or undefined: read its record. */
  entryFor(id: number): IndexEntry | undefined
  /** unhinted ids without an entry: what a builder would add. */
  unindexed: number
  /** ids in tasks/ with an entry. */
  used: number
  /** the state dir has a live index: without one no index is used or built (its first record write makes one). */
  indexed: boolean
}

/** The plan of a full read, taking the columns `wanted` of each segment (see loadIndex). */
export function planTaskReads(stateDir: string, ids: Float64Array, wanted: readonly Column[] = ['record'], render?: string): TaskPlan {
  const hints = liveHints(stateDir)
  const hinted = new Set(hints ?? [])
  const index: LoadedIndex =
    hints === null
      ? {ok: false, error: 'no live index', seqs: listSegments(stateDir).seqs, segments: [], entries: new EntryTable(), lines: 0, stale: 0}
      : loadIndex(stateDir, currentHighWater(stateDir, ids), wanted, render)
  const entries = index.ok ? index.entries : new EntryTable()
  let unindexed = 0
  let used = 0
  for (const id of ids) {
    if (entries.has(id)) used++
    else if (!hinted.has(id)) unindexed++
  }
  const entryFor = (id: number) => {
    if (hinted.has(id)) return undefined
    const entry = entries.get(id)
    return entry && stampHolds(stateDir, entry) ? entry : undefined
  }
  return {ids, hinted, index, entryFor, unindexed, used, indexed: hints !== null}
}

/** Whether the index wants more than new entries: a rebuild (a segment failed its checks), a compaction, or entries of another renderer made anew. */
export const repairWanted = (plan: TaskPlan) => plan.indexed && ((!plan.index.ok && plan.index.seqs.length > 0) || (plan.index.ok && (compactionDue(plan.index, plan.used) || plan.index.stale > 0)))

/** Whether a full reader should take the index lock before reading the records it must (never without a live index: live-hint.ts). */
export const buildWanted = (plan: TaskPlan) => (plan.indexed && plan.unindexed >= BUILD_MIN) || repairWanted(plan)

/** The tasks the index speaks for by name: only the names column of each segment is read. */
export interface IndexNames {
  /** those of `ids` (ascending) no segment holds an entry for. */
  unheld(ids: ArrayLike<number>): number[]
  /** the ids whose newest entry bears `name`, ascending. */
  named(name: string): number[]
  /** every name some entry bears: the candidates of a did-you-mean. */
  names(): Set<string>
  /** the ids whose entry no longer speaks for its task.json (rule 2: a stat each, so only when a name was not found). */
  changed(): number[]
}

/**
 * The index's names, or null when there is none to use (none, or one that
 * fails a check). Answered by search over each segment's sorted ids, with no
 * table of every id filled: run once a process, a loop over 100,000 runs
 * uncompiled, and two of them (the table, the ids no entry holds) were most
 * of a name lookup's cost at 100,000 tasks. There are at most COMPACT_ABOVE
 * segments, the oldest (a compaction's) holding nearly every task.
 */
export function indexNames(stateDir: string, ids: ArrayLike<number>): IndexNames | null {
  const segments = searchedSegments(stateDir, ids, ['name'])
  if (segments === null) return null
  // an entry is its id's newest when no later segment holds the id
  const newest = (at: number, id: number) => segments.slice(at + 1).every((later) => !holds(later, id))
  return {
    unheld: (list) => unheldBy(segments, list),
    changed() {
      const stamped = loadIndex(stateDir, currentHighWater(stateDir, ids), [])
      return stamped.ok ? [...stamped.entries.values()].filter((entry) => !stampHolds(stateDir, entry)).map((entry) => entry.id) : []
    },
    named(name) {
      const found: number[] = []
      const needle = Buffer.from(name)
      segments.forEach((segment, at) => {
        const data = segment.columns.name
        if (!data) return
        // a name is one text of the blob: find it, then its k by the ends; the entry must be its id's newest
        for (let pos = data.bytes.indexOf(needle); pos >= 0; pos = data.bytes.indexOf(needle, pos + 1)) {
          const k = lowerBound(data.ends, pos) // the first text ending at or after `pos`
          if (k < data.ends.length && textStart(data, k) === pos && data.ends[k] === pos + needle.length && newest(at, segment.ids[k])) found.push(segment.ids[k])
        }
      })
      return found.sort((a, b) => a - b)
    },
    names() {
      const all = new Set<string>()
      for (const segment of segments) for (const name of segment.columns.name?.bytes.toString('utf8').split('\n') ?? []) if (name) all.add(name)
      return all
    },
  }
}

/** The segments, with the columns wanted and no stamps, for a reader that searches them (no table filled); null when there is no index to use. */
function searchedSegments(stateDir: string, ids: ArrayLike<number>, wanted: readonly Column[]): Segment[] | null {
  const index = loadIndex(stateDir, currentHighWater(stateDir, ids), wanted, undefined, false, false)
  return !index.ok || index.seqs.length === 0 ? null : index.segments
}

function holds(segment: Segment, id: number): boolean {
  const k = lowerBound(segment.ids, id)
  return k < segment.ids.length && segment.ids[k] === id
}

/** Those of `list` (ascending) no segment holds: the oldest segment by a comparison of bytes where it opens the list; the few ids left, one search each. */
function unheldBy(segments: Segment[], list: ArrayLike<number>): number[] {
  let left = idsNotIn(list, segments[0].ids)
  for (const later of segments.slice(1)) left = left.filter((id) => !holds(later, id))
  return left
}

/**
 * Those of `ids` (ascending) no segment holds an entry for, reading no column
 * and no stamp; null when there is no index to use. For a reader of ids
 * alone (`list -q`): an id an entry holds is a task whatever its task.json
 * says now (rule 2 guards what an entry says of it, and such a reader uses
 * none of that).
 */
export function unindexedIds(stateDir: string, ids: ArrayLike<number>): number[] | null {
  const segments = searchedSegments(stateDir, ids, [])
  return segments === null ? null : unheldBy(segments, ids)
}

/**
 * Those of `list` (ascending) not in `held` (ascending), in their order. When
 * `held` opens the list (every task indexed, new ones after), one comparison
 * of bytes tells; else a walk of both.
 */
export function idsNotIn(list: ArrayLike<number>, held: Float64Array): number[] {
  if (list instanceof Float64Array && list.length >= held.length) {
    const head = Buffer.from(list.buffer, list.byteOffset, held.length * 8)
    if (head.equals(Buffer.from(held.buffer, held.byteOffset, held.byteLength))) return Array.from(list.subarray(held.length))
  }
  const out: number[] = []
  let j = 0
  for (let i = 0, n = list.length; i < n; i++) {
    const id = list[i]
    while (j < held.length && held[j] < id) j++
    if (j >= held.length || held[j] !== id) out.push(id)
  }
  return out
}
