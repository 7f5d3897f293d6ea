// The task record: its one declared schema and the status vocabulary
// (decoding it with clear errors is record-codec.ts). Every status change goes
// through the moves table below (as in pueue): `transition` for the moves that
// carry a run on, `settledRecord` for the ones that end or pause it, which only
// runner/settle.ts calls (test/scripts/settle.test.ts holds it to that), so what
// follows an ending (event, queue bookkeeping, retry, hooks) happens in one place.

export const SCHEMA_VERSION = 1

export const TASK_STATUSES = [
  'queued',
  'starting',
  'running',
  'stopping',
  /** the agent ran into a provider's usage limit (`--on-limit wait`): its runner resumes it at `waitUntil`. */
  'waiting',
  'succeeded',
  'failed',
  'stopped',
  'cancelled',
  'drained',
  'lost',
  'skipped',
] as const
export type TaskStatus = (typeof TASK_STATUSES)[number]

export const FINAL_STATUSES: readonly TaskStatus[] = ['succeeded', 'failed', 'stopped', 'cancelled', 'drained', 'lost', 'skipped']
export const isFinalStatus = (status: TaskStatus): boolean => FINAL_STATUSES.includes(status)

/** The statuses a run ends or pauses in: every final one, and `waiting` (a usage limit). Only settle.ts moves a record there. */
export type EndingStatus = Exclude<TaskStatus, 'queued' | 'starting' | 'running' | 'stopping'>
export const isEndingStatus = (status: TaskStatus): status is EndingStatus => status === 'waiting' || isFinalStatus(status)

/**
 * Why a run ended (or paused): the fact every decision about an ending reads —
 * whether it is retried, how a table labels it — where `reason` is the
 * sentence for people. A record written before causes existed gets one derived
 * once, when it is decoded (record-codec.ts); a cause this drover does not know
 * (a newer drover's) reads as null, and the status alone speaks.
 */
export const END_CAUSES = [
  /** the worker exited by itself; its exit code says how. */
  'exit',
  /** the worker was killed by a signal drover did not send. */
  'signal',
  /** an adopted worker ended (no exit status reaches a runner that is not its parent). */
  'exit-unknown',
  /** exit 0, but the agent reported an error or never gave its result. */
  'agent-error',
  /** the agent ran into a provider's usage limit (failed, or `waiting` with --on-limit wait). */
  'usage-limit',
  /** the program could not be found. */
  'not-found',
  /** the run never got going: no working directory, a spawn refused, a runner that died first, a job the scheduler refused. */
  'not-started',
  /** requests of a person (or of a scheduler): stop (`stop-killed`: its grace ran out and the tree was killed), cancel, drain. */
  'stop',
  'stop-killed',
  'cancel',
  'drain',
  /** policies: --timeout, --idle-timeout, --max-output, a budget (drained). */
  'timeout',
  'idle',
  'output-limit',
  'budget',
  /** a dependency of --after did not succeed (skipped). */
  'dependency',
  /** the runner vanished without recording an end (lost). */
  'runner-lost',
  /** the runner itself was told to go (lost: a shutdown, usually). */
  'runner-interrupted',
  /** a bug in the runner (failed). */
  'runner-error',
] as const
export type EndCause = (typeof END_CAUSES)[number]
export const isEndCause = (value: unknown): value is EndCause => (END_CAUSES as readonly unknown[]).includes(value)

// An agent's name as a record stores it: one src/agents/ knows, `generic`, or one
// only a newer drover knows (which this one handles as generic). The state layer
// lists no agent: the names are src/agents/registry.ts's.
export type AgentProfileName = string

import type {ProcessIdentity} from '../platform/platform.js'
export type {ProcessIdentity} from '../platform/platform.js'

export interface RunEntry {
  run: number
  startedAt: string | null
  endedAt: string | null
  status: TaskStatus
  exitCode: number | null
  signal: string | null
  reason: string | null
  /** why this run ended (null while it runs, and where no cause is known). */
  cause: EndCause | null
  resumed: boolean
  /** argv of this run when it differs from the task's (an agent resume), else null. */
  command: string[] | null
  /** what a resumed agent was told this run (`resume --prompt`, a follow-up), else null (a first run, a restart). */
  prompt?: string | null
  /** the follow-up this run delivers (its number, `drover followups`), else null. */
  followup?: number | null
  /** a person took the agent over in a terminal (`drover attach`): the interactive session was this run. */
  attached?: boolean
  /**
   * output.log's size when this run's worker started, or null before then. A
   * runner that adopts the worker of a dead one reads the agent's stream again
   * from here, and the output cap counts from here.
   */
  outputOffset: number | null
}

export interface Policies {
  timeoutMs: number | null
  idleTimeoutMs: number | null
  maxOutputBytes: number | null
  /** `wait`: a run that ends on a provider's usage limit is resumed when the limit lifts. */
  onLimit?: 'wait' | 'fail'
  /** budgets over the agent's whole session (every run that continued it), or null. */
  maxCostUsd?: number | null
  maxTurns?: number | null
  maxTokens?: number | null
}

/** What a task's worktree holds compared with its base, taken when a run ends. */
export interface WorktreeSummary {
  /** the worktree's HEAD commit. */
  head: string
  /** commits on the branch since the base commit. */
  commits: number
  /** tracked files that differ from the base (committed or not). */
  filesChanged: number
  insertions: number
  deletions: number
  /** anything not committed: changed tracked files or untracked ones. */
  uncommitted: boolean
  at: string
}

/** A git worktree made for the task (`start --worktree`): it is the task's cwd for every run. */
export interface WorktreeInfo {
  /** the working tree `start` ran in: git commands about the worktree run there. */
  repo: string
  path: string
  branch: string
  /** the ref given with --base (HEAD when none), and the commit it named at start. */
  base: string
  baseCommit: string
  /** the repo's working tree had uncommitted changes at start: they are not in the worktree. */
  baseDirty: boolean
  /** false when the task runs on a branch that existed before it (`--existing-branch`): such a branch is never deleted. */
  createdBranch?: boolean
  /** the base commit was fixed when the task was created (`--pin-base`); without it the first run starts from what `base` names then. */
  pinBase?: boolean
  /** the local branch `base` named at start (HEAD's branch for HEAD): where `drover merge` brings the work by default; null when none (a detached HEAD, a tag). */
  baseBranch?: string | null
  summary: WorktreeSummary | null
  /** the last `drover merge` of the branch, once it succeeded. */
  merged?: WorktreeMerge | null
}

/** How a task's branch was brought into another (`drover merge`). */
export interface WorktreeMerge {
  into: string
  mode: 'merge' | 'squash' | 'rebase'
  /** the tip of `into` after the merge. */
  commit: string
  /** the branch's commits that were brought in. */
  commits: number
  at: string
}

/**
 * How a drain ended the worker: it exited on its own after STOP
 * (`cooperative`), it was signalled at a moment no tool call was running
 * (`safe-point`), or the grace ran out and it was signalled mid-work (`forced`).
 */
export type DrainMode = 'cooperative' | 'safe-point' | 'forced'
export const DRAIN_MODES: readonly DrainMode[] = ['cooperative', 'safe-point', 'forced']

export interface Checkpoint {
  profile: AgentProfileName
  sessionId: string | null
  sessionDir: string
  /** mode === 'forced', kept for readers of the first schema. */
  forced: boolean
  mode: DrainMode
  /** ms from the drain's start until the worker's tree was gone. */
  tookMs: number | null
  at: string
}

/** Turns, cost and tokens, either of one run or of a whole agent session. */
export interface AgentUsage {
  /** model responses (claude: assistant messages; codex: completed turns). */
  turns: number
  costUsd: number | null
  inputTokens: number | null
  outputTokens: number | null
}

/**
 * What the agent's own stream told us (claude stream-json, codex JSONL). The
 * top-level figures are this run's; `session` holds the conversation's totals
 * across every run that continued it (resumes included).
 */
export interface AgentInfo extends AgentUsage {
  sessionId: string | null
  lastEvent: string | null
  session: AgentUsage | null
  /** what the agent itself reported as going wrong (an error result, a failed turn). */
  error: string | null
  /** a provider's usage or rate limit the agent ran into in this run, and when it lifts (ISO) if said. */
  limit?: {message: string; resetAt: string | null} | null
}

/**
 * What was decided when drover wrote the command from a prompt (`start
 * --agent NAME --prompt P`, agents/headless.ts): the record's command is that
 * command, and this says how it came about.
 */
export interface BuiltFrom {
  /** the prompt, whole. */
  prompt: string
  /** the model drover named (config.json's), or null: the extra flags name one, or nobody did (the agent's default). */
  model: string | null
  /** the permission mode drover gave (config.json's, else the agent's headless default), or null: the extra flags decide, or none is needed. */
  permissionMode: string | null
  /** config.json's `agents.NAME.flags`. */
  configFlags: string[]
  /** the caller's flags, as given. */
  extraArgs: string[]
}

/**
 * A check of the task's work (`start --check CMD`, config.json's `check`):
 * a shell command run in the task's cwd (its worktree) once a run has ended,
 * before the exit hooks, its outcome recorded here — what `drover compare`
 * shows beside each attempt of a fan-out.
 */
export interface TaskCheck {
  command: string
  /** how long it may run; null: the default (10 minutes). */
  timeoutMs: number | null
  /** the latest run's check, or null before the first. */
  result: CheckResult | null
}

export const CHECK_STATUSES = ['running', 'passed', 'failed'] as const
export type CheckStatus = (typeof CHECK_STATUSES)[number]

export interface CheckResult {
  /** the run whose end it checked. */
  run: number
  /** passed: exit 0; failed: another exit code, a signal, its timeout, or it could not start. */
  status: CheckStatus
  exitCode: number | null
  signal: string | null
  /** why it failed beyond its exit code (`timed out after 10m00s`, `could not start: …`), else null. */
  reason: string | null
  /** the last of what it wrote (stdout and stderr together), at most 8 KiB. */
  output: string
  /** every byte it wrote: more than output holds when the output was cut. */
  outputBytes: number
  startedAt: string
  endedAt: string | null
  /**
   * the process running it while it runs (the hook supervisor), so a reader
   * can tell a check under way from one whose process was killed; null once
   * it ended.
   */
  checker: ProcessIdentity | null
}

export interface TaskRecord {
  schemaVersion: typeof SCHEMA_VERSION
  id: number
  name: string | null
  /**
   * The group the task belongs to (`start --group`, or a fan-out's attempts):
   * a set of tasks acted on, listed and compared together. A name by the task
   * names' rule; absent (or null) for a task in no group, so every other
   * record stays as it always was and an older drover reads it unchanged.
   */
  group?: string | null
  /** argv of the worker; with --shell it is [shell, flag, script]. */
  command: string[]
  /** the script string when the user asked for a shell, else null. */
  shell: string | null
  cwd: string
  /** only what the user added with -e; the rest comes from the launching environment. */
  env: Record<string, string>
  agent: AgentProfileName
  policies: Policies
  status: TaskStatus
  desired: 'running' | 'stopped'
  reason: string | null
  /** why the current run ended or paused (null while it is under way). */
  cause: EndCause | null
  exitCode: number | null
  signal: string | null
  createdAt: string
  startedAt: string | null
  endedAt: string | null
  /** worker process; its pid is also its process group id. */
  worker: ProcessIdentity | null
  runs: RunEntry[]
  agentInfo: AgentInfo | null
  checkpoint: Checkpoint | null
  /**
   * The program resolved to an absolute path at start, and the PATH it was
   * found with: later runs (resume from cron, @reboot) use both, whatever the
   * caller's environment. null when it could not be resolved at start.
   */
  executable: string | null
  pathEnv: string | null
  /** claude only: add drover's hooks (`--settings`) so a drain is cooperative. */
  agentHooks: boolean
  /** leave processes the worker started running after it exits (jobs that mean to daemonize). */
  keepChildren: boolean
  /** where the runner is placed: a detached process here (`local`), or a Slurm batch job. */
  executor: ExecutorName
  /** the Slurm placement asked for at start (null for local tasks). */
  slurm: SlurmPlacement | null
  /** the host the current run's runner recorded (null until it did, and for runs before hosts were recorded). */
  host: string | null
  /** the queue whose parallel limit this task's runs wait for, or null. */
  queue: string | null
  /** higher runs earlier among the queued tasks of its queue (default 0). */
  priority: number
  /** tasks that must all have succeeded before a run starts (else this task ends `skipped`). */
  after: number[]
  /** tasks that must all have ended, whatever the outcome, before a run starts. */
  afterEnded: number[]
  /** when the task first joined its queue: its place in line, kept when a run is queued again. */
  queuedAt: string | null
  /** a shell command run once per final status (`start --on-exit`), or null. */
  onExit: string | null
  /** how long an exit hook may run before it is stopped (default 60 s). */
  hookTimeoutMs: number | null
  /** a shell command run at every status change (`start --on-status`); absent: none. */
  onStatus?: string | null
  /** where to tell of an end or a need for attention (`start --notify`): http(s) URLs, or `desktop`; absent: nowhere. */
  notify?: string[]
  /** `start --retry N`: failed runs are tried again up to N times (0: never). */
  retryMax: number
  /** the first retry's delay; each later one doubles it (with jitter). null: 1 s. */
  retryDelayMs: number | null
  /** a run stopped by --timeout is retried too. */
  retryOnTimeout: boolean
  /** which attempt the current run is (1 for the first). */
  attempt: number
  /** when a failed attempt is tried again: the queued run starts no earlier. */
  retryAt: string | null
  /** the git worktree the task runs in (`start --worktree`), or null. */
  worktree: WorktreeInfo | null
  /** while `waiting`: when the runner resumes the task (ISO). */
  waitUntil?: string | null
  /** usage-limit waits in a row, for the backoff when the agent names no reset time. */
  limitWaits?: number
  /** the command was written by drover from a prompt (`start --agent NAME --prompt P`): how; absent or null for a command given as it is. */
  built?: BuiltFrom | null
  /** the check run once a run has ended (`start --check`), with its latest result; absent for a task without one. */
  check?: TaskCheck | null
  /** follow-ups that were never delivered and why (the run failed, was stopped or cancelled; the session could not go on), latest last. */
  droppedFollowups?: DroppedFollowup[]
  /**
   * In memory only, never written: while a run's job waits in its engine's
   * own queue (Slurm's PENDING), reconcile's word for it (runner/executor.ts).
   */
  engineWait?: EngineWait | null
}

/** A follow-up dropped instead of delivered (state/followups.ts holds the pending ones). */
export interface DroppedFollowup {
  n: number
  prompt: string
  /** when it was queued, and when it was dropped. */
  queuedAt: string
  droppedAt: string
  /** the run whose end dropped it. */
  run: number
  reason: string
}

/** A job waiting in an engine's own queue: the engine, and its word for why (`Resources`). */
export interface EngineWait {
  engine: string
  reason: string
}

export type ExecutorName = 'local' | 'slurm'
export const EXECUTOR_NAMES: readonly ExecutorName[] = ['local', 'slurm']

/** What `start --executor slurm` asked of the scheduler; kept for every later run. */
export interface SlurmPlacement {
  /** the job of the current run, once submitted. */
  jobId: string | null
  partition: string | null
  /** sbatch --time as given (minutes, or [D-]HH:MM:SS). */
  time: string | null
  cpus: number | null
  mem: string | null
  /** seconds before the time limit at which the runner is told to drain (sbatch --signal=B:USR1@N). */
  drainBeforeLimitS: number | null
  /** more sbatch arguments, passed as given. */
  opts: string[]
}

/** Whether a run of this task waits its turn (a queue's limit or dependencies) rather than starting at once. */
export const waitsItsTurn = (record: Pick<TaskRecord, 'queue' | 'after' | 'afterEnded'>): boolean =>
  record.queue !== null || record.after.length > 0 || record.afterEnded.length > 0

// The moves a record may make. Final statuses may only go back to `starting`
// or `queued` (a restart or resume opens a new run; resume itself refuses a
// cancelled task); `lost` may additionally be corrected to a real outcome by
// whoever stops the orphaned worker. A queued run has no process: it starts,
// or ends without ever starting (cancelled, stopped, drained, or skipped when
// a dependency did not succeed).
const ALLOWED: Record<TaskStatus, readonly TaskStatus[]> = {
  queued: ['starting', 'cancelled', 'stopped', 'drained', 'skipped'],
  starting: ['running', 'stopping', 'failed', 'cancelled', 'stopped', 'lost'],
  running: ['stopping', 'waiting', 'succeeded', 'failed', 'stopped', 'cancelled', 'drained', 'lost'],
  // The worker is gone; its runner waits to resume it, or records why it did not.
  waiting: ['starting', 'failed', 'stopped', 'cancelled', 'drained', 'lost'],
  stopping: ['succeeded', 'failed', 'stopped', 'cancelled', 'drained', 'lost'],
  succeeded: ['starting', 'queued'],
  failed: ['starting', 'queued'],
  stopped: ['starting', 'queued'],
  cancelled: ['starting', 'queued'],
  drained: ['starting', 'queued'],
  lost: ['starting', 'queued', 'stopped', 'cancelled', 'drained', 'failed'],
  skipped: ['starting', 'queued'],
}

export function canTransition(from: TaskStatus, to: TaskStatus): boolean {
  return ALLOWED[from].includes(to)
}

export interface Outcome {
  status: TaskStatus
  reason?: string | null
  exitCode?: number | null
  signal?: string | null
  at?: string
}

/** How a run ended or paused: what settle.ts records. */
export interface Ending {
  status: EndingStatus
  cause: EndCause
  reason: string
  exitCode?: number | null
  signal?: string | null
  at?: string
}

/**
 * Returns a new record moved on to `outcome.status` — running, stopping, or a
 * new run's starting/queued — keeping the current run's entry in step. Throws
 * on a move the status machine forbids, and on an ending, which is
 * `settledRecord`'s: either is a bug in the caller, not something a user can cause.
 */
export function transition(record: TaskRecord, outcome: Outcome): TaskRecord {
  if (isEndingStatus(outcome.status)) throw new Error(`task ${record.id}: a run ends through settle.ts, not transition (${record.status} -> ${outcome.status})`)
  return move(record, outcome, null)
}

/** The record of a run that ended or paused as `ending` says. Called by runner/settle.ts alone, which writes it and does what follows. */
export function settledRecord(record: TaskRecord, ending: Ending): TaskRecord {
  return move(record, ending, ending.cause)
}

function move(record: TaskRecord, outcome: Outcome, cause: EndCause | null): TaskRecord {
  const to = outcome.status
  if (!canTransition(record.status, to)) {
    throw new Error(`illegal status change for task ${record.id}: ${record.status} -> ${to}`)
  }
  const at = outcome.at ?? new Date().toISOString()
  const final = isFinalStatus(to)
  const next: TaskRecord = {
    ...record,
    status: to,
    reason: outcome.reason !== undefined ? outcome.reason : final ? record.reason : null,
    cause,
    exitCode: outcome.exitCode !== undefined ? outcome.exitCode : record.exitCode,
    signal: outcome.signal !== undefined ? outcome.signal : record.signal,
    startedAt: to === 'running' ? at : record.startedAt,
    endedAt: final ? at : record.endedAt,
  }
  const runs = record.runs.slice()
  const current = runs.at(-1)
  if (current) {
    runs[runs.length - 1] = {
      ...current,
      status: to,
      startedAt: to === 'running' ? at : current.startedAt,
      endedAt: final ? at : current.endedAt,
      exitCode: next.exitCode,
      signal: next.signal,
      reason: final ? next.reason : current.reason,
      cause: final ? cause : (current.cause ?? null),
    }
  }
  next.runs = runs
  return next
}

/** Opens a new run on a task that is final (restart or resume): `starting`, or `queued` when it waits its turn. */
export function beginRun(
  record: TaskRecord,
  resumed: boolean,
  command: string[] | null = null,
  at = new Date().toISOString(),
  status: 'starting' | 'queued' = 'starting',
  about: RunAbout = {},
): TaskRecord {
  const moved = transition(record, {status, at, reason: null, exitCode: null, signal: null})
  return {
    ...moved,
    // a wait for a usage limit ends with the run that follows it
    ...(record.waitUntil ? {waitUntil: null} : {}),
    desired: 'running',
    startedAt: null,
    endedAt: null,
    worker: null,
    runs: [
      ...record.runs,
      {
        run: record.runs.length + 1,
        startedAt: null,
        endedAt: null,
        status,
        exitCode: null,
        signal: null,
        reason: null,
        cause: null,
        resumed,
        command,
        outputOffset: null,
        ...about,
      },
    ],
  }
}

/** What a new run is for, beside its argv: the prompt it was given, the follow-up it delivers, an attached session. */
export type RunAbout = Partial<Pick<RunEntry, 'prompt' | 'followup' | 'attached'>>

/** The code `logs -f`, `start --follow` and `status --wait` exit with: the task's own. */
export function taskExitCode(record: Pick<TaskRecord, 'exitCode' | 'signal' | 'status'>, signalNumber: (signal: string) => number): number {
  if (record.exitCode !== null) return record.exitCode
  if (record.signal) return 128 + signalNumber(record.signal)
  return record.status === 'succeeded' ? 0 : 1
}
