// The rows sidecar beside each summary segment, on real state dirs: made by
// the first reader of rows from the segment's views, then read in their place
// only while the segment keeps its stamp, the versions agree and the sidecar
// holds together; a segment with a row that cannot be made from a view alone
// (or a cell with a tab) gets none; the table drawn from rows is the table
// drawn from every record; sidecars of merged segments go.

import {readFileSync, writeFileSync} from 'node:fs'
import path from 'node:path'
import {afterEach, describe, expect, it} from 'vitest'
import {openStateDir} from '../../src/api/index.js'
import {storedRows} from '../../src/api/row-cells.js'
import {storedViews} from '../../src/api/task-json.js'
import {renderTaskTable, TaskTable} from '../../src/cli/render/list-view.js'
import {summaryDir} from '../../src/state/layout.js'
import {isRowLine, loadSummaryRows, rowCells, type RowRenderer} from '../../src/state/row-index.js'
import {readRecord, writeRecord} from '../../src/state/store.js'
import {currentHighWater, listSegments} from '../../src/state/summary.js'
import {isEntry, loadTaskRows} from '../../src/tasks/read.js'
import {cleanupStateDirs} from '../helpers/cli.js'
import {damaged, eachDamage, editSidecarHeader, endedTasks, sidecarFileOf, sidecarsOf} from '../helpers/summary-state.js'

afterEach(() => cleanupStateDirs())

const ended = endedTasks
const sidecars = (dir: string) => sidecarsOf(dir, 'rows')
const sidecarFile = (dir: string, seq = 1) => sidecarFileOf(dir, 'rows', seq)

/** `list --all` as the CLI draws it (rows), and the same table drawn from every task read from its record. */
async function tablesBoth(dir: string): Promise<{drawn: string; fromRecords: string}> {
  const drover = await openStateDir(dir)
  const table = new TaskTable({color: false, width: undefined})
  await drover.eachRowCells({}, (cells) => table.addCells(cells))
  return {drawn: table.render(), fromRecords: renderTaskTable(await drover.list({showEnv: true}), {color: false, width: undefined})}
}

/** The rows the reader took from rows sidecars, by id. */
async function rowsTaken(dir: string): Promise<Map<number, string[]>> {
  const taken = new Map<number, string[]>()
  for (const item of await loadTaskRows(dir, storedRows)) if (isEntry(item) && isRowLine(item)) taken.set(item.id, rowCells(item))
  return taken
}

const editHeader = (dir: string, edit: (header: Record<string, unknown>) => void) => editSidecarHeader(sidecarFile(dir), edit)

describe('the rows sidecar of the summary', () => {
  it('is made beside a segment by the first reader of rows, then read in place of the views', async () => {
    const {dir, ids} = await ended(5)
    expect(sidecars(dir)).toEqual([])
    const first = await tablesBoth(dir)
    expect(sidecars(dir)).toEqual(['seg-000000000001.rows'])
    expect(first.drawn).toBe(first.fromRecords)
    expect(first.drawn.split('\n')).toHaveLength(6)
    // What is read is the sidecar: a name changed in it (same length, no drover writer would) shows.
    const file = sidecarFile(dir)
    writeFileSync(file, readFileSync(file, 'latin1').replace(`\tjob${ids[2]}\t`, `\tJOB${ids[2]}\t`), 'latin1')
    expect((await rowsTaken(dir)).get(ids[2])?.[1]).toBe(`JOB${ids[2]}`)
    const summary = loadSummaryRows(dir, currentHighWater(dir, ids), storedRows)
    expect(summary.ok).toBe(true)
    expect([...summary.entries.values()].every(isRowLine)).toBe(true)
  })

  it('is made again when its segment changed stamp, or the rows or views are of another version', async () => {
    const {dir, ids} = await ended(3)
    await tablesBoth(dir)
    const file = sidecarFile(dir)
    const good = readFileSync(file)
    for (const edit of [(h: Record<string, unknown>) => (h.stamp = '0:0:0'), (h: Record<string, unknown>) => (h.rows = storedRows.version + 1), (h: Record<string, unknown>) => (h.views = storedViews.version + 1)]) {
      writeFileSync(file, readFileSync(file, 'latin1').replace(`\tjob${ids[0]}\t`, `\tJOB${ids[0]}\t`), 'latin1')
      editHeader(dir, edit)
      const again = await tablesBoth(dir)
      expect(again.drawn).toBe(again.fromRecords)
      expect(readFileSync(file)).toEqual(good)
    }
  })

  it('is not used when it does not hold together, and a line of another task is not taken for this one', async () => {
    const {dir, ids} = await ended(4)
    await tablesBoth(dir)
    const file = sidecarFile(dir)
    const good = readFileSync(file)
    // made again from the views, but for a sidecar that holds together with a line of another task in it: that task's record is read
    const damage: [string, (b: Buffer) => Buffer][] = [
      ['truncated', (b) => damaged.cut(b)],
      ['ids out of order', (b) => damaged.idsSwapped(b, ids[0], ids[1])],
      ['no newline between two', (b) => Buffer.from(b.toString('latin1').replace(`\n${ids[2]}\t`, ` ${ids[2]}\t`), 'latin1')],
      ['another task', (b) => Buffer.from(b.toString('latin1').replace(`\n${ids[2]}\t`, `\n${ids[3]}\t`), 'latin1')],
    ]
    await eachDamage(file, good, damage, async (what) => {
      const drawn = await tablesBoth(dir)
      expect(drawn.drawn, what).toBe(drawn.fromRecords)
      expect(readFileSync(file).equals(good), what).toBe(what !== 'another task')
    })
  })

  it('is not made for a segment with a row that cannot come from a view alone, or with a tab in a cell: its views are used', async () => {
    const {dir, ids} = await ended(3)
    const picky: RowRenderer = {...storedRows, render: (entry) => (entry.id === ids[1] ? null : storedRows.render(entry))}
    const summary = loadSummaryRows(dir, currentHighWater(dir, ids), picky)
    expect(summary.ok).toBe(true)
    expect([...summary.entries.values()].some(isRowLine)).toBe(false)
    expect(sidecars(dir)).toEqual([])
    const tabbed: RowRenderer = {...storedRows, render: (entry) => storedRows.render(entry)?.map((cell, k) => (k === 1 && entry.id === ids[2] ? 'a\tb' : cell)) ?? null}
    expect([...loadSummaryRows(dir, currentHighWater(dir, ids), tabbed).entries.values()].some(isRowLine)).toBe(false)
    expect(sidecars(dir)).toEqual([])
    // what the table draws is what the records say
    const both = await tablesBoth(dir)
    expect(both.drawn).toBe(both.fromRecords)
  })

  it('speaks for no hinted task, and of a segment merged away is removed', async () => {
    const {dir, ids} = await ended(3)
    await tablesBoth(dir)
    const read = readRecord(dir, ids[1])
    if (!read.ok) throw new Error(read.error)
    const {markLive} = await import('../../src/state/live-index.js')
    markLive(dir, ids[1])
    writeRecord(dir, {...read.record, name: 'renamed'})
    // Read from its record — and, ended, folded by that very read: the next read takes it from the summary, as it is now.
    expect((await rowsTaken(dir)).has(ids[1])).toBe(false)
    const both = await tablesBoth(dir)
    expect(both.drawn).toBe(both.fromRecords)
    expect(both.drawn).toContain('renamed')
    expect((await rowsTaken(dir)).get(ids[1])).toContain('renamed')
    await ended(2, dir)
    expect(listSegments(dir).seqs.length).toBeGreaterThan(1)
    writeFileSync(path.join(summaryDir(dir), 'seg-000000000009.rows'), 'left by a segment since merged\n')
    await tablesBoth(dir)
    expect(sidecars(dir)).toEqual(listSegments(dir).seqs.map((seq) => `seg-${String(seq).padStart(12, '0')}.rows`))
  })
})
