// The derived index's segments on real state dirs: the protocol that keeps
// them from ever showing a record other than the one on disk — hints made
// before every record write, entries used only while their task.json keeps
// its stamp, folds that remove a hint only after its record is in a renamed
// segment, builders that never remove one, the whole index put aside when a
// segment fails a check (its finder removes them all) — and the columns each reader takes: the views of
// `list --json`, the rows of the table, the names of a lookup.

import {spawn} from 'node:child_process'
import {appendFileSync, cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, truncateSync, writeFileSync} from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import {afterEach, describe, expect, it} from 'vitest'
import {openStateDir} from '../../src/api/index.js'
import {indexRender, rowCells} from '../../src/api/row-cells.js'
import {renderTaskTable, TaskTable} from '../../src/cli/render/list-view.js'
import {processStartTime} from '../../src/platform/platform.js'
import {HEADER} from '../../src/state/index-format.js'
import {
  BUILD_MIN,
  COMPACT_ABOVE,
  currentHighWater,
  decodeEntry,
  indexLockPath,
  indexNames,
  listSegments,
  loadIndex,
  planTaskReads,
  renderedText,
  textOf,
  type IndexRenderer,
} from '../../src/state/index.js'
import {indexDir, liveDir} from '../../src/state/layout.js'
import {ensureLiveIndex, markLive} from '../../src/state/live-index.js'
import {acquireLock} from '../../src/state/lock.js'
import {findTask} from '../../src/tasks/lookup.js'
import {ensureStateDir} from '../../src/state/statedir.js'
import {allocateTaskId, readHighWater, tasksDir, writeRecord} from '../../src/state/store.js'
import {isEntry, loadRecentTasks, loadTasks, loadTaskViews} from '../../src/tasks/read.js'
import {makeTask} from '../fixtures/prune-state.js'
import {cleanupStateDirs, fixture, makeStateDir, waitFor} from '../helpers/cli.js'
import {damaged, editHeader, endedTasks, hints, record, replaceLast, segFile, segNames, stateWith, writeSeg} from '../helpers/index-state.js'
import {childrenKilledAfterEach} from '../helpers/sleepers.js'
import {underWine} from '../helpers/skips.js'
// @ts-expect-error -- a plain ES module of the benchmarks, without types
import {makeEndedTasks} from '../../bench/lib/make-tasks.mjs'

afterEach(() => cleanupStateDirs())
// registered after the clean-up, so run before it, as the kill came first
const children = childrenKilledAfterEach()

const segments = (dir: string) => listSegments(dir).seqs
const taskFile = (dir: string, id: number) => path.join(tasksDir(dir), String(id), 'task.json')
const loaded = (dir: string, ids: number[]) => loadIndex(dir, currentHighWater(dir, ids), ['record'])
/** What reading every record says, and what loadTasks shows. */
const truth = (dir: string, ids: number[]) => ids.map((id) => ({id, name: record(dir, id).name, status: record(dir, id).status}))
const shown = async (dir: string) => (await loadTasks(dir)).map((r) => ({id: r.id, name: r.ok ? r.record.name : r.error, status: r.ok ? r.record.status : 'corrupt'}))
/** Folds every hint of a task done with, as the default list does. */
const fold = (dir: string) => loadRecentTasks(dir, 0)
const found = (dir: string, name: string) => {
  try {
    return findTask(dir, name).id
  } catch {
    return null
  }
}

describe('reading through the index', () => {
  it('a full reader that read many unindexed records leaves them in a segment; a record changed by hand since is read as it is now', async () => {
    const {dir, ids} = stateWith(BUILD_MIN + 4)
    rmSync(liveDir(dir), {recursive: true})
    mkdirSync(liveDir(dir)) // no hints: as a state dir whose tasks ended before the index
    writeFileSync(path.join(indexDir(dir), '.seg-000000000009.1-dead.tmp'), 'a writer killed before its rename')
    expect(await shown(dir)).toEqual(truth(dir, ids))
    expect(segNames(dir)).toEqual(['seg-000000000001'])
    expect([...loaded(dir, ids).entries].map(([id]) => id)).toEqual(ids)
    const plan = planTaskReads(dir, Float64Array.from(ids))
    expect(ids.every((id) => plan.entryFor(id) !== undefined)).toBe(true)
    // No write, so no hint: the stamp its entry names no longer holds, whether the size, the file or only the change time moved.
    writeFileSync(taskFile(dir, ids[0]), '{')
    const text = readFileSync(taskFile(dir, ids[1]), 'utf8')
    writeFileSync(`${taskFile(dir, ids[1])}.new`, text.replace(`"job${ids[1]}"`, `"JOB${ids[1]}"`))
    renameSync(`${taskFile(dir, ids[1])}.new`, taskFile(dir, ids[1]))
    await new Promise((r) => setTimeout(r, 30))
    writeFileSync(taskFile(dir, ids[2]), readFileSync(taskFile(dir, ids[2]), 'utf8').replace(`"job${ids[2]}"`, `"JOB${ids[2]}"`))
    const now = await shown(dir)
    expect(now[0]).toMatchObject({id: ids[0], status: 'corrupt'})
    expect(now.slice(1, 3).map((t) => t.name)).toEqual([`JOB${ids[1]}`, `JOB${ids[2]}`])
    expect(now.slice(3)).toEqual(truth(dir, ids.slice(3)))
  })

  it('a state dir without a live index gets no index (its first record write makes the live index)', async () => {
    const {dir, ids} = stateWith(BUILD_MIN + 2)
    rmSync(liveDir(dir), {recursive: true})
    expect(await shown(dir)).toEqual(truth(dir, ids))
    expect(segments(dir)).toEqual([])
    writeRecord(dir, record(dir, ids[0]))
    expect(hints(dir)).toEqual([ids[0]]) // made from runner.json files (none here), then the write's own hint
    await shown(dir)
    // the builder's segment, then the fold of the hint of the task it read ended
    expect(segments(dir)).toEqual([1, 2])
    expect(hints(dir)).toEqual([])
  })

  it('rule 1: a record rewritten after it was indexed is what readers show, and the newer segment wins once folded', async () => {
    const {dir, ids} = stateWith(10)
    await fold(dir)
    expect(hints(dir)).toEqual([])
    expect(loaded(dir, ids).entries.size).toBe(10)
    writeRecord(dir, {...record(dir, ids[3]), name: 'renamed', status: 'succeeded', exitCode: 0})
    expect(hints(dir)).toEqual([ids[3]])
    expect((await shown(dir))[3]).toEqual({id: ids[3], name: 'renamed', status: 'succeeded'})
    expect(found(dir, 'renamed')).toBe(ids[3])
    await fold(dir)
    expect([hints(dir), segments(dir)]).toEqual([[], [1, 2]])
    expect(await shown(dir)).toEqual(truth(dir, ids))
    expect(found(dir, 'renamed')).toBe(ids[3])
    expect(found(dir, `job${ids[3]}`)).toBe(null) // the older entry's name is no longer its task's
  })

  it('a hinted id is read from its record, whatever its entry says; the newest seq wins for an id', async () => {
    const {dir, ids} = stateWith(4)
    await fold(dir)
    // As a crash between a fold's segment and its unlink, then a write: an entry that disagrees, under a hint.
    writeSeg(dir, 2, 4, [{...record(dir, ids[1]), name: 'stale'}])
    writeFileSync(path.join(liveDir(dir), String(ids[1])), '')
    expect(await shown(dir)).toEqual(truth(dir, ids))
    expect(found(dir, 'stale')).toBe(null)
    writeSeg(dir, 5, 4, [{...record(dir, ids[0]), name: 'five'}])
    writeSeg(dir, 3, 4, [{...record(dir, ids[0]), name: 'three'}])
    expect(decodeEntry(loaded(dir, ids).entries.get(ids[0])!)!.name).toBe('five')
  })

  it('a compaction merges many segments, or mostly superseded ones, into one: every entry still usable, those of pruned ids dropped', async () => {
    const {dir, ids} = stateWith(6)
    await fold(dir)
    rmSync(path.join(tasksDir(dir), String(ids[0])), {recursive: true})
    expect((await shown(dir)).map((t) => t.id)).toEqual(ids.slice(1))
    for (let seq = 2; seq <= COMPACT_ABOVE + 1; seq++) writeSeg(dir, seq, 6, [])
    expect((await shown(dir)).map((t) => t.id)).toEqual(ids.slice(1)) // compacts: more than COMPACT_ABOVE segments
    expect(segments(dir)).toEqual([COMPACT_ABOVE + 2])
    expect([...loaded(dir, ids).entries].map(([id]) => id)).toEqual(ids.slice(1))
    const plan = planTaskReads(dir, Float64Array.from(ids.slice(1)))
    expect(ids.slice(1).every((id) => plan.entryFor(id) !== undefined)).toBe(true) // stamps carried over
    // most entries of tasks removed since (prune): compacted again
    for (const id of ids.slice(1, 4)) rmSync(path.join(tasksDir(dir), String(id)), {recursive: true})
    expect((await shown(dir)).map((t) => t.id)).toEqual(ids.slice(4))
    expect(segments(dir)).toEqual([COMPACT_ABOVE + 3])
    expect(loaded(dir, ids)).toMatchObject({ok: true, lines: 2})
  })

  for (const [fault, damage] of [
    ['truncated', (file: string) => truncateSync(file, readFileSync(file).length - 5)],
    ['with a wrong count', (file: string) => editHeader(file, (h) => (h.count = 99))],
    ['of an unknown format', (file: string) => editHeader(file, (h) => (h.index = 9))],
    ['with its ids swapped', (file: string) => writeFileSync(file, damaged.idsSwapped(readFileSync(file)))],
    ['named for another seq', (file: string) => editHeader(file, (h) => (h.seq = 7))],
  ] as const) {
    it(`a segment ${fault} puts the whole index away, and the next lock holder rebuilds it`, async () => {
      const {dir, ids} = stateWith(BUILD_MIN + 2)
      await fold(dir)
      // A newer segment saying something else of every task: it must not be used once any segment fails.
      writeSeg(dir, 2, ids.length, ids.map((id) => ({...record(dir, id), name: 'wrong'})))
      damage(segFile(dir, 1))
      expect(loaded(dir, ids)).toMatchObject({ok: false, error: expect.stringMatching(/^seg-000000000001/)})
      // its finder put every segment away: no reader, of whatever column, can take the newer one's word now
      expect(segments(dir)).toEqual([])
      const release = await acquireLock(indexLockPath(dir), {waitMs: 0})
      expect(await shown(dir)).toEqual(truth(dir, ids)) // lock busy: every record read, nothing rebuilt
      expect(segments(dir)).toEqual([])
      release()
      expect(await shown(dir)).toEqual(truth(dir, ids))
      expect(segments(dir)).toEqual([1]) // rebuilt from the records by the next lock holder
      expect(loaded(dir, ids)).toMatchObject({ok: true, lines: ids.length})
      expect(await shown(dir)).toEqual(truth(dir, ids))
    })
  }

  it('a segment from the future (high water above the ids handed out) puts the index aside', async () => {
    const {dir, ids} = stateWith(3)
    await fold(dir)
    writeSeg(dir, 2, readHighWater(dir) + 1000, ids.map((id) => ({...record(dir, id), name: 'future'})))
    expect(loaded(dir, ids)).toMatchObject({ok: false, error: expect.stringMatching(/from the future/)})
    expect(indexNames(dir, ids)).toBe(null)
    expect(found(dir, 'future')).toBe(null)
    expect(await shown(dir)).toEqual(truth(dir, ids))
  })

  it('a segment from the future that the ids catch up with never answers for a task folder a start left empty', async () => {
    const {dir, ids} = stateWith(3)
    await fold(dir)
    const high = readHighWater(dir)
    // Entries for the next three ids, under a high water those ids reach: the cheap check cannot tell.
    writeSeg(dir, 2, high + 3, ids.map((id, k) => ({...record(dir, id), id: high + k + 1, name: 'forged'})))
    // A start killed right after taking its id leaves an empty folder: its hint came first.
    for (let k = 0; k < 3; k++) expect(allocateTaskId(dir)).toBe(high + k + 1)
    expect(hints(dir)).toEqual(expect.arrayContaining([high + 1, high + 2, high + 3]))
    expect(await shown(dir)).toEqual(truth(dir, ids))
    expect(found(dir, 'forged')).toBe(null)
  })

  it("a crash between a fold's segment and its hint unlink leaves every reader right, and the next fold finishes it", async () => {
    const {dir, ids} = stateWith(3)
    writeSeg(dir, 1, 3, [record(dir, ids[0])]) // the fold's steps by hand, stopping where a SIGKILL would
    expect(hints(dir)).toEqual(ids)
    expect(await shown(dir)).toEqual(truth(dir, ids))
    writeRecord(dir, {...record(dir, ids[0]), status: 'succeeded', exitCode: 0, name: 'again'})
    expect(await shown(dir)).toEqual(truth(dir, ids))
    await fold(dir)
    expect(hints(dir)).toEqual([])
    expect(await shown(dir)).toEqual(truth(dir, ids))
    expect(found(dir, 'again')).toBe(ids[0])
  })

  it('a fold skips a busy index or task lock, keeps the hints of tasks not done with, and removes those of tasks gone', async () => {
    const dir = makeStateDir()
    ensureStateDir(dir)
    const child = spawn(process.execPath, [fixture('sleeper.mjs'), '120'], {stdio: 'ignore'})
    children.push(child)
    await waitFor(() => processStartTime(child.pid!) !== null, {message: 'sleeper up'})
    const running = makeTask(dir, {status: 'running', runnerPid: child.pid})
    const lost = makeTask(dir, {status: 'lost'}) // lost while meant to run: waits for resume --interrupted
    const ended = makeTask(dir, {status: 'failed'})
    const busy = makeTask(dir, {status: 'failed'})
    appendFileSync(path.join(liveDir(dir), '999'), '') // a task pruned since
    const indexLock = await acquireLock(indexLockPath(dir), {waitMs: 0})
    await fold(dir)
    expect(hints(dir)).toEqual([running, lost, ended, busy, 999])
    indexLock()
    const taskLock = await acquireLock(path.join(dir, 'locks', `task-${busy}.lock`), {waitMs: 0})
    await fold(dir)
    expect(hints(dir)).toEqual([running, lost, busy])
    expect([...loadIndex(dir, 10, ['record']).entries].map(([id]) => id)).toEqual([ended])
    taskLock()
    await fold(dir)
    expect(hints(dir)).toEqual([running, lost])
  })

  it('a live index made again while an index exists hints every task', async () => {
    const {dir, ids} = stateWith(3)
    await fold(dir)
    writeRecord(dir, {...record(dir, ids[2]), name: 'changed'})
    rmSync(liveDir(dir), {recursive: true}) // the hint of the changed record goes with it
    expect((await shown(dir))[2].name).toBe('changed') // no live index: no entry is used
    ensureLiveIndex(dir)
    expect(hints(dir)).toEqual(ids)
    expect((await shown(dir))[2].name).toBe('changed')
  })
})

/** `list --json` as the CLI writes it and `list --all`'s table as drawn from rows (or only one of them), and both made from every record read. */
async function listedBoth(dir: string, only?: 'view' | 'row'): Promise<{json?: string; jsonFromRecords: string; table?: string; tableFromRecords: string}> {
  const drover = await openStateDir(dir)
  const chunks: Buffer[] = []
  if (only !== 'row') await drover.listJson({}, (chunk) => chunks.push(Buffer.from(chunk)))
  const table = new TaskTable({color: false, width: undefined})
  if (only !== 'view') await drover.eachRowCells({}, (cells) => table.addCells(cells))
  // --show-env reads every record (these tasks have no env or credentials to mask, so it shows what list shows)
  const tasks = await drover.list({showEnv: true})
  return {
    json: only === 'row' ? undefined : Buffer.concat(chunks).toString('utf8'),
    jsonFromRecords: JSON.stringify(tasks),
    table: only === 'view' ? undefined : table.render(),
    tableFromRecords: renderTaskTable(tasks, {color: false, width: undefined}),
  }
}
const expectSame = (both: Awaited<ReturnType<typeof listedBoth>>) => {
  expect([both.json ?? both.jsonFromRecords, both.table ?? both.tableFromRecords]).toEqual([both.jsonFromRecords, both.tableFromRecords])
}

/** The views, then the row cells, readers took from the index, by id (a record read is not among them). */
async function taken(dir: string): Promise<{views: Map<number, string>; rows: Map<number, string[] | null>}> {
  const views = new Map<number, string>()
  const rows = new Map<number, string[] | null>()
  for (const item of await loadTaskViews(dir, indexRender)) if (isEntry(item)) views.set(item.id, textOf(item, 'view')!.toString())
  for (const item of await loadTaskViews(dir, indexRender, true)) if (isEntry(item)) rows.set(item.id, rowCells(item))
  return {views, rows}
}

describe('the view and row columns', () => {
  it('are made by the fold with the API renderer, and read in place of the records', async () => {
    const {dir, ids} = await endedTasks(5)
    expectSame(await listedBoth(dir))
    // What is read is the columns: a name changed in them (same length, no drover writer would) shows.
    writeFileSync(segFile(dir), replaceLast(replaceLast(readFileSync(segFile(dir)), `"name":"job${ids[2]}"`, `"name":"JOB${ids[2]}"`), `\tjob${ids[2]}\t`, `\tJOB${ids[2]}\t`))
    const {views, rows} = await taken(dir)
    expect(views.get(ids[2])).toContain(`"name":"JOB${ids[2]}"`)
    expect(rows.get(ids[2])?.[1]).toBe(`JOB${ids[2]}`)
    expect(decodeEntry(loaded(dir, ids).entries.get(ids[2])!)!.name).toBe(`job${ids[2]}`) // the record column untouched
  })

  it('rule 6: columns of another renderer version are rendered from the record column, and a full reader makes them anew', async () => {
    const {dir, ids} = await endedTasks(3)
    const good = readFileSync(segFile(dir))
    writeFileSync(segFile(dir), replaceLast(good, `"name":"job${ids[0]}"`, `"name":"JOB${ids[0]}"`))
    editHeader(segFile(dir), (h) => (h.render = 'old'))
    expect(renderedText(loadIndex(dir, currentHighWater(dir, ids), ['view'], 'old').entries.get(ids[0])!, 'view', indexRender.version)).toBe(null)
    expectSame(await listedBoth(dir))
    expect(segNames(dir)).toEqual(['seg-000000000002'])
    expect(JSON.parse(readFileSync(segFile(dir, 2)).toString('utf8', 0, HEADER))).toMatchObject({render: indexRender.version})
    expect((await taken(dir)).views.get(ids[0])).toContain(`"name":"job${ids[0]}"`)
    // and a segment folded without a renderer gets its columns the same way
    const more = stateWith(2, dir)
    await fold(dir)
    expect(segments(dir)).toEqual([2, 3])
    expect((await taken(dir)).views.size).toBe(3) // its two read from their records...
    expect(segments(dir)).toEqual([2, 4]) // ...and made anew alone, under a newer seq
    expect([...(await taken(dir)).views.keys()]).toEqual([...ids, ...more.ids])
  })

  it('speak for no hinted task: a record rewritten behind its hint is read, amid views written as slices', async () => {
    const {dir, ids} = await endedTasks(6)
    markLive(dir, ids[3])
    writeRecord(dir, {...record(dir, ids[3]), name: 'renamed'})
    // Read from its record — and, ended, folded by that very read: the next read takes it from the index, as it is now.
    const before = await taken(dir)
    expect([before.views.has(ids[3]), before.views.size]).toEqual([false, 5])
    expect(existsSync(path.join(liveDir(dir), String(ids[3])))).toBe(false)
    const both = await listedBoth(dir)
    expectSame(both)
    expect(JSON.parse(both.json!)[3].name).toBe('renamed')
    expect((await taken(dir)).rows.get(ids[3])?.[1]).toBe('renamed')
  })

  for (const [what, column, harm] of [
    ['truncated', 'view', (b) => damaged.cut(b)],
    ['with ids out of order', 'row', (b) => damaged.idsSwapped(b)],
    ['with a view of another task', 'view', (b, ids) => replaceLast(b, `{"id":${ids[1]},`, `{"id":${ids[3]},`)],
    ['with no comma between two views', 'view', (b, ids) => replaceLast(b, `},{"id":${ids[2]},`, `} {"id":${ids[2]},`)],
    ['with no newline between two rows', 'row', (b, ids) => replaceLast(b, `\n${ids[2]}\t`, ` ${ids[2]}\t`)],
  ] as [string, 'view' | 'row', (b: Buffer, ids: number[]) => Buffer][]) {
    it(`of a segment ${what} are not used, and the first reader of its ${column}s puts the index away; the next builder rebuilds it`, async () => {
      const {dir, ids} = await endedTasks(BUILD_MIN)
      writeFileSync(segFile(dir), harm(readFileSync(segFile(dir)), ids))
      expect(loadIndex(dir, currentHighWater(dir, ids), [column], indexRender.version).ok).toBe(false)
      expect(segNames(dir)).toEqual([]) // put away by its finder
      const both = await listedBoth(dir, column)
      expectSame(both)
      expect(segNames(dir)).toEqual(['seg-000000000001']) // rebuilt from the records
      expectSame(await listedBoth(dir))
      expect((await taken(dir)).views.size).toBe(BUILD_MIN)
    })
  }

  it('are put away with the index when a reader of another column finds that one damaged', async () => {
    const {dir, ids} = await endedTasks(3)
    writeFileSync(segFile(dir), replaceLast(readFileSync(segFile(dir)), `\njob${ids[1]}\n`, ` job${ids[1]}\n`))
    expect((await taken(dir)).views.size).toBe(3) // the views hold together: a reader of them alone uses them
    expect(indexNames(dir, ids)).toBe(null) // a name lookup finds its column damaged...
    expect(segNames(dir)).toEqual([]) // ...and takes every segment away, so no reader uses this one again
    expect((await taken(dir)).views.size).toBe(0)
    expectSame(await listedBoth(dir))
  })

  it('of another task in a row that holds together: that row is drawn from its record', async () => {
    const {dir, ids} = await endedTasks(4)
    writeFileSync(segFile(dir), replaceLast(readFileSync(segFile(dir)), `\n${ids[2]}\t`, `\n${ids[3]}\t`))
    expect((await taken(dir)).rows.get(ids[2])?.[0]).toBe(String(ids[3]))
    expectSame(await listedBoth(dir))
  })

  it('hold no view for a record the renderer cannot store, nor a row it cannot make or whose cell holds a tab', async () => {
    const {dir, ids} = stateWith(4)
    const picky: IndexRenderer = {
      version: indexRender.version,
      view: (r) => (r.id === ids[1] ? null : indexRender.view(r)),
      row: (view) => {
        const cells = indexRender.row(view)
        const id = cells?.[0]
        return id === String(ids[2]) ? null : id === String(ids[3]) ? cells!.map((c, k) => (k === 1 ? 'a\tb' : c)) : cells
      },
    }
    await loadRecentTasks(dir, 0, {render: picky})
    expect(hints(dir)).toEqual([])
    const {views, rows} = await taken(dir)
    expect([...views.keys()]).toEqual([ids[0], ids[2], ids[3]]) // the viewless one is read from its record
    expect([...rows].map(([id, cells]) => [id, cells?.[0]])).toEqual([[ids[0], String(ids[0])]]) // the rowless ones too
    expectSame(await listedBoth(dir))
  })
})

describe('name lookups through the index', () => {
  /** Ended tasks named as given (null: no name), each written by drover's writeRecord, then folded. */
  async function named(names: (string | null)[], dir = makeStateDir()): Promise<{dir: string; ids: number[]}> {
    const {ids} = stateWith(names.length, dir)
    ids.forEach((id, k) => writeRecord(dir, {...record(dir, id), name: names[k]}))
    await loadRecentTasks(dir, 0, {render: indexRender})
    expect(hints(dir)).toEqual([])
    return {dir, ids}
  }

  it('read the names column: the newest ended task of a name, and every id bearing it', async () => {
    const {dir, ids} = await named(['build', null, 'deploy', 'build'])
    expect(found(dir, 'build')).toBe(ids[3])
    expect(indexNames(dir, ids)!.named('build')).toEqual([ids[0], ids[3]])
    // What is read is the column: a name changed in it (no drover writer would) hides its task.
    writeFileSync(segFile(dir), replaceLast(readFileSync(segFile(dir)), '\ndeploy\n', '\ndeplox\n'))
    expect(found(dir, 'deploy')).toBe(null)
  })

  it('pick only the newest entry of an id: a task renamed and folded again is not found by its old name', async () => {
    const {dir, ids} = await named(['alpha', 'beta'])
    writeRecord(dir, {...record(dir, ids[1]), name: 'gamma'})
    expect([found(dir, 'beta'), found(dir, 'gamma')]).toEqual([null, ids[1]]) // hinted: its record speaks
    await fold(dir)
    expect(segments(dir)).toEqual([1, 2])
    expect(indexNames(dir, ids)!.named('beta')).toEqual([]) // segment 1 still says beta
    expect(indexNames(dir, ids)!.named('gamma')).toEqual([ids[1]])
    expect([found(dir, 'beta'), found(dir, 'gamma'), found(dir, 'alpha')]).toEqual([null, ids[1], ids[0]])
  })

  it('find a record renamed by hand after it was indexed by its new name (its stamp no longer holds), never by the old', async () => {
    const {dir, ids} = await named(['a1', 'a2', 'a3'])
    writeFileSync(taskFile(dir, ids[1]), JSON.stringify({...record(dir, ids[1]), name: 'renamed'}))
    expect(found(dir, 'renamed')).toBe(ids[1])
    expect(() => findTask(dir, 'a2')).toThrow(/^no such task: a2 \(did you mean a[13]\?\)$/) // never "did you mean a2?": the index's word for it is stale
    expect(found(dir, 'a3')).toBe(ids[2])
  })

  it('give a name not found the did-you-mean of an indexed task, from the index alone (no record read)', async () => {
    const {dir, ids} = await named(['fix', 'deploy', null, 'ranges'])
    expect(indexNames(dir, ids)!.names()).toEqual(new Set(['fix', 'deploy', 'ranges']))
    for (const id of ids) writeFileSync(taskFile(dir, id), '{torn')
    expect(() => findTask(dir, 'fxi')).toThrow('no such task: fxi (did you mean fix?)')
    expect(() => findTask(dir, 'deplyo')).toThrow('no such task: deplyo (did you mean deploy?)')
    expect(() => findTask(dir, 'zzz')).toThrow(/^no such task: zzz$/)
  })

  it('find a name only as a whole text of the column, never a part of one or of the header', async () => {
    const {dir, ids} = await named(['rebuild', 'constructor', 'job-1', 'job-10', 'build'])
    expect(ids.map((_, k) => found(dir, ['rebuild', 'constructor', 'job-1', 'job-10', 'build'][k]))).toEqual(ids)
    const index = indexNames(dir, ids)!
    for (const name of ['highWater', 'segment', 'job', 'uild', 'job-1\njob-10', 'ild\nconstr']) expect([found(dir, name), index.named(name)], name).toEqual([null, []])
  })

  it('are not used when the names column does not hold together, and full readers rebuild the index', async () => {
    const {dir, ids} = await named(['a', 'b', 'c', ...Array.from({length: BUILD_MIN}, () => null)])
    writeFileSync(segFile(dir), replaceLast(readFileSync(segFile(dir)), '\nb\n', ' b\n'))
    expect(indexNames(dir, ids)).toBe(null)
    expect(found(dir, 'b')).toBe(ids[1]) // every record read instead
    await loadTasks(dir, {render: indexRender})
    expectSame(await listedBoth(dir))
    expect(indexNames(dir, ids)?.named('b')).toEqual([ids[1]])
  })

  it('tell which ids no segment speaks for, so their records are read', async () => {
    const {dir, ids} = await named(['a', 'b', 'c'])
    const more = await named(['d', 'e'], dir)
    expect(segments(dir)).toEqual([1, 2])
    const last = more.ids[1]
    const index = indexNames(dir, [...ids, ...more.ids])!
    expect(index.unheld([...ids, ...more.ids])).toEqual([])
    expect(index.unheld([ids[0], last + 1, last + 7])).toEqual([last + 1, last + 7])
    // a task no segment holds, without a hint (its record copied in by hand): found by name from its record
    const hand = last + 3
    cpSync(path.join(tasksDir(dir), String(last)), path.join(tasksDir(dir), String(hand)), {recursive: true})
    writeFileSync(taskFile(dir, hand), JSON.stringify({...record(dir, last), id: hand, name: 'by-hand'}))
    expect(found(dir, 'by-hand')).toBe(hand)
  })
})

// Under Wine every file operation goes through its server: 10,000 folders take minutes there, 2,000 make the same point.
const MANY = underWine ? 2_000 : 10_000

describe('at 10,000 tasks', () => {
  // Bound by the disk, not the CPU (10 s of CPU; 66–157 s of wall on a busy 2-core machine): a generous guard.
  it('the default list still shows the live task among 10,000 ended ones, before and after the index', {timeout: 300_000}, async () => {
    // Not a makeStateDir: its cleanup SIGKILLs the process group of every worker pid a record names,
    // and the benchmark's records name made-up pids that may be anyone's here.
    const dir = mkdtempSync(path.join(os.tmpdir(), 'drover-index-'))
    try {
      ensureStateDir(dir)
      const child = spawn(process.execPath, [fixture('sleeper.mjs'), '120'], {stdio: 'ignore'})
      children.push(child)
      await waitFor(() => processStartTime(child.pid!) !== null, {message: 'sleeper up'})
      // The live task is the oldest: only its hint can bring it into the default view.
      const running = makeTask(dir, {status: 'running', runnerPid: child.pid})
      makeEndedTasks(dir, MANY, {from: running + 1, outputBytes: 10})
      const before = await loadRecentTasks(dir, 20)
      expect(before.reads.map((r) => r.id)).toEqual([running, ...Array.from({length: 20}, (_, k) => running + MANY - 19 + k)])
      const all = await loadTasks(dir)
      expect(all.length).toBe(MANY + 1)
      expect(segments(dir)).toEqual([1])
      expect(existsSync(path.join(liveDir(dir), String(running)))).toBe(true)
      const status = (reads: typeof all) => reads.map((r) => (r.ok ? r.record.status : 'corrupt'))
      expect(status(await loadTasks(dir))).toEqual(status(all))
      const after = await loadRecentTasks(dir, 20)
      expect(after.reads.map((r) => r.id)).toEqual(before.reads.map((r) => r.id))
      expect(after.reads[0]).toMatchObject({ok: true, record: {status: 'running'}})
    } finally {
      rmSync(dir, {recursive: true, force: true})
    }
  })
})
