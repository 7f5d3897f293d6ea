// The views sidecar beside each summary segment, on real state dirs: made by
// the first reader of views, then read in the segment's place only while the
// segment keeps its stamp and the sidecar holds together; `list --json`
// written from it is the same bytes as every record rendered; a hinted task
// is read from its record; sidecars of merged segments go.

import {existsSync, readFileSync, writeFileSync} from 'node:fs'
import path from 'node:path'
import {afterEach, describe, expect, it} from 'vitest'
import {openStateDir} from '../../src/api/index.js'
import {storedViews} from '../../src/api/task-json.js'
import {liveDir, summaryDir} from '../../src/state/layout.js'
import {markLive} from '../../src/state/live-index.js'
import {readRecord, writeRecord} from '../../src/state/store.js'
import {currentHighWater, listSegments} from '../../src/state/summary.js'
import {decodeEntry} from '../../src/state/summary-codec.js'
import {loadSummaryViews} from '../../src/state/view-index.js'
import {isEntry, loadTaskViews} from '../../src/tasks/read.js'
import {cleanupStateDirs} from '../helpers/cli.js'
import {damaged, eachDamage, editSidecarHeader, endedTasks, sidecarFileOf, sidecarsOf} from '../helpers/summary-state.js'

afterEach(() => cleanupStateDirs())

const ended = endedTasks
const sidecars = (dir: string) => sidecarsOf(dir, 'views')
const sidecarFile = (dir: string, seq = 1) => sidecarFileOf(dir, 'views', seq)

/** `list --json` as the CLI writes it, and what JSON.stringify makes of every task read from its record. */
async function listJsonBoth(dir: string): Promise<{written: string; fromRecords: string}> {
  const drover = await openStateDir(dir)
  const chunks: Buffer[] = []
  await drover.listJson({}, (chunk) => chunks.push(Buffer.from(chunk)))
  // --show-env reads every record (these tasks have no env or credentials to mask, so it shows what list shows)
  const fromRecords = JSON.stringify(await drover.list({showEnv: true}))
  return {written: Buffer.concat(chunks).toString('utf8'), fromRecords}
}

const editHeader = (dir: string, edit: (header: Record<string, unknown>) => void) => editSidecarHeader(sidecarFile(dir), edit)

/** The views the reader took from the summary, by id (a record read is not among them). */
async function viewsTaken(dir: string): Promise<Map<number, string>> {
  const taken = new Map<number, string>()
  for (const item of await loadTaskViews(dir, storedViews)) if (isEntry(item)) taken.set(item.id, item.bytes.toString('utf8', item.viewStart, item.viewEnd))
  return taken
}

describe('the views sidecar of the summary', () => {
  it('is made beside a segment by the first reader of views, then read in its place', async () => {
    const {dir, ids} = await ended(5)
    expect(sidecars(dir)).toEqual([])
    const first = await listJsonBoth(dir)
    expect(sidecars(dir)).toEqual(['seg-000000000001.views'])
    expect(first.written).toBe(first.fromRecords)
    // What is read is the sidecar: a name changed in it (same length, no drover writer would) shows.
    const file = sidecarFile(dir)
    const before = readFileSync(file, 'latin1')
    writeFileSync(file, before.replace(`"name":"job${ids[2]}"`, `"name":"JOB${ids[2]}"`), 'latin1')
    expect((await viewsTaken(dir)).get(ids[2])).toContain(`"name":"JOB${ids[2]}"`)
    // Its entries carry views only: there is no record to decode, so a reader of records reads task.json.
    const summary = loadSummaryViews(dir, currentHighWater(dir, ids), storedViews)
    expect(summary.ok).toBe(true)
    expect(summary.entries.size).toBe(5)
    expect(decodeEntry(summary.entries.get(ids[0])!)).toBe(null)
  })

  it('is made again when its segment changed stamp, or the views are of another version', async () => {
    const {dir, ids} = await ended(3)
    await listJsonBoth(dir)
    const file = sidecarFile(dir)
    const good = readFileSync(file)
    writeFileSync(file, readFileSync(file, 'latin1').replace(`"name":"job${ids[0]}"`, `"name":"JOB${ids[0]}"`), 'latin1')
    editHeader(dir, (header) => (header.stamp = '0:0:0'))
    const again = await listJsonBoth(dir)
    expect(again.written).toBe(again.fromRecords)
    expect(readFileSync(file)).toEqual(good)
    editHeader(dir, (header) => (header.views = storedViews.version + 1))
    expect((await viewsTaken(dir)).size).toBe(3)
    expect(readFileSync(file)).toEqual(good)
  })

  it('is not used when it does not hold together: truncated, a view of another task, no comma between two, ids out of order', async () => {
    const {dir, ids} = await ended(4)
    await listJsonBoth(dir)
    const file = sidecarFile(dir)
    const good = readFileSync(file)
    const damage: [string, (b: Buffer) => Buffer][] = [
      ['truncated', (b) => damaged.cut(b)],
      ['another task', (b) => Buffer.from(b.toString('latin1').replace(`{"id":${ids[1]},`, `{"id":${ids[3]},`), 'latin1')],
      ['no comma', (b) => Buffer.from(b.toString('latin1').replace(`},{"id":${ids[2]},`, `} {"id":${ids[2]},`), 'latin1')],
      ['ids out of order', (b) => damaged.idsSwapped(b, ids[0], ids[1])],
    ]
    await eachDamage(file, good, damage, async (what) => {
      const listed = await listJsonBoth(dir)
      expect(listed.written, what).toBe(listed.fromRecords)
      expect(JSON.parse(listed.written).map((task: {id: number}) => task.id), what).toEqual(ids)
      expect(readFileSync(file).equals(good), what).toBe(true) // made again from the segment
    })
  })

  it('from the future (a high water above the ids handed out) puts the summary aside: every record is read', async () => {
    const {dir, ids} = await ended(3)
    await listJsonBoth(dir)
    editHeader(dir, (header) => (header.highWater = 999_999))
    const summary = loadSummaryViews(dir, currentHighWater(dir, ids), storedViews)
    expect(summary.ok).toBe(false)
    expect(summary.error).toContain('from the future')
    const listed = await listJsonBoth(dir)
    expect(listed.written).toBe(listed.fromRecords)
  })

  it('speaks for no hinted task: a record rewritten behind its hint is read, amid views written as one slice', async () => {
    const {dir, ids} = await ended(6)
    await listJsonBoth(dir)
    markLive(dir, ids[3])
    const read = readRecord(dir, ids[3])
    if (!read.ok) throw new Error(read.error)
    writeRecord(dir, {...read.record, name: 'renamed'})
    // Read from its record — and, ended, folded by that very read: the next read takes it from the summary, as it is now.
    expect((await viewsTaken(dir)).has(ids[3])).toBe(false)
    expect(existsSync(path.join(liveDir(dir), String(ids[3])))).toBe(false)
    const listed = await listJsonBoth(dir)
    expect(listed.written).toBe(listed.fromRecords)
    expect(JSON.parse(listed.written)[3].name).toBe('renamed')
    expect((await viewsTaken(dir)).get(ids[3])).toContain('"name":"renamed"')
  })

  it('holds no view for a record the renderer cannot store, whose record is then read', async () => {
    const {dir, ids} = await ended(3)
    const picky = {version: 999, render: (record: Parameters<typeof storedViews.render>[0]) => (record.id === ids[1] ? null : storedViews.render(record))}
    const summary = loadSummaryViews(dir, currentHighWater(dir, ids), picky)
    expect(summary.ok).toBe(true)
    expect(summary.entries.get(ids[1])!.viewStart).toBe(-1)
    expect(summary.entries.get(ids[0])!.viewStart).toBeGreaterThanOrEqual(0)
    const items = await loadTaskViews(dir, picky)
    expect(items.map((item) => [item.id, isEntry(item)])).toEqual([
      [ids[0], true],
      [ids[1], false],
      [ids[2], true],
    ])
  })

  it('of a segment merged away is removed', async () => {
    const {dir} = await ended(2)
    await listJsonBoth(dir)
    await ended(2, dir)
    expect(listSegments(dir).seqs).toEqual([1, 2])
    writeFileSync(path.join(summaryDir(dir), 'seg-000000000007.views'), 'left by a segment since merged\n')
    const listed = await listJsonBoth(dir)
    expect(listed.written).toBe(listed.fromRecords)
    expect(sidecars(dir)).toEqual(['seg-000000000001.views', 'seg-000000000002.views'])
  })
})
