// State dirs whose ended tasks are in the derived index (index/), segments
// written by hand as a fold would write them, and the damage done to them:
// what the tests of the index's files start from and harm.

import {readdirSync, readFileSync, writeFileSync} from 'node:fs'
import path from 'node:path'
import {expect} from 'vitest'
import {indexRender} from '../../src/api/row-cells.js'
import {indexDir, liveDir} from '../../src/state/layout.js'
import {HEADER, packIndexFile, STAMP_FIELDS} from '../../src/state/index-format.js'
import {recordStamp, segmentName, type IndexRenderer} from '../../src/state/index.js'
import type {TaskRecord} from '../../src/state/record.js'
import {ensureStateDir} from '../../src/state/statedir.js'
import {readRecord} from '../../src/state/store.js'
import {loadRecentTasks} from '../../src/tasks/read.js'
import {makeTask} from '../fixtures/prune-state.js'
import {makeStateDir} from './cli.js'

export function record(dir: string, id: number): TaskRecord {
  const read = readRecord(dir, id)
  if (!read.ok) throw new Error(read.error)
  return read.record
}

/** `n` failed tasks, each record written by drover's writeRecord (so each has a hint). */
export function stateWith(n: number, dir = makeStateDir()): {dir: string; ids: number[]} {
  ensureStateDir(dir)
  return {dir, ids: Array.from({length: n}, () => makeTask(dir, {status: 'failed'}))}
}

/** `n` ended tasks folded into the index as the API's default list does (with its renderer). */
export async function endedTasks(n: number, dir = makeStateDir()): Promise<{dir: string; ids: number[]}> {
  const made = stateWith(n, dir)
  await loadRecentTasks(dir, 0, {render: indexRender})
  expect(readdirSync(liveDir(dir))).toEqual([])
  return made
}

export const hints = (dir: string) => readdirSync(liveDir(dir)).map(Number).sort((a, b) => a - b)
export const segFile = (dir: string, seq = 1) => path.join(indexDir(dir), segmentName(seq))
export const segNames = (dir: string) => readdirSync(indexDir(dir)).filter((n) => n.startsWith('seg-') || n.startsWith('.seg-')).sort()

/**
 * Writes segment `seq` of `records` as a fold would (ascending ids), each
 * stamped with its task.json as it is now, so a reader takes the entries;
 * with `render`, the view and row columns too.
 */
export function writeSeg(dir: string, seq: number, highWater: number, records: TaskRecord[], render?: IndexRenderer): void {
  const stamps = new Float64Array(records.length * STAMP_FIELDS)
  records.forEach((r, k) => stamps.set(recordStamp(dir, r.id) ?? [0, 0, 0], k * STAMP_FIELDS))
  const views = render ? records.map((r) => render.view(r)) : undefined
  const columns = {
    record: records.map((r) => JSON.stringify(r)),
    view: views,
    row: views?.map((v) => (v ? render!.row(Buffer.from(v))!.join('\t') : null)),
    name: records.map((r) => r.name),
  }
  const head = {kind: 'segment' as const, seq, highWater, ...(render ? {render: render.version} : {})}
  writeFileSync(segFile(dir, seq), packIndexFile(head, records.map((r) => r.id), stamps, columns))
}

/** Rewrites a packed file's header (a line of JSON padded to HEADER bytes) through `edit`, its length kept. */
export function editHeader(file: string, edit: (header: Record<string, unknown>) => void): void {
  const bytes = readFileSync(file)
  const header = JSON.parse(bytes.toString('utf8', 0, HEADER)) as Record<string, unknown>
  edit(header)
  const line = Buffer.alloc(HEADER, 0x20)
  line.write(JSON.stringify(header))
  line[HEADER - 1] = 0x0a
  line.copy(bytes)
  writeFileSync(file, bytes)
}

/** `from` replaced by `to` (of the same length) at its last place in `b`: the last column holding it. */
export function replaceLast(b: Buffer, from: string, to: string): Buffer {
  const at = b.lastIndexOf(from)
  expect(at, from).toBeGreaterThanOrEqual(0)
  const copy = Buffer.from(b)
  copy.write(to, at, 'latin1')
  return copy
}

/** Harms done to a packed file: its first two ids swapped (out of order), or cut short. */
export const damaged = {
  idsSwapped(b: Buffer): Buffer {
    const copy = Buffer.from(b)
    b.copy(copy, HEADER, HEADER + 8, HEADER + 16)
    b.copy(copy, HEADER + 8, HEADER, HEADER + 8)
    return copy
  },
  cut: (b: Buffer, bytes = 10) => b.subarray(0, b.length - bytes),
}
