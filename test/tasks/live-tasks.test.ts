// The live tasks read through the live index on real state dirs: every task not
// ended is found (running, queued, one whose runner died — reconciled to lost),
// no ended task without a hint is read at all (a corrupt one among them stays
// unseen), a hint whose folder is gone or is a link names no task, and a state
// dir without an index is read whole, as loadTasks reads it.

import {mkdirSync, symlinkSync, writeFileSync} from 'node:fs'
import path from 'node:path'
import {afterEach, describe, expect, it} from 'vitest'
import {openStateDir} from '../../src/api/index.js'
import {liveDir, markLive, readHintedRecords} from '../../src/state/live-index.js'
import {ensureStateDir} from '../../src/state/statedir.js'
import {readRecord, taskPaths} from '../../src/state/store.js'
import {loadLiveTasks, onlyLiveStatuses} from '../../src/tasks/live-tasks.js'
import {loadRecentTasks, loadTasks} from '../../src/tasks/read.js'
import {makeTask} from '../fixtures/prune-state.js'
import {childrenKilledAfterEach, deadPid, liveProcess} from '../helpers/sleepers.js'
import {cleanupStateDirs, makeStateDir} from '../helpers/cli.js'

afterEach(() => cleanupStateDirs())
// registered after the clean-up, so run before it, as the kill came first
const children = childrenKilledAfterEach()

/** Ten ended tasks (one of them corrupt), a running one, one whose runner died, and a queued one: the three live ones hinted. */
async function state() {
  const dir = makeStateDir()
  ensureStateDir(dir)
  const ended = Array.from({length: 10}, () => makeTask(dir, {status: 'succeeded'}))
  // Every record write leaves a hint; the default list folds those of ended tasks into the summary.
  await loadRecentTasks(dir, 0)
  // Damage from outside drover makes no hint.
  writeFileSync(taskPaths(dir, ended[3]).record, '{')
  const running = makeTask(dir, {status: 'running', runnerPid: await liveProcess(children)})
  const orphaned = makeTask(dir, {status: 'running', runnerPid: await deadPid()})
  markLive(dir, running)
  markLive(dir, orphaned)
  // a queued task, made as drover makes one (its hint with it)
  const drover = await openStateDir(dir)
  await drover.setQueue('q', {parallel: 1})
  await drover.pauseQueue('q')
  const queued = (await drover.start({command: ['true'], queue: 'q'})).id
  return {dir, ended, running, orphaned, queued}
}

const summary = (reads: Awaited<ReturnType<typeof loadTasks>>) => reads.map((read) => [read.id, read.ok ? read.record.status : 'corrupt'])

describe('loadLiveTasks', () => {
  it('finds every task not ended through the hints and reads no ended one', async () => {
    const {dir, ended, running, orphaned, queued} = await state()
    expect(summary(await loadLiveTasks(dir))).toEqual([
      [running, 'running'],
      // reconciled as every reader does: its runner is gone
      [orphaned, 'lost'],
      [queued, 'queued'],
    ])
    // the corrupt ended one would show as such had the live reader opened it
    expect(readRecord(dir, ended[3]).ok).toBe(false)
  })

  it('reads every task, as loadTasks does, in a state dir without an index', async () => {
    const dir = makeStateDir()
    ensureStateDir(dir)
    const ended = Array.from({length: 3}, () => makeTask(dir, {status: 'failed'}))
    const running = makeTask(dir, {status: 'running', runnerPid: await liveProcess(children)})
    expect(summary(await loadLiveTasks(dir))).toEqual([...ended.map((id) => [id, 'failed']), [running, 'running']])
    // That look read the ended ones through their hints and folded them: the next reads only what runs.
    expect(summary(await loadLiveTasks(dir))).toEqual([[running, 'running']])
    expect(summary(await loadTasks(dir))).toEqual([...ended.map((id) => [id, 'failed']), [running, 'running']])
  })

  it('takes a hint whose folder is gone, a link or a stray file for no task', async () => {
    const {dir, running, orphaned, queued} = await state()
    const tasks = path.dirname(taskPaths(dir, 1).dir)
    mkdirSync(path.join(dir, 'elsewhere', 'task'), {recursive: true})
    symlinkSync(path.join(dir, 'elsewhere', 'task'), path.join(tasks, '900'))
    writeFileSync(path.join(tasks, '901'), '{}')
    for (const id of [900, 901, 902]) writeFileSync(path.join(liveDir(dir), String(id)), '')
    expect(readHintedRecords(dir).map((read) => read.id)).toEqual([running, orphaned, queued])
  })
})

describe('onlyLiveStatuses', () => {
  it('holds for statuses a task has before it ends, and no others', () => {
    expect(onlyLiveStatuses(['queued', 'starting', 'running', 'stopping', 'waiting'])).toBe(true)
    expect(onlyLiveStatuses(['running', 'failed'])).toBe(false)
    expect(onlyLiveStatuses(['running', 'corrupt'])).toBe(false)
    expect(onlyLiveStatuses([])).toBe(false)
  })
})
