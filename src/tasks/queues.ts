// Queues from a command's side: joining one, advancing them all (every drover
// command does, after reconciling, so a queue moves on even when the runner
// that should have handed its slot on was SIGKILLed), settings, and ending a
// queued task that never started.

import {conflictError, DroverError, ExitCode, usageError} from '../base/errors.js'
import {isValidTaskName} from '../base/parse.js'
import {distance, suggest} from '../base/suggest.js'
import {existsSync} from 'node:fs'
import {advanceAll, type Advanced} from '../runner/advance.js'
import {runnerEntry} from '../runner/local-executor.js'
import {settleTask} from '../runner/settle.js'
import {taskBusy, withLock} from '../state/lock.js'
import {findTask} from './lookup.js'
import {readHintedRecords} from '../state/live-index.js'
import {
  activeIds,
  AFTER_QUEUE,
  listQueueNames,
  MAX_PRIORITY,
  queueLockPath,
  queuesDir,
  readQueueConfig,
  removeQueueFiles,
  waitingKeys,
  writeQueueConfig,
  type QueueConfig,
} from '../state/queues.js'
import {isFinalStatus, type TaskRecord} from '../state/record.js'
import {readRecord} from '../state/store.js'
import {executorOf, reconcile} from './reconcile.js'

/** The queues people made (settings or members); the dependency queue is drover's own. */
export const knownQueues = (stateDir: string): string[] => listQueueNames(stateDir).filter((name) => name !== AFTER_QUEUE)

/** An unknown queue's refusal: the name meant, else the queues there are. */
function unknownQueue(stateDir: string, name: string, hint: string): DroverError {
  const known = knownQueues(stateDir)
  const near = suggest(name, known)
  const there = near ? ` (did you mean ${near}?)` : known.length > 0 ? ` (queues: ${known.join(', ')})` : ' (there are no queues)'
  return usageError(`no queue '${name}'${there}; ${hint}`)
}

/** The name of a queue that exists: `wait --queue`, `queue pause|resume|rm` refuse a typo rather than act on an empty new queue. */
export function requireQueue(stateDir: string, name: string, hint = `make it with: drover queue set ${name} --parallel N`): string {
  checkQueueName(name)
  if (!knownQueues(stateDir).includes(name)) throw unknownQueue(stateDir, name, hint)
  return name
}

/**
 * `start --queue NAME`: an existing queue, or a new one — unless the new name
 * is a near miss of an existing one (`agnets` beside `agents`), which is
 * refused with the name meant; `queue set NAME` first makes such a queue on purpose.
 */
export function queueForStart(stateDir: string, name: string): string {
  checkQueueName(name)
  const known = knownQueues(stateDir)
  if (known.includes(name) || !known.some((queue) => nearMiss(name, queue))) return name
  throw unknownQueue(stateDir, name, `to make a new queue of that name: drover queue set ${name} --parallel N, then start`)
}

/**
 * A new queue name that is almost certainly a typo of an existing one —
 * stricter than "did you mean", because a new name is a normal thing to give:
 * names of 4+ characters one edit apart, or 5+ two edits apart (a swapped
 * pair, `agnets`); never a numbered sibling (`gpu2` beside `gpu1`, `q2`
 * beside `q`), which is how people name queues on purpose.
 */
export function nearMiss(typed: string, queue: string): boolean {
  const letters = (s: string) => s.replace(/[0-9]+/g, '')
  if (letters(typed) === letters(queue)) return false
  const d = distance(typed.toLowerCase(), queue.toLowerCase())
  if (d === 0) return true // only the case differs
  return (d === 1 && typed.length >= 4) || (d === 2 && typed.length >= 5)
}

export function checkQueueName(name: string): string {
  if (!isValidTaskName(name)) throw usageError(`invalid queue name '${name}': use 1-64 letters, digits, . _ -, starting with a letter`)
  return name
}

export function checkPriority(priority: number): number {
  if (!Number.isSafeInteger(priority) || Math.abs(priority) > MAX_PRIORITY) {
    throw usageError(`--priority must be a whole number from -${MAX_PRIORITY} to ${MAX_PRIORITY}`)
  }
  return priority
}

/** Dependencies name existing tasks (ids or names), checked before anything is written: a typo is a usage error. */
export function resolveDependencies(stateDir: string, refs: string[], flag: string): number[] {
  const ids: number[] = []
  for (const ref of refs) {
    if (typeof ref !== 'string' || ref.trim() === '') throw usageError(`${flag} needs task ids or names, got an empty one`)
    let read
    try {
      read = findTask(stateDir, ref)
    } catch (error) {
      if (error instanceof DroverError && error.exitCode === ExitCode.notFound) throw usageError(`${flag}: no task ${ref}`)
      throw error
    }
    if (!ids.includes(read.id)) ids.push(read.id)
  }
  return ids
}

/**
 * Advances every queue, reconciling the tasks that hold slots first. Runners
 * of the tasks moved to `starting` are launched without waiting, except
 * `waitFor`'s (a fan-out's: several), which are launched together (one with
 * the standby runner of `start`) and awaited so `start` returns once its own
 * tasks run.
 */
export async function advanceQueues(
  stateDir: string,
  opts: {waitFor?: number | readonly number[]; lockWaitMs?: number; only?: string[]; launch?: (id: number) => Promise<unknown>} = {},
): Promise<Advanced> {
  if (!existsSync(queuesDir(stateDir))) return {started: [], skipped: []}
  const done = await advanceAll(stateDir, {check: (record) => reconcile(stateDir, record), lockWaitMs: opts.lockWaitMs, only: opts.only, entry: runnerEntry()})
  const own = new Set(opts.waitFor === undefined ? [] : typeof opts.waitFor === 'number' ? [opts.waitFor] : opts.waitFor)
  const launches: Promise<unknown>[] = []
  for (const id of done.started) {
    if (own.has(id) && opts.launch) {
      launches.push(opts.launch(id))
      continue
    }
    const read = readRecord(stateDir, id)
    if (read.ok) await executorOf(read.record).submit(stateDir, id, {detach: true})
  }
  await Promise.all(launches)
  return done
}

/** Every drover command's first step: move queues on, never failing the command for it. */
export async function advanceQuietly(stateDir: string): Promise<void> {
  try {
    await advanceQueues(stateDir, {lockWaitMs: 2000})
  } catch {
    // a busy or read-only state dir: the next command or runner advances
  }
}

export interface QueueInfo {
  name: string
  parallel: number
  paused: boolean
  /** tasks holding a slot (starting, running, stopping). */
  running: number
  /** tasks waiting their turn. */
  waiting: number
}

export async function listQueues(stateDir: string): Promise<QueueInfo[]> {
  await advanceQueues(stateDir)
  const infos: QueueInfo[] = []
  for (const name of listQueueNames(stateDir)) {
    if (name === AFTER_QUEUE) continue
    const config = readQueueConfig(stateDir, name)
    let running = 0
    for (const id of activeIds(stateDir, name)) {
      const read = readRecord(stateDir, id)
      if (read.ok && !isFinalStatus(read.record.status) && read.record.status !== 'queued') running++
    }
    infos.push({...config, running, waiting: waitingKeys(stateDir, name).length})
  }
  return infos
}

/** Changes a queue's settings under its lock, then advances it (a raised limit or a resume starts tasks at once). */
export async function configureQueue(stateDir: string, name: string, change: Partial<Pick<QueueConfig, 'parallel' | 'paused'>>): Promise<QueueInfo> {
  // `set` makes a queue; pause and resume act on one that exists (a typo must not make a paused queue)
  if (change.parallel === undefined) requireQueue(stateDir, name)
  else checkQueueName(name)
  await withLock(queueLockPath(stateDir, name), () => {
    writeQueueConfig(stateDir, {...readQueueConfig(stateDir, name), ...change, name})
  })
  const infos = await listQueues(stateDir)
  return infos.find((info) => info.name === name)!
}

/**
 * `queue rm NAME`: forgets a queue that holds no task — none waiting, none
 * holding a slot, no live task of its own — under its lock, so nothing joins
 * it meanwhile. Ended tasks keep their queue's name; `start ID` of one makes
 * the queue again, with the default limit.
 */
export async function removeQueue(stateDir: string, name: string): Promise<QueueInfo> {
  requireQueue(stateDir, name, 'nothing to remove')
  const info = (await listQueues(stateDir)).find((q) => q.name === name)!
  await withLock(queueLockPath(stateDir, name), () => {
    const live = readHintedRecords(stateDir).filter((read) => read.ok && read.record.queue === name && !isFinalStatus(read.record.status))
    const members = waitingKeys(stateDir, name).length + activeIds(stateDir, name).length
    if (live.length > 0 || members > 0) {
      const ids = live.map((read) => read.id)
      throw conflictError(`queue ${name} is not empty: ${ids.length > 0 ? `task${ids.length === 1 ? '' : 's'} ${ids.join(', ')}` : `${members} member${members === 1 ? '' : 's'}`} (stop --queue ${name}, or wait for them)`, {queue: name, tasks: ids})
    }
    removeQueueFiles(stateDir, name)
  })
  return info
}

/**
 * Why a queued run ended without starting, in words that do not hide the runs
 * before it: a retry's wait names the attempt that never came and how the
 * last run ended; a later run (restart, resume) says which run it was.
 */
export function queuedEndReason(record: TaskRecord, status: 'cancelled' | 'stopped'): string {
  const runs = record.runs.length
  if (record.retryAt !== null && runs > 1) {
    const last = record.runs[runs - 2]
    const how = last.exitCode !== null ? `${last.status}, exit ${last.exitCode}` : last.signal ? `${last.status}, ${last.signal}` : last.status
    return `${status} while waiting to retry: attempt ${record.attempt} of ${record.retryMax + 1} never started (run ${runs - 1} ${how})`
  }
  return runs > 1 ? `${status} before run ${runs} started` : `${status} before it started`
}

/**
 * `cancel`/`stop` (and `stop --all`) of a queued task: it ends without ever
 * starting, under its task lock, which the advancer also takes to start it —
 * so it is either started or ended, never both.
 */
export async function endQueued(stateDir: string, record: TaskRecord, kind: 'cancel' | 'stop'): Promise<TaskRecord | null> {
  try {
    const {settled} = await settleTask(
      stateDir,
      record.id,
      (current) => {
        if (current.status !== 'queued') return null
        const status = kind === 'cancel' ? 'cancelled' : 'stopped'
        // a retry that will not come has no time any more (status would still show it)
        return {status, cause: kind, reason: queuedEndReason(current, status), set: {desired: 'stopped', retryAt: null}}
      },
      {entry: runnerEntry(), waitMs: 5000},
    )
    return settled?.record ?? null
  } catch (error) {
    throw taskBusy(error, record.id)
  }
}
