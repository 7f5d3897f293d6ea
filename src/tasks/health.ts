// The state dir as `drover doctor` sees it: where it is, who owns it and
// whether others may write it, the free space, and what is wrong inside —
// records that cannot be read, locks whose holder is gone, tasks recorded
// live whose runner is gone, and processes of ended tasks still alive.
// Strictly read-only: nothing here creates, rewrites, takes over or signals
// anything (reconcile, which fixes these, runs on the next ordinary command).

import {lstatSync, readdirSync, statSync} from 'node:fs'
import path from 'node:path'
import {wasInterrupted} from '../agents/resumable.js'
import {isSameProcess, type ProcessIdentity} from '../platform/platform.js'
import {canReadEnvironments, diskSpace, livePids, ownershipOf, processesWithVariable, type DiskSpace, type Ownership} from '../platform/inspect.js'
import {inspectLock} from '../state/lock.js'
import {isFinalStatus, type TaskRecord, type TaskStatus} from '../state/record.js'
import {readAllRecords, readRunnerIdentity, readTreeFile, taskPaths, tasksDir} from '../state/store.js'
import {executorOf} from '../runner/executors.js'
import {describeFsError, readStateFormat} from '../state/statedir.js'
import {notATask} from './read.js'

export interface CorruptRecord {
  id: number
  error: string
}

export interface StaleLock {
  /** the lock's file name under locks/, e.g. "task-12.lock". */
  name: string
  path: string
  holderPid: number | null
  /** set when the holder wrote a host (every drover since hosts were written). */
  holderHost: string | null
  ageMs: number | null
}

/** A task recorded starting/running/stopping/waiting whose runner is gone. */
export interface UnwatchedTask {
  id: number
  status: TaskStatus
  executor: string
  runnerPid: number | null
  workerPid: number | null
  /** its worker still runs here: the next command that reads it starts a runner to take it over. */
  workerAlive: boolean
}

/** An ended task with processes still alive. */
export interface LeftoverProcesses {
  id: number
  status: TaskStatus
  pids: number[]
}

export interface StateDirHealth {
  path: string
  exists: boolean
  isDirectory: boolean
  /** why it could not be looked at (permission, not a directory), else null. */
  error: string | null
  /** its format (1 for a state dir without a format file); null when not there or not known. */
  format: number | null
  /** why drover refuses its format (a newer drover wrote it, a garbled format file), else null: then nothing inside is read. */
  formatError: string | null
  /** null on Windows (ACLs decide there) and when it does not exist. */
  owner: Ownership | null
  space: DiskSpace | null
  tasks: number
  corrupt: CorruptRecord[]
  staleLocks: StaleLock[]
  unwatched: UnwatchedTask[]
  leftovers: LeftoverProcesses[]
  /**
   * How leftovers were looked for: `environment` also finds processes that
   * left the tree (by the task's mark in their environment: Linux);
   * `recorded` only the worker and the processes its runner recorded.
   */
  leftoverScan: 'environment' | 'recorded'
  /** tasks a crash or reboot interrupted (what `resume --interrupted` continues). */
  interrupted: number[]
  /** live tasks placed on Slurm (a reason to check it even when it is not the default). */
  slurmTasks: number[]
}

const LIVE: readonly TaskStatus[] = ['starting', 'running', 'stopping', 'waiting']

function emptyHealth(dir: string): StateDirHealth {
  return {
    path: dir,
    exists: false,
    isDirectory: false,
    error: null,
    format: null,
    formatError: null,
    owner: null,
    space: null,
    tasks: 0,
    corrupt: [],
    staleLocks: [],
    unwatched: [],
    leftovers: [],
    leftoverScan: canReadEnvironments() ? 'environment' : 'recorded',
    interrupted: [],
    slurmTasks: [],
  }
}

export function inspectStateDir(dir: string): StateDirHealth {
  const health = emptyHealth(dir)
  let stats
  try {
    stats = statSync(dir)
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    // not there yet: the first command that needs it creates it
    if (code !== 'ENOENT') health.error = describeFsError(error)
    health.space = nearestSpace(dir)
    return health
  }
  health.exists = true
  health.isDirectory = stats.isDirectory()
  health.owner = ownershipOf(stats)
  health.space = diskSpace(dir)
  if (!health.isDirectory) return health
  // Drover refuses another user's state dir: what it holds is not counted (a
  // dir it cannot read would show as "0 tasks"; one it can, as root, is not its own).
  if (health.owner && !health.owner.mine) {
    health.error = `belongs to another user (uid ${health.owner.uid})`
    return health
  }
  try {
    readdirSync(dir)
  } catch (error) {
    health.error = describeFsError(error)
    return health
  }
  try {
    health.format = readStateFormat(dir).format
  } catch (error) {
    // every command refuses it, and its records may be of a shape this drover would misread
    health.formatError = (error as Error).message
    return health
  }
  try {
    inspectTasks(dir, health)
  } catch (error) {
    // tasks/ or locks/ unreadable (another user's, a broken disk): said, not thrown
    health.error = `cannot read what it holds: ${describeFsError(error)}${(error as NodeJS.ErrnoException).path ? ` (${(error as NodeJS.ErrnoException).path})` : ''}`
  }
  return health
}

function inspectTasks(dir: string, health: StateDirHealth): void {
  // a folder `start` is filling, or one it left empty, is no task (as list counts them)
  const reads = readAllRecords(dir).filter((read) => !notATask(dir, read))
  health.tasks = reads.length
  const records: TaskRecord[] = []
  for (const read of reads) {
    if (read.ok) records.push(read.record)
    else health.corrupt.push({id: read.id, error: read.error})
  }
  health.staleLocks = staleLocks(dir)
  for (const record of records) {
    if (record.executor === 'slurm' && !isFinalStatus(record.status)) health.slurmTasks.push(record.id)
    if (LIVE.includes(record.status)) {
      const unwatched = unwatchedTask(dir, record)
      if (unwatched) health.unwatched.push(unwatched)
    } else if (wasInterrupted(record)) {
      health.interrupted.push(record.id)
    }
  }
  health.leftovers = leftovers(dir, records)
}

/** Free space where the state dir would be created: its nearest existing parent. */
function nearestSpace(dir: string): DiskSpace | null {
  for (let level = path.dirname(dir); ; level = path.dirname(level)) {
    const space = diskSpace(level)
    if (space !== null || path.dirname(level) === level) return space
  }
}

function staleLocks(dir: string): StaleLock[] {
  const locksDir = path.join(dir, 'locks')
  let names: string[]
  try {
    names = readdirSync(locksDir)
  } catch {
    return []
  }
  const stale: StaleLock[] = []
  for (const name of names.sort()) {
    // `.lock` and the `.lock.steal` that serialises a take-over; `.released` graves are being removed
    if (!name.endsWith('.lock') && !name.endsWith('.lock.steal')) continue
    const lockPath = path.join(locksDir, name)
    if (!lstatSync(lockPath, {throwIfNoEntry: false})?.isDirectory()) continue
    const state = inspectLock(lockPath)
    if (state === null || !state.stale) continue
    stale.push({name, path: lockPath, holderPid: state.holder?.pid ?? null, holderHost: state.holder?.host ?? null, ageMs: state.ageMs})
  }
  return stale
}

function unwatchedTask(dir: string, record: TaskRecord): UnwatchedTask | null {
  const executor = executorOf(record)
  if (executor.observe(dir, record) !== 'gone') return null
  return {
    id: record.id,
    status: record.status,
    executor: executor.name,
    runnerPid: readRunnerIdentity(dir, record.id)?.pid ?? null,
    workerPid: record.worker?.pid ?? null,
    workerAlive: record.worker !== null && executor.capabilities.directControl && isSameProcess(record.worker),
  }
}

/**
 * Processes of ended tasks still alive: the recorded worker, what its runner
 * recorded in tree.json, and (Linux) every process carrying a task's mark in
 * its environment, found in one pass over the process table. Tasks started
 * with --keep-children mean to leave processes, and a Slurm task's pids name
 * processes of another host: neither is looked at.
 */
function leftovers(dir: string, records: TaskRecord[]): LeftoverProcesses[] {
  const ended = new Map<number, TaskRecord>()
  for (const record of records) {
    if (isFinalStatus(record.status) && !record.keepChildren && executorOf(record).capabilities.directControl) ended.set(record.id, record)
  }
  if (ended.size === 0) return []
  const found = new Map<number, Set<number>>()
  const add = (id: number, pid: number) => {
    const pids = found.get(id) ?? new Set<number>()
    pids.add(pid)
    found.set(id, pids)
  }
  // at 10,000 ended tasks, a pid looked up in one listing of /proc and tree.json
  // looked for without a thrown ENOENT each: a third of the time otherwise
  const live = livePids()
  const alive = (identity: ProcessIdentity) => (live === null || live.has(identity.pid)) && isSameProcess(identity)
  for (const record of ended.values()) {
    if (record.worker && alive(record.worker)) add(record.id, record.worker.pid)
    const paths = taskPaths(dir, record.id)
    if (!statSync(paths.tree, {throwIfNoEntry: false})) continue
    for (const identity of readTreeFile(paths)) if (alive(identity)) add(record.id, identity.pid)
  }
  const tasks = tasksDir(dir) + path.sep
  for (const marked of processesWithVariable('DROVER_CONTROL_FILE')) {
    if (!marked.value.startsWith(tasks)) continue
    const rest = marked.value.slice(tasks.length).split(path.sep)
    const id = Number(rest[0])
    if (rest.length === 2 && rest[1] === 'control' && ended.has(id)) add(id, marked.pid)
  }
  return [...found]
    .sort(([a], [b]) => a - b)
    .map(([id, pids]) => ({id, status: ended.get(id)!.status, pids: [...pids].sort((a, b) => a - b)}))
}
