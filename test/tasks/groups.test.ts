// Groups as commands name them: `--group NAME` or a task standing for its
// group, every member found whether its record is read or the derived index
// speaks for it, a typo not found (with the group meant), and a selection by
// group that takes what --all would take, of that group only.

import {afterEach, describe, expect, it} from 'vitest'
import {DroverError} from '../../src/base/errors.js'
import {openStateDir} from '../../src/api/drover.js'
import {indexRender} from '../../src/api/row-cells.js'
import {ensureStateDir} from '../../src/state/statedir.js'
import {groupTasks, resolveGroup} from '../../src/tasks/groups.js'
import {loadRecentTasks} from '../../src/tasks/read.js'
import {selectTasks} from '../../src/tasks/select.js'
import {makeTask} from '../fixtures/prune-state.js'
import {cleanupStateDirs, makeStateDir} from '../helpers/cli.js'

afterEach(() => cleanupStateDirs())

/** auth: 1 drained, 2 failed, 4 drained; 3 in no group; 5 in group other. */
function fleet(): string {
  const dir = makeStateDir()
  ensureStateDir(dir)
  makeTask(dir, {status: 'drained', group: 'auth'})
  makeTask(dir, {status: 'failed', group: 'auth'})
  makeTask(dir, {status: 'succeeded'})
  makeTask(dir, {status: 'drained', group: 'auth'})
  makeTask(dir, {status: 'succeeded', group: 'other'})
  return dir
}

function thrown(fn: () => unknown): DroverError {
  try {
    fn()
  } catch (error) {
    return error as DroverError
  }
  throw new Error('it did not throw')
}

async function rejected(promise: Promise<unknown>): Promise<DroverError> {
  try {
    await promise
  } catch (error) {
    return error as DroverError
  }
  throw new Error('it did not reject')
}

describe('resolveGroup', () => {
  it('takes a group name as it is, and an id or :latest as the group of that task', () => {
    const dir = fleet()
    expect(resolveGroup(dir, 'auth')).toBe('auth')
    expect(resolveGroup(dir, '4')).toBe('auth')
    expect(resolveGroup(dir, ':latest')).toBe('other')
  })

  it('refuses a task in no group and an unknown id as not found (exit 3), a malformed name as usage (exit 2)', () => {
    const dir = fleet()
    expect(thrown(() => resolveGroup(dir, '3'))).toMatchObject({exitCode: 3, message: 'task 3 is in no group'})
    expect(thrown(() => resolveGroup(dir, '99')).exitCode).toBe(3)
    expect(thrown(() => resolveGroup(dir, '-x'))).toMatchObject({exitCode: 2, message: expect.stringMatching(/^--group: invalid group name '-x'/)})
  })
})

describe('groupTasks', () => {
  it('is every task of the group, ascending, from records and from the derived index alike', async () => {
    const dir = fleet()
    expect((await groupTasks(dir, 'auth')).map((r) => r.id)).toEqual([1, 2, 4])
    // folded into index/: the members come out of the index's records, as they did from task.json
    await loadRecentTasks(dir, 0, {render: indexRender})
    expect((await groupTasks(dir, 'auth')).map((r) => r.id)).toEqual([1, 2, 4])
  })

  it('says a group no task bears is not found, with the one meant', async () => {
    const error = await rejected(groupTasks(fleet(), 'atuh'))
    expect(error).toMatchObject({exitCode: 3, message: 'no such group: atuh (no task is in it; did you mean auth?)', data: {group: 'atuh', found: false, didYouMean: 'auth'}})
  })
})

describe('selectTasks with a group', () => {
  it('takes what --all takes, of that group only', async () => {
    const dir = fleet()
    const chosen = await selectTasks(dir, [], {group: 'auth', allStatuses: ['drained'], what: 'resume'})
    expect(chosen.tasks.map((r) => r.id)).toEqual([1, 4])
    // through one of its tasks
    expect((await selectTasks(dir, [], {group: '2', allStatuses: ['drained', 'failed'], what: 'resume'})).tasks.map((r) => r.id)).toEqual([1, 2, 4])
  })

  it('finds nothing to do in a group whose tasks all ended, and refuses one no task bears', async () => {
    const dir = fleet()
    expect((await selectTasks(dir, [], {group: 'auth', what: 'stop'})).tasks).toEqual([])
    expect((await rejected(selectTasks(dir, [], {group: 'nope', what: 'stop'}))).exitCode).toBe(3)
  })

  it('refuses a group with ids, --all or --queue (exit 2)', async () => {
    const dir = fleet()
    for (const opts of [{all: true}, {queue: 'q'}]) {
      expect(await rejected(selectTasks(dir, [], {...opts, group: 'auth', what: 'stop'}))).toMatchObject({exitCode: 2, message: expect.stringMatching(/not both$/)})
    }
    expect((await rejected(selectTasks(dir, ['1'], {group: 'auth', what: 'stop'}))).exitCode).toBe(2)
  })
})

describe('a group in list', () => {
  it('filters the views, the rows and the table cells alike, indexed or not', async () => {
    const dir = fleet()
    const drover = await openStateDir(dir)
    const ids = async () => ({
      list: (await drover.list({group: 'auth'})).map((t) => t.id),
      rows: (await drover.listRows({group: '1'})).map((t) => t.id),
      cells: await (async () => {
        const seen: string[][] = []
        await drover.eachRowCells({group: 'auth'}, (cells) => seen.push(cells))
        return seen.map((cells) => [cells[0], cells[11]])
      })(),
    })
    const expected = {list: [1, 2, 4], rows: [1, 2, 4], cells: [['1', 'auth'], ['2', 'auth'], ['4', 'auth']]}
    expect(await ids()).toEqual(expected)
    await loadRecentTasks(dir, 0, {render: indexRender})
    expect(await ids()).toEqual(expected)
    expect((await drover.list()).map((t) => (t.status === 'corrupt' ? null : t.group))).toEqual(['auth', 'auth', null, 'auth', 'other'])
  })
})
