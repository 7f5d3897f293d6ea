// Ages of files by the clock that stamped them: the probe agrees with a file
// made now, carries on between probes, cleans up after killed probers; and
// the judgements built on it — a task folder being created, a lock being
// taken — hold for a drover whose own clock is stepped 90 minutes ahead.

import {spawnSync} from 'node:child_process'
import {closeSync, existsSync, mkdirSync, openSync, readdirSync, statSync, utimesSync, writeFileSync} from 'node:fs'
import path from 'node:path'
import {afterEach, describe, expect, it} from 'vitest'
import {clockDir, fileSystemNow, forgetProbes} from '../../src/state/fs-clock.js'
import {stateLockPath} from '../../src/state/lock.js'
import {ensureStateDir} from '../../src/state/statedir.js'
import {clockShifter} from '../chaos/clock.js'
import {cleanupStateDirs, drover, fixture, json, makeStateDir} from '../helpers/cli.js'

afterEach(() => {
  forgetProbes()
  cleanupStateDirs()
})

function stateDir(): string {
  const dir = makeStateDir()
  ensureStateDir(dir)
  return dir
}

describe('fileSystemNow', () => {
  it('is the time the file system gives a file made now, and leaves no probe behind', () => {
    const dir = clockDir(stateDir())
    const now = fileSystemNow(dir)
    const file = path.join(dir, 'made-now')
    closeSync(openSync(file, 'w'))
    const stamped = statSync(file).mtimeMs
    // the kernel's coarse clock may stamp a few ms behind
    expect(Math.abs(stamped - now)).toBeLessThan(500)
    expect(readdirSync(dir).filter((name) => name.startsWith('.clock-'))).toEqual([])
  })

  it('carries on with the monotonic clock between probes', async () => {
    const dir = clockDir(stateDir())
    const first = fileSystemNow(dir)
    await new Promise((resolve) => setTimeout(resolve, 300))
    const later = fileSystemNow(dir)
    expect(later - first).toBeGreaterThanOrEqual(290)
    expect(later - first).toBeLessThan(2000)
  })

  it("removes the probes of killed processes once they are old, never a young one", () => {
    const dir = clockDir(stateDir())
    const old = path.join(dir, '.clock-1-old')
    const young = path.join(dir, '.clock-2-young')
    const other = path.join(dir, 'queue-x.lock.steal')
    for (const file of [old, young, other]) writeFileSync(file, '')
    const hourAgo = new Date(Date.now() - 3600_000)
    utimesSync(old, hourAgo, hourAgo)
    utimesSync(other, hourAgo, hourAgo)
    fileSystemNow(dir)
    expect(existsSync(old)).toBe(false)
    expect(existsSync(young)).toBe(true)
    expect(existsSync(other)).toBe(true)
  })

  it('removes the locks of killed processes once old, drafted or being released (folders with owner.json), never a young one or a held lock', () => {
    const dir = clockDir(stateDir())
    const hourAgo = new Date(Date.now() - 3600_000)
    const made = (name: string, age: Date | null) => {
      const folder = path.join(dir, name)
      mkdirSync(folder)
      writeFileSync(path.join(folder, 'owner.json'), '{}')
      if (age) utimesSync(folder, age, age)
      return folder
    }
    const oldDraft = made('queue-a.lock.1-x.draft', hourAgo)
    const oldGrave = made('task-3.lock.2-y.released', hourAgo)
    const youngDraft = made('queue-a.lock.3-z.draft', null)
    const held = made('task-4.lock', hourAgo)
    fileSystemNow(dir)
    expect([oldDraft, oldGrave, youngDraft, held].map((folder) => existsSync(folder))).toEqual([false, false, true, true])
  })

  it('is this process\'s clock where no probe can be made (a folder not there)', () => {
    const before = Date.now()
    const now = fileSystemNow(path.join(stateDir(), 'no-such-folder'))
    expect(now).toBeGreaterThanOrEqual(before)
    expect(now).toBeLessThanOrEqual(Date.now())
  })
})

describe.skipIf(clockShifter === null)('with drover\'s clock 90 minutes ahead', () => {
  const ahead = () => clockShifter!(90)

  it('prune leaves alone a task folder being created (no record yet), and sweeps one left long ago', async () => {
    const dir = stateDir()
    const fresh = path.join(dir, 'tasks', '1')
    const abandoned = path.join(dir, 'tasks', '2')
    // what a start leaves between its folder and its record: the empty layout
    for (const task of [abandoned, fresh]) {
      for (const sub of ['requests', 'session']) mkdirSync(path.join(task, sub), {recursive: true})
      for (const file of ['output.log', 'events.ndjson']) writeFileSync(path.join(task, file), '')
    }
    const longAgo = new Date(Date.now() - 600_000)
    utimesSync(abandoned, longAgo, longAgo)
    const r = await drover(dir, ['prune', '--older-than', '0s', '--json'], {env: ahead()})
    expect(r.exitCode, r.stderr).toBe(0)
    expect(json(r).debris).toEqual(['2'])
    expect(existsSync(fresh)).toBe(true)
    expect(existsSync(abandoned)).toBe(false)
  })

  it('a lock being taken (its folder made, its owner not written yet) is not taken from its holder', () => {
    const dir = stateDir()
    const lock = stateLockPath(dir, 'test')
    mkdirSync(lock)
    const tryIt = () => spawnSync(process.execPath, [fixture('lock-try.mjs'), lock], {env: {...process.env, ...ahead()}, encoding: 'utf8'})
    const young = tryIt()
    expect(young.stdout.trim(), young.stderr).toBe('busy')
    expect(existsSync(lock)).toBe(true)
    // the same lock left ownerless for a minute: its taker died, and it is taken over
    const minuteAgo = new Date(Date.now() - 60_000)
    utimesSync(lock, minuteAgo, minuteAgo)
    const old = tryIt()
    expect(old.stdout.trim(), old.stderr).toBe('taken')
  })
})
