// What completion offers for TASK, read from real state dirs on disk: the
// newest tasks, live ones however old, :latest, names as a ref means them,
// digits that reach older ids — and never a listing of every task.

import {existsSync, mkdirSync, readFileSync, rmSync, writeFileSync} from 'node:fs'
import path from 'node:path'
import {afterEach, describe, expect, it} from 'vitest'
import {makeEndedTasks} from '../../bench/lib/make-tasks.mjs'
import {formatCandidates, NEWEST_OFFERED, refCandidates} from '../../src/tasks/ref-candidates.js'
import {cleanupStateDirs, makeStateDir} from '../helpers/cli.js'

afterEach(cleanupStateDirs)

const taskJson = (dir: string, id: number) => path.join(dir, 'tasks', String(id), 'task.json')

/** Rewrites a task's record (a real file, as a runner would leave it). */
function edit(dir: string, id: number, change: Record<string, unknown>): void {
  const record = JSON.parse(readFileSync(taskJson(dir, id), 'utf8'))
  writeFileSync(taskJson(dir, id), JSON.stringify({...record, ...change}))
}

/** Makes task `id` a running one with a live hint, as start leaves it. */
function makeLive(dir: string, id: number, change: Record<string, unknown> = {}): void {
  edit(dir, id, {status: 'running', desired: 'running', exitCode: null, signal: null, reason: null, endedAt: null, ...change})
  writeFileSync(path.join(dir, 'live', String(id)), '')
}

const refs = (dir: string, word?: string) => refCandidates(dir, word).map((c) => c.ref)

describe('refCandidates', () => {
  it('offers :latest, then the newest tasks by id, not older ended ones', () => {
    const dir = makeStateDir()
    makeEndedTasks(dir, 120, {outputBytes: 10})
    const got = refCandidates(dir)
    expect(got[0].ref).toBe(':latest')
    expect(got[0].description).toContain('120')
    const ids = got.filter((c) => /^\d+$/.test(c.ref)).map((c) => Number(c.ref))
    expect(ids).toEqual(Array.from({length: NEWEST_OFFERED}, (_, i) => 120 - i))
    // makeEndedTasks names every fourth task job-<id>: the names of those offered, and no others
    const names = got.filter((c) => c.ref.startsWith('job-')).map((c) => c.ref)
    expect(names).toEqual(ids.filter((id) => id % 4 === 0).map((id) => `job-${id}`))
  })

  it('offers a live task however old, and not an old one whose hint outlived its end', () => {
    const dir = makeStateDir()
    makeEndedTasks(dir, 200, {outputBytes: 10})
    makeLive(dir, 3, {name: 'old-live'})
    writeFileSync(path.join(dir, 'live', '7'), '') // task 7 succeeded; list drops such hints lazily
    writeFileSync(path.join(dir, 'live', '11'), '') // task 11 was lost while meant to run: resume --interrupted brings it back
    const got = refs(dir)
    expect(got).toContain('3')
    expect(got).toContain('old-live')
    expect(got).toContain('11')
    expect(got).not.toContain('7')
    expect(got).not.toContain('4')
  })

  it('walks past ids removed with rm to find the newest tasks', () => {
    const dir = makeStateDir()
    makeEndedTasks(dir, 80, {outputBytes: 10})
    for (let id = 41; id <= 80; id++) rmSync(path.join(dir, 'tasks', String(id)), {recursive: true})
    const got = refs(dir)
    expect(got[0]).toBe(':latest')
    expect(got[1]).toBe('40')
    expect(got.filter((r) => /^\d+$/.test(r))).toHaveLength(40)
    expect(refCandidates(dir)[0].description).toContain('40')
  })

  it('describes a name by the task it means: the live one over a newer ended one', () => {
    const dir = makeStateDir()
    makeEndedTasks(dir, 10, {outputBytes: 10})
    edit(dir, 9, {name: 'build'})
    makeLive(dir, 6, {name: 'build'})
    const build = refCandidates(dir).filter((c) => c.ref === 'build')
    expect(build).toHaveLength(1)
    expect(build[0].description).toMatch(/^6 running/)
    edit(dir, 6, {status: 'succeeded', exitCode: 0, reason: 'exit 0', endedAt: new Date().toISOString()})
    expect(refCandidates(dir).find((c) => c.ref === 'build')!.description).toMatch(/^9 /)
  })

  it('brings the task of the digits typed and those one digit longer', () => {
    const dir = makeStateDir()
    makeEndedTasks(dir, 300, {outputBytes: 10})
    expect(refs(dir)).not.toContain('7')
    const got = refs(dir, '7')
    for (const id of [7, 70, 71, 79]) expect(got).toContain(String(id))
    expect(got).not.toContain('700') // two digits longer: the next Tab brings them
    expect(refs(dir, '29')).toContain('299')
    expect(refs(dir, '30')).not.toContain('301') // past the newest id: no such task
  })

  it('offers only refs that need no quoting, and one-line descriptions', () => {
    const dir = makeStateDir()
    makeEndedTasks(dir, 3, {outputBytes: 10})
    edit(dir, 2, {command: ['sh', '-c', "echo 'a b'\n$(rm -rf x)\tdone"]})
    const got = refCandidates(dir)
    for (const c of got) {
      expect(c.ref).toMatch(/^(:latest|[1-9][0-9]*|[A-Za-z][A-Za-z0-9._-]*)$/)
      expect(c.description).not.toMatch(/[\n\t\r]/)
    }
    expect(got.find((c) => c.ref === '2')!.description).toContain("echo 'a b' $(rm -rf x) done")
    // what the scripts read: one ref<TAB>description a line
    expect(formatCandidates(got).split('\n').filter(Boolean).every((line) => line.split('\t').length === 2)).toBe(true)
  })

  it('means by :latest what findTask takes: the newest record even unreadable, not a folder without one', () => {
    const dir = makeStateDir()
    makeEndedTasks(dir, 5, {outputBytes: 10})
    writeFileSync(taskJson(dir, 5), '{"truncated')
    expect(refCandidates(dir)[0]).toEqual({ref: ':latest', description: 'the newest task: 5 (its record is unreadable)'})
    expect(refs(dir)).not.toContain('5')
    rmSync(taskJson(dir, 5))
    expect(refCandidates(dir)[0].description).toMatch(/^the newest task: 4 job-4 /)
  })

  it('has nothing to offer, and creates nothing, for a state dir that is not there or has no tasks', () => {
    const parent = makeStateDir()
    const missing = path.join(parent, 'not-yet')
    expect(refCandidates(missing)).toEqual([])
    expect(existsSync(missing)).toBe(false)
    mkdirSync(path.join(parent, 'empty', 'tasks'), {recursive: true})
    expect(refCandidates(path.join(parent, 'empty'))).toEqual([])
  })

  it('finds the newest tasks of a state dir from before the high-water mark', () => {
    const dir = makeStateDir()
    makeEndedTasks(dir, 60, {outputBytes: 10})
    rmSync(path.join(dir, 'last-id'))
    const got = refs(dir)
    expect(got[0]).toBe(':latest')
    expect(got[1]).toBe('60')
    expect(got).not.toContain('10')
  })
})
