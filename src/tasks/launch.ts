// Starting work: create a task (id, record, folders) and launch a runner for a
// new run, returning only once the runner has recorded `running` or a failure,
// so `drover start … && drover logs -f ID` never races.

import {readFileSync, rmSync} from 'node:fs'
import {conflictError, DroverError, ExitCode} from '../base/errors.js'
import {markLive} from '../state/live-index.js'
import {acquireLock, LockBusyError, stateLockPath, taskLockPath} from '../state/lock.js'
import {executorOf, reconcile, runnerState, workerAlive} from './reconcile.js'
import {clearRequests} from '../state/requests.js'
import {
  beginRun,
  isFinalStatus,
  SCHEMA_VERSION,
  transition,
  type AgentProfileName,
  type ExecutorName,
  type Policies,
  type SlurmPlacement,
  type TaskRecord,
} from '../state/record.js'
import {
  allocateTaskId,
  appendEvent,
  createTaskLayout,
  readAllRecords,
  readRecord,
  safeUnlink,
  taskPaths,
  writeRecord,
} from '../state/store.js'

export interface TaskSpec {
  command: string[]
  shell: string | null
  name: string | null
  cwd: string
  env: Record<string, string>
  agent: AgentProfileName
  policies: Policies
  /** the program resolved at start (absolute), and the PATH it was found with. */
  executable?: string | null
  pathEnv?: string | null
  /** claude: add drover's drain hook (default true). */
  agentHooks?: boolean
  /** leave the worker's children running after it exits (default false). */
  keepChildren?: boolean
  /** where the runner is placed (default local), and the Slurm placement for `slurm`. */
  executor?: ExecutorName
  slurm?: SlurmPlacement | null
}

export function newRecord(id: number, spec: TaskSpec, at = new Date().toISOString()): TaskRecord {
  return {
    schemaVersion: SCHEMA_VERSION,
    id,
    name: spec.name,
    command: spec.command,
    shell: spec.shell,
    cwd: spec.cwd,
    env: spec.env,
    agent: spec.agent,
    policies: spec.policies,
    status: 'starting',
    desired: 'running',
    reason: null,
    exitCode: null,
    signal: null,
    createdAt: at,
    startedAt: null,
    endedAt: null,
    worker: null,
    runs: [{run: 1, startedAt: null, endedAt: null, status: 'starting', exitCode: null, signal: null, reason: null, resumed: false, command: null, outputOffset: null}],
    agentInfo: null,
    checkpoint: null,
    executable: spec.executable ?? null,
    pathEnv: spec.pathEnv ?? null,
    agentHooks: spec.agentHooks ?? true,
    keepChildren: spec.keepChildren ?? false,
    executor: spec.executor ?? 'local',
    slurm: spec.slurm ?? null,
    host: null,
  }
}

/** Creates the task and starts its first run. */
export async function startTask(stateDir: string, spec: TaskSpec): Promise<TaskRecord> {
  const record = spec.name ? await createNamedTask(stateDir, spec, spec.name) : createTask(stateDir, spec)
  return launchRunner(stateDir, record)
}

function createTask(stateDir: string, spec: TaskSpec): TaskRecord {
  const id = allocateTaskId(stateDir)
  const record = newRecord(id, spec)
  const paths = taskPaths(stateDir, id)
  try {
    markLive(stateDir, id)
    createTaskLayout(paths)
    writeRecord(stateDir, record)
  } catch (error) {
    // A full or read-only disk: no half-made task folder (list would call it corrupt).
    // The id stays used (last-id), as every id handed out does.
    rmSync(paths.dir, {recursive: true, force: true})
    throw error
  }
  appendEvent(paths, {event: 'created', run: 1, command: spec.command, cwd: spec.cwd})
  return record
}

/**
 * Names are unique among tasks that are not final. The check and the creation
 * happen under one state-wide lock, so two `start --name x` at once cannot both
 * win; names compare case-insensitively because macOS and Windows file systems do.
 */
async function createNamedTask(stateDir: string, spec: TaskSpec, name: string): Promise<TaskRecord> {
  const release = await acquireLock(stateLockPath(stateDir, 'names'))
  try {
    const wanted = name.toLowerCase()
    for (const read of readAllRecords(stateDir)) {
      if (!read.ok || read.record.name?.toLowerCase() !== wanted || isFinalStatus(read.record.status)) continue
      const current = await reconcile(stateDir, read.record)
      if (!isFinalStatus(current.status)) {
        throw conflictError(`name '${name}' is taken by task ${current.id} (${current.status})`, {name, id: current.id})
      }
    }
    return createTask(stateDir, spec)
  } finally {
    release()
  }
}

/**
 * Spawns the detached runner and waits for it to close its readiness pipe
 * (fd 3), which it does right after recording `running` or the failure. The
 * pipe also closes when the runner dies, so a crash is noticed at once rather
 * than after a timeout.
 */
export async function launchRunner(stateDir: string, record: TaskRecord): Promise<TaskRecord> {
  const id = record.id
  const placed = await executorOf(record).submit(stateDir, id)

  const read = readRecord(stateDir, id)
  if (!read.ok) throw new DroverError(`task ${id}: ${read.error}`, ExitCode.failed)
  // A batch job still queued is started: its runner records `running` when the scheduler runs it.
  if (read.record.status !== 'starting' || placed?.queued) return read.record
  return failUnstartedRun(stateDir, id)
}

/** The runner died before recording anything: nobody else will write this record, so we do. */
async function failUnstartedRun(stateDir: string, id: number): Promise<TaskRecord> {
  const release = await acquireLock(taskLockPath(stateDir, id))
  try {
    const read = readRecord(stateDir, id)
    if (!read.ok) throw new DroverError(`task ${id}: ${read.error}`, ExitCode.failed)
    if (read.record.status !== 'starting') return read.record
    const reason = `runner exited before starting the worker: ${lastLine(taskPaths(stateDir, id).runnerLog) || 'no message'}`
    const failed = transition(read.record, {status: 'failed', reason})
    writeRecord(stateDir, failed)
    appendEvent(taskPaths(stateDir, id), {event: 'exit', run: failed.runs.length, status: 'failed', reason})
    return failed
  } finally {
    release()
  }
}

function lastLine(file: string): string {
  try {
    return readFileSync(file, 'utf8').trim().split('\n').at(-1)?.slice(0, 300) ?? ''
  } catch {
    return ''
  }
}

export interface NewRunOptions {
  resumed: boolean
  /**
   * Checks the (reconciled, locked) record may open a new run — throws a
   * DroverError if not — and returns this run's argv when it differs from the
   * task's own (an agent resume), else null.
   */
  prepare: (record: TaskRecord) => string[] | null
}

/**
 * Opens a new run on a final task and launches it (restart, resume). The task
 * lock plus the re-read make two racing requests produce exactly one new run:
 * the second finds the task no longer final and is refused.
 */
export async function startNewRun(stateDir: string, id: number, options: NewRunOptions): Promise<TaskRecord> {
  // A worker whose runner died is adopted first (reconcile takes the lock
  // itself), so it is refused below as running rather than started twice.
  const before = readRecord(stateDir, id)
  if (before.ok) await reconcile(stateDir, before.record)
  let release
  let next: TaskRecord
  try {
    release = await acquireLock(taskLockPath(stateDir, id), {waitMs: 5000})
  } catch (error) {
    // Only a held lock is a conflict; a read-only or full state dir must say so.
    if (!(error instanceof LockBusyError)) throw error
    throw conflictError(`task ${id} is being changed by another drover command; try again`, {id})
  }
  try {
    const read = readRecord(stateDir, id)
    if (!read.ok) throw new DroverError(`task ${id}: ${read.error}`, ExitCode.failed)
    const record = reconcileLocked(stateDir, read.record)
    if (!isFinalStatus(record.status)) {
      throw conflictError(`task ${id} is ${record.status}; stop it first`, {id, status: record.status})
    }
    if (workerAlive(record)) {
      throw conflictError(`task ${id}'s worker (pid ${record.worker!.pid}) is still running without its runner; stop it first`, {
        id,
        status: record.status,
      })
    }
    const command = options.prepare(record)
    next = beginRun(record, options.resumed, command)
    createTaskLayout(taskPaths(stateDir, id))
    // A request meant for an earlier run (dropped as it ended, or left by a
    // runner killed mid-stop) would stop or cancel this one the moment it starts.
    clearRequests(taskPaths(stateDir, id))
    // A runner killed without cleaning up leaves its runner.json behind; until
    // the new runner writes its own, reconcile would read the dead identity and
    // finalise the run still starting as lost (and the new runner then fail).
    safeUnlink(taskPaths(stateDir, id).runner)
    markLive(stateDir, id)
    writeRecord(stateDir, next)
    appendEvent(taskPaths(stateDir, id), {event: options.resumed ? 'resume' : 'restart', run: next.runs.length})
  } finally {
    release()
  }
  return launchRunner(stateDir, next)
}

// reconcile() takes the task lock itself; here we already hold it, so only
// the in-memory truth is needed and the caller's write persists it.
function reconcileLocked(stateDir: string, record: TaskRecord): TaskRecord {
  if (isFinalStatus(record.status)) return record
  if (runnerState(stateDir, record) !== 'gone') return record
  const engine = executorOf(record).explain?.(stateDir, record)
  return transition(record, {status: 'lost', reason: `runner vanished without recording an end${engine ? ` (${engine})` : ''}`})
}
