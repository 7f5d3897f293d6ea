// The one format of the files in index/, on real files: what is packed is
// what is read, part by part, and any file that does not hold together —
// cut short at any byte, a header damaged, ids out of order or above the
// high water, ends out of order, no separator between two texts — is
// refused with a reason instead of read.

import {readFileSync, writeFileSync} from 'node:fs'
import path from 'node:path'
import {afterEach, describe, expect, it} from 'vitest'
import {CHECKSUM_FROM, HEADER, INDEX_FORMAT, packIndexFile, readIndexFile, stampOf, STAMP_FIELDS, textStart, type ColumnData} from '../../src/state/index-format.js'
import {cleanupStateDirs, makeTempDir} from '../helpers/cli.js'
import {damaged, editHeader} from '../helpers/index-state.js'

let scratch: string | null = null
afterEach(() => {
  cleanupStateDirs()
  scratch = null
})

const ids = [3, 7, 12]
const stamps = Float64Array.from([1, 2, 3, 4, 5, 6, 7, 8, 9])
const columns = {
  record: ['{"id":3}', '{"id":7,"name":"naïve — ü"}', '{"id":12}'],
  view: ['{"id":3,"a":1}', null, '{"id":12,"c":"é"}'],
  name: ['build', null, 'naïve — ü'],
}
const good = packIndexFile({kind: 'segment', highWater: 12, seq: 4, render: 'r1'}, ids, stamps, columns)

/** Where column `c`'s ends lie (count 3, stamped): after the ids, the stamps and the ends before it. */
const endsAt = (c: number) => HEADER + 3 * 8 * (1 + STAMP_FIELDS + c)
const texts = (data: ColumnData) => [...data.ends].map((end, k) => data.bytes.toString('utf8', textStart(data, k), end))

let files = 0
function fileOf(bytes: Buffer): string {
  const file = path.join((scratch ??= makeTempDir('drover-index-')), `seg-${++files}`)
  writeFileSync(file, bytes)
  return file
}
const read = (bytes: Buffer, wanted = ['record', 'view', 'name'] as const) => readIndexFile(fileOf(bytes), wanted)
function edited(edit: (header: Record<string, unknown>) => void): Buffer {
  const file = fileOf(good)
  editHeader(file, edit)
  return readFileSync(file)
}

describe('the index file format', () => {
  it('reads back what was packed: header, ids, stamps, each column by itself, an empty text as none', () => {
    const got = read(good)
    if (typeof got === 'string') throw new Error(got)
    expect(got.header).toMatchObject({index: INDEX_FORMAT, kind: 'segment', highWater: 12, seq: 4, render: 'r1', count: 3, stamped: true, columns: ['record', 'view', 'name']})
    expect([...got.ids]).toEqual(ids)
    expect([...got.stamps!]).toEqual([...stamps])
    expect(texts(got.columns.record!)).toEqual(columns.record)
    expect(texts(got.columns.view!)).toEqual(['{"id":3,"a":1}', '', '{"id":12,"c":"é"}'])
    expect(texts(got.columns.name!)).toEqual(['build', '', 'naïve — ü'])
    // the views' blob is a JSON array's inside: commas between
    expect(got.columns.view!.bytes.toString()).toBe('{"id":3,"a":1},,{"id":12,"c":"é"}')
    // only the parts asked for: the names alone, no stamps
    const names = readIndexFile(fileOf(good), ['name', 'row'], false)
    if (typeof names === 'string') throw new Error(names)
    expect(Object.keys(names.columns)).toEqual(['name'])
    expect(names.stamps).toBeNull()
    expect(texts(names.columns.name!)).toEqual(['build', '', 'naïve — ü'])
  })

  it('packs a file of no ids, and one without stamps', () => {
    const empty = read(packIndexFile({kind: 'segment', highWater: 0}, [], null, {record: [], name: []}))
    expect(empty).toMatchObject({ids: new Float64Array(0), stamps: null, header: {count: 0, stamped: false}})
    const unstamped = read(packIndexFile({kind: 'listing', highWater: 9}, [1, 9], null, {}))
    expect(unstamped).toMatchObject({stamps: null, columns: {}, header: {kind: 'listing', stamped: false, columns: [], blobs: []}})
    expect(() => packIndexFile({kind: 'segment', highWater: 1, pad: 'x'.repeat(HEADER)}, [], null, {})).toThrow(/header too long/)
  })

  it('packs 200,000 texts (as many as a segment of 100,000 tasks holds in two columns)', () => {
    const ids = Array.from({length: 100_000}, (_, k) => k + 1)
    const packed = read(packIndexFile({kind: 'segment', highWater: 100_000}, ids, null, {row: ids.map(String), name: ids.map((id) => `t${id}`)}))
    expect(packed.header.count).toBe(100_000)
    expect(texts(packed.columns.name!).at(-1)).toBe('t100000')
  })

  it('is refused cut short at every length, or with a byte more', () => {
    for (let cut = 1; cut <= good.length; cut++) expect(typeof read(damaged.cut(good, cut)), `cut ${cut}`).toBe('string')
    expect(read(Buffer.concat([good, Buffer.from('\n')]))).toMatch(/bytes where its header says/)
    expect(readIndexFile(path.join(makeTempDir('drover-index-'), 'none'), ['name'])).toBe('vanished')
  })

  it('is refused with a damaged header', () => {
    const raw = (f: (b: Buffer) => void) => {
      const b = Buffer.from(good)
      f(b)
      return b
    }
    expect(read(raw((b) => (b[HEADER - 1] = 0x20)))).toBe('no header')
    expect(read(raw((b) => (b[0] = 0x78)))).toBe('its header does not parse')
    expect(read(edited((h) => (h.index = INDEX_FORMAT + 1)))).toBe(`unknown format ${INDEX_FORMAT + 1}`)
    // format 1's header was 256 bytes: such a file is not read (the next full reader writes the index anew)
    expect(read(edited((h) => (h.index = 1)))).toBe('unknown format 1')
    expect(read(edited((h) => delete h.count))).toBe('its header is incomplete')
    expect(read(edited((h) => (h.highWater = -1)))).toBe('its header is incomplete')
    expect(read(edited((h) => (h.blobs = (h.blobs as number[]).slice(1))))).toBe('its header is incomplete')
    expect(read(edited((h) => (h.columns = ['record', 'view', 'label'])))).toBe('its header names an unknown column')
    // lengths that disagree with the file's size
    expect(read(edited((h) => (h.count = 2)))).toMatch(/bytes where its header says/)
    expect(read(edited((h) => (h.stamped = false)))).toMatch(/bytes where its header says/)
    expect(read(edited((h) => ((h.blobs as number[])[0] += 1)))).toMatch(/bytes where its header says/)
    // blob lengths moved between two columns: the size holds, the columns do not
    const moved = edited((h) => {
      const blobs = h.blobs as number[]
      blobs[0] += 1
      blobs[2] -= 1
    })
    expect(read(moved)).toMatch(/does not hold together/)
  })

  it('is refused with ids out of order, repeated, not whole, or above its high water', () => {
    const idAt = (k: number, id: number) => {
      const b = Buffer.from(good)
      b.writeDoubleLE(id, HEADER + 8 * k)
      return b
    }
    expect(read(damaged.idsSwapped(good))).toBe('id 3 out of order or above its high water')
    expect(read(idAt(1, 3))).toMatch(/out of order/)
    expect(read(idAt(0, 0))).toMatch(/out of order/)
    expect(read(idAt(1, 7.5))).toMatch(/out of order/)
    expect(read(idAt(2, 13))).toBe('id 13 out of order or above its high water')
    expect(read(edited((h) => (h.highWater = 11)))).toMatch(/above its high water/)
  })

  it('is refused when a column read does not hold together: ends out of order, no separator, a last end short of its blob', () => {
    const endsSwapped = (c: number) => {
      const b = Buffer.from(good)
      b.copy(b, endsAt(c), endsAt(c) + 8, endsAt(c) + 16)
      good.copy(b, endsAt(c) + 8, endsAt(c), endsAt(c) + 8)
      return b
    }
    expect(read(endsSwapped(0))).toMatch(/its record column does not hold together/)
    const viewBlob = good.indexOf('{"id":3,"a":1},,')
    const noComma = Buffer.from(good)
    noComma[viewBlob + '{"id":3,"a":1}'.length] = 0x20
    expect(read(noComma)).toMatch(/its view column does not hold together/)
    const noNewline = Buffer.from(good)
    noNewline[good.lastIndexOf('build\n') + 5] = 0x20
    expect(read(noNewline)).toMatch(/its name column does not hold together/)
    const short = Buffer.from(good)
    short.writeDoubleLE(good.readDoubleLE(endsAt(2) + 16) - 1, endsAt(2) + 16)
    expect(read(short)).toMatch(/its name column does not hold together/)
    // read by offset: a column not asked for is neither read nor checked
    expect(readIndexFile(fileOf(endsSwapped(0)), ['name'])).toMatchObject({ids: Float64Array.from(ids)})
  })

  describe('a big file, with checksums (CHECKSUM_FROM entries or more)', () => {
    const n = CHECKSUM_FROM
    const bigIds = Array.from({length: n}, (_, k) => 2 * k + 1)
    const bigStamps = Float64Array.from({length: n * STAMP_FIELDS}, (_, k) => k)
    const big = packIndexFile({kind: 'segment', highWater: 2 * n, seq: 1}, bigIds, bigStamps, {
      record: bigIds.map((id) => `{"id":${id},"text":"${'x'.repeat(40)}"}`),
      view: bigIds.map((id) => `{"id":${id},"v":"${'y'.repeat(40)}"}`),
      name: bigIds.map((id) => `t${id}`),
    })
    const header = (b: Buffer) => JSON.parse(b.toString('utf8', 0, HEADER)) as {crcs?: number[]; blobs: number[]}
    const bigRead = (bytes: Buffer, wanted: readonly ('record' | 'view' | 'name')[] = ['record', 'view', 'name']) => readIndexFile(fileOf(bytes), wanted)
    /** `b` with the byte at `at` changed. */
    const flipped = (b: Buffer, at: number) => {
      const copy = Buffer.from(b)
      copy[at] ^= 0x01
      return copy
    }
    const blobAt = (c: number) => HEADER + n * 8 * (1 + STAMP_FIELDS + 3) + header(big).blobs.slice(0, c).reduce((a, b) => a + b, 0)

    it('carries one for the ids, the stamps and each column, and reads back as packed, the parts checked instead of walked', () => {
      expect(header(big).crcs).toHaveLength(5)
      const got = bigRead(big)
      if (typeof got === 'string') throw new Error(got)
      expect(got.checksummed).toBe(true)
      expect([...got.ids]).toEqual(bigIds)
      expect(texts(got.columns.name!).at(-1)).toBe(`t${bigIds.at(-1)}`)
      // a small file has none, and is walked
      expect(header(good).crcs).toBeUndefined()
      expect(read(good)).toMatchObject({checksummed: false})
    })

    it('is refused when the ids, the stamps or a column of short texts differ by one bit from what was written', () => {
      expect(bigRead(damaged.idsSwapped(big))).toBe('its ids fail their checksum')
      expect(bigRead(flipped(big, HEADER + n * 8 + 3))).toBe('its stamps fail their checksum')
      // an end of the names column, and a byte of its blob
      expect(bigRead(flipped(big, HEADER + n * 8 * (1 + STAMP_FIELDS + 2) + 5))).toMatch(/its name column fails its checksum/)
      expect(bigRead(flipped(big, blobAt(2) + 2))).toMatch(/its name column fails its checksum/)
      // a reader of the records alone reads none of the damaged names column
      expect(bigRead(flipped(big, blobAt(2) + 2), ['record'])).toMatchObject({checksummed: true})
    })

    it('walks a column of long texts as a small file is walked: an end out of order is found', () => {
      const endOfView = HEADER + n * 8 * (1 + STAMP_FIELDS + 1)
      const swapped = Buffer.from(big)
      big.copy(swapped, endOfView, endOfView + 8, endOfView + 16)
      big.copy(swapped, endOfView + 8, endOfView, endOfView + 8)
      expect(bigRead(swapped)).toMatch(/its view column does not hold together/)
    })

    it('is still held to its high water and its header, whose checksums must be numbers', () => {
      const file = fileOf(big)
      editHeader(file, (h) => (h.highWater = 2 * n - 2))
      expect(readIndexFile(file, [])).toBe(`id ${2 * n - 1} out of order or above its high water`)
      const bad = fileOf(big)
      editHeader(bad, (h) => ((h.crcs as unknown[])[0] = 'x'))
      expect(readIndexFile(bad, [])).toBe('its header has bad checksums')
    })
  })

  it('stamps a task.json by identity, size and change time in microseconds', () => {
    expect(stampOf({ino: 2 ** 60 + 5, size: 812, ctimeMs: 1700000000123.4567})).toEqual([(2 ** 60 + 5) % 1e15, 812, 1700000000123457])
  })
})
