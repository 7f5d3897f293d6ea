// The text of an ended-task summary segment (summary.ts): a header line, one
// line per entry, a trailer — and the cheap checks that tell a whole segment
// from a damaged or foreign one without parsing every record in it.
//
//   {"summary":1,"seq":7,"highWater":120,"count":2,"views":1}
//   {"id":118,"recordLength":734,"lineLength":1710,"stamp":[4711,734,1733400000123456],"record":{...},"view":{...}}
//   {"id":120,"record":{...},"stamp":[4712,801,1733400000234567]}
//   {"end":2}
//
// `stamp` is the task.json's file stamp when its record was read to be
// summarised (recordStamp): an entry is used only while the file has it, so
// a record changed or damaged by hand since is read as it is now. A line
// without one is never used (its record is read, and summarised again).
//
// `recordLength` (the record's JSON text length in UTF-8 bytes) and
// `lineLength` (the bytes of `record`'s value, `,"view":` and the view) let a
// reader cut the record and the view out of the segment's bytes — and find
// the next line — without decoding, parsing or even scanning the line: at
// 100,000 entries that was most of the cost. A line without them is parsed
// whole. `view` is the entry's `list
// --json` object as text, valid only for the `views` version in the header
// (the shape's owner, the API, names it); a line without one is rendered
// from its record.

import {checkRecord} from './record-codec.js'
import type {TaskRecord} from './record.js'

export const SUMMARY_FORMAT = 1

export interface SegmentHeader {
  summary: number
  seq: number
  /** the ids handed out when it was written (last-id, or the highest task folder): no entry is above it. */
  highWater: number
  count: number
  /** the version of the `list --json` views its lines carry; absent: none are used. */
  views?: number
}

/**
 * One entry as found in a segment: where its line, record and view are in the
 * segment's bytes (recordStart -1: a line of another shape, parsed whole;
 * NO_RECORD: bytes holding views only, view-index.ts; viewStart -1: no view).
 */
export interface SummaryEntry {
  id: number
  bytes: Buffer
  start: number
  end: number
  recordStart: number
  recordEnd: number
  viewStart: number
  viewEnd: number
  /** the header's views version of the segment it came from. */
  views: number | undefined
  /** where the record's file stamp is (STAMP_FIELDS numbers from stampAt), or stampAt -1: none, the entry is not to be used. */
  stamps: Float64Array | null
  stampAt: number
}

/**
 * A task.json's file stamp, as git's index keeps one per file: identity, size
 * and change time (microseconds; no write, rename or chmod leaves it as it
 * was, and no user can set it). Whole numbers below 2^53, so they survive
 * JSON and float64 unchanged and are compared exactly.
 */
export type RecordStamp = [ino: number, size: number, ctimeUs: number]
export const STAMP_FIELDS = 3

export const stampOf = (stats: {ino: number; size: number; ctimeMs: number}): RecordStamp => [stats.ino % 1e15, stats.size, Math.round(stats.ctimeMs * 1000)]

/** An entry whose bytes hold no record (a views sidecar's, view-index.ts): its record is read from its task.json. */
export const NO_RECORD = -2

export interface NewEntry {
  record: TaskRecord
  /** the record's `list --json` view as compact JSON text, when the writer knows how to render it. */
  view?: string | null
  /** the record file's stamp, taken before the record was read; without one the entry is never used. */
  stamp?: RecordStamp | null
}

const stampText = (stamp: ArrayLike<number> | null | undefined, at = 0) => (stamp ? `,"stamp":[${stamp[at]},${stamp[at + 1]},${stamp[at + 2]}]` : '')

export function encodeEntry(entry: NewEntry): Buffer {
  const record = JSON.stringify(entry.record)
  const view = entry.view ? `,"view":${entry.view}` : ''
  const length = Buffer.byteLength(record) + Buffer.byteLength(view)
  return Buffer.from(`{"id":${entry.record.id},"recordLength":${Buffer.byteLength(record)},"lineLength":${length}${stampText(entry.stamp)},"record":${record}${view}}`)
}

export function encodeSegment(header: SegmentHeader, lines: Buffer[]): Buffer {
  const parts: Buffer[] = [Buffer.from(JSON.stringify(header) + '\n')]
  for (const line of lines) parts.push(line, NEWLINE)
  parts.push(Buffer.from(JSON.stringify({end: lines.length}) + '\n'))
  return Buffer.concat(parts)
}

const NEWLINE = Buffer.from('\n')
const LF = 0x0a

export type SegmentParse = {ok: true; header: SegmentHeader; entries: SummaryEntry[]} | {ok: false; error: string}

const isCount = (v: unknown): v is number => Number.isSafeInteger(v) && (v as number) >= 0

// What digitsAt read: its value and where its stop byte is (module-level, so
// the three numbers of each of 100,000 lines make no garbage).
let digitsValue = 0
let digitsNext = 0

/** Reads the decimal digits at `at`, ended by the byte `stop`, into digitsValue/digitsNext; false when there are none. */
function digitsAt(b: Buffer, at: number, limit: number, stop: number): boolean {
  let value = 0
  let i = at
  for (; i < limit && i - at <= 15; i++) {
    const c = b[i]
    if (c === stop) break
    if (c < 48 || c > 57) return false
    value = value * 10 + (c - 48)
  }
  if (i === at || i >= limit || b[i] !== stop) return false
  digitsValue = value
  digitsNext = i
  return true
}

const ID_PREFIX = Buffer.from('{"id":')
const LENGTH_KEY = Buffer.from(',"recordLength":')
const LINE_KEY = Buffer.from(',"lineLength":')
const RECORD_KEY = Buffer.from(',"record":')
const STAMP_KEY = Buffer.from(',"stamp":[')
const CLOSE_BRACKET = 0x5d
const VIEW_KEY = Buffer.from(',"view":')
const COMMA = 0x2c
const OPEN = 0x7b
const CLOSE = 0x7d

/** Whether `what` is at `at` — byte by byte: for these few bytes a native compare costs more than the loop. */
function bytesAt(b: Buffer, at: number, what: Buffer, limit: number): boolean {
  if (at + what.length > limit) return false
  for (let i = 0; i < what.length; i++) if (b[at + i] !== what[i]) return false
  return true
}

/**
 * Where the record and view of a line drover wrote are; null when the line
 * has another shape (parsed whole then). `limit` is where the segment's
 * trailer starts: `lineLength` (the bytes of record and view) says where the
 * line ends without searching for it, and that end must be `}` and a newline.
 */
function cutLine(b: Buffer, start: number, limit: number, views: number | undefined, stamps: Float64Array, stampAt: number): SummaryEntry | null {
  if (!bytesAt(b, start, ID_PREFIX, limit) || !digitsAt(b, start + ID_PREFIX.length, limit, COMMA)) return null
  const id = digitsValue
  if (id < 1 || !bytesAt(b, digitsNext, LENGTH_KEY, limit) || !digitsAt(b, digitsNext + LENGTH_KEY.length, limit, COMMA)) return null
  const recordLength = digitsValue
  if (!bytesAt(b, digitsNext, LINE_KEY, limit) || !digitsAt(b, digitsNext + LINE_KEY.length, limit, COMMA)) return null
  const lineLength = digitsValue
  let at = -1
  if (bytesAt(b, digitsNext, STAMP_KEY, limit)) {
    at = stampAt
    let next = digitsNext + STAMP_KEY.length
    for (let k = 0; k < STAMP_FIELDS; k++) {
      if (!digitsAt(b, next, limit, k < STAMP_FIELDS - 1 ? COMMA : CLOSE_BRACKET)) return null
      stamps[at + k] = digitsValue
      next = digitsNext + 1
    }
    digitsNext = next // the byte after `]`
  }
  if (!bytesAt(b, digitsNext, RECORD_KEY, limit)) return null
  const recordStart = digitsNext + RECORD_KEY.length
  const end = recordStart + lineLength + 1
  if (end >= limit || b[end - 1] !== CLOSE || b[end] !== LF || recordLength > lineLength) return null
  const recordEnd = recordStart + recordLength
  if (b[recordStart] !== OPEN || b[recordEnd - 1] !== CLOSE) return null
  const stamped = at < 0 ? null : stamps
  if (recordEnd === end - 1) return {id, bytes: b, start, end, recordStart, recordEnd, viewStart: -1, viewEnd: -1, views, stamps: stamped, stampAt: at}
  if (!bytesAt(b, recordEnd, VIEW_KEY, end)) return null
  // A view is this task's: it opens with the very bytes the line does, `{"id":ID,`.
  const viewStart = recordEnd + VIEW_KEY.length
  for (let i = 0; i <= ID_PREFIX.length + 16; i++) {
    if (b[viewStart + i] !== b[start + i]) return null
    if (b[start + i] === COMMA) break
  }
  if (b[end - 2] !== CLOSE) return null
  return {id, bytes: b, start, end, recordStart, recordEnd, viewStart, viewEnd: end - 1, views, stamps: stamped, stampAt: at}
}

/** A line of another shape (written by hand, or by another writer): parsed, it must be an object with an id and a record. */
function parsedLine(b: Buffer, start: number, end: number, views: number | undefined, stamps: Float64Array, stampAt: number): SummaryEntry | null {
  let value: unknown
  try {
    value = JSON.parse(b.toString('utf8', start, end))
  } catch {
    return null
  }
  const v = value as {id?: unknown; record?: unknown; stamp?: unknown}
  if (typeof value !== 'object' || value === null || !Number.isSafeInteger(v.id) || (v.id as number) < 1) return null
  if (typeof v.record !== 'object' || v.record === null || Array.isArray(v.record)) return null
  const stamped = Array.isArray(v.stamp) && v.stamp.length === STAMP_FIELDS && v.stamp.every((n) => Number.isSafeInteger(n))
  if (stamped) stamps.set(v.stamp as number[], stampAt)
  return {id: v.id as number, bytes: b, start, end, recordStart: -1, recordEnd: -1, viewStart: -1, viewEnd: -1, views, stamps: stamped ? stamps : null, stampAt: stamped ? stampAt : -1}
}

/**
 * The cheap checks: a header of a known format naming `seq`, a trailer, as
 * many entry lines as both say, every line of a known shape, no id above the
 * high water. Records are not parsed here (decodeEntry does, when one is
 * used); a segment that fails any check is not used at all.
 */
export function parseSegment(b: Buffer, seq: number): SegmentParse {
  if (b.length === 0 || b[b.length - 1] !== LF) return {ok: false, error: 'no end of line at its end (truncated)'}
  const headerEnd = b.indexOf(LF)
  const trailerStart = b.lastIndexOf(LF, b.length - 2) + 1
  if (trailerStart <= headerEnd) return {ok: false, error: 'no header and trailer'}
  let header: SegmentHeader
  let trailer: {end?: unknown}
  try {
    header = JSON.parse(b.toString('utf8', 0, headerEnd)) as SegmentHeader
    trailer = JSON.parse(b.toString('utf8', trailerStart, b.length - 1)) as {end?: unknown}
  } catch {
    return {ok: false, error: 'its header or trailer does not parse'}
  }
  if (typeof header !== 'object' || header === null || header.summary !== SUMMARY_FORMAT) return {ok: false, error: `unknown format ${JSON.stringify(header?.summary)}`}
  if (header.seq !== seq) return {ok: false, error: `its header names seq ${header.seq}`}
  if (!isCount(header.highWater) || !isCount(header.count)) return {ok: false, error: 'its header has no high water or count'}
  if (typeof trailer !== 'object' || trailer === null || trailer.end !== header.count) {
    return {ok: false, error: `its header says ${header.count} entries and its trailer ${JSON.stringify(trailer?.end)}`}
  }
  const views = Number.isSafeInteger(header.views) ? header.views : undefined
  const entries: SummaryEntry[] = []
  // One array for the stamps of every line, not three numbers' object per line.
  const stamps = new Float64Array((Math.min(header.count, b.length) + 1) * STAMP_FIELDS)
  for (let start = headerEnd + 1; start < trailerStart; ) {
    const stampAt = Math.min(entries.length, header.count) * STAMP_FIELDS
    const entry = cutLine(b, start, trailerStart, views, stamps, stampAt) ?? parsedLine(b, start, b.indexOf(LF, start), views, stamps, stampAt)
    if (entry === null) return {ok: false, error: `line ${entries.length + 2} is no entry`}
    if (entry.id > header.highWater) return {ok: false, error: `an entry for id ${entry.id}, above its high water ${header.highWater}`}
    entries.push(entry)
    if (entries.length > header.count) break
    start = entry.end + 1
  }
  if (entries.length !== header.count) return {ok: false, error: `${entries.length} entries where header and trailer say ${header.count}`}
  return {ok: true, header, entries}
}

/** The entry's record, validated as a task.json is; null when it does not decode (the caller reads the record instead). */
export function decodeEntry(entry: SummaryEntry): TaskRecord | null {
  if (entry.recordStart === NO_RECORD) return null
  try {
    const value =
      entry.recordStart >= 0
        ? JSON.parse(entry.bytes.toString('utf8', entry.recordStart, entry.recordEnd))
        : (JSON.parse(entry.bytes.toString('utf8', entry.start, entry.end)) as {record: unknown}).record
    const record = checkRecord(value)
    return record.id === entry.id ? record : null
  } catch {
    return null
  }
}

/** Whether the entry holds a stored view of `views`' version (its bytes: viewStart to viewEnd; cutLine checked they are the task's). */
export function hasView(entry: SummaryEntry, views: number): boolean {
  return entry.viewStart >= 0 && entry.views === views
}

/** The entry's stored view as JSON bytes, or null (see hasView). */
export function entryView(entry: SummaryEntry, views: number): Buffer | null {
  return hasView(entry, views) ? entry.bytes.subarray(entry.viewStart, entry.viewEnd) : null
}

/** Whether the entry's record text holds these bytes (a name lookup looks into no record that cannot match). */
export function recordMayHold(entry: SummaryEntry, needle: Buffer): boolean {
  if (entry.recordStart < 0) return true
  return entry.bytes.subarray(entry.recordStart, entry.recordEnd).includes(needle)
}

/** The entry's line as it is, or without its view (kept by a compaction that cannot vouch for the view's version). */
export function entryLine(entry: SummaryEntry, keepView: boolean): Buffer {
  if (keepView || entry.viewStart < 0) return entry.bytes.subarray(entry.start, entry.end)
  const length = entry.recordEnd - entry.recordStart
  const stamp = entry.stampAt < 0 ? null : entry.stamps
  const head = Buffer.from(`{"id":${entry.id},"recordLength":${length},"lineLength":${length}${stampText(stamp, entry.stampAt)},"record":`)
  return Buffer.concat([head, entry.bytes.subarray(entry.recordStart, entry.recordEnd), Buffer.from('}')])
}
