// Drover.listNewest, the page MCP's list_tasks returns: the newest `limit`
// tasks a filter keeps, oldest first, and how many it keeps in all — corrupt
// records counted as tasks, a status filter applied before the page is cut.

import {writeFileSync} from 'node:fs'
import {afterEach, describe, expect, it} from 'vitest'
import {openStateDir} from '../../src/api/index.js'
import {ensureStateDir} from '../../src/state/statedir.js'
import {taskPaths} from '../../src/state/store.js'
import {makeTask} from '../fixtures/prune-state.js'
import {cleanupStateDirs, makeStateDir} from '../helpers/cli.js'

afterEach(() => cleanupStateDirs())

describe('Drover.listNewest', () => {
  it('returns the newest tasks the filter keeps and counts them all', async () => {
    const dir = makeStateDir()
    ensureStateDir(dir)
    const ids = ['succeeded', 'failed', 'succeeded', 'failed', 'succeeded'].map((status) => makeTask(dir, {status: status as 'succeeded' | 'failed'}))
    writeFileSync(taskPaths(dir, ids[4]).record, '{')
    const drover = await openStateDir(dir)
    const page = await drover.listNewest({limit: 2})
    expect(page.total).toBe(5)
    expect(page.tasks.map((t) => [t.id, t.status])).toEqual([
      [ids[3], 'failed'],
      [ids[4], 'corrupt'],
    ])
    const failed = await drover.listNewest({status: ['failed'], limit: 1})
    expect({total: failed.total, ids: failed.tasks.map((t) => t.id)}).toEqual({total: 2, ids: [ids[3]]})
    // a page larger than the list: all of it
    expect((await drover.listNewest({limit: 50})).tasks.map((t) => t.id)).toEqual(ids)
  })
})
