// The one format of the files in index/ (index.ts, index-listing.ts): a
// header, numbers, and columns of text, so a reader takes the parts it
// needs by offset — the names alone for a lookup, the views alone for
// `list --json`, the rows alone for a table — without reading, scanning or
// parsing the rest:
//
//   header   a line of JSON padded with spaces to HEADER (512) bytes:
//            {"index":2,"kind":"segment","highWater":120,"count":2,"stamped":true,
//             "columns":["record","view","row","name"],"blobs":[1290,1800,160,9],
//             "crcs":[…] (a big file's),…}
//   ids      `count` float64, ascending, none above highWater
//   stamps   (stamped) `count` × STAMP_FIELDS float64: each task.json's stamp
//            when its texts were made; zeros: none
//   ends     per column, `count` float64: where each id's text ends in the blob
//   blobs    per column, the texts in id order, one separator byte between
//            two (a comma for views, so a run of them is a slice of a JSON
//            array; a newline for the rest); an empty text means none
//
// Any doubt — another format, a length that disagrees, ids out of order or
// above the high water, ends out of order, no separator between two texts —
// and the file is not used: the caller reads the records, as without it.
//
// A big file (CHECKSUM_FROM entries or more, where zlib's crc32 is there:
// Node 20.16+, 22.3+) also carries `crcs` in its header, as git's index ends
// with a checksum of itself: one for the ids, one for the stamps, one per
// column of short texts (the names) over its ends and its blob. A reader
// checks the ids, the stamps and such a column by their sums, in native code,
// instead of walking each id and each end in JavaScript: at 100,000 entries
// such a walk runs cold (interpreted, once per process), and it was the
// larger part of a name lookup's cost beyond a small state dir. A column of
// long texts is walked still (SUMMED_BYTES_PER_TEXT says why), and so is
// every part of a file without sums (small, or written by a Node without
// crc32).

import {closeSync, constants as fsc, fstatSync, openSync, readSync} from 'node:fs'
import {NOFOLLOW} from './layout.js'
import {retryOnBusySync} from '../platform/platform.js'

// 2: the header is 512 bytes, room for the checksums; a file of format 1 is not used, and rebuilt.
export const INDEX_FORMAT = 2
export const HEADER = 512
/** Files of this many entries or more carry checksums; below it the walk costs less than loading zlib. */
export const CHECKSUM_FROM = 4096
/**
 * Where a column's texts average more bytes than this, its walk (one step
 * per text, about 60–100 instructions run cold) costs less than its sum
 * (about 4 instructions a byte): measured with callgrind at 10,000 tasks.
 */
const SUMMED_BYTES_PER_TEXT = 24
/** Whether a column is checked by its sum (short texts) rather than walked: the writer sums only those. */
const summedColumn = (length: number, count: number) => length <= SUMMED_BYTES_PER_TEXT * count

type Crc32 = (data: Uint8Array, value?: number) => number
let crc32Fn: Crc32 | null | undefined
/** zlib's crc32 where this Node has it, loaded on first use: most commands read no big file. */
function crc32(): Crc32 | null {
  if (crc32Fn === undefined) {
    const builtin = (process as {getBuiltinModule?: (id: string) => unknown}).getBuiltinModule
    const zlib = builtin ? (builtin('node:zlib') as {crc32?: Crc32}) : null
    crc32Fn = typeof zlib?.crc32 === 'function' ? zlib.crc32 : null
  }
  return crc32Fn
}

/** A task.json's stamp, as git's index keeps one per file: identity, size, change time (µs). */
export type RecordStamp = [ino: number, size: number, ctimeUs: number]
export const STAMP_FIELDS = 3
export const stampOf = (stats: {ino: number; size: number; ctimeMs: number}): RecordStamp => [stats.ino % 1e15, stats.size, Math.round(stats.ctimeMs * 1000)]

export const COLUMNS = ['record', 'view', 'row', 'name'] as const
export type Column = (typeof COLUMNS)[number]
const SEPARATOR: Record<Column, number> = {record: 0x0a, view: 0x2c, row: 0x0a, name: 0x0a}

export interface IndexHeader {
  index: number
  kind: 'segment' | 'listing'
  highWater: number
  count: number
  stamped: boolean
  columns: Column[]
  /** each column's blob length, in the order of `columns`. */
  blobs: number[]
  /** what the writer adds: a segment's seq and renderer, a listing's stamp of tasks/ and journal. */
  [field: string]: unknown
}

export type HeaderFields = Omit<IndexHeader, 'index' | 'count' | 'stamped' | 'columns' | 'blobs'>

/** Packs one file: `stamps` null for none; `columns` in the order of COLUMNS, a null text for none. */
export function packIndexFile(head: HeaderFields, ids: ArrayLike<number>, stamps: Float64Array | null, columns: Partial<Record<Column, (Buffer | string | null)[]>>): Buffer {
  const count = ids.length
  const names = COLUMNS.filter((c) => columns[c] !== undefined)
  const ends: Float64Array[] = []
  const blobs: Buffer[][] = []
  const lengths: number[] = []
  for (const name of names) {
    const texts = columns[name]!
    const end = new Float64Array(count)
    const parts: Buffer[] = []
    const between = Buffer.from([SEPARATOR[name]])
    let at = 0
    for (let k = 0; k < count; k++) {
      if (k > 0) {
        parts.push(between)
        at++
      }
      const text = texts[k]
      if (text) {
        const b = typeof text === 'string' ? Buffer.from(text) : text
        parts.push(b)
        at += b.length
      }
      end[k] = at
    }
    ends.push(end)
    blobs.push(parts)
    lengths.push(at)
  }
  const numbers = (a: Float64Array) => Buffer.from(a.buffer, a.byteOffset, a.byteLength)
  const idBytes = numbers(Float64Array.from(ids))
  const stampBytes = stamps ? numbers(stamps.length === count * STAMP_FIELDS ? stamps : stamps.subarray(0, count * STAMP_FIELDS)) : null
  const endBytes = ends.map(numbers)
  const crc = count >= CHECKSUM_FROM ? crc32() : null
  const crcs = crc
    ? [crc(idBytes), stampBytes ? crc(stampBytes) : 0, ...blobs.map((blob, c) => (summedColumn(lengths[c], count) ? blob.reduce((value, part) => crc(part, value), crc(endBytes[c])) : null))]
    : undefined
  const json = JSON.stringify({index: INDEX_FORMAT, ...head, count, stamped: stamps !== null, columns: names, blobs: lengths, ...(crcs ? {crcs} : {})})
  if (Buffer.byteLength(json) >= HEADER) throw new Error('index header too long')
  const header = Buffer.alloc(HEADER, 0x20)
  header.write(json)
  header[HEADER - 1] = 0x0a
  const parts = [header, idBytes]
  if (stampBytes) parts.push(stampBytes)
  parts.push(...endBytes)
  for (const blob of blobs) for (const part of blob) parts.push(part)
  return Buffer.concat(parts)
}

/** One column as read: the texts' blob and where each ends in it. */
export interface ColumnData {
  bytes: Buffer
  ends: Float64Array
  separator: number
}

export interface IndexFile {
  header: IndexHeader
  /** true when the parts read matched their checksums: they are as their writer wrote them, and need no walk. */
  checksummed: boolean
  ids: Float64Array
  /** null when the file has none or they were not asked for. */
  stamps: Float64Array | null
  columns: Partial<Record<Column, ColumnData>>
}

/**
 * Reads the header, the ids, the stamps when `stamps`, and the columns asked
 * for (those the file has; `wanted` may choose them by the header), each part
 * by its offset; 'vanished' when there is no such file, a string saying why
 * when the file is unreadable or does not hold together.
 */
export function readIndexFile(file: string, wanted: readonly Column[] | ((header: IndexHeader) => readonly Column[]), stamps = true): IndexFile | 'vanished' | string {
  let fd: number
  try {
    fd = retryOnBusySync(() => openSync(file, fsc.O_RDONLY | NOFOLLOW))
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'vanished' : `cannot be read: ${(error as Error).message}`
  }
  try {
    return readOpen(fd, fstatSync(fd).size, wanted, stamps)
  } catch (error) {
    return `cannot be read: ${(error as Error).message}`
  } finally {
    closeSync(fd)
  }
}

const isCount = (n: unknown): n is number => Number.isSafeInteger(n) && (n as number) >= 0

function readOpen(fd: number, size: number, wanting: readonly Column[] | ((header: IndexHeader) => readonly Column[]), withStamps: boolean): IndexFile | string {
  if (size < HEADER) return 'shorter than its header'
  const head = readAt(fd, 0, HEADER)
  if (head[HEADER - 1] !== 0x0a) return 'no header'
  let header: IndexHeader
  try {
    header = JSON.parse(head.toString('utf8')) as IndexHeader
  } catch {
    return 'its header does not parse'
  }
  if (typeof header !== 'object' || header === null || header.index !== INDEX_FORMAT) return `unknown format ${JSON.stringify(header?.index)}`
  const {count, columns, blobs} = header
  if (!isCount(count) || !isCount(header.highWater) || !Array.isArray(columns) || !Array.isArray(blobs) || columns.length !== blobs.length) return 'its header is incomplete'
  if (!columns.every((c) => (COLUMNS as readonly string[]).includes(c)) || !blobs.every(isCount)) return 'its header names an unknown column'
  const stampWidth = header.stamped ? STAMP_FIELDS : 0
  const numbersAt = HEADER
  const blobsAt = numbersAt + count * 8 * (1 + stampWidth + columns.length)
  if (size !== blobsAt + blobs.reduce((a, b) => a + b, 0)) return `${size} bytes where its header says ${blobsAt + blobs.reduce((a, b) => a + b, 0)}`
  const crcs = header.crcs
  if (crcs !== undefined && !(Array.isArray(crcs) && crcs.length === 2 + columns.length && crcs.every((c, k) => (k >= 2 && c === null) || (Number.isInteger(c) && c >= 0 && c <= 0xffffffff)))) return 'its header has bad checksums'
  const crc = crcs === undefined ? null : crc32()
  const sums = crc ? (crcs as number[]) : null
  const bytesOf = (a: Float64Array) => new Uint8Array(a.buffer, a.byteOffset, a.byteLength)
  const ids = float64sAt(fd, numbersAt, count)
  if (sums) {
    if (crc!(bytesOf(ids)) !== sums[0]) return 'its ids fail their checksum'
    // as written, so ascending whole numbers: only the last can be above the high water the header says
    if (count > 0 && (!(ids[0] >= 1) || !(ids[count - 1] <= header.highWater))) return `id ${ids[count - 1]} out of order or above its high water`
  } else {
    for (let k = 0; k < count; k++) {
      const id = ids[k]
      if (!Number.isSafeInteger(id) || id < 1 || (k > 0 && id <= ids[k - 1]) || id > header.highWater) return `id ${id} out of order or above its high water`
    }
  }
  const wanted = typeof wanting === 'function' ? wanting(header) : wanting
  const stamps = header.stamped && withStamps ? float64sAt(fd, numbersAt + count * 8, count * STAMP_FIELDS) : null
  if (stamps && sums && crc!(bytesOf(stamps)) !== sums[1]) return 'its stamps fail their checksum'
  const got: Partial<Record<Column, ColumnData>> = {}
  let blobAt = blobsAt
  columns.forEach((column, c) => {
    const length = blobs[c]
    if (wanted.includes(column)) {
      const ends = float64sAt(fd, numbersAt + count * 8 * (1 + stampWidth + c), count)
      const bytes = readAt(fd, blobAt, length)
      const data = {bytes, ends, separator: SEPARATOR[column]}
      // A column of short texts (names) is checked by its sum; one of long texts (records, views, rows)
      // by its walk, which reads a byte per text where the sum reads them all: each is the cheaper there.
      const summed = sums !== null && sums[2 + c] !== null && summedColumn(length, count)
      if (summed ? crc!(bytes, crc!(bytesOf(ends))) !== sums![2 + c] : !holdsTogether(data, count)) throw new Error(`its ${column} column ${summed ? 'fails its checksum' : 'does not hold together'}`)
      got[column] = data
    }
    blobAt += length
  })
  return {header, checksummed: sums !== null, ids, stamps, columns: got}
}

/** Ends in order, within the blob, the last at its end, a separator between two texts. */
function holdsTogether({bytes, ends, separator}: ColumnData, count: number): boolean {
  let start = 0
  for (let k = 0; k < count; k++) {
    const end = ends[k]
    if (!Number.isSafeInteger(end) || end < start || end > bytes.length || (k + 1 < count && bytes[end] !== separator)) return false
    start = end + 1
  }
  return count === 0 ? bytes.length === 0 : ends[count - 1] === bytes.length
}

/** Where text `k` of a column starts (it ends at ends[k]). */
export const textStart = (column: ColumnData, k: number) => (k === 0 ? 0 : column.ends[k - 1] + 1)

/** `length` bytes of an open file from `at`; throws when the file ends before them. */
export function readAt(fd: number, at: number, length: number): Buffer {
  // its own memory, aligned for the float64s cut out of it
  const b = Buffer.allocUnsafeSlow(length)
  let got = 0
  while (got < length) {
    const n = readSync(fd, b, got, length - got, at + got)
    if (n === 0) throw new Error('cut short while read')
    got += n
  }
  return b
}

const float64sAt = (fd: number, at: number, n: number) => {
  const b = readAt(fd, at, n * 8)
  return new Float64Array(b.buffer, b.byteOffset, n)
}
