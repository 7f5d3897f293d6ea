// Damage to the files of the derived index (<state>/index/, the format of
// src/state/index-format.ts) done byte by byte, as a disk, a copy or a hand
// would leave it: a part of a segment altered in place — its ids, a column's
// texts or ends, its stamps, its header — and the kept listing of tasks/ or
// its journal of starts cut short or reordered. Each damage is one a reader's
// checks must notice (the segment, or the listing, is put aside, or the one
// entry is): none may change what `list --json` shows (invariants.ts, `list`).
// A segment altered so that no check could tell — another record under the
// same stamp — would be a forgery, not damage, and is not made here.

import {closeSync, copyFileSync, ftruncateSync, openSync, readdirSync, readFileSync, renameSync, truncateSync, writeFileSync, writeSync} from 'node:fs'
import path from 'node:path'
import {indexRender} from '../../src/api/row-cells.js'
import {packIndexFile, STAMP_FIELDS} from '../../src/state/index-format.js'
import type {Rng} from './rng.js'

/** The header's length: that of a packed file with nothing in it, as drover writes one. */
const HEADER = packIndexFile({kind: 'segment', highWater: 0}, [], null, {}).length
const SEGMENT = /^seg-\d{12}$/

export const indexDir = (stateDir: string) => path.join(stateDir, 'index')

/** The segments' names, ascending by seq (a name holds its seq padded to 12 digits). */
export function segmentNames(stateDir: string): string[] {
  try {
    return readdirSync(indexDir(stateDir))
      .filter((name) => SEGMENT.test(name))
      .sort()
  } catch {
    return []
  }
}

/** The ids handed out so far: the largest line of last-id. */
export function highWater(stateDir: string): number {
  try {
    return Math.max(0, ...readFileSync(path.join(stateDir, 'last-id'), 'utf8').split('\n').map((line) => Number(line.trim()) || 0))
  } catch {
    return 0
  }
}

interface Header {
  highWater: number
  count: number
  stamped: boolean
  columns: string[]
  blobs: number[]
  render?: string
  [field: string]: unknown
}

/** Where each part of a packed file is, read independently of drover's reader; null when it is not whole. */
interface Layout {
  header: Header
  count: number
  idsAt: number
  stampsAt: number
  /** per column: where its ends and its blob begin. */
  endsAt: number[]
  blobAt: number[]
}

function layoutOf(bytes: Buffer): Layout | null {
  if (bytes.length < HEADER || bytes[HEADER - 1] !== 0x0a) return null
  let header: Header
  try {
    header = JSON.parse(bytes.toString('utf8', 0, HEADER)) as Header
  } catch {
    return null
  }
  const {count, columns, blobs, stamped} = header
  if (!Number.isSafeInteger(count) || !Array.isArray(columns) || !Array.isArray(blobs) || columns.length !== blobs.length) return null
  const idsAt = HEADER
  const stampsAt = idsAt + count * 8
  const endsStart = stampsAt + (stamped ? count * 8 * STAMP_FIELDS : 0)
  const endsAt = columns.map((_, c) => endsStart + c * count * 8)
  let at = endsStart + columns.length * count * 8
  const blobAt = blobs.map((length) => (at += length) - length)
  return at === bytes.length ? {header, count, idsAt, stampsAt, endsAt, blobAt} : null
}

/** The header line as drover pads it; null when the altered header no longer fits. */
function headerBytes(header: Header): Buffer | null {
  const json = JSON.stringify(header)
  if (Buffer.byteLength(json) >= HEADER) return null
  const bytes = Buffer.alloc(HEADER, 0x20)
  bytes.write(json)
  bytes[HEADER - 1] = 0x0a
  return bytes
}

const withHeader = (bytes: Buffer, header: Header) => {
  const head = headerBytes(header)
  return head && Buffer.concat([head, bytes.subarray(HEADER)])
}

const ids = (bytes: Buffer, layout: Layout) => Array.from({length: layout.count}, (_, k) => bytes.readDoubleLE(layout.idsAt + 8 * k))

function swapRanges(bytes: Buffer, a: number, b: number, length: number): void {
  const first = Buffer.from(bytes.subarray(a, a + length))
  bytes.copy(bytes, a, b, b + length)
  first.copy(bytes, b)
}

/** Writes over an existing file only: one a compaction removed meanwhile is not brought back. */
function overwrite(file: string, bytes: Buffer): boolean {
  let fd: number
  try {
    fd = openSync(file, 'r+')
  } catch {
    return false
  }
  try {
    writeSync(fd, bytes, 0, bytes.length, 0)
    ftruncateSync(fd, bytes.length)
    return true
  } catch {
    return false // a full disk
  } finally {
    closeSync(fd)
  }
}

type Damage = {bytes: Buffer; says: string} | null

/** Two neighbouring ids exchanged: out of order, so the file must be put aside. */
function swapIds(rng: Rng, bytes: Buffer, layout: Layout): Damage {
  if (layout.count < 2) return null
  const k = rng.int(0, layout.count - 2)
  swapRanges(bytes, layout.idsAt + 8 * k, layout.idsAt + 8 * (k + 1), 8)
  return {bytes, says: `ids ${k + 1} and ${k + 2} of ${layout.count} exchanged`}
}

/**
 * One id turned into that of another task in tasks/ the segment does not
 * hold, still in order and under its high water: the entry's texts and stamp
 * now claim a task they are not of (its stamp, view and record say so).
 */
function renumber(rng: Rng, bytes: Buffer, layout: Layout, stateDir: string): Damage {
  const held = ids(bytes, layout)
  const heldSet = new Set(held)
  let others: number[]
  try {
    others = readdirSync(path.join(stateDir, 'tasks'))
      .filter((name) => /^[1-9]\d*$/.test(name))
      .map(Number)
      .filter((id) => !heldSet.has(id) && id <= layout.header.highWater)
  } catch {
    return null
  }
  if (others.length === 0 || held.length === 0) return null
  const other = rng.pick(others)
  const above = held.findIndex((id) => id > other)
  // the entry just below it or just above it: either keeps the ids in order
  const neighbours = [above === -1 ? held.length - 1 : above - 1, above].filter((k) => k >= 0)
  const k = rng.pick(neighbours)
  bytes.writeDoubleLE(other, layout.idsAt + 8 * k)
  return {bytes, says: `id ${held[k]} renumbered ${other} (a task it does not hold)`}
}

/** Two neighbouring entries' texts of a checked column exchanged, their ends moved to match: each text is another task's. */
function swapTexts(rng: Rng, bytes: Buffer, layout: Layout): Damage {
  const {header, count} = layout
  const columns = header.columns.map((name, c) => ({name, c})).filter(({name}) => name === 'record' || name === 'view' || name === 'row')
  if (count < 2 || columns.length === 0) return null
  const {name, c} = rng.pick(columns)
  const k = rng.int(0, count - 2)
  const end = (j: number) => bytes.readDoubleLE(layout.endsAt[c] + 8 * j)
  const start = k === 0 ? 0 : end(k - 1) + 1
  const middle = end(k)
  const last = end(k + 1)
  const blob = layout.blobAt[c]
  const first = Buffer.from(bytes.subarray(blob + start, blob + middle))
  const second = Buffer.from(bytes.subarray(blob + middle + 1, blob + last))
  if (first.equals(second)) return null
  const separator = bytes[blob + middle]
  Buffer.concat([second, Buffer.from([separator]), first]).copy(bytes, blob + start)
  bytes.writeDoubleLE(start + second.length, layout.endsAt[c] + 8 * k)
  return {bytes, says: `${name} texts of entries ${k + 1} and ${k + 2} exchanged`}
}

/** A column's blob cut short at its end, its length in the header lowered to match: the file's size agrees, its ends do not. */
function cutBlob(rng: Rng, bytes: Buffer, layout: Layout): Damage {
  const {header} = layout
  const columns = header.columns.map((name, c) => ({name, c})).filter(({c}) => header.blobs[c] > 0)
  if (columns.length === 0) return null
  const {name, c} = rng.pick(columns)
  const cut = rng.int(1, header.blobs[c])
  const end = layout.blobAt[c] + header.blobs[c]
  const blobs = header.blobs.map((length, j) => (j === c ? length - cut : length))
  const rest = withHeader(Buffer.concat([bytes.subarray(0, end - cut), bytes.subarray(end)]), {...header, blobs})
  return rest && {bytes: rest, says: `${name} blob cut by ${cut} of ${header.blobs[c]} bytes, the header's length lowered to match`}
}

/** Two neighbouring columns' blob lengths in the header shifted by a few bytes, their sum kept: each blob starts or ends in the other. */
function shiftBlobLengths(rng: Rng, bytes: Buffer, layout: Layout): Damage {
  const {header} = layout
  if (header.columns.length < 2) return null
  const c = rng.int(0, header.columns.length - 2)
  const toLater = rng.chance(0.5)
  const from = toLater ? c : c + 1
  if (header.blobs[from] === 0) return null
  const shift = rng.int(1, Math.min(16, header.blobs[from]))
  const blobs = header.blobs.map((length, j) => (j === from ? length - shift : j === (toLater ? c + 1 : c) ? length + shift : length))
  const altered = withHeader(bytes, {...header, blobs})
  return altered && {bytes: altered, says: `the header's blob lengths of ${header.columns[c]} and ${header.columns[c + 1]} shifted by ${shift} bytes`}
}

/**
 * The header's renderer another version's, or none: its views and rows are
 * not to be used, and the next full reader makes them anew. A segment a fold
 * wrote without a renderer (no views, no rows) is made to claim the reader's:
 * its empty texts must still read as none.
 */
function alterRender(rng: Rng, bytes: Buffer, layout: Layout): Damage {
  const {render, ...rest} = layout.header
  const other = render === undefined ? indexRender.version : rng.chance(0.5) ? undefined : `${render}.old`
  const altered = withHeader(bytes, other === undefined ? rest : {...rest, render: other})
  return altered && {bytes: altered, says: `the header's render version ${render ?? 'none'} made ${other ?? 'none'}`}
}

/** The header's high water beyond the ids handed out, as a copy from another state dir would have. */
function futureHighWater(rng: Rng, bytes: Buffer, layout: Layout, stateDir: string): Damage {
  const high = highWater(stateDir) + 1_000_000 + rng.int(0, 1000)
  const altered = withHeader(bytes, {...layout.header, highWater: high})
  return altered && {bytes: altered, says: `the header's high water ${high} (ids up to ${highWater(stateDir)})`}
}

/** Two neighbouring entries' stamps exchanged, or one's zeroed: neither entry may be taken for its task.json now. */
function damageStamps(rng: Rng, bytes: Buffer, layout: Layout): Damage {
  if (!layout.header.stamped || layout.count === 0) return null
  const width = 8 * STAMP_FIELDS
  if (layout.count >= 2 && rng.chance(0.5)) {
    const k = rng.int(0, layout.count - 2)
    swapRanges(bytes, layout.stampsAt + width * k, layout.stampsAt + width * (k + 1), width)
    return {bytes, says: `stamps of entries ${k + 1} and ${k + 2} exchanged`}
  }
  const k = rng.int(0, layout.count - 1)
  bytes.fill(0, layout.stampsAt + width * k, layout.stampsAt + width * (k + 1))
  return {bytes, says: `stamp of entry ${k + 1} zeroed`}
}

/**
 * A whole segment damaged in one of its parts (replacing the sidecars'
 * damage of the summary before it): its ids, a column, its stamps or its
 * header — or its bytes replaced by another segment's.
 */
export function damageColumn(stateDir: string, rng: Rng): string | null {
  const names = segmentNames(stateDir)
  if (names.length === 0) return null
  const name = rng.pick(names)
  const file = path.join(indexDir(stateDir), name)
  const how = rng.weighted({'swap-ids': 1, renumber: 1, 'swap-texts': 1, 'cut-blob': 2, 'blob-length': 1, render: 1, 'high-water': 1, replace: 1, stamps: 1})
  let bytes: Buffer
  try {
    bytes = readFileSync(file)
  } catch {
    return null // merged away meanwhile
  }
  let damage: Damage
  if (how === 'replace') {
    const others = names.filter((other) => other !== name)
    if (others.length === 0) return null
    const other = rng.pick(others)
    try {
      damage = {bytes: readFileSync(path.join(indexDir(stateDir), other)), says: `replaced by ${other}`}
    } catch {
      return null
    }
  } else {
    const layout = layoutOf(bytes)
    if (!layout) return null // cut short by an earlier fault, or being written
    if (how === 'swap-ids') damage = swapIds(rng, bytes, layout)
    else if (how === 'renumber') damage = renumber(rng, bytes, layout, stateDir)
    else if (how === 'swap-texts') damage = swapTexts(rng, bytes, layout)
    else if (how === 'cut-blob') damage = cutBlob(rng, bytes, layout)
    else if (how === 'blob-length') damage = shiftBlobLengths(rng, bytes, layout)
    else if (how === 'render') damage = alterRender(rng, bytes, layout)
    else if (how === 'high-water') damage = futureHighWater(rng, bytes, layout, stateDir)
    else damage = damageStamps(rng, bytes, layout)
  }
  if (!damage || !overwrite(file, damage.bytes)) return null
  return `damage-column ${name}: ${damage.says}`
}

/**
 * The kept listing of tasks/ (index/listing) or its journal of starts
 * (index/journal) damaged: every damage of the journal must read as a break
 * in its chain, and a listing that does not hold together must be listed anew.
 */
export function damageJournal(stateDir: string, rng: Rng): string | null {
  const file = path.join(indexDir(stateDir), 'journal')
  const how = rng.weighted({cut: 2, swap: 1, repeat: 1, copy: 1, listing: 1})
  if (how === 'listing') return damageListing(stateDir, rng)
  try {
    const text = readFileSync(file, 'utf8')
    const lines = text.split('\n').filter(Boolean)
    if (how === 'cut') {
      if (text.length === 0) return null
      const length = rng.int(0, text.length - 1)
      truncateSync(file, length)
      return `damage-journal: cut to ${length} of ${text.length} bytes`
    }
    if (how === 'copy') {
      // the same lines in another file (another identity): not the journal the kept listing names
      copyFileSync(file, `${file}.copy`)
      renameSync(`${file}.copy`, file)
      return `damage-journal: copied to a new file (${lines.length} lines)`
    }
    if (lines.length < (how === 'swap' ? 2 : 1)) return null
    const k = rng.int(0, lines.length - (how === 'swap' ? 2 : 1))
    if (how === 'swap') [lines[k], lines[k + 1]] = [lines[k + 1], lines[k]]
    else lines.splice(k + 1, 0, lines[k])
    writeFileSync(file, lines.map((line) => `${line}\n`).join(''))
    return `damage-journal: line ${k + 1} of ${lines.length} ${how === 'swap' ? 'swapped with the next' : 'repeated'}`
  } catch {
    return null // no kept listing yet, or replaced meanwhile
  }
}

/** The kept listing cut short, or two of its ids exchanged (out of order). */
function damageListing(stateDir: string, rng: Rng): string | null {
  const file = path.join(indexDir(stateDir), 'listing')
  let bytes: Buffer
  try {
    bytes = readFileSync(file)
  } catch {
    return null // none kept
  }
  const layout = layoutOf(bytes)
  if (layout && layout.count >= 2 && rng.chance(0.5)) {
    const swapped = swapIds(rng, bytes, layout)
    return swapped && overwrite(file, swapped.bytes) ? `damage-journal: the kept listing's ${swapped.says}` : null
  }
  const length = rng.int(0, Math.max(0, bytes.length - 1))
  try {
    truncateSync(file, length)
  } catch {
    return null
  }
  return `damage-journal: the kept listing cut to ${length} of ${bytes.length} bytes`
}
