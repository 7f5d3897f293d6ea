// The listing of tasks/ kept in the index for the next process, its journal
// of starts, and a long-lived process's listing, on real folders and drover's
// own id allocation: kept only when nothing changed in tasks/ for a while
// before the listing began, used only while tasks/ keeps the stamp it names
// or the journal's lines lead from that stamp to now without a break, never
// when damaged, and never written where it cannot be.

import {appendFileSync, copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, truncateSync, utimesSync, writeFileSync} from 'node:fs'
import path from 'node:path'
import {afterEach, describe, expect, it} from 'vitest'
import {HEADER, INDEX_FORMAT, packIndexFile, readIndexFile} from '../../src/state/index-format.js'
import {listTasksKept, taskIdsKept, TasksListing, tasksStamp} from '../../src/state/index-listing.js'
import {indexDir} from '../../src/state/layout.js'
import {ensureStateDir} from '../../src/state/statedir.js'
import {allocateTaskId, tasksDir} from '../../src/state/store.js'
import {cleanupStateDirs, makeStateDir} from '../helpers/cli.js'
import {damaged, editHeader} from '../helpers/index-state.js'
import {ageTasksDir as age} from '../helpers/tasks-dir.js'

afterEach(() => cleanupStateDirs())

const kept = (dir: string) => path.join(indexDir(dir), 'listing')
const journal = (dir: string) => path.join(indexDir(dir), 'journal')
const lines = (dir: string) => readFileSync(journal(dir), 'utf8').split('\n').filter(Boolean)
const range = (from: number, to: number) => Array.from({length: to - from + 1}, (_, k) => from + k)
const keptIds = (dir: string) => {
  const read = readIndexFile(kept(dir), [])
  return typeof read === 'string' ? read : [...read.ids]
}

/** A state dir with task folders 1..n (and index/), tasks/ last changed a minute ago. */
function state(n: number, opts: {index?: boolean} = {}): string {
  const dir = makeStateDir()
  mkdirSync(tasksDir(dir), {recursive: true})
  for (let id = 1; id <= n; id++) mkdirSync(path.join(tasksDir(dir), String(id)))
  if (opts.index !== false) mkdirSync(indexDir(dir))
  writeFileSync(path.join(dir, 'last-id'), `${n}\n`)
  age(dir)
  return dir
}

/** state(n) whose listing is kept, with an empty journal. */
function keptState(n: number): string {
  const dir = state(n)
  expect(listTasksKept(dir).source).toBe('listed')
  expect(listTasksKept(dir).source).toBe('kept')
  expect(lines(dir)).toEqual([])
  return dir
}

const idsOf = (dir: string) => [...listTasksKept(dir).ids]
const top = (dir: string, k: number) => idsOf(dir).slice(-k)

describe('the kept listing of tasks/', () => {
  it('is kept after a listing of a long-unchanged tasks/, and read instead of listing while tasks/ keeps its stamp', () => {
    const dir = state(60)
    expect([...taskIdsKept(dir)]).toEqual(range(1, 60))
    expect(JSON.parse(readFileSync(kept(dir)).toString('utf8', 0, HEADER))).toMatchObject({index: INDEX_FORMAT, kind: 'listing', count: 60, highWater: 60, stamp: tasksStamp(dir)})
    // The file is what is read: other ids packed under the same header show (no drover writer would do this).
    const {header} = readIndexFile(kept(dir), []) as {header: Record<string, unknown>}
    writeFileSync(kept(dir), packIndexFile({kind: 'listing', highWater: 7777, stamp: header.stamp, journal: header.journal}, [...range(1, 59), 7777], null, {}))
    expect(listTasksKept(dir)).toMatchObject({settled: true, source: 'kept'})
    expect(taskIdsKept(dir).at(-1)).toBe(7777)
    // a folder made: the stamp moved, so tasks/ is listed again...
    mkdirSync(path.join(tasksDir(dir), '61'))
    expect([...taskIdsKept(dir)]).toEqual(range(1, 61))
    // ...and, changed just now, not kept for that stamp: the old file stays, unused
    expect(keptIds(dir)).toContain(7777)
    // a folder removed, long ago by its time: listed, and kept again
    rmSync(path.join(tasksDir(dir), '1'), {recursive: true})
    age(dir)
    expect([...taskIdsKept(dir)]).toEqual(range(2, 61))
    expect(keptIds(dir)).toEqual(range(2, 61))
    expect(listTasksKept(dir).source).toBe('kept')
  })

  it('is not kept when tasks/ changed within two seconds before the listing (a change in the same tick could follow it unseen)', () => {
    const dir = state(60)
    mkdirSync(path.join(tasksDir(dir), '61'))
    expect(listTasksKept(dir)).toMatchObject({settled: false, source: 'listed'})
    expect(existsSync(kept(dir))).toBe(false)
    expect(readdirSync(indexDir(dir))).toEqual([]) // its probe removed
  })

  it('is not kept for no tasks, nor without index/, nor where it cannot be written', () => {
    const few = state(3)
    expect([...taskIdsKept(few)]).toEqual(range(1, 3))
    expect(readdirSync(indexDir(few)).sort()).toEqual(['journal', 'listing'])
    const none = state(0)
    expect([...taskIdsKept(none)]).toEqual([])
    expect(readdirSync(indexDir(none))).toEqual([])
    const bare = state(60, {index: false})
    expect(taskIdsKept(bare).length).toBe(60)
    expect(existsSync(indexDir(bare))).toBe(false)
    // index/ not a folder (no writer can make a file in it): listed, nothing written, no error
    const blocked = state(60, {index: false})
    writeFileSync(indexDir(blocked), '')
    expect(taskIdsKept(blocked).length).toBe(60)
    expect(readFileSync(indexDir(blocked), 'utf8')).toBe('')
  })

  it('is listed again, and kept anew, when the file is damaged, of another format or kind, or its ids above its high water', () => {
    const dir = state(60)
    taskIdsKept(dir)
    const good = readFileSync(kept(dir))
    const harms: [string, () => void][] = [
      ['truncated', () => truncateSync(kept(dir), 1000)],
      ['ids out of order', () => writeFileSync(kept(dir), damaged.idsSwapped(good))],
      ['another format', () => editHeader(kept(dir), (h) => (h.index = 3))],
      ['a segment', () => editHeader(kept(dir), (h) => (h.kind = 'segment'))],
      ['no journal named', () => editHeader(kept(dir), (h) => delete h.journal)],
      ['above its high water', () => editHeader(kept(dir), (h) => (h.highWater = 59))],
    ]
    for (const [what, harm] of harms) {
      harm()
      expect(readFileSync(kept(dir)).equals(good), what).toBe(false)
      expect(listTasksKept(dir).source, what).toBe('listed')
      expect(idsOf(dir), what).toEqual(range(1, 60))
      expect(readFileSync(kept(dir)).subarray(HEADER).equals(good.subarray(HEADER)), what).toBe(true)
      expect(listTasksKept(dir).source, what).toBe('kept')
    }
  })

  it('has no ids for a state dir without tasks/, and removes temp files writers killed long ago left', () => {
    expect([...taskIdsKept(makeStateDir())]).toEqual([])
    const dir = state(60)
    const stale = path.join(indexDir(dir), '.listing-1-old')
    writeFileSync(stale, '')
    writeFileSync(path.join(indexDir(dir), '.listing-2-new'), '')
    const past = new Date(Date.now() - 3_600_000)
    utimesSync(stale, past, past)
    taskIdsKept(dir)
    expect(readdirSync(indexDir(dir)).sort()).toEqual(['.listing-2-new', 'journal', 'listing'])
  })
})

describe('the journal of the kept listing', () => {
  it('gives the starts since the listing without listing tasks/ again', () => {
    const dir = keptState(60)
    expect([allocateTaskId(dir), allocateTaskId(dir)]).toEqual([61, 62])
    expect(lines(dir)).toHaveLength(2)
    const got = listTasksKept(dir)
    expect(got).toMatchObject({source: 'journal', settled: true, stamp: tasksStamp(dir)})
    expect(got.ids.length).toBe(62)
    expect([...got.ids.slice(-3)]).toEqual([60, 61, 62])
    // what the journal said is what a listing says
    expect([...listTasksKept(dir, {fresh: true}).ids]).toEqual([...got.ids])
  })

  it('is not followed past a folder made or removed by hand, before or after a start', () => {
    const made = keptState(60)
    allocateTaskId(made)
    mkdirSync(path.join(tasksDir(made), '5000'))
    expect(listTasksKept(made).source).toBe('listed')
    expect(top(made, 2)).toEqual([61, 5000])

    const removed = keptState(60)
    rmSync(path.join(tasksDir(removed), '7'), {recursive: true})
    allocateTaskId(removed)
    expect(listTasksKept(removed).source).toBe('listed')
    expect(idsOf(removed)).not.toContain(7)
    expect(idsOf(removed).length).toBe(60)
  })

  it('is not followed past a start killed between its folder and its line, nor past lines out of order or malformed', () => {
    const killed = keptState(60)
    // what allocateTaskId leaves when killed right after its mkdir: a folder, no line
    mkdirSync(path.join(tasksDir(killed), '61'))
    allocateTaskId(killed)
    expect(lines(killed)).toHaveLength(1)
    expect(listTasksKept(killed).source).toBe('listed')
    expect(top(killed, 2)).toEqual([61, 62])

    const swapped = keptState(60)
    allocateTaskId(swapped)
    allocateTaskId(swapped)
    const [first, second] = lines(swapped)
    writeFileSync(journal(swapped), `${second}\n${first}\n`)
    expect(listTasksKept(swapped).source).toBe('listed')
    expect(top(swapped, 2)).toEqual([61, 62])

    const malformed = keptState(60)
    allocateTaskId(malformed)
    const [line] = lines(malformed)
    writeFileSync(journal(malformed), `${line.replace(/\+61$/, '+061')}\n`)
    expect(listTasksKept(malformed).source).toBe('listed')
  })

  it('is not followed when cut short, replaced by another file, or grown past its bound', () => {
    const cut = keptState(60)
    allocateTaskId(cut)
    truncateSync(journal(cut), statSync(journal(cut)).size - 1) // the newline gone: a line still being written
    expect(listTasksKept(cut).source).toBe('listed')
    expect(top(cut, 1)).toEqual([61])

    // the same lines in another file: not the journal the kept listing names
    const other = keptState(60)
    allocateTaskId(other)
    copyFileSync(journal(other), `${journal(other)}.copy`)
    renameSync(`${journal(other)}.copy`, journal(other))
    expect(listTasksKept(other).source).toBe('listed')

    // a chain that holds, but longer than a reader follows
    const long = keptState(60)
    const stamp = tasksStamp(long)!
    appendFileSync(journal(long), `${stamp} ${stamp} +60\n`.repeat(3000))
    allocateTaskId(long)
    expect(listTasksKept(long).source).toBe('listed')
    // and a start writes no more to a journal past its bound
    const size = statSync(journal(long)).size
    allocateTaskId(long)
    expect(statSync(journal(long)).size).toBe(size)
    // the same chain under the bound is followed
    const short = keptState(60)
    appendFileSync(journal(short), `${tasksStamp(short)!} ${tasksStamp(short)!} +60\n`.repeat(10))
    allocateTaskId(short)
    expect(listTasksKept(short).source).toBe('journal')
  })

  it('starts empty with each listing kept, so no line of an older one is taken', () => {
    const dir = keptState(60)
    allocateTaskId(dir)
    const before = statSync(journal(dir)).ino
    rmSync(path.join(tasksDir(dir), '1'), {recursive: true})
    age(dir)
    expect(listTasksKept(dir).source).toBe('listed')
    expect(statSync(journal(dir)).ino).not.toBe(before)
    expect(lines(dir)).toEqual([])
    expect(listTasksKept(dir).source).toBe('kept')
    allocateTaskId(dir)
    expect(listTasksKept(dir).source).toBe('journal')
    expect(idsOf(dir).length).toBe(61) // 60 and a start, one removed, a start
  })

  it('is not written without a kept listing, and a start never makes one', () => {
    const dir = state(0)
    allocateTaskId(dir)
    expect(existsSync(journal(dir))).toBe(false)
  })
})

describe('TasksListing', () => {
  it('lists ids ascending, skips other names, and reuses the listing while tasks/ is long unchanged', () => {
    const dir = makeStateDir()
    ensureStateDir(dir)
    for (const name of ['10', '9', '100', 'tmp-x', '012']) mkdirSync(path.join(tasksDir(dir), name), {recursive: true})
    age(dir)
    const listing = new TasksListing(dir)
    const first = listing.ids()
    expect({ids: [...first.ids], relisted: first.relisted}).toEqual({ids: [9, 10, 100], relisted: true})
    expect(listing.ids().relisted).toBe(false)
    expect(listing.ids(true).relisted).toBe(true)
  })

  it('lists again after a folder comes or goes, for as long as that change is recent', () => {
    const dir = makeStateDir()
    ensureStateDir(dir)
    mkdirSync(path.join(tasksDir(dir), '1'), {recursive: true})
    age(dir)
    const listing = new TasksListing(dir)
    listing.ids()
    mkdirSync(path.join(tasksDir(dir), '2'))
    expect([...listing.ids().ids]).toEqual([1, 2])
    // changed just now: a second change in the same tick could share its time
    expect(listing.ids().relisted).toBe(true)
    rmSync(path.join(tasksDir(dir), '1'), {recursive: true})
    age(dir)
    expect([...listing.ids().ids]).toEqual([2])
    expect(listing.ids().relisted).toBe(false)
  })

  it('has no ids for a state dir without tasks/', () => {
    expect([...new TasksListing(makeStateDir()).ids().ids]).toEqual([])
  })
})
