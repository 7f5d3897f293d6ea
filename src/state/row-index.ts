// The rows of a summary segment's tasks as a table shows them: what `list
// --all` draws at 100,000 tasks instead of cutting a row out of each task's
// view (0.4 s there) — the views sidecar beside it holds 1 KB a task, the
// rows about 80 bytes. Beside each segment lies `seg-<seq>.rows`, made by the
// first reader of rows from that segment's views (view-index.ts): the packed
// layout of segment-sidecar.ts, one line of tab-separated cells per task,
// lines joined by newlines. The cells are the renderer's (the API's
// row-cells.ts); this module only keeps them. It holds to the views
// sidecar's rules, and more:
//
// - it names the stamp of the segment and is used only while the segment has
//   it; it carries the segment's high water, held against the ids handed out;
// - it names the renderer's version and the views' version it was made from;
//   a reader of other versions makes its own;
// - a segment with a task the renderer cannot make a row of from its view
//   alone (none stored, a live status), or with a tab or a newline in a cell,
//   gets no rows: its views are used, as without them;
// - any doubt (a length or order that disagrees) and the segment's views are
//   used; a line that does not split into a row's cells opening with its
//   own id is not taken either (the reader reads that task's record).

import {isAscii} from 'node:buffer'
import {writeFileAtomic} from './store.js'
import type {LoadedSummary, ViewRenderer} from './summary.js'
import {NO_RECORD, STAMP_FIELDS, type SummaryEntry} from './summary-codec.js'
import {loadThroughSidecars, packSidecar, readSidecar, segmentStamp, sidecarPath, unpackSidecar, type SegmentTaken} from './segment-sidecar.js'
import {segmentViews} from './view-index.js'

const VERSION = 2
const EXT = 'rows'
const NEWLINE = 0x0a

export interface RowRenderer {
  /** of the cells: rows of another version are made again. */
  version: number
  /** the views the rows are made from. */
  views: ViewRenderer
  /** the cells of a summarised task's row, from its entry's view; null when they cannot be made so. */
  render(entry: SummaryEntry): string[] | null
}

/** An entry's `views` when its bytes hold a row's line (this module's), no view and no record. */
export const ROW_LINE = -1

export const isRowLine = (entry: SummaryEntry) => entry.views === ROW_LINE

// A sidecar's text decoded once, when it is ASCII (then its byte offsets are
// the text's): 100,000 decodings of a line each cost more. Its entries come
// one after another, so the last sidecar's text is the one kept.
let lastBytes: Buffer | null = null
let lastText: string | null = null

/** A row line's cells, as the renderer made them (the caller checks the first is the entry's id). */
export function rowCells(entry: SummaryEntry): string[] {
  if (entry.bytes !== lastBytes) {
    lastBytes = entry.bytes
    lastText = isAscii(entry.bytes) ? entry.bytes.toString('latin1') : null
  }
  const text = lastText
  return (text === null ? entry.bytes.toString('utf8', entry.start, entry.end) : text.slice(entry.start, entry.end)).split('\t')
}

/**
 * The summary as loadSummaryViews gives it, with each entry of a segment
 * that has rows as its row line instead of its view (isRowLine). For a
 * reader that draws rows and nothing else.
 */
export function loadSummaryRows(stateDir: string, highWater: number, rows: RowRenderer): LoadedSummary {
  return loadThroughSidecars(stateDir, highWater, EXT, (seq) => segmentRows(stateDir, seq, rows))
}

/** One segment's rows: its sidecar while the segment keeps its stamp, else made from its views (and kept), else its views. */
function segmentRows(stateDir: string, seq: number, rows: RowRenderer): SegmentTaken | string | 'vanished' {
  const stamp = segmentStamp(stateDir, seq)
  if (stamp === null) return 'vanished'
  const kept = readSidecar(stateDir, seq, EXT)
  const fromKept = kept ? rowsOf(kept, stamp, rows) : null
  if (fromKept) return fromKept
  const views = segmentViews(stateDir, seq, rows.views)
  if (typeof views === 'string') return views
  const {header, entries} = views
  const viewsGot = {highWater: header.highWater, lines: header.lines, entries}
  // made from the views of this very stamp: the views sidecar read it, or the segment read with it
  if (header.stamp !== stamp) return viewsGot
  const lines: Buffer[] = []
  for (const entry of entries) {
    const cells = rows.render(entry)
    if (cells === null || cells.some((cell) => cell.includes('\t') || cell.includes('\n'))) return viewsGot
    lines.push(Buffer.from(cells.join('\t')))
  }
  const bytes = packSidecar(
    {v: VERSION, stamp, highWater: header.highWater, lines: header.lines, views: rows.views.version, rows: rows.version},
    entries.map((e) => e.id),
    lines,
    NEWLINE,
    (k) => entries[k],
  )
  try {
    writeFileAtomic(sidecarPath(stateDir, seq, EXT), bytes)
  } catch {
    // a full or read-only disk: used this once, made again next time
  }
  return rowsOf(bytes, stamp, rows) ?? viewsGot
}

/** A kept sidecar's row lines as entries, or null when it is of another version or stamp, or does not hold together. */
function rowsOf(b: Buffer, stamp: string, rows: RowRenderer): SegmentTaken | null {
  const packed = unpackSidecar(b, NEWLINE)
  if (!packed) return null
  const {header, ids, ends, stamps, blob} = packed
  if (header.v !== VERSION || header.stamp !== stamp || header.views !== rows.views.version || header.rows !== rows.version) return null
  if (typeof header.lines !== 'number' || !Number.isSafeInteger(header.lines) || header.lines < 0) return null
  const entries: SummaryEntry[] = new Array(ids.length)
  let start = 0
  for (let k = 0; k < ids.length; k++) {
    const id = ids[k]
    const end = ends[k]
    // A stamp of zeros: the segment's line had none (the entry is not used).
    const stampAt = stamps[k * STAMP_FIELDS + 2] === 0 ? -1 : k * STAMP_FIELDS
    entries[k] = {id, bytes: blob, start, end, recordStart: NO_RECORD, recordEnd: NO_RECORD, viewStart: -1, viewEnd: -1, views: ROW_LINE, stamps, stampAt}
    start = end + 1
  }
  return {highWater: header.highWater, lines: header.lines, entries}
}
