// The ended-task summary on real state dirs: its segments' codec and checks,
// and the protocol that keeps it from ever showing a record other than the
// one on disk — hints made before every record write, folds that remove a
// hint only after its record is in a renamed segment, builders that never
// remove one, and a whole summary put aside when any segment fails a check.

import {spawn} from 'node:child_process'
import {appendFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, truncateSync, writeFileSync} from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import {afterEach, describe, expect, it} from 'vitest'
import {liveDir, summaryDir} from '../../src/state/layout.js'
import {ensureLiveIndex} from '../../src/state/live-index.js'
import {acquireLock} from '../../src/state/lock.js'
import {findTask} from '../../src/tasks/lookup.js'
import {processStartTime} from '../../src/platform/platform.js'
import type {TaskRecord} from '../../src/state/record.js'
import {ensureStateDir} from '../../src/state/statedir.js'
import {allocateTaskId, readHighWater, readRecord, writeRecord} from '../../src/state/store.js'
import {currentHighWater, listSegments, loadSummary, summaryLockPath, writeSegment, BUILD_MIN, COMPACT_ABOVE} from '../../src/state/summary.js'
import {decodeEntry, encodeEntry, encodeSegment, entryLine, entryView, parseSegment} from '../../src/state/summary-codec.js'
import {loadRecentTasks, loadTasks} from '../../src/tasks/read.js'
import {makeTask} from '../fixtures/prune-state.js'
import {cleanupStateDirs, fixture, makeStateDir, waitFor} from '../helpers/cli.js'
import {childrenKilledAfterEach} from '../helpers/sleepers.js'
import {underWine} from '../helpers/skips.js'
// @ts-expect-error -- a plain ES module of the benchmarks, without types
import {makeEndedTasks} from '../../bench/lib/make-tasks.mjs'

afterEach(() => cleanupStateDirs())
// registered after the clean-up, so run before it, as the kill came first
const children = childrenKilledAfterEach()

function record(dir: string, id: number): TaskRecord {
  const read = readRecord(dir, id)
  if (!read.ok) throw new Error(read.error)
  return read.record
}

/** A state dir with `n` failed tasks (each record written by drover's writeRecord, so each has a hint). */
function stateWith(n: number): {dir: string; ids: number[]} {
  const dir = makeStateDir()
  ensureStateDir(dir)
  const ids = Array.from({length: n}, () => makeTask(dir, {status: 'failed'}))
  return {dir, ids}
}

const hints = (dir: string) => readdirSync(liveDir(dir)).map(Number).sort((a, b) => a - b)
const segments = (dir: string) => listSegments(dir).seqs
const segFile = (dir: string, seq: number) => path.join(summaryDir(dir), `seg-${String(seq).padStart(12, '0')}.ndjson`)
/** What reading every record says, as loadTasks shows it. */
const truth = (dir: string, ids: number[]) => ids.map((id) => ({id, name: record(dir, id).name, status: record(dir, id).status}))
const shown = async (dir: string) => (await loadTasks(dir)).map((r) => ({id: r.id, name: r.ok ? r.record.name : r.error, status: r.ok ? r.record.status : 'corrupt'}))

/** Folds every hint of a task done with, as the default list does. */
const fold = (dir: string) => loadRecentTasks(dir, 0)

describe('segment codec', () => {
  const {dir, ids} = stateWith(3)
  const records = ids.map((id) => record(dir, id))

  it('round-trips entries, with and without a view, and reads a line of another shape', () => {
    const named = {...records[0], name: 'naïve — ünïcode'} // recordLength counts bytes
    const lines = [encodeEntry({record: named, view: `{"id":${ids[0]},"x":"é"}`}), encodeEntry({record: records[1]}), Buffer.from(JSON.stringify({record: records[2], id: ids[2]}))]
    const parsed = parseSegment(encodeSegment({summary: 1, seq: 4, highWater: 3, count: 3, views: 7}, lines), 4)
    if (!parsed.ok) throw new Error(parsed.error)
    expect(parsed.entries.map((e) => e.id)).toEqual(ids)
    expect(parsed.entries.map((e) => decodeEntry(e))).toEqual([named, records[1], records[2]])
    expect(entryView(parsed.entries[0], 7)?.toString()).toBe(`{"id":${ids[0]},"x":"é"}`)
    expect(entryView(parsed.entries[0], 8)).toBeNull() // another version of views: rendered afresh
    expect(entryView(parsed.entries[1], 7)).toBeNull()
    const bytes = Buffer.byteLength(JSON.stringify(named))
    const bare = entryLine(parsed.entries[0], false)
    expect(JSON.parse(bare.toString())).toEqual({id: ids[0], recordLength: bytes, lineLength: bytes, record: named})
    const again = parseSegment(encodeSegment({summary: 1, seq: 1, highWater: 3, count: 1}, [bare]), 1)
    expect(again.ok && again.entries[0].recordStart >= 0 && decodeEntry(again.entries[0])).toEqual(named) // still cut, not parsed
    expect(entryLine(parsed.entries[0], true)).toEqual(lines[0])
    // A view naming another task is never shown for this one: the line is parsed whole, its record used.
    const foreign = parseSegment(encodeSegment({summary: 1, seq: 1, highWater: 3, count: 1, views: 7}, [encodeEntry({record: records[0], view: '{"id":99,"x":1}'})]), 1)
    if (!foreign.ok) throw new Error(foreign.error)
    expect([entryView(foreign.entries[0], 7), decodeEntry(foreign.entries[0])]).toEqual([null, records[0]])
  })

  it('refuses a truncated segment at every length, a wrong count, an unknown format or seq, an entry above its high water', () => {
    const text = encodeSegment({summary: 1, seq: 1, highWater: 3, count: 3}, records.map((r) => encodeEntry({record: r}))).toString()
    const parse = (t: string, seq = 1) => parseSegment(Buffer.from(t), seq)
    expect(parse(text).ok).toBe(true)
    for (let cut = 0; cut < text.length; cut++) expect(parse(text.slice(0, cut)).ok, `cut at ${cut}`).toBe(false)
    const lines = text.split('\n')
    expect(parse([lines[0], lines[1], lines[2], '{"end":3}', ''].join('\n'))).toMatchObject({ok: false})
    expect(parse(text.replace('"count":3', '"count":4'))).toMatchObject({ok: false})
    expect(parse(text.replace('"summary":1', '"summary":2'))).toMatchObject({ok: false, error: 'unknown format 2'})
    expect(parse(text, 2)).toMatchObject({ok: false})
    expect(parse(text.replace('"highWater":3', '"highWater":2'))).toMatchObject({ok: false})
    expect(parse(text.replace(lines[2], 'not json'))).toMatchObject({ok: false})
    // A length that cuts out no record: the line is parsed whole, and still gives its record.
    const odd = parse(text.replace('"lineLength":', '"lineLength":1'))
    if (!odd.ok) throw new Error(odd.error)
    expect(odd.entries[0].recordStart).toBe(-1)
    expect(decodeEntry(odd.entries[0])).toEqual(records[0])
  })

  it('gives no record for an entry that does not decode (the reader reads the task.json instead)', () => {
    const line = encodeEntry({record: {...records[0], status: 'nonsense' as TaskRecord['status']}})
    const parsed = parseSegment(encodeSegment({summary: 1, seq: 1, highWater: 3, count: 1}, [line]), 1)
    if (!parsed.ok) throw new Error(parsed.error)
    expect(decodeEntry(parsed.entries[0])).toBeNull()
  })
})

describe('reading through the summary', () => {
  it('a full reader that read many unsummarised records leaves them in a segment, and the next reads it', async () => {
    const {dir, ids} = stateWith(BUILD_MIN + 4)
    rmSync(liveDir(dir), {recursive: true})
    mkdirSync(liveDir(dir)) // no hints: as a state dir whose tasks ended before the index
    expect(await shown(dir)).toEqual(truth(dir, ids))
    expect(segments(dir)).toEqual([1])
    const loaded = loadSummary(dir, currentHighWater(dir, ids))
    expect([...loaded.entries.keys()]).toEqual(ids)
    // A task.json damaged by hand (no write, so no hint) no longer has the stamp its entry names: it is read, and shows damaged.
    writeFileSync(path.join(dir, 'tasks', String(ids[0]), 'task.json'), '{')
    const now = await shown(dir)
    expect(now[0]).toMatchObject({id: ids[0], status: 'corrupt'})
    expect(now.slice(1)).toEqual(truth(dir, ids.slice(1)))
  })

  it('a state dir without a live index gets no summary (its first record write makes the index)', async () => {
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

  it('rule 1: a record rewritten after it was summarised is what readers show', async () => {
    const {dir, ids} = stateWith(10)
    await fold(dir)
    expect(hints(dir)).toEqual([])
    expect(loadSummary(dir, 10).entries.size).toBe(10)
    // A direct write (as any drover command makes one): the hint comes first.
    writeRecord(dir, {...record(dir, ids[3]), name: 'renamed', status: 'succeeded', exitCode: 0})
    expect(hints(dir)).toEqual([ids[3]])
    expect((await shown(dir))[3]).toEqual({id: ids[3], name: 'renamed', status: 'succeeded'})
    expect(findTask(dir, 'renamed').id).toBe(ids[3])
    // Folded again: the newer segment wins over the older entry.
    await fold(dir)
    expect(hints(dir)).toEqual([])
    expect(segments(dir)).toEqual([1, 2])
    expect(await shown(dir)).toEqual(truth(dir, ids))
    expect(findTask(dir, 'renamed').id).toBe(ids[3])
  })

  it('a hinted id is read from its record, whatever its entry says', async () => {
    const {dir, ids} = stateWith(4)
    await fold(dir)
    // An entry that disagrees with the record, under a hint: as a crash between a fold's segment and its unlink, then a write.
    writeSegment(dir, 2, 4, [encodeEntry({record: {...record(dir, ids[1]), name: 'stale'}})], undefined)
    writeFileSync(path.join(liveDir(dir), String(ids[1])), '')
    expect(await shown(dir)).toEqual(truth(dir, ids))
    expect(() => findTask(dir, 'stale')).toThrow(/no such task/)
  })

  it('entries of ids gone from tasks/ are ignored, and dropped by a compaction', async () => {
    const {dir, ids} = stateWith(4)
    await fold(dir)
    rmSync(path.join(dir, 'tasks', String(ids[0])), {recursive: true})
    expect((await shown(dir)).map((t) => t.id)).toEqual(ids.slice(1))
    for (let seq = 2; seq <= COMPACT_ABOVE + 1; seq++) writeSegment(dir, seq, 4, [], undefined)
    expect((await shown(dir)).map((t) => t.id)).toEqual(ids.slice(1)) // compacts: more than COMPACT_ABOVE segments
    expect(segments(dir)).toEqual([COMPACT_ABOVE + 2])
    expect([...loadSummary(dir, 4).entries.keys()]).toEqual(ids.slice(1))
  })

  it('a full reader compacts once most entries are of tasks removed since (prune)', async () => {
    const {dir, ids} = stateWith(6)
    await fold(dir)
    expect(loadSummary(dir, 6).lines).toBe(6)
    for (const id of ids.slice(0, 4)) rmSync(path.join(dir, 'tasks', String(id)), {recursive: true})
    expect((await shown(dir)).map((t) => t.id)).toEqual(ids.slice(4))
    expect(segments(dir)).toEqual([2])
    expect(loadSummary(dir, 6)).toMatchObject({ok: true, lines: 2})
  })

  it('the newest seq wins for an id', async () => {
    const {dir, ids} = stateWith(2)
    await fold(dir)
    rmSync(path.join(dir, 'live'), {recursive: true})
    mkdirSync(liveDir(dir))
    const r = record(dir, ids[0])
    writeSegment(dir, 5, 2, [encodeEntry({record: {...r, name: 'five'}})], undefined)
    writeSegment(dir, 3, 2, [encodeEntry({record: {...r, name: 'three'}})], undefined)
    expect(loadSummary(dir, 2).entries.size).toBe(2)
    expect(decodeEntry(loadSummary(dir, 2).entries.get(ids[0])!)!.name).toBe('five')
  })

  for (const [fault, damage] of [
    ['truncated', (file: string) => truncateSync(file, readFileSync(file).length - 5)],
    ['with a wrong count', (file: string) => writeFileSync(file, readFileSync(file, 'utf8').replace(/"count":\d+/, '"count":99'))],
    ['of an unknown format', (file: string) => writeFileSync(file, readFileSync(file, 'utf8').replace('"summary":1', '"summary":9'))],
  ] as const) {
    it(`a segment ${fault} puts the whole summary aside, and the next lock holder rebuilds it`, async () => {
      const {dir, ids} = stateWith(BUILD_MIN + 2)
      await fold(dir)
      // Another segment, newer, saying something else of every task: it must not be used once any segment fails.
      writeSegment(dir, 2, ids.length, ids.map((id) => encodeEntry({record: {...record(dir, id), name: 'wrong'}})), undefined)
      damage(segFile(dir, 1))
      expect(loadSummary(dir, ids.length).ok).toBe(false)
      const release = await acquireLock(summaryLockPath(dir), {waitMs: 0})
      expect(await shown(dir)).toEqual(truth(dir, ids)) // lock busy: read every record, rebuild nothing
      expect(segments(dir)).toEqual([1, 2])
      release()
      expect(await shown(dir)).toEqual(truth(dir, ids))
      expect(segments(dir)).toEqual([3]) // one segment under a fresh seq; the old ones gone
      expect(loadSummary(dir, ids.length)).toMatchObject({ok: true, lines: ids.length})
      expect(await shown(dir)).toEqual(truth(dir, ids))
    })
  }

  it('a segment from the future (high water above the ids handed out) puts the summary aside', async () => {
    const {dir, ids} = stateWith(3)
    await fold(dir)
    writeSegment(dir, 2, readHighWater(dir) + 1000, ids.map((id) => encodeEntry({record: {...record(dir, id), name: 'future'}})), undefined)
    expect(loadSummary(dir, currentHighWater(dir, ids))).toMatchObject({ok: false, error: expect.stringMatching(/from the future/)})
    expect(await shown(dir)).toEqual(truth(dir, ids))
    expect(() => findTask(dir, 'future')).toThrow(/no such task/)
  })

  it('a segment from the future that the ids catch up with never answers for a task folder a start left empty', async () => {
    const {dir, ids} = stateWith(3)
    await fold(dir)
    const high = readHighWater(dir)
    // Entries for the next three ids, under a high water those ids reach: the cheap check cannot tell.
    const forged = ids.map((id, k) => encodeEntry({record: {...record(dir, id), id: high + k + 1, name: 'forged'}}))
    writeSegment(dir, Math.max(...segments(dir)) + 1, high + 3, forged, undefined)
    // A start killed right after taking its id leaves an empty folder: its hint came first.
    for (let k = 0; k < 3; k++) expect(allocateTaskId(dir)).toBe(high + k + 1)
    expect(hints(dir)).toEqual(expect.arrayContaining([high + 1, high + 2, high + 3]))
    expect(await shown(dir)).toEqual(truth(dir, ids))
    expect(() => findTask(dir, 'forged')).toThrow(/no such task/)
  })

  it('a crash between a fold\'s segment and its hint unlink leaves every reader right, and the next fold finishes it', async () => {
    const {dir, ids} = stateWith(3)
    // The fold's steps by hand, stopping where a SIGKILL would: segment renamed in, hint still there.
    writeSegment(dir, 1, 3, [encodeEntry({record: record(dir, ids[0])})], undefined)
    expect(hints(dir)).toEqual(ids)
    expect(await shown(dir)).toEqual(truth(dir, ids))
    // Before any fold runs, the task is started again: its record changes under the hint.
    writeRecord(dir, {...record(dir, ids[0]), status: 'succeeded', exitCode: 0, name: 'again'})
    expect(await shown(dir)).toEqual(truth(dir, ids))
    await fold(dir)
    expect(hints(dir)).toEqual([])
    expect(await shown(dir)).toEqual(truth(dir, ids))
    expect(findTask(dir, 'again').id).toBe(ids[0])
  })

  it('a fold skips a busy summary or task lock, keeps the hints of tasks not done with, and removes those of tasks gone', async () => {
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
    const summaryLock = await acquireLock(summaryLockPath(dir), {waitMs: 0})
    await fold(dir)
    expect(hints(dir)).toEqual([running, lost, ended, busy, 999])
    summaryLock()
    const taskLock = await acquireLock(path.join(dir, 'locks', `task-${busy}.lock`), {waitMs: 0})
    await fold(dir)
    expect(hints(dir)).toEqual([running, lost, busy])
    expect([...loadSummary(dir, 10).entries.keys()]).toEqual([ended])
    taskLock()
    await fold(dir)
    expect(hints(dir)).toEqual([running, lost])
  })

  it('an index made again while a summary exists hints every task', async () => {
    const {dir, ids} = stateWith(3)
    await fold(dir)
    writeRecord(dir, {...record(dir, ids[2]), name: 'changed'})
    rmSync(liveDir(dir), {recursive: true}) // the hint of the changed record goes with it
    expect((await shown(dir))[2].name).toBe('changed') // no index: no entry is used
    ensureLiveIndex(dir)
    expect(hints(dir)).toEqual(ids)
    expect((await shown(dir))[2].name).toBe('changed')
  })
})

// Under Wine every file operation goes through its server: 10,000 folders take minutes there, 2,000 make the same point.
const MANY = underWine ? 2_000 : 10_000

async function manyEnded(dir: string): Promise<void> {
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
  const again = await loadTasks(dir)
  expect(again.map((r) => (r.ok ? r.record.status : 'corrupt'))).toEqual(all.map((r) => (r.ok ? r.record.status : 'corrupt')))
  const after = await loadRecentTasks(dir, 20)
  expect(after.reads.map((r) => r.id)).toEqual(before.reads.map((r) => r.id))
  expect(after.reads[0]).toMatchObject({ok: true, record: {status: 'running'}})
}

describe('at 10,000 tasks', () => {
  it('the default list still shows the live task among 10,000 ended ones, before and after the summary', {timeout: 120_000}, async () => {
    // Not a makeStateDir: its cleanup SIGKILLs the process group of every worker pid a record names,
    // and the benchmark's records name made-up pids that may be anyone's here.
    const dir = mkdtempSync(path.join(os.tmpdir(), 'drover-summary-'))
    try {
      await manyEnded(dir)
    } finally {
      rmSync(dir, {recursive: true, force: true})
    }
  })
})
