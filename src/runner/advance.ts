// Advancing a queue: under the queue's lock, count the tasks holding a slot,
// then move the next queued ones to `starting` while a slot is free, or to
// `skipped` when a dependency did not succeed. There is no daemon: the runner
// of a task that ends calls this (its slot handed on), and so does every drover
// command (which first reconciles, so a SIGKILLed runner's slot is freed). It
// lives with the runner because the runner bundle may use nothing above it.
//
// Why a queue cannot exceed its limit: every claim happens under the queue
// lock, after counting the `active/` entries whose task is not final or whose
// worker still runs. An entry is written before its record becomes `starting`
// and removed (under the lock) only once the record is final and the worker
// gone; a record turns final only after the worker's tree is gone (runner) or
// was seen dead (reconcile). So every live worker of the queue was counted.

import {workerAliveHere} from './executor.js'
import {acquireLock, LockBusyError, taskLockPath} from '../state/lock.js'
import {
  activeIds,
  addActive,
  AFTER_QUEUE,
  effectiveQueue,
  idOfKey,
  listQueueNames,
  queueLockPath,
  readQueueConfig,
  removeActive,
  removeWaiting,
  waitingKey,
  waitingKeys,
} from '../state/queues.js'
import {isFinalStatus, transition, type TaskRecord} from '../state/record.js'
import type {RunnerEntry} from './exit-hooks.js'
import {settle} from './settle.js'
import {appendEvent, readRecord, taskPaths} from '../state/store.js'
import {commitRecord} from './commit-record.js'

export interface AdvanceOptions {
  /** the record as it truly is: commands reconcile it; a runner takes it as written (a dead runner's task then still counts). */
  check?: (record: TaskRecord) => Promise<TaskRecord>
  /** how long to wait for the queue's lock (default LOCK_WAIT_MS). */
  lockWaitMs?: number
  /** which tasks the caller can place (a runner on a cluster node cannot start a local one); the others stay queued for the next advance. */
  launchable?: (record: TaskRecord) => boolean
  /** how the exit hooks of a task ended `skipped` are started (settle.ts). */
  entry: RunnerEntry
}

export interface Advanced {
  /** tasks moved to `starting`: the caller launches their runners. */
  started: number[]
  skipped: number[]
}

const DEPENDENCY_LOOKAHEAD = 16

/** A busy queue delays a start or a hand-off; it must not fail it. */
export const LOCK_WAIT_MS = 120_000

type Readiness = {kind: 'ready'} | {kind: 'wait'} | {kind: 'skip'; reason: string}

// An ended task still holds its slot while its worker lives on — checked only
// where the executor can check it: a Slurm worker's pid is a node's, and its
// task ends only once its job has (reconcile's lost needs the job gone).
const holdsSlot = (record: TaskRecord) => (record.status !== 'queued' && !isFinalStatus(record.status)) || workerAliveHere(record)

/** Interrupted (lost while meant to run, or drained): `resume --interrupted` brings it back, so dependents wait for it. */
const comesBack = (record: TaskRecord) => record.desired === 'running' && (record.status === 'lost' || record.status === 'drained')

export function readiness(stateDir: string, record: TaskRecord): Readiness {
  // A retry waits out its delay first (without a slot: it is only queued).
  if (record.retryAt !== null && record.status === 'queued' && Date.parse(record.retryAt) > Date.now()) return {kind: 'wait'}
  const deps = [...record.after.map((id) => ({id, strict: true})), ...record.afterEnded.map((id) => ({id, strict: false}))]
  for (const {id, strict} of deps) {
    const read = readRecord(stateDir, id)
    if (!read.ok) {
      if (strict) return {kind: 'skip', reason: `dependency ${id} is gone (${read.error})`}
      continue
    }
    const dep = read.record
    if (!isFinalStatus(dep.status)) return {kind: 'wait'}
    if (!strict) {
      if (dep.status === 'lost' && dep.desired === 'running') return {kind: 'wait'}
      continue
    }
    if (dep.status === 'succeeded') continue
    if (comesBack(dep)) return {kind: 'wait'}
    return {kind: 'skip', reason: `dependency ${id} ${dep.status}${dep.reason && dep.reason !== dep.status ? ` (${dep.reason})` : ''}`}
  }
  return {kind: 'ready'}
}

/** One pass over one queue. */
export async function advanceQueue(stateDir: string, name: string, opts: AdvanceOptions): Promise<Advanced> {
  const done: Advanced = {started: [], skipped: []}
  // Reconciling (which may start a runner to adopt a worker) happens before
  // the lock, so the lock is held only for reads and a few small writes: many
  // starters and runners take turns on it. Inside, records count as written,
  // and one whose runner died since still holds its slot: never too many.
  if (opts.check) {
    const check = opts.check
    const reconcileLive = async (id: number) => {
      const read = readRecord(stateDir, id)
      if (read.ok && !isFinalStatus(read.record.status) && read.record.status !== 'queued') await check(read.record)
    }
    for (const id of activeIds(stateDir, name)) await reconcileLive(id)
    // The dependencies of the tasks next in line too, so a dependency whose
    // runner died is found out now; the first few only, so a long line costs
    // a command nothing.
    const next = name === AFTER_QUEUE ? waitingKeys(stateDir, name) : waitingKeys(stateDir, name).slice(0, DEPENDENCY_LOOKAHEAD)
    for (const key of next) {
      const read = readRecord(stateDir, idOfKey(key))
      if (read.ok) for (const dep of [...read.record.after, ...read.record.afterEnded]) await reconcileLive(dep)
    }
  }
  const release = await acquireLock(queueLockPath(stateDir, name), {waitMs: opts.lockWaitMs ?? LOCK_WAIT_MS})
  try {
    const config = readQueueConfig(stateDir, name)
    let active = 0
    for (const id of activeIds(stateDir, name)) {
      const read = readRecord(stateDir, id)
      const record = read.ok ? read.record : null
      if (record && holdsSlot(record)) active++
      else removeActive(stateDir, name, id)
    }
    if (config.paused) return done
    for (const key of waitingKeys(stateDir, name)) {
      if (active >= config.parallel) break
      const id = idOfKey(key)
      const read = readRecord(stateDir, id)
      if (!read.ok || !inLine(read.record, name, key)) {
        removeWaiting(stateDir, name, key)
        continue
      }
      const ready = readiness(stateDir, read.record)
      if (ready.kind === 'wait' || (ready.kind === 'ready' && opts.launchable?.(read.record) === false)) continue
      const moved = await claim(stateDir, name, key, id, ready, opts.entry)
      if (moved === 'started') {
        active++
        done.started.push(id)
      } else if (moved === 'skipped') done.skipped.push(id)
    }
  } finally {
    release()
  }
  return done
}

const inLine = (record: TaskRecord, name: string, key: string) =>
  record.status === 'queued' && effectiveQueue(record) === name && waitingKey(record) === key

/** Moves one queued task on, under its task lock (a cancel of a queued task takes it too). */
async function claim(stateDir: string, name: string, key: string, id: number, ready: Readiness, entry: RunnerEntry): Promise<'started' | 'skipped' | null> {
  let release
  try {
    release = await acquireLock(taskLockPath(stateDir, id), {waitMs: 5000})
  } catch (error) {
    // Someone holds the task for long (a cancel, an adoption): leave it for the next advance.
    if (error instanceof LockBusyError) return null
    throw error
  }
  try {
    const read = readRecord(stateDir, id)
    if (!read.ok || !inLine(read.record, name, key)) {
      removeWaiting(stateDir, name, key)
      return null
    }
    const paths = taskPaths(stateDir, id)
    const run = read.record.runs.length
    if (ready.kind === 'skip') {
      settle(stateDir, read.record, {status: 'skipped', cause: 'dependency', reason: ready.reason}, {entry})
      return 'skipped'
    }
    // The slot is taken on disk before the record says so: a crash in between leaves a stale entry, never an uncounted task.
    addActive(stateDir, name, id)
    // its runner tells the status hooks, as it records `running` (or settle, should it never)
    commitRecord(stateDir, transition(read.record, {status: 'starting'}), read.record.status, {fire: null})
    appendEvent(paths, {event: 'dequeued', run, queue: name === '@after' ? null : name})
    removeWaiting(stateDir, name, key)
    return 'started'
  } finally {
    release()
  }
}

/**
 * Every queue, again while a pass skipped something: a skipped task is a
 * failed dependency for tasks that wait on it, possibly in another queue.
 */
export async function advanceAll(stateDir: string, opts: AdvanceOptions & {only?: string[]}): Promise<Advanced> {
  const all: Advanced = {started: [], skipped: []}
  for (let pass = 0; pass < 10; pass++) {
    let skipped = 0
    for (const name of opts.only ?? listQueueNames(stateDir)) {
      if (waitingKeys(stateDir, name).length === 0) continue
      const done = await advanceQueue(stateDir, name, opts)
      all.started.push(...done.started)
      all.skipped.push(...done.skipped)
      skipped += done.skipped.length
    }
    if (skipped === 0 || opts.only) break
  }
  return all
}
