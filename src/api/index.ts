// drover's programmatic API: what `import {openStateDir} from 'drover'` gives a
// Node script. Every result is the same plain object `--json` prints (one
// definition, in task-json.ts), and every error a DroverError carrying the
// documented exit code. Heavy modules load only in the call that needs them.

import path from 'node:path'
import {requestControl, scheduleMs, type ControlResult} from '../tasks/control.js'
import {DroverError, ExitCode, usageError} from '../base/errors.js'
import {followTask, tailOffset} from '../tasks/follow.js'
import {startTask, type TaskSpec} from '../tasks/launch.js'
import {parseTaskName} from '../base/parse.js'
import {resolveExecutable, shellCommand} from '../platform/platform.js'

import type {PruneOptions, PruneResult} from '../tasks/prune.js'
import {reconcile, runnerState, workerAlive} from '../tasks/reconcile.js'
import {FINAL_STATUSES, isFinalStatus, type AgentProfileName, type TaskRecord, type TaskStatus} from '../state/record.js'
import type {RequestKind} from '../state/requests.js'
import {DEFAULT_RESUME_PROMPT, detectProfile} from '../agents/profiles.js'
import {ensureStateDir, resolveStateDir} from '../state/statedir.js'
import {readRecord, taskPaths} from '../state/store.js'
import {loadTask, loadTasks} from '../tasks/read.js'
import {waitForFinal} from '../tasks/wait.js'
import {Wakeup} from '../state/wakeup.js'
import {readJson, taskDetailJson, taskJson, type CorruptTaskJson, type TaskDetailJson, type TaskJson} from './task-json.js'

export {DroverError, ExitCode}
export type {DiffOptions, DiffResult} from './worktrees.js'
import type {DiffOptions, DiffResult} from './worktrees.js'
import {checkBudget, givenLimits, type Budget} from './budget.js'
export type {ControlResult, CorruptTaskJson, PruneOptions, PruneResult, TaskDetailJson, TaskJson, TaskStatus}

/** A task named by its id or by the `name` it was started with. */
export type TaskRef = number | string

/** What to run: an argv (never through a shell), or a script for the user's shell. */
export interface StartOptions {
  /** argv of the command, e.g. `['claude', '-p', 'fix the tests']`; or give `shell`. */
  command?: string[]
  /** a script run through `$SHELL -c` (cmd.exe /c on Windows) instead of `command`. */
  shell?: string
  /** a unique name (letters, digits, `.` `_` `-`, starting with a letter). */
  name?: string
  /** working directory (default: this process's). */
  cwd?: string
  /** variables added to the worker's environment. */
  env?: Record<string, string>
  /** agent profile; by default from the program name (`claude`, `codex`). */
  agent?: AgentProfileName
  /** stop the task when it runs longer than this many ms. */
  timeoutMs?: number
  /** stop the task when its output does not grow for this many ms. */
  idleTimeoutMs?: number
  /** stop the task when this run's output passes this many bytes (default 1 GiB; null for none). */
  maxOutputBytes?: number | null
  /** claude: add drover's drain hook (default true). */
  agentHooks?: boolean
  /** leave the worker's children running after it exits (default false). */
  keepChildren?: boolean
  /** run in a new git worktree of the repository `cwd` is in: true for the branch `drover/<id>-<name>`, or the branch's name. */
  worktree?: boolean | string
  /** with `worktree`: the commit-ish the branch starts from (default HEAD). */
  base?: string
  /** with `worktree: 'branch'`: run on that existing branch (never deleted by rm or prune). */
  existingBranch?: boolean
  /** drain the task once its session (every run that continued it) reaches this cost (claude), turns or tokens (claude, codex). */
  maxCostUsd?: number
  maxTurns?: number
  maxTokens?: number
  /** `wait`: when the agent stops on its provider's usage limit, wait until it lifts and resume (default `fail`). */
  onLimit?: 'wait' | 'fail'
}

/** A chunk of a task's output, with the byte offsets a reader can resume from. */
export interface OutputChunk {
  id: number
  /** byte offset of the chunk's first byte in output.log. */
  offset: number
  /** offset just past it: pass it as `offset` to read on from here. */
  end: number
  text: string
}

/** A change seen in the state dir: a task appeared, changed status, or went away. */
export type TaskEvent =
  | {type: 'created'; id: number; task: TaskJson}
  | {type: 'status'; id: number; from: TaskStatus; to: TaskStatus; task: TaskJson}
  | {type: 'ended'; id: number; task: TaskJson}
  | {type: 'removed'; id: number}

const DEFAULT_MAX_OUTPUT = 1024 ** 3

/**
 * Opens a state dir: `dir`, else `$DROVER_STATE_DIR`, else the per-OS
 * default. It is created (0700) when missing; an unsafe one (another user's,
 * group- or world-writable, not a directory) throws a DroverError with exit 5.
 */
export async function openStateDir(dir?: string): Promise<Drover> {
  const stateDir = await resolveStateDir(dir)
  ensureStateDir(stateDir)
  return new Drover(stateDir)
}

/** One state dir's tasks. Every method acts directly on the files; there is no daemon. */
export class Drover {
  /** @param stateDir an absolute path already checked by openStateDir */
  constructor(readonly stateDir: string) {}

  /** Starts a task and resolves once it runs (or failed to start), with its record. */
  async start(options: StartOptions): Promise<TaskJson> {
    const spec = startSpec(options)
    return taskJson(await startTask(this.stateDir, spec))
  }

  /** Every task, oldest first, reconciled; unreadable records as `{id, status: 'corrupt', error}`. */
  async list(filter: {status?: TaskStatus[]} = {}): Promise<(TaskJson | CorruptTaskJson)[]> {
    const reads = await loadTasks(this.stateDir)
    const all = reads.map((read) => readJson(read))
    return filter.status ? all.filter((task) => filter.status!.includes(task.status as TaskStatus)) : all
  }

  /** One task, as `status --json` shows it. Throws exit 3 for an unknown task. */
  async get(ref: TaskRef): Promise<TaskDetailJson> {
    const record = await this.record(ref)
    return taskDetailJson(this.stateDir, record, {runnerAlive: runnerState(this.stateDir, record) === 'alive', workerAlive: workerAlive(record)})
  }

  /** The task's output so far, or its last `tail` lines. */
  async logs(ref: TaskRef, opts: {tail?: number} = {}): Promise<string> {
    const record = await this.record(ref)
    const file = taskPaths(this.stateDir, record.id).output
    const {readFileSync} = await import('node:fs')
    try {
      const text = readFileSync(file)
      const from = opts.tail === undefined ? 0 : tailOffset(file, opts.tail)
      return text.subarray(from).toString('utf8')
    } catch {
      return ''
    }
  }

  /**
   * The task's output as it is written, until the task ends: from `offset`
   * (default the start of the log), or its last `tail` lines. Ends when the
   * task reaches a final status (after its last output), or when `signal`
   * aborts. A chunk may end mid-line.
   */
  async *follow(ref: TaskRef, opts: {offset?: number; tail?: number; signal?: AbortSignal} = {}): AsyncGenerator<OutputChunk, TaskJson | null> {
    const record = await this.record(ref)
    const file = taskPaths(this.stateDir, record.id).output
    const queue: OutputChunk[] = []
    let wake: (() => void) | null = null
    let done: {end?: TaskRecord; error?: unknown} | null = null
    const offset = opts.offset ?? (opts.tail === undefined ? 0 : tailOffset(file, opts.tail))
    const following = followTask({
      stateDir: this.stateDir,
      id: record.id,
      offset,
      signal: opts.signal,
      write: (chunk, start) => {
        queue.push({id: record.id, offset: start, end: start + chunk.length, text: chunk.toString('utf8')})
        wake?.()
      },
    }).then(
      (end) => (done = end.outcome === 'ended' ? {end: end.record} : {}),
      (error: unknown) => (done = {error}),
    )
    void following.finally(() => wake?.())
    for (;;) {
      while (queue.length > 0) yield queue.shift()!
      if (done) {
        const finished = done as {end?: TaskRecord; error?: unknown}
        if (finished.error) throw finished.error
        return finished.end ? taskJson(finished.end) : null
      }
      await new Promise<void>((resolve) => (wake = resolve))
      wake = null
    }
  }

  /** Waits until every task given has ended (or `timeoutMs` passed); resolves with their records. */
  async wait(refs: TaskRef[], opts: {timeoutMs?: number; signal?: AbortSignal} = {}): Promise<TaskJson[]> {
    const records = await Promise.all(refs.map((ref) => this.record(ref)))
    const ended = await Promise.all(
      records.map((record) =>
        waitForFinal(this.stateDir, record.id, {
          timeoutMs: opts.timeoutMs,
          until: (r) => isFinalStatus(r.status) || opts.signal?.aborted === true,
        }),
      ),
    )
    return ended.map((record) => taskJson(record))
  }

  /** Graceful stop of the whole tree: STOP, SIGTERM, SIGKILL after `graceMs` (default 10 s). Waits for the end unless `wait: false`. */
  stop(ref: TaskRef, opts: {graceMs?: number; wrapUp?: boolean; wait?: boolean} = {}): Promise<ControlResult> {
    return this.control(ref, 'stop', {graceMs: opts.graceMs ?? 10_000, wrapUp: opts.wrapUp}, opts.wait)
  }

  /** SIGTERM now, SIGKILL after 2 s; the task is never resumed. */
  cancel(ref: TaskRef, opts: {wait?: boolean} = {}): Promise<ControlResult> {
    return this.control(ref, 'cancel', {graceMs: 2000}, opts.wait)
  }

  /** STOP and up to `graceMs` (default 60 s) to checkpoint, then signals; ends `drained` with a checkpoint `resume` continues. */
  drain(ref: TaskRef, opts: {graceMs?: number; killAfterMs?: number; wait?: boolean} = {}): Promise<ControlResult> {
    return this.control(ref, 'drain', {graceMs: opts.graceMs ?? 60_000, killAfterMs: opts.killAfterMs ?? 10_000}, opts.wait)
  }

  /** A new run that continues the task's session (the agent's own conversation for claude and codex). */
  async resume(ref: TaskRef, opts: {prompt?: string; budget?: Partial<Budget>} = {}): Promise<TaskJson> {
    const {resumeTask} = await import('../tasks/resume.js')
    const record = await this.record(ref)
    return taskJson(await resumeTask(this.stateDir, record, opts.prompt ?? DEFAULT_RESUME_PROMPT, {budget: opts.budget}))
  }

  /** Removes ended tasks by the rules given (see `drover prune`). */
  async prune(options: PruneOptions): Promise<PruneResult> {
    const {prune} = await import('../tasks/prune.js')
    return prune(this.stateDir, options)
  }

  /** Removes the named ended tasks; a live one is refused (exit 4). */
  async rm(refs: TaskRef[], opts: {dryRun?: boolean; includeWorktrees?: boolean} = {}): Promise<PruneResult> {
    const records = await Promise.all(refs.map((ref) => this.record(ref)))
    const {prune} = await import('../tasks/prune.js')
    return prune(this.stateDir, {ids: records.map((r) => r.id), dryRun: opts.dryRun ?? false, includeWorktrees: opts.includeWorktrees})
  }

  /** The task's worktree against the commit it started from (`start --worktree` tasks only). */
  async diff(ref: TaskRef, opts: DiffOptions = {}): Promise<DiffResult> {
    const {taskDiff} = await import('./worktrees.js')
    return taskDiff(await this.record(ref), opts)
  }

  /**
   * Changes in the state dir as they happen, until `signal` aborts: tasks
   * created, status changes, ends and removals. Built on the same wake-up as
   * `logs -f` (fs.watch plus a poll), so nothing is missed, only coalesced.
   */
  async *events(opts: {signal?: AbortSignal; pollMs?: number} = {}): AsyncGenerator<TaskEvent> {
    const {readdirSync} = await import('node:fs')
    const tasks = path.join(this.stateDir, 'tasks')
    const wakeup = new Wakeup().watch([tasks])
    opts.signal?.addEventListener('abort', wakeup.wake)
    const known = new Map<number, TaskStatus>()
    let first = true
    try {
      while (!opts.signal?.aborted) {
        const ids = new Set<number>()
        let names: string[] = []
        try {
          names = readdirSync(tasks)
        } catch {
          // no tasks yet
        }
        for (const name of names) {
          if (!/^[1-9]\d*$/.test(name)) continue
          const id = Number(name)
          const read = readRecord(this.stateDir, id)
          if (!read.ok) continue
          ids.add(id)
          const record = isFinalStatus(read.record.status) ? read.record : await reconcile(this.stateDir, read.record)
          const before = known.get(id)
          known.set(id, record.status)
          if (first) continue
          if (before === undefined) yield {type: 'created', id, task: taskJson(record)}
          else if (before !== record.status) yield {type: 'status', id, from: before, to: record.status, task: taskJson(record)}
          if (before !== record.status && FINAL_STATUSES.includes(record.status)) yield {type: 'ended', id, task: taskJson(record)}
        }
        for (const id of [...known.keys()]) {
          if (ids.has(id)) continue
          known.delete(id)
          yield {type: 'removed', id}
        }
        first = false
        await wakeup.sleep(opts.pollMs ?? 250)
      }
    } finally {
      wakeup.close()
    }
  }

  private async record(ref: TaskRef): Promise<TaskRecord> {
    const read = await loadTask(this.stateDir, String(ref))
    if (!read.ok) throw new DroverError(`task ${read.id} is corrupt: ${read.error}`, ExitCode.failed, {id: read.id, status: 'corrupt'})
    return read.record
  }

  private async control(ref: TaskRef, kind: RequestKind, request: {graceMs: number; wrapUp?: boolean; killAfterMs?: number}, wait = true): Promise<ControlResult> {
    const record = await this.record(ref)
    const newRequest = {kind, ...request}
    return requestControl(this.stateDir, record, newRequest, {wait, timeoutMs: scheduleMs(newRequest) + 5000})
  }
}

function startSpec(o: StartOptions): TaskSpec {
  if ((o.command === undefined) === (o.shell === undefined)) throw usageError('give either command or shell')
  if (o.command !== undefined && (o.command.length === 0 || o.command[0] === '')) throw usageError('the command is empty')
  if (o.shell !== undefined && (o.agent === 'claude' || o.agent === 'codex')) throw usageError(`agent ${o.agent} needs a command, not a shell script`)
  const argv = o.shell !== undefined ? shellCommand(o.shell) : o.command!
  const agent = o.agent ?? (o.shell === undefined ? detectProfile(argv) : 'generic')
  const budget = {maxCostUsd: o.maxCostUsd ?? null, maxTurns: o.maxTurns ?? null, maxTokens: o.maxTokens ?? null}
  checkBudget(agent, budget)
  if (o.onLimit === 'wait' && agent === 'generic') throw usageError('onLimit wait needs an agent whose usage limits drover can read (claude or codex)')
  const env = o.env ?? {}
  const cwd = path.resolve(o.cwd ?? process.cwd())
  const pathEnv = env.PATH ?? process.env.PATH ?? null
  return {
    command: argv,
    shell: o.shell ?? null,
    name: o.name === undefined ? null : parseTaskName(o.name),
    cwd,
    env,
    agent,
    policies: {
      ...givenLimits(budget),
      ...(o.onLimit === 'wait' ? {onLimit: 'wait' as const} : {}),
      timeoutMs: o.timeoutMs ?? null,
      idleTimeoutMs: o.idleTimeoutMs ?? null,
      maxOutputBytes: o.maxOutputBytes === undefined ? DEFAULT_MAX_OUTPUT : o.maxOutputBytes,
    },
    executable: resolveExecutable(argv[0], {pathEnv: pathEnv ?? undefined, cwd, pathExt: process.env.PATHEXT}),
    pathEnv,
    agentHooks: o.agentHooks ?? true,
    keepChildren: o.keepChildren ?? false,
    worktree: o.worktree === undefined || o.worktree === false ? null : {branch: o.worktree === true ? null : o.worktree, base: o.base ?? null, existingBranch: o.existingBranch ?? false},
  }
}
