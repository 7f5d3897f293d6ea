// The text of an ended-task summary segment (summary.ts): a header line, one
// line per entry, a trailer — and the cheap checks that tell a whole segment
// from a damaged or foreign one without parsing every record in it.
//
//   {"summary":1,"seq":7,"highWater":120,"count":2,"views":1}
//   {"id":118,"recordLength":734,"record":{...},"view":{...}}
//   {"id":120,"record":{...}}
//   {"end":2}
//
// `recordLength` (the record's JSON text length, in UTF-16 units as JS
// counts) lets a reader cut the record — and the view after it — out of the
// line without parsing the line: at 100,000 entries parsing is most of the
// cost. A line without it is parsed whole. `view` is the entry's `list
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

/** One entry as found in a segment: its line, and where its record and view are in it (-1: not cut out; parse the line). */
export interface SummaryEntry {
  id: number
  line: string
  recordStart: number
  recordEnd: number
  viewStart: number
  viewEnd: number
  /** the header's views version of the segment it came from. */
  views: number | undefined
}

export interface NewEntry {
  record: TaskRecord
  /** the record's `list --json` view as compact JSON text, when the writer knows how to render it. */
  view?: string | null
}

export function encodeEntry(entry: NewEntry): string {
  const record = JSON.stringify(entry.record)
  const view = entry.view ? `,"view":${entry.view}` : ''
  return `{"id":${entry.record.id},"recordLength":${record.length},"record":${record}${view}}`
}

export function encodeSegment(header: SegmentHeader, lines: string[]): string {
  return [JSON.stringify(header), ...lines, JSON.stringify({end: lines.length})].join('\n') + '\n'
}

export type SegmentParse = {ok: true; header: SegmentHeader; entries: SummaryEntry[]} | {ok: false; error: string}

const isCount = (v: unknown): v is number => Number.isSafeInteger(v) && (v as number) >= 0

/** The digits at `at` up to `stop` as a number, or -1. */
function numberAt(line: string, at: number, stop: string): {value: number; next: number} | null {
  const end = line.indexOf(stop, at)
  if (end <= at || end - at > 15) return null
  for (let i = at; i < end; i++) {
    const c = line.charCodeAt(i)
    if (c < 48 || c > 57) return null
  }
  return {value: Number(line.slice(at, end)), next: end + stop.length}
}

const ID_PREFIX = '{"id":'
const LENGTH_KEY = '"recordLength":'
const RECORD_KEY = '"record":'
const VIEW_KEY = ',"view":'

/** Where the record and view of a line drover wrote are; null when the line has another shape (parsed whole then). */
function cutLine(line: string, views: number | undefined): SummaryEntry | null {
  if (!line.startsWith(ID_PREFIX) || !line.endsWith('}')) return null
  const id = numberAt(line, ID_PREFIX.length, ',')
  if (!id || id.value < 1 || !line.startsWith(LENGTH_KEY, id.next)) return null
  const length = numberAt(line, id.next + LENGTH_KEY.length, ',')
  if (!length || !line.startsWith(RECORD_KEY, length.next)) return null
  const recordStart = length.next + RECORD_KEY.length
  const recordEnd = recordStart + length.value
  if (line[recordStart] !== '{' || line[recordEnd - 1] !== '}') return null
  const entry = {id: id.value, line, recordStart, recordEnd, viewStart: -1, viewEnd: -1, views}
  if (recordEnd === line.length - 1) return entry
  if (!line.startsWith(VIEW_KEY, recordEnd)) return null
  entry.viewStart = recordEnd + VIEW_KEY.length
  entry.viewEnd = line.length - 1
  return entry
}

/** A line of another shape (written by hand, or by another writer): parsed, it must be an object with an id and a record. */
function parsedLine(line: string, views: number | undefined): SummaryEntry | null {
  let value: unknown
  try {
    value = JSON.parse(line)
  } catch {
    return null
  }
  const v = value as {id?: unknown; record?: unknown}
  if (typeof value !== 'object' || value === null || !Number.isSafeInteger(v.id) || (v.id as number) < 1) return null
  if (typeof v.record !== 'object' || v.record === null || Array.isArray(v.record)) return null
  return {id: v.id as number, line, recordStart: -1, recordEnd: -1, viewStart: -1, viewEnd: -1, views}
}

/**
 * The cheap checks: a header of a known format naming `seq`, a trailer, as
 * many entry lines as both say, every line of a known shape, no id above the
 * high water. Records are not parsed here (decodeEntry does, when one is
 * used); a segment that fails any check is not used at all.
 */
export function parseSegment(text: string, seq: number): SegmentParse {
  if (!text.endsWith('\n')) return {ok: false, error: 'no end of line at its end (truncated)'}
  const lines = text.split('\n')
  lines.pop()
  if (lines.length < 2) return {ok: false, error: 'no header and trailer'}
  let header: SegmentHeader
  let trailer: {end?: unknown}
  try {
    header = JSON.parse(lines[0]) as SegmentHeader
    trailer = JSON.parse(lines.at(-1)!) as {end?: unknown}
  } catch {
    return {ok: false, error: 'its header or trailer does not parse'}
  }
  if (typeof header !== 'object' || header === null || header.summary !== SUMMARY_FORMAT) return {ok: false, error: `unknown format ${JSON.stringify(header?.summary)}`}
  if (header.seq !== seq) return {ok: false, error: `its header names seq ${header.seq}`}
  if (!isCount(header.highWater) || !isCount(header.count)) return {ok: false, error: 'its header has no high water or count'}
  const count = lines.length - 2
  if (typeof trailer !== 'object' || trailer === null || trailer.end !== count || header.count !== count) {
    return {ok: false, error: `${count} entries where header and trailer say ${header.count} and ${JSON.stringify(trailer?.end)}`}
  }
  const views = Number.isSafeInteger(header.views) ? header.views : undefined
  const entries: SummaryEntry[] = new Array(count)
  for (let k = 0; k < count; k++) {
    const line = lines[k + 1]
    const entry = cutLine(line, views) ?? parsedLine(line, views)
    if (entry === null) return {ok: false, error: `line ${k + 2} is no entry`}
    if (entry.id > header.highWater) return {ok: false, error: `an entry for id ${entry.id}, above its high water ${header.highWater}`}
    entries[k] = entry
  }
  return {ok: true, header, entries}
}

/** The entry's record, validated as a task.json is; null when it does not decode (the caller reads the record instead). */
export function decodeEntry(entry: SummaryEntry): TaskRecord | null {
  try {
    const value =
      entry.recordStart >= 0 ? JSON.parse(entry.line.slice(entry.recordStart, entry.recordEnd)) : (JSON.parse(entry.line) as {record: unknown}).record
    const record = checkRecord(value)
    return record.id === entry.id ? record : null
  } catch {
    return null
  }
}

/** The entry's stored view as JSON text, if it has one of `views`' version and it names the entry's id. */
export function entryView(entry: SummaryEntry, views: number): string | null {
  if (entry.viewStart < 0 || entry.views !== views) return null
  const view = entry.line.slice(entry.viewStart, entry.viewEnd)
  return view.startsWith(`{"id":${entry.id},`) && view.endsWith('}') ? view : null
}

/** The entry's line without its view (kept by a compaction that cannot vouch for the view's version). */
export function withoutView(entry: SummaryEntry): string {
  if (entry.viewStart < 0) return entry.line
  return entry.line.slice(0, entry.viewStart - VIEW_KEY.length) + '}'
}
