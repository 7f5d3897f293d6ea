// Which summarised tasks bear a name, without reading the summary: `status
// NAME`, `logs NAME` and every TASK given by name look among 100,000 ended
// tasks through this. Beside each segment of the summary (summary.ts) lies
// `seg-<seq>.names`, made from that segment the first time a name is looked
// up after it was written: the ids the segment holds (as ranges) and, per
// name, the ids whose entry bears it. It is a cache of a cache:
//
// - it names the segment's file stamp (identity, size, modification time); a
//   segment is never written twice, so while that stamp holds, what was read
//   out of it holds too;
// - it was made only from a segment that passed every check a reader of the
//   summary makes (parseSegment), and carries the segment's high water, held
//   against the ids handed out on every use, as loadSummary does;
// - one segment without a usable index that fails its checks means the
//   summary is not used at all (null), exactly as for any other reader;
// - as everywhere, the newest segment holding an id speaks for it, and only
//   for an id in tasks/ without a live hint.

import {lowerBound} from './layout.js'
import {writeFileAtomic} from './store.js'
import {currentHighWater, listSegments} from './summary.js'
import {readSegmentStamped, readSidecar, removeOrphanSidecars, segmentStamp, sidecarPath} from './segment-sidecar.js'
import {decodeEntry, parseSegment} from './summary-codec.js'

const VERSION = 1
const EXT = 'names'

/**
 * A segment's index as kept: a line of JSON with all but the names, then a
 * line with the names, an object of arrays of ids. A lookup cuts out the one
 * name it wants (at 25,000 names, parsing them all cost more than the rest
 * of `status NAME`).
 */
interface SegmentNames {
  v: number
  stamp: string
  highWater: number
  /** ascending [from, to] pairs, flat: the ids this segment holds an entry for. */
  ranges: number[]
  /** the ids bearing `name` in this segment, ascending. */
  idsNamed(name: string): number[]
  /** every name this segment's entries bear (for a did-you-mean: not held against newer segments). */
  names(): string[]
}

export interface SummaryNames {
  /** whether some segment holds an entry for `id`. */
  holds(id: number): boolean
  /** those of `ids` (ascending) no segment holds an entry for, ascending: one pass, for 100,000 ids. */
  unheld(ids: ArrayLike<number>): number[]
  /** the ids whose newest entry bears `name`, ascending. */
  named(name: string): number[]
  /** every name some segment's entry bears: the candidates of a did-you-mean, read only once a name was not found. */
  names(): Set<string>
}

/** The summary's names, or null when there is no summary to use (none, or one that fails a check). */
export function summaryNames(stateDir: string, ids: ArrayLike<number>): SummaryNames | null {
  const highWater = currentHighWater(stateDir, ids)
  for (let attempt = 0; attempt < 3; attempt++) {
    const {seqs} = listSegments(stateDir)
    if (seqs.length === 0) return null
    const segments: SegmentNames[] = []
    let vanished = false
    for (const seq of seqs) {
      const got = segmentNames(stateDir, seq)
      if (got === 'vanished') {
        vanished = true
        break
      }
      if (got === null || got.highWater > highWater) return null
      segments.push(got)
    }
    if (vanished) continue // a compaction finished meanwhile: its entries are in a newer segment
    removeOrphanSidecars(stateDir, seqs, EXT)
    return combine(segments)
  }
  return null
}

function combine(segments: SegmentNames[]): SummaryNames {
  // newest first: the newest segment holding an id speaks for it
  const newestFirst = [...segments].reverse()
  const holder = (id: number) => newestFirst.findIndex((s) => inRanges(s.ranges, id))
  return {
    holds: (id) => holder(id) >= 0,
    unheld(ids) {
      // the union of the segments' ranges, then the ids in the gaps between its spans, found by binary search
      const spans: [number, number][] = []
      for (const {ranges} of segments) for (let k = 0; k < ranges.length; k += 2) spans.push([ranges[k], ranges[k + 1]])
      spans.sort((a, b) => a[0] - b[0])
      const out: number[] = []
      let next = Number.NEGATIVE_INFINITY // the lowest id no span so far holds
      const gap = (below: number) => {
        for (let k = lowerBound(ids, next); k < ids.length && ids[k] < below; k++) out.push(ids[k])
      }
      for (const [from, to] of spans) {
        if (from > next) gap(from)
        if (to + 1 > next) next = to + 1
      }
      gap(Number.POSITIVE_INFINITY)
      return out
    },
    names() {
      const all = new Set<string>()
      for (const segment of segments) for (const name of segment.names()) all.add(name)
      return all
    },
    named(name) {
      const found = new Set<number>()
      newestFirst.forEach((segment, k) => {
        for (const id of segment.idsNamed(name)) if (holder(id) === k) found.add(id)
      })
      return [...found].sort((a, b) => a - b)
    },
  }
}

function inRanges(ranges: number[], id: number): boolean {
  let lo = 0
  let hi = ranges.length / 2 - 1
  while (lo <= hi) {
    const mid = (lo + hi) >> 1
    if (id < ranges[2 * mid]) hi = mid - 1
    else if (id > ranges[2 * mid + 1]) lo = mid + 1
    else return true
  }
  return false
}

/** One segment's names: its index while the segment keeps its stamp, else made from the segment (and kept); null when the segment fails a check. */
function segmentNames(stateDir: string, seq: number): SegmentNames | null | 'vanished' {
  const stamp = segmentStamp(stateDir, seq)
  if (stamp === null) return 'vanished'
  const kept = readSidecar(stateDir, seq, EXT)
  const parsedKept = kept ? fromBytes(kept) : null
  if (parsedKept && parsedKept.stamp === stamp) return parsedKept
  const read = readSegmentStamped(stateDir, seq)
  if (read === 'vanished' || read === null) return read
  const {bytes} = read
  const parsed = parseSegment(bytes, seq)
  if (!parsed.ok) return null
  // the last entry of an id in a segment is its entry there
  const nameOf = new Map<number, string | null>()
  for (const entry of parsed.entries) {
    const record = decodeEntry(entry)
    if (!record) return null
    nameOf.set(entry.id, record.name)
  }
  const held = [...nameOf.keys()].sort((a, b) => a - b)
  const ranges: number[] = []
  for (const id of held) {
    if (ranges.length > 0 && ranges[ranges.length - 1] === id - 1) ranges[ranges.length - 1] = id
    else ranges.push(id, id)
  }
  const byName = new Map<string, number[]>()
  for (const id of held) {
    const name = nameOf.get(id)
    if (!name) continue
    const list = byName.get(name)
    if (list) list.push(id)
    else byName.set(name, [id])
  }
  const text = `${JSON.stringify({v: VERSION, stamp: read.stamp, highWater: parsed.header.highWater, ranges})}\n${JSON.stringify(Object.fromEntries(byName))}\n`
  try {
    writeFileAtomic(sidecarPath(stateDir, seq, EXT), text)
  } catch {
    // a full or read-only disk: used this once, made again next time
  }
  return fromBytes(Buffer.from(text))
}

/** A kept index, or null for one of another version or damaged. */
function fromBytes(b: Buffer): SegmentNames | null {
  const lf = b.indexOf(0x0a)
  if (lf < 0 || b[b.length - 1] !== 0x0a) return null
  let head: {v?: unknown; stamp?: unknown; highWater?: unknown; ranges?: unknown}
  try {
    head = JSON.parse(b.toString('utf8', 0, lf))
  } catch {
    return null
  }
  if (head.v !== VERSION || typeof head.stamp !== 'string' || typeof head.highWater !== 'number' || !Array.isArray(head.ranges)) return null
  const names = b.subarray(lf + 1, b.length - 1)
  return {
    v: VERSION,
    stamp: head.stamp,
    highWater: head.highWater,
    ranges: head.ranges as number[],
    idsNamed(name) {
      // A key of that object is `{"name":[` or `,"name":[`, and its values are arrays of numbers: nothing else there looks so.
      const key = `${JSON.stringify(name)}:[`
      for (const before of ['{', ',']) {
        const at = names.indexOf(before + key)
        if (at < 0) continue
        const start = at + before.length + Buffer.byteLength(key) - 1
        const end = names.indexOf(0x5d, start) // ]
        return end < 0 ? [] : (JSON.parse(names.toString('utf8', start, end + 1)) as number[])
      }
      return []
    },
    names() {
      // the keys alone, cut out by their shape (`{"name":[` or `,"name":[`), without parsing the ids of every name
      const text = names.toString('utf8')
      const out: string[] = []
      for (const match of text.matchAll(/[{,]("(?:[^"\\]|\\.)*"):\[/g)) out.push(JSON.parse(match[1]) as string)
      return out
    },
  }
}
