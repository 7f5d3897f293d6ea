// What the caches made beside a summary segment (name-index.ts, view-index.ts,
// row-index.ts) share: the segment read together with the stamp it had when
// read, the sidecar's file name, the removal of sidecars whose segment is
// gone, and the layout of a sidecar of one text per task (packed, unpacked).
//
// A segment is never written twice: while its stamp (identity, size,
// modification time) holds, what was read out of it holds too. The stamp is
// taken from the file opened, so it is the stamp of the bytes read.

import {closeSync, constants as fsc, fstatSync, openSync, readdirSync, readFileSync, unlinkSync, type Stats} from 'node:fs'
import path from 'node:path'
import {NOFOLLOW, summaryDir} from './layout.js'
import {retryOnBusySync} from '../platform/platform.js'
import {EntryTable, listSegments, readSegmentBytes, segmentName, type LoadedSummary} from './summary.js'
import {STAMP_FIELDS, type SummaryEntry} from './summary-codec.js'

export const fileStamp = (stat: Stats) => `${stat.ino}:${stat.size}:${stat.mtimeMs}`

/** Where a segment's sidecar of this kind lies (`ext`: names, views). */
export const sidecarPath = (stateDir: string, seq: number, ext: string) => path.join(summaryDir(stateDir), segmentName(seq).replace(/\.ndjson$/, `.${ext}`))

/** The stamp a segment has now; null when it is gone (merged by a compaction). */
export function segmentStamp(stateDir: string, seq: number): string | null {
  const file = path.join(summaryDir(stateDir), segmentName(seq))
  let fd: number
  try {
    fd = retryOnBusySync(() => openSync(file, fsc.O_RDONLY | NOFOLLOW))
  } catch {
    return null
  }
  try {
    return fileStamp(fstatSync(fd))
  } finally {
    closeSync(fd)
  }
}

/** A segment's bytes and the stamp of the file they came from; 'vanished' when it is gone, null when it cannot be read. */
export function readSegmentStamped(stateDir: string, seq: number): {bytes: Buffer; stamp: string} | 'vanished' | null {
  const file = path.join(summaryDir(stateDir), segmentName(seq))
  let fd: number
  try {
    fd = retryOnBusySync(() => openSync(file, fsc.O_RDONLY | NOFOLLOW))
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'vanished' : null
  }
  try {
    const stamp = fileStamp(fstatSync(fd))
    return {bytes: readFileSync(fd), stamp}
  } catch {
    return null
  } finally {
    closeSync(fd)
  }
}

/** A sidecar's bytes, or null (none yet, or unreadable: made again by the caller). */
export function readSidecar(stateDir: string, seq: number, ext: string): Buffer | null {
  try {
    return readSegmentBytes(sidecarPath(stateDir, seq, ext))
  } catch {
    return null
  }
}

/** Removes the sidecars of this kind whose segment is not among `seqs`: they would never be used again. */
export function removeOrphanSidecars(stateDir: string, seqs: number[], ext: string): void {
  const pattern = new RegExp(`^seg-(\\d{12})\\.${ext}$`)
  const present = new Set(seqs)
  let names: string[]
  try {
    names = readdirSync(summaryDir(stateDir))
  } catch {
    return
  }
  for (const name of names) {
    const m = pattern.exec(name)
    if (!m || present.has(Number(m[1]))) continue
    try {
      unlinkSync(path.join(summaryDir(stateDir), name))
    } catch {
      // removed by another reader
    }
  }
}

/** A packed sidecar's header: a line of JSON padded to this many bytes, so the numbers after it are aligned. */
const HEADER = 256

export interface PackedHeader {
  v: number
  stamp: string
  highWater: number
  count: number
  blob: number
  [field: string]: unknown
}

/**
 * One text per task, packed: the header, `count` ids ascending as float64,
 * `count` ends as float64 (where each id's text ends in the blob), the
 * record stamps the texts were made from (summary-codec.ts, STAMP_FIELDS
 * float64s per id, zeros for none), then the blob — the texts in the same
 * order, one `separator` byte between two. An empty text means none for
 * that id.
 */
export function packSidecar(
  head: Omit<PackedHeader, 'count' | 'blob'>,
  ids: number[],
  texts: (Buffer | null)[],
  separator: number,
  stampOf: (k: number) => {stamps: Float64Array | null; stampAt: number},
): Buffer {
  const parts: Buffer[] = []
  const ends = new Float64Array(ids.length)
  const between = Buffer.from([separator])
  let at = 0
  ids.forEach((_, k) => {
    if (k > 0) {
      parts.push(between)
      at++
    }
    const text = texts[k]
    if (text) {
      parts.push(text)
      at += text.length
    }
    ends[k] = at
  })
  const stamps = new Float64Array(ids.length * STAMP_FIELDS)
  for (let k = 0; k < ids.length; k++) {
    const from = stampOf(k)
    if (from.stamps && from.stampAt >= 0) stamps.set(from.stamps.subarray(from.stampAt, from.stampAt + STAMP_FIELDS), k * STAMP_FIELDS)
  }
  const json = JSON.stringify({...head, count: ids.length, blob: at})
  const header = Buffer.alloc(HEADER, 0x20)
  header.write(json)
  header[HEADER - 1] = 0x0a
  return Buffer.concat([header, Buffer.from(Float64Array.from(ids).buffer), Buffer.from(ends.buffer), Buffer.from(stamps.buffer), ...parts])
}

/**
 * A packed sidecar taken apart, or null when it does not hold together: a
 * header that is no JSON or runs past HEADER, counts that are no whole
 * numbers, a length that disagrees, ids out of order or above the high
 * water, ends out of order or past the blob, or no separator between two
 * texts. What the texts must be is the caller's to check.
 */
export function unpackSidecar(b: Buffer, separator: number): {header: PackedHeader; ids: Float64Array; ends: Float64Array; stamps: Float64Array; blob: Buffer} | null {
  if (b.length < HEADER || b[HEADER - 1] !== 0x0a) return null
  let header: PackedHeader
  try {
    header = JSON.parse(b.toString('utf8', 0, HEADER)) as PackedHeader
  } catch {
    return null
  }
  if (typeof header.stamp !== 'string' || ![header.highWater, header.count, header.blob].every((n) => Number.isSafeInteger(n) && n >= 0)) return null
  const {count} = header
  const numbersLength = count * (2 + STAMP_FIELDS) * 8
  if (b.length !== HEADER + numbersLength + header.blob) return null
  const numbers = float64s(b, HEADER, count * (2 + STAMP_FIELDS))
  const ids = numbers.subarray(0, count)
  const ends = numbers.subarray(count, count * 2)
  const stamps = numbers.subarray(count * 2)
  const blob = b.subarray(HEADER + numbersLength)
  let start = 0
  for (let k = 0; k < count; k++) {
    const id = ids[k]
    const end = ends[k]
    if (!Number.isSafeInteger(id) || id < 1 || (k > 0 && id <= ids[k - 1]) || id > header.highWater) return null
    if (!Number.isSafeInteger(end) || end < start || end > blob.length || (k + 1 < count && blob[end] !== separator)) return null
    start = end + 1
  }
  if (count > 0 && ends[count - 1] !== blob.length) return null
  return {header, ids, ends, stamps, blob}
}

/** `n` float64s at `at`: a view of the bytes when aligned, else a copy. */
function float64s(b: Buffer, at: number, n: number): Float64Array {
  const offset = b.byteOffset + at
  return offset % 8 === 0 ? new Float64Array(b.buffer, offset, n) : new Float64Array(b.buffer.slice(offset, offset + n * 8))
}

/** What a sidecar reader took of one segment: its high water, its line count, and an entry per task. */
export interface SegmentTaken {
  highWater: number
  lines: number
  entries: SummaryEntry[]
}

/**
 * The summary as loadSummary gives it, each segment taken through `take` (its
 * sidecar of kind `ext`, made where missing): a string says why a segment
 * fails, and a segment gone meanwhile (merged by a compaction) sends the
 * reader round again. Sidecars of this kind whose segment is gone are removed.
 */
export function loadThroughSidecars(stateDir: string, highWater: number, ext: string, take: (seq: number) => SegmentTaken | string | 'vanished'): LoadedSummary {
  for (let attempt = 0; ; attempt++) {
    const {seqs} = listSegments(stateDir)
    const loaded: LoadedSummary = {ok: true, error: null, seqs, entries: new EntryTable(), lines: 0}
    let vanished = false
    for (const seq of seqs) {
      const got = take(seq)
      if (got === 'vanished') {
        vanished = true
        break
      }
      if (typeof got === 'string') return {...loaded, ok: false, error: `${seq}: ${got}`}
      if (got.highWater > highWater) return {...loaded, ok: false, error: `segment ${seq} is from the future: high water ${got.highWater}, ids handed out ${highWater}`}
      for (const entry of got.entries) loaded.entries.set(entry.id, entry)
      loaded.lines += got.lines
    }
    if (!vanished) {
      removeOrphanSidecars(stateDir, seqs, ext)
      return loaded
    }
    if (attempt >= 3) return {...loaded, ok: false, error: 'its segments kept changing while read'}
  }
}
