// The journal of starts beside the kept listing of tasks/, on real folders and
// drover's own id allocation: a start after the listing is read from the
// journal instead of listing tasks/ again, and every change the journal does
// not account for — a folder made or removed by hand, a start killed before
// its line, lines out of order, cut short, of another journal or too many —
// means a listing.

import {appendFileSync, copyFileSync, mkdirSync, readFileSync, renameSync, rmSync, statSync, truncateSync, writeFileSync} from 'node:fs'
import path from 'node:path'
import {afterEach, describe, expect, it} from 'vitest'
import {listTasksKept} from '../../src/state/kept-listing.js'
import {summaryDir} from '../../src/state/layout.js'
import {tasksStamp} from '../../src/state/listing-journal.js'
import {allocateTaskId, tasksDir} from '../../src/state/store.js'
import {cleanupStateDirs, makeStateDir} from '../helpers/cli.js'
import {ageTasksDir} from '../helpers/tasks-dir.js'

afterEach(() => cleanupStateDirs())

const journal = (dir: string) => path.join(summaryDir(dir), 'listing.journal')
const lines = (dir: string) => readFileSync(journal(dir), 'utf8').split('\n').filter(Boolean)

/** A state dir of `n` task folders, tasks/ long unchanged, whose listing is kept (with an empty journal). */
function keptState(n: number): string {
  const dir = makeStateDir()
  mkdirSync(tasksDir(dir), {recursive: true})
  for (let id = 1; id <= n; id++) mkdirSync(path.join(tasksDir(dir), String(id)))
  mkdirSync(summaryDir(dir))
  writeFileSync(path.join(dir, 'last-id'), `${n}\n`)
  ageTasksDir(dir)
  expect(listTasksKept(dir).source).toBe('listed')
  expect(listTasksKept(dir).source).toBe('kept')
  expect(lines(dir)).toEqual([])
  return dir
}

const idsOf = (dir: string) => [...listTasksKept(dir).ids]
const top = (dir: string, k: number) => idsOf(dir).slice(-k)

describe('the journal of the kept listing', () => {
  it('gives the starts since the listing without listing tasks/ again', () => {
    const dir = keptState(60)
    const a = allocateTaskId(dir)
    const b = allocateTaskId(dir)
    expect([a, b]).toEqual([61, 62])
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

  it('is not followed past a start killed between its folder and its line, nor past lines out of order', () => {
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
    ageTasksDir(dir)
    expect(listTasksKept(dir).source).toBe('listed')
    expect(statSync(journal(dir)).ino).not.toBe(before)
    expect(lines(dir)).toEqual([])
    expect(listTasksKept(dir).source).toBe('kept')
    allocateTaskId(dir)
    expect(listTasksKept(dir).source).toBe('journal')
    expect(idsOf(dir).length).toBe(61) // 60 and a start, one removed, a start
  })

  it('is not written without a kept listing, and a start never makes one', () => {
    const dir = makeStateDir()
    mkdirSync(tasksDir(dir), {recursive: true})
    mkdirSync(summaryDir(dir))
    allocateTaskId(dir)
    expect(() => statSync(journal(dir))).toThrow(/ENOENT/)
  })
})
