// The stable --json shapes of a task, and the masking of secrets in what
// drover shows. Human views render from these same objects, so they mask alike.

import {resumeRefusal, wasInterrupted} from '../agents/resumable.js'
import {readsAgentEvents} from '../agents/registry.js'
import type {RecordRead} from '../state/store.js'
import {fileSize, taskPaths, type TaskPaths} from '../state/store.js'
import {isFinalStatus, taskExitCode, type AgentInfo, type AgentUsage, type BuiltFrom, type Checkpoint, type DroppedFollowup, type EndCause, type EngineWait, type RunEntry, type TaskCheck, type TaskRecord, type TaskStatus, type WorktreeInfo} from '../state/record.js'
import {pendingFollowups, type Followup} from '../state/followups.js'
import type {FollowupJson} from './followups.js'
import {signalNumber} from '../platform/platform.js'
import {maskNotifyTarget} from '../base/notify-target.js'
import {queuePosition, readQueueConfig} from '../state/queues.js'
import {isEngineQueued} from '../runner/executor.js'
import {existsSync, readFileSync} from 'node:fs'

// Every -e value is shown as *** unless --show-env: drover cannot tell a
// secret by its name (DB_PASS, AUTH, PRIVATE_KEY_PEM, DATABASE_URL all are),
// so it does not try. Names stay visible.
export function redactEnv(env: Record<string, string>, show = false): Record<string, string> {
  if (show) return {...env}
  return Object.fromEntries(Object.keys(env).map((k) => [k, '***']))
}

// scheme://user:password@ — the password part; also a bare token in an http(s)
// URL's user part (https://<token>@host), the way git remotes carry them.
const URL_USERINFO = /\b([a-z][a-z0-9+.-]*:\/\/)([^\s/?#@:]*)(:[^\s/?#@]*)?@/gi

/** `postgres://u:pw@h/db` → `postgres://u:***@h/db`, wherever URLs appear in the text. */
export function maskUrlCredentials(text: string): string {
  if (!text.includes('://')) return text
  return text.replace(URL_USERINFO, (match, scheme: string, user: string, password: string | undefined) => {
    if (password !== undefined) return `${scheme}${user}:***@`
    return user !== '' && /^https?:\/\/$/i.test(scheme) ? `${scheme}***@` : match
  })
}

const maskArgv = (argv: string[], show: boolean) => (show ? argv : argv.map(maskUrlCredentials))

export interface TaskJson {
  id: number
  name: string | null
  /** the group the task belongs to (`start --group`, a fan-out's attempts), or null. */
  group: string | null
  status: TaskStatus
  desired: 'running' | 'stopped'
  reason: string | null
  /** why the run ended or paused (see EndCause); null while it runs. */
  cause: EndCause | null
  exitCode: number | null
  signal: string | null
  pid: number | null
  command: string[]
  shell: string | null
  cwd: string
  env: Record<string, string>
  agent: TaskRecord['agent']
  createdAt: string
  startedAt: string | null
  endedAt: string | null
  runtimeMs: number | null
  run: number
  runs: RunEntry[]
  policies: TaskRecord['policies']
  agentInfo: AgentInfo | null
  checkpoint: Checkpoint | null
  /** where the runner runs: `local`, or `slurm` with its job id and the node its runner recorded. */
  executor: TaskRecord['executor']
  jobId: string | null
  node: string | null
  /** the queue the task waits in for a slot, or null. */
  queue: string | null
  priority: number
  /** ids that must succeed (`after`) or end (`afterEnded`) before a run starts. */
  after: number[]
  afterEnded: number[]
  /** while queued: 1-based place in its queue's line (null when shown without a state dir, or waiting only on dependencies). */
  position: number | null
  /** while queued: its queue is paused (nothing starts from it until `queue resume`); false otherwise, and without a state dir. */
  queuePaused: boolean
  /** the current run's attempt (1 for the first) of `retryMax + 1`. */
  attempt: number
  retryMax: number
  /** while waiting to try again: when the next attempt may start. */
  retryAt: string | null
  /** the first retry's delay (each later one doubles it, with jitter); null: the default, 1 s. */
  retryDelayMs: number | null
  /** a run stopped by --timeout is retried too. */
  retryOnTimeout: boolean
  /** the shell command run once the task ended (`start --on-exit`; URL credentials masked unless showEnv), or null. */
  onExit: string | null
  /** the shell command run at every status change (`start --on-status`; URL credentials masked unless showEnv), or null. */
  onStatus: string | null
  /** where the end or a need for attention is told (`start --notify`): `desktop`, or URLs shown by their origin alone unless showEnv (a webhook's path is its secret). */
  notify: string[]
  /** how long an exit or status hook may run; null: the default, 60 s. */
  hookTimeoutMs: number | null
  /** the git worktree the task runs in (`start --worktree`), with its summary once a run ended. */
  worktree: WorktreeInfo | null
  /** while the job waits in its engine's own queue (Slurm's PENDING, shown as queued): the engine and its word for why; else null. */
  engineWait: EngineWait | null
  /** follow-ups that were never delivered, and why (latest last; the queued ones are in `status`'s `followups`). */
  droppedFollowups: DroppedFollowup[]
  /** the command was written by drover from a prompt (`start --agent NAME --prompt P`): the prompt and what was added (URL credentials masked unless showEnv); null for a command given as it is. */
  built: BuiltFrom | null
  /** the check run once a run has ended (`start --check`) and its latest result (URL credentials masked unless showEnv), or null. */
  check: TaskCheck | null
  /** while `waiting` for a usage limit to lift: when its runner resumes it. */
  waitUntil?: string | null
}

export interface CorruptTaskJson {
  id: number
  status: 'corrupt'
  error: string
}

export function runtimeMs(record: TaskRecord, now = Date.now()): number | null {
  if (!record.startedAt) return null
  const end = record.endedAt ? Date.parse(record.endedAt) : now
  return Math.max(0, end - Date.parse(record.startedAt))
}

/** Why a queued task has not started, from its record alone. */
export function queuedReason(record: Pick<TaskRecord, 'queue' | 'after' | 'afterEnded' | 'retryAt' | 'attempt' | 'retryMax'>, paused = false): string {
  const parts: string[] = []
  if (record.retryAt !== null && Date.parse(record.retryAt) > Date.now()) parts.push(`attempt ${record.attempt} of ${record.retryMax + 1} at ${record.retryAt}`)
  const ids = (list: number[]) => `${list.length === 1 ? 'task' : 'tasks'} ${list.join(', ')}`
  if (record.after.length > 0) parts.push(`${ids(record.after)} to succeed`)
  if (record.afterEnded.length > 0) parts.push(`${ids(record.afterEnded)} to end`)
  if (record.queue !== null) parts.push(`a slot in queue ${record.queue}${paused ? ' (paused: drover queue resume ' + record.queue + ')' : ''}`)
  return `waiting for ${parts.join(' and ')}`
}

/**
 * The status a task is shown with: its record's, except that a run whose job
 * still waits in the engine's queue (Slurm's PENDING: `starting` in the
 * record, with the engine's reason) shows as `queued`, like a task waiting
 * for a slot of drover's own queues.
 */
export function shownStatus(record: Pick<TaskRecord, 'status' | 'executor' | 'engineWait'>): TaskStatus {
  return isEngineQueued(record) ? 'queued' : record.status
}

/**
 * `showEnv` reveals what is masked by default: -e values and credentials in
 * URLs of the command line. `stateDir` adds a queued task's position.
 */
export function taskJson(record: TaskRecord, opts: {showEnv?: boolean; stateDir?: string} = {}): TaskJson {
  const show = opts.showEnv ?? false
  const queued = record.status === 'queued'
  // said wherever the task shows (list, status, wait, MCP, dashboard): a paused queue is why nothing moves
  const paused = queued && opts.stateDir !== undefined && record.queue !== null && readQueueConfig(opts.stateDir, record.queue).paused
  return {
    id: record.id,
    name: record.name,
    group: record.group ?? null,
    status: shownStatus(record),
    desired: record.desired,
    reason: queued && record.reason === null ? queuedReason(record, paused) : record.reason,
    cause: record.cause,
    exitCode: record.exitCode,
    signal: record.signal,
    pid: record.worker?.pid ?? null,
    command: maskArgv(record.command, show),
    shell: record.shell === null || show ? record.shell : maskUrlCredentials(record.shell),
    cwd: record.cwd,
    env: redactEnv(record.env, show),
    agent: record.agent,
    createdAt: record.createdAt,
    startedAt: record.startedAt,
    endedAt: record.endedAt,
    runtimeMs: runtimeMs(record),
    run: record.runs.length,
    runs: show ? record.runs : record.runs.map(maskedRun),
    policies: record.policies,
    agentInfo: record.agentInfo,
    checkpoint: record.checkpoint,
    executor: record.executor,
    jobId: record.slurm?.jobId ?? null,
    node: record.host,
    queue: record.queue,
    priority: record.priority,
    after: record.after,
    afterEnded: record.afterEnded,
    position: queued && opts.stateDir !== undefined && record.queue !== null ? queuePosition(opts.stateDir, record) : null,
    queuePaused: paused,
    attempt: record.attempt,
    retryMax: record.retryMax,
    retryAt: queued ? record.retryAt : null,
    retryDelayMs: record.retryDelayMs,
    retryOnTimeout: record.retryOnTimeout,
    onExit: record.onExit === null || show ? record.onExit : maskUrlCredentials(record.onExit),
    onStatus: !record.onStatus ? null : show ? record.onStatus : maskUrlCredentials(record.onStatus),
    notify: show ? (record.notify ?? []) : (record.notify ?? []).map(maskNotifyTarget),
    hookTimeoutMs: record.hookTimeoutMs,
    worktree: record.worktree,
    engineWait: isEngineQueued(record) ? record.engineWait! : null,
    droppedFollowups: show ? (record.droppedFollowups ?? []) : (record.droppedFollowups ?? []).map((d) => ({...d, prompt: maskUrlCredentials(d.prompt)})),
    built: !record.built ? null : show ? record.built : maskedBuilt(record.built),
    check: !record.check ? null : show ? record.check : maskedCheck(record.check),
    // the one key present only sometimes comes last, so every other key keeps its place
    ...(record.waitUntil ? {waitUntil: record.waitUntil} : {}),
  }
}

/** A queued follow-up as every front-end shows it. */
export const followupJson = (f: Followup): FollowupJson => ({n: f.n, prompt: f.prompt, at: f.at, now: f.now, keep: f.keep})

/** How a command was written, as shown: credentials in URLs of the prompt and the flags masked, as the command's are. */
function maskedBuilt(built: BuiltFrom): BuiltFrom {
  return {...built, prompt: maskUrlCredentials(built.prompt), configFlags: maskArgv(built.configFlags, false), extraArgs: maskArgv(built.extraArgs, false)}
}

/** A check as shown: credentials in URLs of its command and its output masked, as a hook's command is. */
function maskedCheck(check: TaskCheck): TaskCheck {
  return {...check, command: maskUrlCredentials(check.command), result: check.result && {...check.result, output: maskUrlCredentials(check.result.output)}}
}

/** A run as shown: credentials in URLs of its argv and its prompt masked. */
function maskedRun(run: RunEntry): RunEntry {
  if (!run.command && !run.prompt) return run
  return {...run, command: run.command ? maskArgv(run.command, false) : null, ...(run.prompt ? {prompt: maskUrlCredentials(run.prompt)} : {})}
}

/**
 * The version of the `taskJson` shape stored as views in the derived index
 * (state/index.ts, with row-cells.ts's indexRender): bump it with any change to what taskJson
 * returns for an ended task, and views stored by an earlier drover are
 * rendered afresh instead of shown (test/api/task-json.test.ts pins the keys).
 * 4: status hooks, notify and a worktree's merge (onStatus, notify,
 * worktree.baseBranch, worktree.merged); 5: with them, follow-ups and attach
 * (droppedFollowups, runs[].prompt, runs[].followup, runs[].attached); 6: a
 * command written from a prompt (built); 7: a task's group (group, after
 * name, so that a table row cut out of a view reads it early); 8: a task's
 * check and its result (check).
 */
export const TASK_JSON_VERSION = 8

/**
 * A task's `list --json` view is stored beside its record only when it is a
 * pure function of the record: ended (no queue position, no live runtime),
 * and with an end time whenever it started (else runtimeMs counts to now).
 */
export function storableView(record: TaskRecord): string | null {
  if (!isFinalStatus(record.status) || (record.startedAt !== null && record.endedAt === null)) return null
  return JSON.stringify(taskJson(record))
}

export function readJson(read: RecordRead, opts: {showEnv?: boolean; stateDir?: string} = {}): TaskJson | CorruptTaskJson {
  return read.ok ? taskJson(read.record, opts) : {id: read.id, status: 'corrupt', error: read.error}
}

/** An exit or status hook, or a notification, that failed (non-zero exit, a signal, its timeout, no answer, or it could not start). */
export interface HookFailureJson {
  run: number
  hook: string
  /** the status change a status hook or notification was for; null for an exit hook. */
  status: string | null
  reason: string | null
  exitCode: number | null
  signal: string | null
}

function hookFailures(paths: TaskPaths): HookFailureJson[] {
  let text: string
  try {
    text = readFileSync(paths.events, 'utf8')
  } catch {
    return []
  }
  if (!text.includes('"hook-failed"')) return []
  const failures: HookFailureJson[] = []
  for (const line of text.split('\n')) {
    if (!line.includes('"hook-failed"')) continue
    try {
      const e = JSON.parse(line) as Record<string, unknown>
      if (e.event !== 'hook-failed') continue
      failures.push({run: Number(e.run) || 0, hook: String(e.hook), status: typeof e.status === 'string' ? e.status : null, reason: (e.reason as string) ?? null, exitCode: (e.exitCode as number) ?? null, signal: (e.signal as string) ?? null})
    } catch {
      // a torn line
    }
  }
  return failures
}

export type TaskDetailJson = TaskJson & {
  found: true
  /** the size of output.log in bytes; null when it cannot be read. */
  outputBytes: number | null
  /** exit and status hooks (and notifications) that failed, from the task's events. */
  hookFailures: HookFailureJson[]
  runnerAlive: boolean
  workerAlive: boolean
  /** for a drained or interrupted task, or an agent that ended (not cancelled): the command that continues it, or null with `resumeRefused` saying why not. */
  resume: string | null
  resumeRefused: string | null
  /** with a worktree: whether its folder is there (false: deleted by hand; the branch may still hold its commits). null without one. */
  worktreePresent: boolean | null
  /** follow-ups queued for the agent, in the order they will be delivered. */
  followups: FollowupJson[]
  paths: Omit<TaskPaths, 'runnerLog'> & {runnerLog: string}
}

/**
 * The figures the human views show for an agent: its session's (every run
 * that continued the conversation, resumes included), so `list`, `top` and
 * the dashboard say one thing; a run before the session had totals, its own.
 */
export function sessionUsage(info: AgentInfo): AgentUsage {
  return info.session ?? info
}

/** This run's figures, when they differ from the session's (a resumed task): null otherwise. */
export function runUsageIfResumed(info: AgentInfo): AgentUsage | null {
  const s = info.session
  if (!s || (s.turns === info.turns && s.costUsd === info.costUsd && s.inputTokens === info.inputTokens && s.outputTokens === info.outputTokens)) return null
  return info
}

export function taskDetailJson(
  stateDir: string,
  record: TaskRecord,
  live: {runnerAlive: boolean; workerAlive: boolean},
  opts: {showEnv?: boolean} = {},
): TaskDetailJson {
  // A drained or interrupted task waits to be continued; an agent that ended
  // (succeeded, stopped, failed) is continued by the ordinary follow-up, `drover resume ID --prompt …`.
  const offered = record.status === 'drained' || wasInterrupted(record) || (readsAgentEvents(record.agent) && ['succeeded', 'stopped', 'failed'].includes(record.status))
  const refusal = offered ? resumeRefusal(record) : null
  return {
    ...taskJson(record, {...opts, stateDir}),
    found: true,
    hookFailures: hookFailures(taskPaths(stateDir, record.id)),
    ...live,
    resume: offered && refusal === null ? `drover resume ${record.id}` : null,
    resumeRefused: refusal,
    outputBytes: fileSize(taskPaths(stateDir, record.id).output),
    worktreePresent: record.worktree ? existsSync(record.worktree.path) : null,
    followups: pendingFollowups(taskPaths(stateDir, record.id), record).map(followupJson),
    paths: taskPaths(stateDir, record.id),
  }
}

/**
 * The exit code drover gives for a task, as `logs -f`, `status --wait` and
 * `start --follow` exit with it: the task's own, 128 + the signal number when
 * a signal ended it, otherwise 0 for succeeded and 1 for anything else.
 */
export function exitCodeOf(task: Pick<TaskJson, 'exitCode' | 'signal' | 'status'>): number {
  return taskExitCode(task, signalNumber)
}

/**
 * How a command line is shown: argv quoted only where needed, or the --shell
 * script — always on one line, so a multi-line prompt cannot break a table row
 * or a status line.
 */
export function commandLine(record: Pick<TaskRecord, 'command' | 'shell'>): string {
  if (record.shell !== null) return escapeControls(record.shell)
  return record.command.map(quoteArg).join(' ')
}

// C0 controls and DEL: a newline or a carriage return would break the line.
const CONTROL = /[\u0000-\u001f\u007f]/

const ESCAPES: Record<string, string> = {'\n': '\\n', '\r': '\\r', '\t': '\\t'}

/** Control characters as their backslash escapes (`\n`, `\t`, `\x1b`). */
export function escapeControls(text: string): string {
  if (!CONTROL.test(text)) return text
  return text.replace(/[\u0000-\u001f\u007f\\]/g, (c) => (c === '\\' ? '\\\\' : ESCAPES[c] ?? `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`))
}

/** A prompt on one line for the human views: whitespace runs as one space, controls escaped, cut at `max` with an ellipsis. */
export function promptLine(text: string, max: number): string {
  const flat = escapeControls(text.replace(/\s+/g, ' ').trim())
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat
}

/** Quoted the way a POSIX shell reads it back; with control characters, as bash/zsh $'…' so it stays one line. */
export function quoteArg(arg: string): string {
  if (arg !== '' && /^[\w@%+=:,./-]+$/.test(arg)) return arg
  if (CONTROL.test(arg)) return `$'${escapeControls(arg).replace(/'/g, "\\'")}'`
  return `'${arg.replace(/'/g, `'\\''`)}'`
}
