// The ids in tasks/, listed again only when the folder may have changed: on
// real folders, a change coming or going, one too recent to trust its time,
// and a fresh listing asked for.

import {mkdirSync, rmSync} from 'node:fs'
import path from 'node:path'
import {afterEach, describe, expect, it} from 'vitest'
import {ensureStateDir} from '../../src/state/statedir.js'
import {tasksDir} from '../../src/state/store.js'
import {TasksListing} from '../../src/state/tasks-listing.js'
import {cleanupStateDirs, makeStateDir} from '../helpers/cli.js'
import {ageTasksDir} from '../helpers/tasks-dir.js'

afterEach(() => cleanupStateDirs())

const age = ageTasksDir

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
    const dir = makeStateDir()
    const listing = new TasksListing(dir)
    expect([...listing.ids().ids]).toEqual([])
  })
})
