// The recent view of `list` on real state dirs: the newest ended tasks by id,
// older tasks only while meant to run — found through the live index, or,
// in a state dir without one, through the runner.json a live runner keeps —
// and the index's hints folded into the derived index once a record shows the task
// is done with. And the read prune plans from: every record, through the
// index's entries, writing nothing.

import {existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync} from 'node:fs'
import path from 'node:path'
import {afterEach, describe, expect, it} from 'vitest'
import {liveDir, markLive} from '../../src/state/live-index.js'
import {ensureStateDir} from '../../src/state/statedir.js'
import {indexDir} from '../../src/state/layout.js'
import {planTaskReads} from '../../src/state/index.js'
import {encodeRecord} from '../../src/state/record-codec.js'
import {readAllRecords, readRecord, taskPaths, writeRecord} from '../../src/state/store.js'
import {loadNewestTasks, loadRecentTasks, loadTaskIds, loadTasks, loadTaskViews, readEveryRecord} from '../../src/tasks/read.js'
import {indexRender} from '../../src/api/row-cells.js'
import {BUILD_MIN} from '../../src/state/index.js'
import {makeTask, snapshot} from '../fixtures/prune-state.js'
import {childrenKilledAfterEach, liveProcess} from '../helpers/sleepers.js'
import {cleanupStateDirs, makeStateDir} from '../helpers/cli.js'
import {moveTo} from '../helpers/record-moves.js'

afterEach(() => cleanupStateDirs())
// registered after the clean-up, so run before it, as the kill came first
const children = childrenKilledAfterEach()

/** One running task (a live "runner") and one lost while running, then 25 ended ones. */
async function state() {
  const dir = makeStateDir()
  ensureStateDir(dir)
  const running = makeTask(dir, {status: 'running', runnerPid: await liveProcess(children)})
  const lost = makeTask(dir, {status: 'lost'})
  const ended = Array.from({length: 25}, () => makeTask(dir, {status: 'failed'}))
  return {dir, running, lost, ended}
}

const ids = async (dir: string, last = 20) => {
  const recent = await loadRecentTasks(dir, last)
  return {ids: recent.reads.map((r) => r.id), hidden: recent.hidden}
}

describe('loadRecentTasks', () => {
  it('without a live index, finds the older running task by its runner.json', async () => {
    const {dir, running, ended} = await state()
    rmSync(liveDir(dir), {recursive: true}) // a state dir from before the index
    expect(existsSync(liveDir(dir))).toBe(false)
    // The lost task left no runner.json: without an index it is one of the hidden ones.
    expect(await ids(dir)).toEqual({ids: [running, ...ended.slice(-20)], hidden: 6})
    expect(existsSync(liveDir(dir))).toBe(false) // list stays read-only
  })

  it('with one, finds older tasks by their hints: running, and lost while meant to run', async () => {
    const {dir, running, lost, ended} = await state()
    // Every record write made a hint (store.ts); start from an index without any.
    rmSync(liveDir(dir), {recursive: true})
    mkdirSync(liveDir(dir), {mode: 0o700})
    expect((await ids(dir)).ids).toEqual(ended.slice(-20)) // no hints: the index is what is trusted
    markLive(dir, running)
    markLive(dir, lost)
    expect(await ids(dir)).toEqual({ids: [running, lost, ...ended.slice(-20)], hidden: 5})
    expect(readdirSync(liveDir(dir)).sort()).toEqual([String(running), String(lost)].sort())
  })

  it('drops the hint of a task done with, and of one removed, and keeps the others', async () => {
    const {dir, running, lost, ended} = await state()
    for (const id of [running, lost, ended[0]]) markLive(dir, id)
    markLive(dir, 999) // a task pruned since
    // The running task ends: its record says so and its runner.json is gone.
    const read = readRecord(dir, running)
    if (!read.ok) throw new Error(read.error)
    writeRecord(dir, {...moveTo(read.record, {status: 'stopped', reason: 'stopped by request'}), desired: 'stopped'})
    rmSync(taskPaths(dir, running).runner)

    expect((await ids(dir)).ids).toEqual([lost, ...ended.slice(-20)])
    expect(readdirSync(liveDir(dir))).toEqual([String(lost)])
    expect(path.basename(liveDir(dir))).toBe('live')
  })

  it('counts as hidden every ended task not shown; --last 0 shows only what is meant to run', async () => {
    const {dir, running, lost, ended} = await state()
    // The lost task keeps the hint its record's write made: it is meant to run.
    expect(await ids(dir, 0)).toEqual({ids: [running, lost], hidden: 25})
    expect(await ids(dir, 100)).toEqual({ids: [running, lost, ...ended], hidden: 0})
  })
})

describe('loadNewestTasks', () => {
  it('reads the newest tasks by id, live or not, and counts every folder but those it found no task in', async () => {
    const {dir, running, lost, ended} = await state()
    // a folder `start` is filling (no record yet, just made): no task, and not counted once looked at
    const filling = ended[24] + 1
    mkdirSync(taskPaths(dir, filling).dir, {recursive: true})
    const page = await loadNewestTasks(dir, 3)
    expect(page.reads.map((r) => r.id)).toEqual(ended.slice(-3))
    expect(page.total).toBe(27)
    // the page reaches back to the oldest, the live one reconciled with its runner alive
    const all = await loadNewestTasks(dir, 100)
    expect(all.reads.map((r) => r.id)).toEqual([running, lost, ...ended])
    expect(all.reads[0]).toMatchObject({ok: true, record: {status: 'running'}})
    expect(all.total).toBe(27)
    // the ids a caller listed already are the ones looked at
    expect((await loadNewestTasks(dir, 2, {ids: new Float64Array([running, lost])})).reads.map((r) => r.id)).toEqual([running, lost])
  })
})

/** 60 ended tasks whose hints are folded away (as after a list): what a full read summarises. */
function endedState(): {dir: string; ids: number[]} {
  const dir = makeStateDir()
  ensureStateDir(dir)
  const ids = Array.from({length: 60}, (_, k) => makeTask(dir, {status: k % 2 ? 'failed' : 'succeeded'}))
  rmSync(liveDir(dir), {recursive: true})
  mkdirSync(liveDir(dir))
  return {dir, ids}
}

describe('readEveryRecord', () => {
  it('reads what readAllRecords reads, writing nothing where a full read would build the index', async () => {
    const {dir} = endedState()
    const before = snapshot(dir)
    expect(readEveryRecord(dir)).toEqual(readAllRecords(dir))
    expect(snapshot(dir)).toEqual(before)
    // a full read of the same state leaves index segments behind: there was one to write
    await loadTasks(dir)
    expect(readdirSync(indexDir(dir)).some((name) => name.startsWith('seg-'))).toBe(true)
    expect(readEveryRecord(dir)).toEqual(readAllRecords(dir))
  })

  it("takes an ended task's record from its index entry while its file keeps the entry's stamp; one edited by hand is read as it is now", async () => {
    const {dir, ids} = endedState()
    await loadTasks(dir) // builds the index
    // A hand edit that bypasses drover's writes (no hint): only the file has it.
    const edited = ids[3]
    const read = readRecord(dir, edited)
    if (!read.ok) throw new Error('unreadable')
    writeFileSync(taskPaths(dir, edited).record, encodeRecord({...read.record, name: 'edited-by-hand'}))
    const every = readEveryRecord(dir)
    expect(every.find((r) => r.id === edited)).toMatchObject({ok: true, record: {name: 'edited-by-hand'}})
    expect(every).toEqual(readAllRecords(dir))
    // The others are taken from their entries, the edited one is not.
    const plan = planTaskReads(dir, Float64Array.from(ids))
    expect(ids.filter((id) => plan.entryFor(id) !== undefined)).toEqual(ids.filter((id) => id !== edited))
  })
})

describe('loadTaskIds', () => {
  const segments = (dir: string) => readdirSync(indexDir(dir)).filter((name) => name.startsWith('seg-'))
  const fullRead = async (dir: string) => (await loadTaskViews(dir, indexRender)).map((source) => source.id)

  it('gives the ids a full read gives: a record damaged since it was indexed, a live task, a folder being made, one removed', async () => {
    const {dir, ids} = endedState()
    await fullRead(dir) // builds the index
    expect(segments(dir)).toHaveLength(1)
    expect(await loadTaskIds(dir, indexRender)).toEqual(ids)
    writeFileSync(taskPaths(dir, ids[4]).record, 'garbage') // by hand: no hint
    rmSync(taskPaths(dir, ids[7]).dir, {recursive: true})
    const running = makeTask(dir, {status: 'running', runnerPid: await liveProcess(children)})
    const creating = makeTask(dir, {status: 'failed'})
    rmSync(taskPaths(dir, creating).record) // a folder `start` is still filling
    const want = [...ids.filter((id) => id !== ids[7]), running]
    expect(await fullRead(dir)).toEqual(want)
    expect(await loadTaskIds(dir, indexRender)).toEqual(want)
  })

  it('reads neither the views nor the records of indexed tasks: a damaged view goes unseen, as a full read would not let it', async () => {
    const {dir, ids} = endedState()
    await fullRead(dir)
    const file = path.join(indexDir(dir), segments(dir)[0])
    const bytes = readFileSync(file)
    const at = bytes.indexOf(`{"id":${ids[2]},`)
    expect(at).toBeGreaterThan(0)
    bytes.write('{"ix"', at, 'latin1') // the view no longer opens with its task's id
    writeFileSync(file, bytes)
    const damaged = () => segments(dir).some((name) => readFileSync(path.join(indexDir(dir), name)).includes('{"ix"'))
    expect(await loadTaskIds(dir, indexRender)).toEqual(ids)
    expect(damaged()).toBe(true)
    // the full read checks the views it takes, finds the damage, puts the index away and builds it anew
    expect(await fullRead(dir)).toEqual(ids)
    expect(damaged()).toBe(false)
  })

  it('with many records no entry stands for, is the full read, which indexes them for the next reader', async () => {
    const {dir, ids} = endedState()
    expect(ids.length).toBeGreaterThanOrEqual(BUILD_MIN)
    expect(segments(dir)).toHaveLength(0)
    expect(await loadTaskIds(dir, indexRender)).toEqual(ids)
    expect(segments(dir)).toHaveLength(1)
  })
})
