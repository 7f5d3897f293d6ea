// What a watch of the state dir looks at per pass, on real folders: tasks/ is
// listed again only when it changed (or changed so lately that a second change
// could share its time), the hints name the tasks to look at beside those not
// ended, a sweep looks at everything, and a state dir without an index always.

import {mkdirSync, writeFileSync} from 'node:fs'
import path from 'node:path'
import {afterEach, describe, expect, it} from 'vitest'
import {liveDir} from '../../src/state/live-index.js'
import {ensureStateDir} from '../../src/state/statedir.js'
import {tasksDir} from '../../src/state/store.js'
import {WatchLook} from '../../src/tasks/watch-look.js'
import {cleanupStateDirs, makeStateDir} from '../helpers/cli.js'
import {ageTasksDir} from '../helpers/tasks-dir.js'

afterEach(() => cleanupStateDirs())

/** A state dir with task folders 1-3, an index hinting 2, and tasks/ last changed a minute ago. */
function state() {
  const dir = makeStateDir()
  ensureStateDir(dir)
  for (const id of [1, 2, 3]) mkdirSync(path.join(tasksDir(dir), String(id)), {recursive: true})
  mkdirSync(liveDir(dir))
  writeFileSync(path.join(liveDir(dir), '2'), '')
  age(dir)
  return dir
}

const age = ageTasksDir

describe('WatchLook', () => {
  it('sweeps first, then reuses the listing of an unchanged tasks/ and names the hinted tasks', () => {
    const dir = state()
    const look = new WatchLook(dir)
    const first = look.next()
    expect(first).toMatchObject({hinted: null, relisted: true})
    expect([...first.ids]).toEqual([1, 2, 3])
    const second = look.next()
    expect(second.relisted).toBe(false)
    expect([...second.ids]).toEqual([1, 2, 3])
    expect([...second.hinted!]).toEqual([2])
  })

  it('lists again once a folder comes or goes, and keeps listing while the change is recent', () => {
    const dir = state()
    const look = new WatchLook(dir)
    look.next()
    mkdirSync(path.join(tasksDir(dir), '4'))
    // changed just now: listed, and listed again next time (a change in the same tick would share its time)
    expect(look.next()).toMatchObject({relisted: true})
    expect(look.next().relisted).toBe(true)
    expect([...look.next().ids]).toEqual([1, 2, 3, 4])
    age(dir)
    look.next()
    expect(look.next().relisted).toBe(false)
  })

  it('looks at every task each pass without an index, or when a sweep is due', () => {
    const dir = makeStateDir()
    ensureStateDir(dir)
    mkdirSync(path.join(tasksDir(dir), '1'), {recursive: true})
    age(dir)
    const noIndex = new WatchLook(dir)
    noIndex.next()
    expect(noIndex.next()).toMatchObject({hinted: null, relisted: true})
    mkdirSync(liveDir(dir))
    const sweeping = new WatchLook(dir, 0)
    sweeping.next()
    expect(sweeping.next()).toMatchObject({hinted: null, relisted: true})
  })
})
