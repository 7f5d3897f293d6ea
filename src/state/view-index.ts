// The `list --json` views of a summary segment, alone: what `list --json`,
// `-q` and `--all` read at 100,000 tasks instead of the segment, whose
// records are as many bytes again and which `list` never decodes. Beside
// each segment (summary.ts) lies `seg-<seq>.views`, made by the first reader
// that wanted it from that segment:
//
//   a header: a line of JSON padded to HEADER bytes
//     {"v":1,"stamp":"…","highWater":120,"lines":3,"views":2,"count":2,"blob":3210}
//   `count` ids, ascending, as float64
//   `count` ends, as float64: where each id's view ends in the blob
//   `count` record stamps, 3 float64 each: the entries' (summary-codec.ts)
//   the blob: the views, in the same order, joined by commas
//
// So a run of tasks the same segment speaks for is one slice of the blob,
// already `list --json` text, and is written out as it is. An empty view
// (its end one past the previous one's comma) means none: that task's
// record is read. It is a cache of a cache, and holds to the same rules as
// the segment-name index:
//
// - it names the stamp of the segment it was made from (segment-sidecar.ts)
//   and is used only while the segment has that stamp;
// - it was made only from a segment that passed every check a reader of the
//   summary makes (parseSegment), and carries the segment's high water,
//   held against the ids handed out on every use, as loadSummary does;
// - each view was the segment's stored one of the renderer's version, or
//   the renderer's own of the entry's record (`views` names that version);
//   a reader of another version makes its own;
// - any doubt (another version or stamp, a length that disagrees, ids out
//   of order, a view not opening with its own `{"id":ID,`, no comma between
//   two views) and the sidecar is not used: the segment is read, as
//   without it.

import {writeFileAtomic} from './store.js'
import type {LoadedSummary, ViewRenderer} from './summary.js'
import {decodeEntry, entryView, NO_RECORD, parseSegment, STAMP_FIELDS, type SummaryEntry} from './summary-codec.js'
import {loadThroughSidecars, packSidecar, readSegmentStamped, readSidecar, segmentStamp, sidecarPath, unpackSidecar} from './segment-sidecar.js'

const VERSION = 2
const EXT = 'views'

interface ViewsHeader {
  v: number
  stamp: string
  highWater: number
  lines: number
  views: number
  count: number
  blob: number
}

/**
 * The summary as loadSummary gives it (summary.ts), its entries cut out of
 * the segments' views sidecars — made here where missing or stale — so each
 * entry's bytes are its view only. For a reader that uses views and nothing
 * else of an entry: the records are not there to decode.
 */
export function loadSummaryViews(stateDir: string, highWater: number, views: ViewRenderer): LoadedSummary {
  return loadThroughSidecars(stateDir, highWater, EXT, (seq) => {
    const got = segmentViews(stateDir, seq, views)
    return typeof got === 'string' ? got : {highWater: got.header.highWater, lines: got.header.lines, entries: got.entries}
  })
}

/** One segment's views: its sidecar while the segment keeps its stamp, else made from the segment (and kept); a string says why the segment fails. */
export function segmentViews(stateDir: string, seq: number, views: ViewRenderer): {header: ViewsHeader; entries: SummaryEntry[]} | string | 'vanished' {
  const stamp = segmentStamp(stateDir, seq)
  if (stamp === null) return 'vanished'
  const kept = readSidecar(stateDir, seq, EXT)
  const fromKept = kept ? viewsOf(kept, stamp, views.version) : null
  if (fromKept) return fromKept
  const read = readSegmentStamped(stateDir, seq)
  if (read === 'vanished') return read
  if (read === null) return 'it cannot be read'
  const parsed = parseSegment(read.bytes, seq)
  if (!parsed.ok) return parsed.error
  const bytes = encodeViews(read.stamp, parsed.header.highWater, parsed.entries, views)
  try {
    writeFileAtomic(sidecarPath(stateDir, seq, EXT), bytes)
  } catch {
    // a full or read-only disk: used this once, made again next time
  }
  return viewsOf(bytes, read.stamp, views.version) ?? 'its views do not hold together'
}

/** A sidecar of a checked segment's entries (the last line of an id in a segment is its entry there). */
export function encodeViews(stamp: string, highWater: number, lines: SummaryEntry[], views: ViewRenderer): Buffer {
  const last = new Map<number, SummaryEntry>()
  for (const entry of lines) last.set(entry.id, entry)
  const ids = [...last.keys()].sort((a, b) => a - b)
  const entries = ids.map((id) => last.get(id)!)
  return packSidecar({v: VERSION, stamp, highWater, lines: lines.length, views: views.version}, ids, entries.map((entry) => viewOf(entry, views)), COMMA, (k) => entries[k])
}

/** The entry's view of the renderer's version: stored in the segment, or rendered from its record; null when it has none. */
function viewOf(entry: SummaryEntry, views: ViewRenderer): Buffer | null {
  const stored = entryView(entry, views.version)
  if (stored) return stored
  const record = decodeEntry(entry)
  const rendered = record ? views.render(record) : null
  return rendered ? Buffer.from(rendered) : null
}

/** A kept sidecar's entries, or null when it is of another version or stamp, or does not hold together. */
export function viewsOf(b: Buffer, stamp: string, version: number): {header: ViewsHeader; entries: SummaryEntry[]} | null {
  const packed = unpackSidecar(b, COMMA)
  if (!packed) return null
  const header = packed.header as unknown as ViewsHeader
  if (header.v !== VERSION || header.stamp !== stamp || header.views !== version || !Number.isSafeInteger(header.lines) || header.lines < 0) return null
  const {ids, ends, stamps, blob} = packed
  const entries: SummaryEntry[] = new Array(ids.length)
  let start = 0
  for (let k = 0; k < ids.length; k++) {
    const id = ids[k]
    const end = ends[k]
    if (end > start && !opensAs(blob, start, end, id)) return null
    // A stamp of zeros: the segment's line had none (the entry is not used).
    const stampAt = stamps[k * STAMP_FIELDS + 2] === 0 ? -1 : k * STAMP_FIELDS
    entries[k] =
      end > start
        ? {id, bytes: blob, start, end, recordStart: NO_RECORD, recordEnd: NO_RECORD, viewStart: start, viewEnd: end, views: version, stamps, stampAt}
        : {id, bytes: blob, start, end, recordStart: NO_RECORD, recordEnd: NO_RECORD, viewStart: -1, viewEnd: -1, views: version, stamps, stampAt}
    start = end + 1
  }
  return {header, entries}
}

const COMMA = 0x2c

/** Whether the view at start..end is an object opening with `{"id":ID,` and closing with `}`: this task's, and whole. */
function opensAs(blob: Buffer, start: number, end: number, id: number): boolean {
  if (blob[end - 1] !== 0x7d) return false
  const prefix = `{"id":${id},`
  if (end - start < prefix.length) return false
  for (let i = 0; i < prefix.length; i++) if (blob[start + i] !== prefix.charCodeAt(i)) return false
  return true
}
