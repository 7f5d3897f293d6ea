// The listing of tasks/ kept for the next process, on real folders: kept only
// when nothing changed in tasks/ for a while before the listing began, used
// only while tasks/ keeps the stamp it names, never when damaged, and never
// written where it cannot be.

import {existsSync, mkdirSync, readdirSync, readFileSync, rmSync, truncateSync, utimesSync, writeFileSync} from 'node:fs'
import path from 'node:path'
import {afterEach, describe, expect, it} from 'vitest'
import {listTasksKept, taskIdsKept} from '../../src/state/kept-listing.js'
import {summaryDir} from '../../src/state/layout.js'
import {tasksDir} from '../../src/state/store.js'
import {cleanupStateDirs, makeStateDir} from '../helpers/cli.js'
import {ageTasksDir} from '../helpers/tasks-dir.js'

afterEach(() => cleanupStateDirs())

const kept = (dir: string) => path.join(summaryDir(dir), 'listing.bin')
/** The kept file's header length: its ids follow, 8-byte aligned. */
const HEADER = 256

/** A state dir with task folders 1..n (and summary/), tasks/ last changed a minute ago. */
function state(n: number, opts: {summary?: boolean} = {}) {
  const dir = makeStateDir()
  mkdirSync(tasksDir(dir), {recursive: true})
  for (let id = 1; id <= n; id++) mkdirSync(path.join(tasksDir(dir), String(id)))
  if (opts.summary !== false) mkdirSync(summaryDir(dir))
  age(dir)
  return dir
}

const age = ageTasksDir

const range = (from: number, to: number) => Array.from({length: to - from + 1}, (_, k) => from + k)

describe('the kept listing of tasks/', () => {
  it('is kept after a listing of a long-unchanged tasks/, and read instead of listing while tasks/ keeps its stamp', () => {
    const dir = state(60)
    expect([...taskIdsKept(dir)]).toEqual(range(1, 60))
    expect(existsSync(kept(dir))).toBe(true)
    // The file is what is read: an id changed in it shows (no drover writer would do this).
    const bytes = readFileSync(kept(dir))
    bytes.writeDoubleLE(7777, HEADER)
    writeFileSync(kept(dir), bytes)
    expect(listTasksKept(dir)).toMatchObject({settled: true})
    expect(taskIdsKept(dir)[0]).toBe(7777)
    // a folder made: the stamp moved, so tasks/ is listed again
    mkdirSync(path.join(tasksDir(dir), '61'))
    expect([...taskIdsKept(dir)]).toEqual(range(1, 61))
    // ...and, changed just now, not kept for that stamp: the old file stays, unused
    expect(readFileSync(kept(dir)).readDoubleLE(HEADER)).toBe(7777)
    // a folder removed, long ago by its time: listed, and kept again
    rmSync(path.join(tasksDir(dir), '1'), {recursive: true})
    age(dir)
    expect([...taskIdsKept(dir)]).toEqual(range(2, 61))
    expect(readFileSync(kept(dir)).readDoubleLE(HEADER)).toBe(2)
    expect([...taskIdsKept(dir)]).toEqual(range(2, 61))
  })

  it('is not kept when tasks/ changed within two seconds before the listing (a change in the same tick could follow it unseen)', () => {
    const dir = state(60)
    mkdirSync(path.join(tasksDir(dir), '61'))
    expect(listTasksKept(dir)).toMatchObject({settled: false})
    expect(existsSync(kept(dir))).toBe(false)
    expect(readdirSync(summaryDir(dir))).toEqual([]) // its probe removed
  })

  it('is not kept for no tasks, nor without summary/, nor where it cannot be written', () => {
    const few = state(3)
    expect([...taskIdsKept(few)]).toEqual(range(1, 3))
    expect(readdirSync(summaryDir(few)).sort()).toEqual(['listing.bin', 'listing.journal'])
    const none = state(0)
    expect([...taskIdsKept(none)]).toEqual([])
    expect(readdirSync(summaryDir(none))).toEqual([])
    const bare = state(60, {summary: false})
    expect(taskIdsKept(bare).length).toBe(60)
    expect(existsSync(summaryDir(bare))).toBe(false)
    // summary/ not a folder (no writer can make a file in it): listed, nothing written, no error
    const blocked = state(60, {summary: false})
    writeFileSync(summaryDir(blocked), '')
    expect(taskIdsKept(blocked).length).toBe(60)
    expect(readFileSync(summaryDir(blocked), 'utf8')).toBe('')
  })

  it('is listed again, and kept anew, when the file is damaged or of another version', () => {
    const dir = state(60)
    taskIdsKept(dir)
    truncateSync(kept(dir), 1000)
    expect([...taskIdsKept(dir)]).toEqual(range(1, 60))
    expect(readFileSync(kept(dir)).length).toBe(HEADER + 60 * 8)
    const bytes = readFileSync(kept(dir))
    bytes.write('{"v":3', 0)
    writeFileSync(kept(dir), bytes)
    expect([...taskIdsKept(dir)]).toEqual(range(1, 60))
    expect(JSON.parse(readFileSync(kept(dir)).toString('utf8', 0, HEADER))).toMatchObject({v: 2, count: 60})
  })

  it('has no ids for a state dir without tasks/, and removes temp files writers killed long ago left', () => {
    expect([...taskIdsKept(makeStateDir())]).toEqual([])
    const dir = state(60)
    const stale = path.join(summaryDir(dir), '.listing-1-old')
    const fresh = path.join(summaryDir(dir), '.listing-2-new')
    writeFileSync(stale, '')
    writeFileSync(fresh, '')
    const past = new Date(Date.now() - 3_600_000)
    utimesSync(stale, past, past)
    taskIdsKept(dir)
    expect(readdirSync(summaryDir(dir)).sort()).toEqual(['.listing-2-new', 'listing.bin', 'listing.journal'])
  })
})
