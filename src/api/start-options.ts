// What a new task is asked to be, checked whole before anything touches the
// state dir: every front-end hands its input here, so a bad start is refused
// the same way from the CLI, a script or an MCP client, and changes nothing.

import path from 'node:path'
import {usageError} from '../base/errors.js'
import {notifyTargetProblem} from '../base/notify-target.js'
import {parseDuration, parseEnvAssignment, parseGroupName, parseTaskName} from '../base/parse.js'
import {resolveExecutable, shellCommand, slurmUnavailable} from '../platform/platform.js'
import {commandProblem} from '../process/command-check.js'
import {detectProfile} from '../agents/profiles.js'
import {AGENT_NAMES, GENERIC_AGENT, knownAgentNames, readsAgentEvents} from '../agents/registry.js'
import {buildHeadless, checkAgentDefaults, type BuiltCommand, type HeadlessRequest} from '../agents/headless.js'
export type {BuiltCommand, BuiltFrom, HeadlessRequest} from '../agents/headless.js'
import {EXECUTOR_NAMES, type AgentProfileName, type ExecutorName, type SlurmPlacement, type TaskCheck} from '../state/record.js'
import {CONFIG_FILE, readStateConfig, type StateConfig} from '../state/config.js'
export type {AgentDefaults, SlurmDefaults, StateConfig} from '../state/config.js'
import {readStateFormat, refuseUnsafeStateDir, resolveStateDir} from '../state/statedir.js'
import type {TaskSpec} from '../tasks/launch.js'
import type {QueueStartOptions} from './queues.js'
import {checkBudget, givenLimits} from './budget.js'
import {checkShape, type Shape} from './option-shapes.js'

/** Every key of StartOptions and the type its value has: checked at run time, for callers without TypeScript. */
const START_SHAPE: {readonly [K in keyof StartOptions]-?: Shape} = {
  command: 'string[]',
  shell: 'string',
  prompt: 'string',
  extraArgs: 'string[]',
  name: 'string',
  group: 'string',
  cwd: 'string',
  env: 'env',
  agent: AGENT_NAMES,
  timeoutMs: 'number',
  idleTimeoutMs: 'number',
  maxOutputBytes: 'number|null',
  agentHooks: 'boolean',
  keepChildren: 'boolean',
  executor: 'string',
  slurm: {partition: 'string', time: 'string', cpus: 'number', mem: 'string', drainBeforeLimitS: 'number', opts: 'string[]'},
  ifAbsent: 'boolean',
  onExit: 'string',
  onStatus: 'string',
  notify: 'string[]',
  hookTimeoutMs: 'number',
  retry: 'number',
  retryDelayMs: 'number',
  retryOnTimeout: 'boolean',
  worktree: 'boolean|string',
  base: 'string',
  existingBranch: 'boolean',
  pinBase: 'boolean',
  maxCostUsd: 'number',
  maxTurns: 'number',
  maxTokens: 'number',
  onLimit: ['wait', 'fail'],
  check: 'string|null',
  checkTimeoutMs: 'number',
  queue: 'string',
  priority: 'number',
  after: 'ref[]',
  afterEnded: 'ref[]',
}

/** What to run: an argv (never through a shell), or a script for the user's shell; with queues and dependencies (QueueStartOptions). */
export interface StartOptions extends QueueStartOptions {
  /** argv of the command, e.g. `['claude', '-p', 'fix the tests']`; or give `shell`. */
  command?: string[]
  /** a script run through `$SHELL -c` (cmd.exe /c on Windows) instead of `command`. */
  shell?: string
  /**
   * with `agent`, instead of `command`: what the agent is to do. drover writes
   * the agent's headless command (print mode, JSON events, a permission mode
   * where configured or needed, config.json's `agents.NAME`), as agentCommand() does.
   */
  prompt?: string
  /** with `prompt`: the agent's own flags, added last as given (e.g. `['--max-turns', '30']`). */
  extraArgs?: string[]
  /** a unique name (letters, digits, `.` `_` `-`, starting with a letter). */
  name?: string
  /** the group the task joins (a name as a task's): listed, acted on (`--group` of stop, drain, resume, wait, logs, rm) and compared with its other tasks. */
  group?: string
  /** working directory (default: this process's). */
  cwd?: string
  /** variables added to the worker's environment. */
  env?: Record<string, string>
  /** agent profile; by default from the program name (`claude`, `codex`); the agent to write a command for with `prompt`. */
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
  /** where the runner runs: `local` or `slurm` (a batch job); by default DROVER_EXECUTOR's, else the state dir's config.json's, else local. */
  executor?: ExecutorName
  /** Slurm only: what the job asks of the scheduler. */
  slurm?: SlurmOptions
  /** with `name`: when a task of that name is queued or running, resolve with it instead of throwing exit 4. */
  ifAbsent?: boolean
  /** a shell command run once per final status, the final record as JSON on stdin. */
  onExit?: string
  /** a shell command run at every status change: the record on stdin, DROVER_STATUS, DROVER_PREV_STATUS, DROVER_REASON set. */
  onStatus?: string
  /** where to tell of the end or a need for attention (a usage limit, a budget, lost): http(s) URLs (a JSON event is posted) or `desktop`; by default config.json's `notify`. */
  notify?: string[]
  /** how long an exit or status hook (or a notification) may run (default 60 s). */
  hookTimeoutMs?: number
  /** try a failed run again up to this many times (not after stop, cancel, drain or a limit). */
  retry?: number
  /** before the first retry (default 1 s); doubling each time, with jitter. */
  retryDelayMs?: number
  /** retry a run stopped by `timeoutMs` too. */
  retryOnTimeout?: boolean
  /** run in a new git worktree of the repository `cwd` is in: true for the branch `drover/<id>-<name>`, or the branch's name. */
  worktree?: boolean | string
  /** with `worktree`: the commit-ish the branch starts from (default HEAD). */
  base?: string
  /** with `worktree: 'branch'`: run on that existing branch (never deleted by rm or prune). */
  existingBranch?: boolean
  /**
   * with `worktree`: fix the base commit when the task is created. By default
   * a task that waits (queue, after) starts from what `base` names when its
   * first run starts, so a chained agent sees work merged meanwhile.
   */
  pinBase?: boolean
  /** drain the task once its session (every run that continued it) reaches this cost, turns or tokens (each agent's profile says which it reports) */
  maxCostUsd?: number
  maxTurns?: number
  maxTokens?: number
  /** `wait`: when the agent stops on its provider's usage limit, wait until it lifts and resume (default `fail`). */
  onLimit?: 'wait' | 'fail'
  /**
   * a shell command run in the task's cwd (its worktree) once a run has ended
   * (not when cancelled or skipped), its exit code and the end of its output
   * recorded on the task (`check`); by default config.json's `check` for a
   * task with a worktree; null for none, whatever the config says.
   */
  check?: string | null
  /** how long the check may run (default 10 minutes). */
  checkTimeoutMs?: number
}

/** `start --executor slurm`'s placement: first-class sbatch options, and any others as given. */
export interface SlurmOptions {
  partition?: string
  /** sbatch --time: minutes, or [D-]HH:MM:SS. */
  time?: string
  cpus?: number
  /** sbatch --mem, e.g. `4G`. */
  mem?: string
  /** seconds before the time limit at which the task is drained (sbatch --signal=B:USR1@N; at most 65535). */
  drainBeforeLimitS?: number
  /** more sbatch arguments, each as one argv element (`--account=x`). */
  opts?: string[]
}

/**
 * StartOptions that passed every check that needs no state dir: what
 * `Drover.start` launches (queues and dependencies are resolved there,
 * against the state dir). Made only by `prepareStart`.
 */
export interface PreparedStart {
  readonly prepared: true
  readonly spec: TaskSpec
  readonly queue: QueueStartOptions
}

/**
 * The state dir's config.json (see state/config.ts), read before the state
 * dir is opened so a bad one refuses the start with nothing written: the dir
 * as `--state-dir`, DROVER_STATE_DIR or the default resolve it. A newer
 * drover's dir is refused first (exit 5): its config.json may say what this
 * drover cannot read, and that is not the user's mistake (exit 2).
 */
export async function startDefaults(stateDirFlag?: string): Promise<StateConfig> {
  const dir = await resolveStateDir(stateDirFlag)
  // another user's state dir is refused as such (exit 5), as every command refuses it, not as a config.json it cannot read
  refuseUnsafeStateDir(dir)
  readStateFormat(dir)
  return readStateConfig(dir)
}

/** The default of `maxOutputBytes`: 1 GiB. */
export const DEFAULT_MAX_OUTPUT_BYTES = 1024 ** 3

/**
 * Checks a start and resolves what it will run (the program on PATH, the
 * agent profile, the executor), without writing to the state dir: a
 * DroverError with exit 2 for anything wrong — an unknown key or a value of
 * the wrong type (a script without TypeScript), both or neither of command and
 * shell, an empty or unknown program, an agent that needs argv given a
 * script, a bad name. `config` is the state dir's (startDefaults).
 */
export function prepareStart(o: StartOptions, config: StateConfig = {}): PreparedStart {
  // first, before any value is used: an unknown key or a wrong type is the caller's mistake, never a corrupt record
  checkShape(o, START_SHAPE, 'start option')
  if (o.ifAbsent && o.name === undefined) throw usageError('ifAbsent needs a name')
  // every start: a bad agents.NAME refuses as any bad key of the file does, whatever is started
  checkAgentDefaults(config.agents, config.source ?? CONFIG_FILE)
  const built = o.prompt === undefined ? null : written(o, config)
  if (o.extraArgs !== undefined && built === null) throw usageError('extraArgs go with a prompt: with a command, give its arguments in it')
  const command = built?.command ?? o.command
  if (built === null && (o.command === undefined) === (o.shell === undefined)) throw usageError('give either a command (argv) or a shell script, not both or neither')
  if (o.command !== undefined && (o.command.length === 0 || o.command[0] === '')) throw usageError('the command name is empty')
  if (o.shell !== undefined && o.shell.trim() === '') throw usageError('the shell script is empty')
  if (o.shell !== undefined && o.agent !== undefined && o.agent !== GENERIC_AGENT) {
    throw usageError(`agent ${o.agent} needs its command as argv, not a shell script: drover rewrites the agent's own command line to resume it`)
  }
  for (const [key, value] of [['timeoutMs', o.timeoutMs], ['idleTimeoutMs', o.idleTimeoutMs], ['maxOutputBytes', o.maxOutputBytes], ['hookTimeoutMs', o.hookTimeoutMs], ['checkTimeoutMs', o.checkTimeoutMs]] as const) {
    if (value !== undefined && value !== null && !(Number.isFinite(value) && value > 0)) throw usageError(`${key} must be a positive number`)
  }
  if (o.retry !== undefined && !(Number.isSafeInteger(o.retry) && o.retry >= 0)) throw usageError('retry must be a whole number from 0')
  if (o.retryDelayMs !== undefined && !(Number.isFinite(o.retryDelayMs) && o.retryDelayMs >= 0)) throw usageError('retryDelayMs must be a number from 0')
  const env = o.env ?? {}
  // the names a -e flag may set, whoever passes them
  for (const [key, value] of Object.entries(env)) parseEnvAssignment(`${key}=${value}`)
  const argv = o.shell !== undefined ? shellCommand(o.shell) : command!
  const agent = built?.agent ?? o.agent ?? (o.shell === undefined ? detectProfile(argv) : GENERIC_AGENT)
  const budget = {maxCostUsd: o.maxCostUsd ?? null, maxTurns: o.maxTurns ?? null, maxTokens: o.maxTokens ?? null}
  checkBudget(agent, budget)
  if (o.onLimit === 'wait' && !readsAgentEvents(agent)) throw usageError(`--on-limit wait needs an agent whose usage limits drover can read (${knownAgentNames().join(', ')})`)
  const cwd = path.resolve(o.cwd ?? process.cwd())
  if (command !== undefined) {
    const problem = commandProblem(command, cwd, {...process.env, ...env})
    if (problem) throw usageError(problem)
  }
  // Resolved now, with the PATH this start sees: a later resume from cron
  // (PATH=/usr/bin:/bin) runs the same program with the same PATH.
  const pathEnv = env.PATH ?? process.env.PATH ?? null
  const spec: TaskSpec = {
    command: argv,
    shell: o.shell ?? null,
    name: o.name === undefined ? null : parseTaskName(o.name),
    group: o.group === undefined ? null : parseGroupName(o.group, 'group'),
    cwd,
    env,
    agent,
    policies: {
      ...givenLimits(budget),
      ...(o.onLimit === 'wait' ? {onLimit: 'wait' as const} : {}),
      timeoutMs: o.timeoutMs ?? null,
      idleTimeoutMs: o.idleTimeoutMs ?? null,
      maxOutputBytes: o.maxOutputBytes === undefined ? DEFAULT_MAX_OUTPUT_BYTES : o.maxOutputBytes,
    },
    executable: resolveExecutable(argv[0], {pathEnv: pathEnv ?? undefined, cwd, pathExt: process.env.PATHEXT}),
    pathEnv,
    agentHooks: o.agentHooks ?? true,
    keepChildren: o.keepChildren ?? false,
    ...placement(o, config),
    ifAbsent: o.ifAbsent ?? false,
    onExit: o.onExit ?? null,
    ...statusHooks(o, config),
    hookTimeoutMs: o.hookTimeoutMs ?? null,
    retryMax: o.retry ?? 0,
    retryDelayMs: o.retryDelayMs ?? null,
    retryOnTimeout: o.retryOnTimeout ?? false,
    worktree: o.worktree === undefined || o.worktree === false ? null : {branch: o.worktree === true ? null : o.worktree, base: o.base ?? null, existingBranch: o.existingBranch ?? false, pinBase: o.pinBase ?? false},
    check: checkOf(o, config),
    built: built === null ? null : {prompt: built.prompt, model: built.model, permissionMode: built.permissionMode, configFlags: built.configFlags, extraArgs: built.extraArgs},
  }
  return {prepared: true, spec, queue: {queue: o.queue, priority: o.priority, after: o.after, afterEnded: o.afterEnded}}
}

/**
 * The command `start` runs for an agent and a prompt: the agent's headless
 * command as its docs give it, with config.json's `agents.NAME` (model,
 * permission mode, flags) and the extra flags, and what was decided. Pure:
 * a fan-out calls it once per attempt. `config` is the state dir's
 * (startDefaults); a usage error (exit 2) for an agent drover cannot write a
 * command for, an empty prompt, extra arguments that are not flags, or a bad
 * `agents` in the config.
 */
export function agentCommand(request: HeadlessRequest, config: StateConfig = {}): BuiltCommand {
  checkAgentDefaults(config.agents, config.source ?? CONFIG_FILE)
  return buildHeadless(request, config.agents?.[request.agent])
}

/** start's prompt: the agent's command written, with the checks that need the rest of the options. */
function written(o: StartOptions, config: StateConfig): BuiltCommand {
  if (o.command !== undefined || o.shell !== undefined) throw usageError('give a prompt or a command (or shell script), not both: with a prompt drover writes the agent\'s command')
  if (o.agent === undefined) throw usageError(`a prompt needs an agent to give it to: ${knownAgentNames().join(', ')}`)
  return buildHeadless({agent: o.agent, prompt: o.prompt!, extraArgs: o.extraArgs}, config.agents?.[o.agent])
}

/** The check a task gets: the option's, else config.json's for a task with a worktree; null for none. */
function checkOf(o: StartOptions, config: StateConfig): TaskCheck | null {
  if (o.check !== undefined && o.check !== null && o.check.trim() === '') throw usageError('the --check command is empty')
  const worktree = o.worktree !== undefined && o.worktree !== false
  const command = o.check === undefined ? (worktree ? config.check : undefined) : o.check
  if (command === undefined || command === null) {
    if (o.checkTimeoutMs !== undefined) throw usageError('checkTimeoutMs goes with a check')
    return null
  }
  return {command, timeoutMs: o.checkTimeoutMs ?? null, result: null}
}

/** --on-status and --notify (config.json's `notify` when not given), only when there are any: a task without keeps the record it always had. */
function statusHooks(o: StartOptions, config: StateConfig): Pick<TaskSpec, 'onStatus' | 'notify'> {
  if (o.onStatus !== undefined && o.onStatus.trim() === '') throw usageError('the --on-status command is empty')
  const notify = o.notify ?? config.notify ?? []
  for (const target of notify) {
    const problem = notifyTargetProblem(target)
    if (problem) throw usageError(problem)
  }
  return {...(o.onStatus !== undefined ? {onStatus: o.onStatus} : {}), ...(notify.length > 0 ? {notify: [...new Set(notify)]} : {})}
}

/**
 * The executor asked for — the option, then DROVER_EXECUTOR, then the state
 * dir's config.json, else local — and its placement checked: the options
 * given, over the config's Slurm defaults (which apply to Slurm tasks only).
 */
function placement(o: StartOptions, config: StateConfig): {executor: ExecutorName; slurm: SlurmPlacement | null} {
  const fromEnv = process.env.DROVER_EXECUTOR === '' ? undefined : process.env.DROVER_EXECUTOR
  const executor = o.executor ?? fromEnv ?? config.executor ?? 'local'
  if (!EXECUTOR_NAMES.includes(executor as ExecutorName)) {
    throw usageError(`unknown executor '${executor}'${o.executor === undefined ? ' (from DROVER_EXECUTOR)' : ''}: use ${EXECUTOR_NAMES.join(' or ')}`)
  }
  const s = o.slurm ?? {}
  if (executor !== 'slurm') {
    if (o.slurm !== undefined && Object.values(o.slurm).some((v) => v !== undefined && !(Array.isArray(v) && v.length === 0))) {
      throw usageError('Slurm options (--partition, --time, --cpus, --mem, --drain-before-limit, --slurm-opt) need --executor slurm')
    }
    return {executor: 'local', slurm: null}
  }
  const unavailable = slurmUnavailable()
  if (unavailable !== null) throw usageError(unavailable)
  if (o.onLimit === 'wait') {
    throw usageError('--on-limit wait does not go with --executor slurm: the job would hold its allocation idle until the limit lifts (let it fail, then resume it)')
  }
  checkSlurmOptions(s, '')
  const d = config.slurm ?? {}
  const file = config.source ?? CONFIG_FILE
  const defaults: SlurmOptions = {
    partition: d.partition,
    time: d.time,
    cpus: d.cpus,
    mem: d.mem,
    drainBeforeLimitS: d.drainBeforeLimit === undefined ? undefined : Math.ceil(parseDuration(d.drainBeforeLimit, `${file}: slurm.drainBeforeLimit`) / 1000),
    opts: d.opts,
  }
  checkSlurmOptions(defaults, `${file}: slurm.`)
  return {
    executor: 'slurm',
    slurm: {
      jobId: null,
      partition: s.partition ?? defaults.partition ?? null,
      time: s.time ?? defaults.time ?? null,
      cpus: s.cpus ?? defaults.cpus ?? null,
      mem: s.mem ?? defaults.mem ?? null,
      drainBeforeLimitS: s.drainBeforeLimitS ?? defaults.drainBeforeLimitS ?? null,
      // the config's first: sbatch takes the last of a repeated option, so a flag's wins
      opts: [...(defaults.opts ?? []), ...(s.opts ?? [])],
    },
  }
}

/** The checks of a Slurm placement, for the options given and for the config's defaults (`where` names the file's key). */
function checkSlurmOptions(s: SlurmOptions, where: string): void {
  const name = (key: string) => (where ? `${where}${key}` : key)
  if (s.cpus !== undefined && !(Number.isSafeInteger(s.cpus) && s.cpus > 0)) throw usageError(`${name('cpus')} must be a positive whole number`)
  if (s.drainBeforeLimitS !== undefined && !(Number.isSafeInteger(s.drainBeforeLimitS) && s.drainBeforeLimitS > 0 && s.drainBeforeLimitS <= 65535)) {
    throw usageError(`${where ? name('drainBeforeLimit') : 'drain-before-limit'} must be between 1 second and 65535 seconds (Slurm's limit)`)
  }
  if (s.time !== undefined && !/^(\d+-)?\d+(:\d+){0,2}$|^\d+-\d+$/.test(s.time)) {
    throw usageError(`${name('time')} '${s.time}' is not a Slurm time limit (minutes, MM:SS, HH:MM:SS, D-HH[:MM[:SS]])`)
  }
  for (const [key, value] of [['partition', s.partition], ['mem', s.mem]] as const) {
    if (value !== undefined && !/^[\w.+-]+$/.test(value)) throw usageError(`${name(key)} '${value}' is not a Slurm ${key} name`)
  }
}
