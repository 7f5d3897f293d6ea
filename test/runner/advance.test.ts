// The advancer on real files (no processes started: it only moves records):
// what holds a slot, pause, priority order, dependencies that skip or wait.

import {mkdtempSync, chmodSync} from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import {describe, expect, it} from 'vitest'
import {processStartTime} from '../../src/platform/platform.js'
import {advanceQueue} from '../../src/runner/advance.js'
import {runnerEntry} from '../../src/runner/local-executor.js'
import {addActive, addWaiting, waitingKey, waitingKeys, writeQueueConfig} from '../../src/state/queues.js'
import {type TaskRecord} from '../../src/state/record.js'
import {ensureStateDir} from '../../src/state/statedir.js'
import {allocateTaskId, createTaskLayout, readRecord, taskPaths, writeRecord} from '../../src/state/store.js'
import {newRecord, type TaskSpec} from '../../src/tasks/launch.js'
import {moveTo} from '../helpers/record-moves.js'

function stateDir(): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'drover-advance-'))
  chmodSync(dir, 0o700)
  ensureStateDir(dir)
  return dir
}

const spec = (extra: Partial<TaskSpec> = {}): TaskSpec => ({
  command: ['true'], shell: null, name: null, cwd: '/', env: {}, agent: 'generic',
  policies: {timeoutMs: null, idleTimeoutMs: null, maxOutputBytes: null}, ...extra,
})

/** The built runner starts any exit hooks (none are set here). */
const OPTS = {entry: runnerEntry()}
const me = () => ({pid: process.pid, startTime: processStartTime(process.pid)!})
const dead = {pid: 999_999, startTime: '1'}

/** A task of the queue: queued (in line), or holding a slot in the given state. */
function task(dir: string, extra: Partial<TaskSpec>, state: 'queued' | ((r: TaskRecord) => TaskRecord) = 'queued', queuedAt = new Date().toISOString()): number {
  const id = allocateTaskId(dir)
  createTaskLayout(taskPaths(dir, id))
  let record = {...newRecord(id, spec(extra)), queuedAt}
  const queue = extra.queue ?? '@after'
  if (state === 'queued') {
    addWaiting(dir, queue, waitingKey(record))
  } else {
    record = state(record.status === 'queued' ? moveTo(record, {status: 'starting'}) : record)
    if (extra.queue) addActive(dir, queue, id)
  }
  writeRecord(dir, record)
  return id
}

const status = (dir: string, id: number) => (readRecord(dir, id) as {record: TaskRecord}).record.status
const running = (worker = me()) => (r: TaskRecord) => ({...moveTo(r, {status: 'running'}), worker})

describe('advanceQueue', () => {
  it('counts running tasks and ended ones whose worker still lives; frees the slot of one whose worker is gone', async () => {
    const dir = stateDir()
    writeQueueConfig(dir, {name: 'q', parallel: 2, paused: false})
    task(dir, {queue: 'q'}, running())
    const endedAlive = task(dir, {queue: 'q'}, (r) => ({...moveTo(running()(r), {status: 'lost', reason: 'runner interrupted by SIGTERM'})}))
    const waiting = task(dir, {queue: 'q'})
    expect((await advanceQueue(dir, 'q', OPTS)).started).toEqual([])
    expect(status(dir, waiting)).toBe('queued')
    // The lost task's worker is gone now: its slot is free.
    const read = readRecord(dir, endedAlive) as {record: TaskRecord}
    writeRecord(dir, {...read.record, worker: dead})
    expect((await advanceQueue(dir, 'q', OPTS)).started).toEqual([waiting])
    expect(status(dir, waiting)).toBe('starting')
    expect(waitingKeys(dir, 'q')).toEqual([])
  })

  it("an ended Slurm task's recorded worker pid is a node's: never checked here, so it frees its slot whatever that pid names locally", async () => {
    const dir = stateDir()
    writeQueueConfig(dir, {name: 'q', parallel: 1, paused: false})
    // the pid and start time of a live local process (this one), as if a node's pid matched it
    task(dir, {queue: 'q', executor: 'slurm'}, (r) => moveTo(running()(r), {status: 'lost', reason: 'runner vanished without recording an end'}))
    const waiting = task(dir, {queue: 'q'})
    expect((await advanceQueue(dir, 'q', OPTS)).started).toEqual([waiting])
  })

  it('starts nothing while paused; then the highest priority first, FIFO among equals', async () => {
    const dir = stateDir()
    writeQueueConfig(dir, {name: 'p', parallel: 2, paused: true})
    const first = task(dir, {queue: 'p'}, 'queued', new Date(1000).toISOString())
    const second = task(dir, {queue: 'p'}, 'queued', new Date(2000).toISOString())
    const urgent = task(dir, {queue: 'p', priority: 3}, 'queued', new Date(3000).toISOString())
    expect((await advanceQueue(dir, 'p', OPTS)).started).toEqual([])
    writeQueueConfig(dir, {name: 'p', parallel: 2, paused: false})
    expect((await advanceQueue(dir, 'p', OPTS)).started).toEqual([urgent, first])
    expect(status(dir, second)).toBe('queued')
  })

  it('skips a task whose --after dependency failed, naming it; passes over one still waiting without blocking the line', async () => {
    const dir = stateDir()
    const failed = task(dir, {}, (r) => moveTo(running(dead)(r), {status: 'failed', reason: 'exit 2', exitCode: 2}))
    const live = task(dir, {}, running())
    const blocked = task(dir, {after: [live]})
    const doomed = task(dir, {after: [failed]})
    const anyway = task(dir, {afterEnded: [failed]})
    const done = await advanceQueue(dir, '@after', OPTS)
    expect(done.skipped).toEqual([doomed])
    expect(done.started).toEqual([anyway])
    expect((readRecord(dir, doomed) as {record: TaskRecord}).record.reason).toBe(`dependency ${failed} failed (exit 2)`)
    expect(status(dir, blocked)).toBe('queued')
  })
})
