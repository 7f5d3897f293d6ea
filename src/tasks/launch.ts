// Starting work: create a task (id, record, folders) and launch a runner for a
// new run, returning only once the runner has recorded `running` or a failure,
// so `drover start … && drover logs -f ID` never races.

import {readFileSync, rmSync} from 'node:fs'
import {conflictError, DroverError, ExitCode} from '../base/errors.js'
import {markLive, readHintedRecords} from '../state/live-index.js'
import {tasksNamed} from './lookup.js'
import {wasInterrupted} from '../agents/resumable.js'
import {runnerEntry} from '../runner/local-executor.js'
import {endedInMemory, settleTask} from '../runner/settle.js'
import {createWorktree, planWorktree, type WorktreePlan} from '../process/worktree.js'
import {stopMarked} from '../process/process-tree.js'
import {retryOnBusySync} from '../platform/platform.js'
import {taskMark} from '../process/worker.js'
import {acquireLock, acquireTaskLock, stateLockPath, withLock} from '../state/lock.js'
import {addWaiting, effectiveQueue, queueLockPath, waitingKey} from '../state/queues.js'
import {LOCK_WAIT_MS} from '../runner/advance.js'
import {executorOf, reconcile, runnerState, withEngineReason, workerAlive} from './reconcile.js'
import {clearRequests} from '../state/requests.js'
import {
  beginRun,
  isFinalStatus,
  SCHEMA_VERSION,
  waitsItsTurn,
  type AgentProfileName,
  type BuiltFrom,
  type TaskCheck,
  type ExecutorName,
  type Policies,
  type RunAbout,
  type SlurmPlacement,
  type TaskRecord,
} from '../state/record.js'
import {
  allocateTaskId,
  appendEvent,
  createTaskLayout,
  readRecord,
  safeUnlink,
  taskPaths,
  worktreesDir,
} from '../state/store.js'
import {commitRecord, noteBetween} from '../runner/commit-record.js'

export interface TaskSpec {
  command: string[]
  shell: string | null
  name: string | null
  /** the group the task joins (`start --group`, a fan-out), or none. */
  group?: string | null
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
  /** wait for a slot in this queue (its parallel limit) before each run. */
  queue?: string | null
  /** jump ahead of lower priorities in the queue (default 0). */
  priority?: number
  /** start only once these tasks all succeeded (else end `skipped`). */
  after?: number[]
  /** start only once these tasks all ended, whatever the outcome. */
  afterEnded?: number[]
  /** with a name: when a task of that name is queued or running, return it instead of refusing (cron). */
  ifAbsent?: boolean
  /** a shell command run once per final status. */
  onExit?: string | null
  /** a shell command run at every status change; targets told of an end or a need for attention. */
  onStatus?: string
  notify?: string[]
  hookTimeoutMs?: number | null
  /** try a failed run again up to this many times. */
  retryMax?: number
  retryDelayMs?: number | null
  retryOnTimeout?: boolean
  /** run in a new git worktree of the repository `cwd` is in (branch null: `drover/<id>-<name>`; base null: HEAD). */
  worktree?: {branch: string | null; base: string | null; existingBranch?: boolean; pinBase?: boolean} | null
  /** the command was written from a prompt (`start --agent NAME --prompt P`): how. */
  built?: BuiltFrom | null
  /** the check run once a run has ended (`start --check`), or none. */
  check?: TaskCheck | null
}

export function newRecord(id: number, spec: TaskSpec, at = new Date().toISOString()): TaskRecord {
  const queued = waitsItsTurn({queue: spec.queue ?? null, after: spec.after ?? [], afterEnded: spec.afterEnded ?? []})
  const status = queued ? 'queued' : 'starting'
  return {
    schemaVersion: SCHEMA_VERSION,
    id,
    name: spec.name,
    // only on a task of a group: every other record stays as it always was
    ...(spec.group ? {group: spec.group} : {}),
    command: spec.command,
    shell: spec.shell,
    cwd: spec.cwd,
    env: spec.env,
    agent: spec.agent,
    policies: spec.policies,
    status,
    desired: 'running',
    reason: null,
    cause: null,
    exitCode: null,
    signal: null,
    createdAt: at,
    startedAt: null,
    endedAt: null,
    worker: null,
    runs: [{run: 1, startedAt: null, endedAt: null, status, exitCode: null, signal: null, reason: null, cause: null, resumed: false, command: null, outputOffset: null}],
    agentInfo: null,
    checkpoint: null,
    executable: spec.executable ?? null,
    pathEnv: spec.pathEnv ?? null,
    agentHooks: spec.agentHooks ?? true,
    keepChildren: spec.keepChildren ?? false,
    executor: spec.executor ?? 'local',
    slurm: spec.slurm ?? null,
    host: null,
    queue: spec.queue ?? null,
    priority: spec.priority ?? 0,
    after: spec.after ?? [],
    afterEnded: spec.afterEnded ?? [],
    queuedAt: queued ? at : null,
    onExit: spec.onExit ?? null,
    hookTimeoutMs: spec.hookTimeoutMs ?? null,
    ...(spec.onStatus ? {onStatus: spec.onStatus} : {}),
    ...(spec.notify && spec.notify.length > 0 ? {notify: spec.notify} : {}),
    retryMax: spec.retryMax ?? 0,
    retryDelayMs: spec.retryDelayMs ?? null,
    retryOnTimeout: spec.retryOnTimeout ?? false,
    attempt: 1,
    retryAt: null,
    worktree: null,
    // only on a task whose command drover wrote: every other record stays as it always was
    ...(spec.built ? {built: spec.built} : {}),
    // only on a task with a check
    ...(spec.check ? {check: spec.check} : {}),
  }
}

/**
 * Creates the task and starts its first run — or, when it waits its turn (a
 * queue, dependencies), queues it under the queue's lock and advances the
 * queue, waiting for its runner only if it got a slot at once.
 */
/** Creates and launches a task; `reused` when `ifAbsent` found a live task of that name and returned it instead. */
export async function startTask(stateDir: string, spec: TaskSpec): Promise<{record: TaskRecord; reused: boolean}> {
  let existing: TaskRecord | null = null
  // Checked before the id is handed out (a refused worktree changes nothing in the state dir), and before
  // any lock: its git work is no reason for ten starts at once to wait on each other.
  const plan = spec.worktree ? planWorktree({cwd: spec.cwd, ...spec.worktree}) : null
  const create = async () => {
    if (!spec.name) return createTask(stateDir, spec, plan)
    const named = await createNamedTask(stateDir, spec, spec.name, plan)
    if (named.existing) existing = named.record
    return named.record
  }
  const queue = effectiveQueue({queue: spec.queue ?? null, after: spec.after ?? [], afterEnded: spec.afterEnded ?? []})
  const record = queue === null ? await create() : await withLock(queueLockPath(stateDir, queue), create, {waitMs: LOCK_WAIT_MS})
  if (existing) return {record: existing, reused: true}
  return {record: queue === null ? await launchRunner(stateDir, record.id) : await advanceOwn(stateDir, record.id), reused: false}
}

/** Advances the queues after one of ours was queued; the record as it then is. */
async function advanceOwn(stateDir: string, id: number): Promise<TaskRecord> {
  return (await advanceOwnMany(stateDir, [id]))[0]
}

/**
 * Advances the queues after several of ours were queued (a fan-out's
 * attempts): those given a slot at once are launched together and awaited,
 * so the caller returns once each of them runs; the records as they then are.
 */
export async function advanceOwnMany(stateDir: string, ids: number[]): Promise<TaskRecord[]> {
  const {advanceQueues} = await import('./queues.js')
  const launched = new Map<number, TaskRecord>()
  await advanceQueues(stateDir, {waitFor: ids, launch: async (id) => launched.set(id, await launchRunner(stateDir, id))})
  return ids.map((id) => {
    const record = launched.get(id)
    if (record) return record
    const read = readRecord(stateDir, id)
    if (!read.ok) throw new DroverError(`task ${id}: ${read.error}`, ExitCode.failed)
    return read.record
  })
}

/**
 * Makes the task: its id (or `id`, handed out by the caller already), its
 * worktree, its folder and record. The caller holds the queue's lock when
 * the task waits its turn, and the names lock when it is named.
 */
export function createTask(stateDir: string, spec: TaskSpec, plan: WorktreePlan | null, given?: number): TaskRecord {
  const id = given ?? allocateTaskId(stateDir)
  let record = newRecord(id, spec)
  const paths = taskPaths(stateDir, id)
  const queue = effectiveQueue(record)
  try {
    // The default branch name needs the id, so the worktree comes after it; a
    // refusal then leaves no task behind (the id stays used, as every id handed out does).
    if (spec.worktree) {
      const made = createWorktree({cwd: spec.cwd, root: worktreesDir(stateDir), id, name: spec.name, ...spec.worktree}, plan!)
      record = {...record, cwd: made.cwd, worktree: made.info}
    }
    markLive(stateDir, id)
    createTaskLayout(paths)
    // Joined before the record exists (the caller holds the queue's lock): a crash in between leaves a stale entry, which the advancer drops.
    if (queue !== null) addWaiting(stateDir, queue, waitingKey(record))
    // A task that starts now is its runner's to announce (once `start` has its answer); a queued one is announced here.
    commitRecord(stateDir, record, null, {fire: record.status === 'queued' ? runnerEntry() : null})
  } catch (error) {
    // A full or read-only disk: no half-made task folder (list would call it corrupt).
    // The id stays used (last-id), as every id handed out does.
    retryOnBusySync(() => rmSync(paths.dir, {recursive: true, force: true}))
    throw error
  }
  appendEvent(paths, {event: 'created', run: 1, command: spec.command, cwd: record.cwd, ...(queue ? {queued: record.queue} : {}), ...(record.worktree ? {worktree: record.worktree.path, branch: record.worktree.branch} : {})})
  return record
}

/**
 * Names are unique among tasks that are not final. The check and the creation
 * happen under one state-wide lock, so two `start --name x` at once cannot both
 * win; names compare case-insensitively because macOS and Windows file systems do.
 */
const NAMES_LOCK_WAIT_MS = 60_000

/**
 * The names lock, for whoever names tasks (a named start, a fan-out). Each
 * holder checks names and writes records: short, but ten named starts at once
 * on a busy machine queue behind each other for longer than the default 10 s.
 */
export const acquireNamesLock = (stateDir: string) => acquireLock(stateLockPath(stateDir, 'names'), {waitMs: NAMES_LOCK_WAIT_MS})

async function createNamedTask(stateDir: string, spec: TaskSpec, name: string, plan: WorktreePlan | null): Promise<{record: TaskRecord; existing: boolean}> {
  const release = await acquireNamesLock(stateDir)
  try {
    const wanted = name.toLowerCase()
    // Only a task not final can hold the name: the live index holds every one of them.
    for (const read of readHintedRecords(stateDir)) {
      if (!read.ok || read.record.name?.toLowerCase() !== wanted || isFinalStatus(read.record.status)) continue
      const current = await reconcile(stateDir, read.record)
      if (!isFinalStatus(current.status)) {
        if (spec.ifAbsent) return {record: current, existing: true}
        throw conflictError(`name '${name}' is taken by task ${current.id} (${current.status})`, {name, id: current.id})
      }
    }
    refuseHeldName(stateDir, name)
    return {record: createTask(stateDir, spec, plan), existing: false}
  } finally {
    release()
  }
}

/**
 * A drained or interrupted task of that name is waiting to be continued, and
 * `drover resume NAME` means the newest task of a name: a new task taking the
 * name would be resumed in its place. Refused (exit 4), saying how to go on.
 */
function refuseHeldName(stateDir: string, name: string): void {
  const held = tasksNamed(stateDir, name).filter((m) => m.record.status === 'drained' || wasInterrupted(m.record)).at(-1)
  if (!held) return
  const {id, status} = held.record
  throw conflictError(
    `name '${name}' is held by task ${id} (${status}), which waits to be resumed: continue it with drover resume ${id}, or give the new task another --name (drover rm ${id} frees the name, removing that task)`,
    {name, id},
  )
}

/**
 * Spawns the detached runner and waits for it to close its readiness pipe
 * (fd 3), which it does right after recording `running` or the failure. The
 * pipe also closes when the runner dies, so a crash is noticed at once rather
 * than after a timeout.
 */
export async function launchRunner(stateDir: string, id: number): Promise<TaskRecord> {
  const placed = readRecord(stateDir, id)
  if (!placed.ok) throw new DroverError(`task ${id}: ${placed.error}`, ExitCode.failed)
  const submitted = await executorOf(placed.record).submit(stateDir, id)

  const read = readRecord(stateDir, id)
  if (!read.ok) throw new DroverError(`task ${id}: ${read.error}`, ExitCode.failed)
  // A batch job still queued is started: its runner records `running` when the scheduler runs it.
  if (submitted?.queued) return withEngineReason(stateDir, read.record)
  if (read.record.status !== 'starting') return read.record
  return failUnstartedRun(stateDir, id)
}

/** The runner died before recording anything: nobody else will write this record, so we do. */
async function failUnstartedRun(stateDir: string, id: number): Promise<TaskRecord> {
  const paths = taskPaths(stateDir, id)
  const {current} = await settleTask(
    stateDir,
    id,
    async (record) => {
      if (record.status !== 'starting') return null
      // It may have died just after spawning the worker: nothing of the task may outlive this final status.
      const run = record.runs.length
      const left = record.keepChildren ? 0 : await stopMarked(taskMark(paths), (name, extra) => appendEvent(paths, {event: name, run, ...extra}))
      const leftovers = left > 0 ? `; ${left} leftover process${left === 1 ? '' : 'es'} stopped` : ''
      return {status: 'failed', cause: 'not-started', reason: `runner exited before starting the worker: ${lastLine(paths.runnerLog) || 'no message'}${leftovers}`}
    },
    {entry: runnerEntry(), waitMs: 10_000},
  )
  if (!current) {
    const read = readRecord(stateDir, id)
    throw new DroverError(`task ${id}: ${read.ok ? 'cannot be read' : read.error}`, ExitCode.failed)
  }
  return current
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
   * task's own (an agent resume), else null, and what else the run is for.
   */
  prepare: (record: TaskRecord) => {command: string[] | null; about?: RunAbout}
  /** Under the lock, once the new run is written. */
  opened?: (next: TaskRecord) => void
  /** limits this run changes for the task (resume's new budget), applied before `prepare` sees it. */
  policies?: Partial<Policies>
  /**
   * The caller runs the new run itself (`drover attach`, in the foreground):
   * it opens `starting` whatever the task's queue, and no runner is launched.
   */
  runHere?: boolean
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
  // A task that waits its turn opens its run as `queued`; the queue's lock comes first, as the advancer takes them.
  // A retry's delay belongs to the attempts that ended: naming the task again starts now (or when its queue lets it).
  const queue = before.ok && !options.runHere ? effectiveQueue({...before.record, retryAt: null}) : null
  const releaseQueue = queue === null ? null : await acquireLock(queueLockPath(stateDir, queue), {waitMs: LOCK_WAIT_MS})
  let release
  let next: TaskRecord
  try {
    release = await acquireTaskLock(stateDir, id, 5000)
  } catch (error) {
    releaseQueue?.()
    throw error
  }
  try {
    const read = readRecord(stateDir, id)
    if (!read.ok) throw new DroverError(`task ${id}: ${read.error}`, ExitCode.failed)
    const reconciled = reconcileLocked(stateDir, read.record)
    const record = options.policies ? {...reconciled, policies: {...reconciled.policies, ...options.policies}} : reconciled
    // A task waiting for a usage limit has no worker: its runner only sleeps,
    // and sees the new run when it wakes (so `resume` may cut the wait short).
    if (!isFinalStatus(record.status) && !(record.status === 'waiting' && options.resumed)) {
      throw conflictError(`task ${id} is ${record.status}; stop it first`, {id, status: record.status})
    }
    if (workerAlive(record)) {
      throw conflictError(`task ${id}'s worker (pid ${record.worker!.pid}) is still running without its runner; stop it first`, {
        id,
        status: record.status,
      })
    }
    const {command, about} = options.prepare(record)
    const at = new Date().toISOString()
    // Naming the task again starts its attempts afresh.
    next = {...beginRun(record, options.resumed, command, at, queue === null ? 'starting' : 'queued', about), attempt: 1, retryAt: null}
    // A resume keeps the task's place in line (an interrupted queue continues where it was); a restart joins at the back.
    if (queue !== null) next.queuedAt = options.resumed && record.queuedAt ? record.queuedAt : at
    createTaskLayout(taskPaths(stateDir, id))
    // A request meant for an earlier run (dropped as it ended, or left by a
    // runner killed mid-stop) would stop or cancel this one the moment it starts.
    clearRequests(taskPaths(stateDir, id))
    // A runner killed without cleaning up leaves its runner.json behind; until
    // the new runner writes its own, reconcile would read the dead identity and
    // finalise the run still starting as lost (and the new runner then fail).
    safeUnlink(taskPaths(stateDir, id).runner)
    markLive(stateDir, id)
    if (queue !== null) addWaiting(stateDir, queue, waitingKey(next))
    // a run found lost just now ended on the way: its hooks hear of that first
    if (reconciled !== read.record) noteBetween(stateDir, read.record.status, reconciled)
    commitRecord(stateDir, next, reconciled.status, {fire: next.status === 'queued' ? runnerEntry() : null})
    appendEvent(taskPaths(stateDir, id), {event: options.resumed ? 'resume' : 'restart', run: next.runs.length})
    options.opened?.(next)
  } finally {
    release()
    releaseQueue?.()
  }
  if (options.runHere) return next
  return queue === null ? launchRunner(stateDir, id) : advanceOwn(stateDir, id)
}

// reconcile() takes the task lock itself; here we already hold it, so only
// the in-memory truth is needed: the new run opens on it, and the caller's
// write of that run persists the lost one in its runs.
function reconcileLocked(stateDir: string, record: TaskRecord): TaskRecord {
  if (isFinalStatus(record.status) || record.status === 'queued') return record
  if (runnerState(stateDir, record) !== 'gone') return record
  const engine = executorOf(record).explain?.(stateDir, record)?.reason
  const reason = `runner vanished without recording an end${engine ? ` (${engine})` : ''}`
  return endedInMemory(record, {status: 'lost', cause: 'runner-lost', reason})
}
