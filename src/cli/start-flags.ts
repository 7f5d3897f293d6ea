// start's flags for a new task turned into the API's StartOptions, with the
// messages a person typing flags needs (the API checks the rest): one place
// for a single start and a fan-out's attempts alike.

import {GENERIC_AGENT, parseCount, parseDuration, parseEnvAssignment, parseGroupName, parseSize, usageError, type ExecutorName} from '../api/values.js'
import type {StartOptions} from '../api/start-options.js'
import {parseCost} from '../api/budget.js'
import {checkPromptStart} from './prompt-input.js'

export const DEFAULT_MAX_OUTPUT = '1GiB'

/** start's flags for a new task, as oclif parsed them. */
export interface StartFlags {
  name?: string
  group?: string
  cwd?: string
  env?: string[]
  shell?: string
  agent?: string
  'agent-hooks': boolean
  'keep-children'?: boolean
  timeout?: string
  'idle-timeout'?: string
  'max-output'?: string
  queue?: string
  priority?: number
  after?: string[]
  'after-ended'?: string[]
  'if-absent'?: boolean
  'on-exit'?: string
  'on-status'?: string
  notify?: string[]
  'hook-timeout'?: string
  check?: string
  'check-timeout'?: string
  retry?: number
  'retry-delay'?: string
  'retry-on'?: string
  worktree?: string
  base?: string
  'existing-branch'?: boolean
  'pin-base'?: boolean
  'max-cost'?: string
  'max-turns'?: number
  'max-tokens'?: string
  'on-limit'?: string
  executor?: string
  partition?: string
  time?: string
  cpus?: number
  mem?: string
  'drain-before-limit'?: string
  'slurm-opt'?: string[]
}

/** Flags → the API's StartOptions, with the messages a person typing flags needs; the API checks the rest. */
export function startOptions(command: string[], prompt: string | undefined, flags: StartFlags): StartOptions {
  if (prompt !== undefined) checkPromptStart(command, flags)
  else if (flags.shell !== undefined && command.length > 0) throw usageError('give either --shell "script" or a command after --, not both')
  if (prompt === undefined && flags.shell === undefined && command.length === 0) {
    throw usageError('no command given: put it after --, e.g. drover start -- sleep 60 (or use --shell "script")')
  }
  if (flags.shell !== undefined && flags.shell.trim() === '') throw usageError('--shell needs a non-empty script')
  if (flags.shell !== undefined && flags.agent !== undefined && flags.agent !== GENERIC_AGENT) {
    throw usageError(
      `--agent ${flags.agent} needs the command after --, not --shell: drover rewrites the agent's own command line to resume it, which a shell script does not allow`,
    )
  }
  const env: Record<string, string> = {}
  for (const assignment of flags.env ?? []) {
    const [key, value] = parseEnvAssignment(assignment)
    env[key] = value
  }
  const maxOutput = parseSize(flags['max-output'] ?? DEFAULT_MAX_OUTPUT, '--max-output', {allowZero: true})
  if (flags['if-absent'] && flags.name === undefined) throw usageError('--if-absent needs --name')
  for (const flag of ['on-exit', 'on-status'] as const) if (flags[flag] !== undefined && flags[flag].trim() === '') throw usageError(`--${flag} needs a non-empty command`)
  if ((flags['retry-delay'] !== undefined || flags['retry-on'] !== undefined) && !flags.retry) throw usageError('--retry-delay and --retry-on go with --retry N')
  // `--after "$BUILD"` with BUILD unset must not drop the guard: an empty or
  // blank reference (a whole value, or one between commas) is refused.
  const refs = (values: string[] | undefined, flag: string) =>
    (values ?? []).flatMap((v) => v.split(',')).map((v) => {
      if (v.trim() === '') throw usageError(`${flag} needs task ids or names, got an empty one (an unset variable?)`)
      return v.trim()
    })
  return {
    queue: flags.queue,
    priority: flags.priority,
    after: refs(flags.after, '--after'),
    afterEnded: refs(flags['after-ended'], '--after-ended'),
    ifAbsent: flags['if-absent'],
    onExit: flags['on-exit'],
    onStatus: flags['on-status'],
    notify: notifyTargets(flags.notify),
    hookTimeoutMs: flags['hook-timeout'] === undefined ? undefined : parseDuration(flags['hook-timeout'], '--hook-timeout'),
    // `--check none`: no check, whatever config.json says (as --notify none)
    check: flags.check === undefined ? undefined : flags.check.trim() === 'none' ? null : flags.check,
    checkTimeoutMs: flags['check-timeout'] === undefined ? undefined : parseDuration(flags['check-timeout'], '--check-timeout'),
    retry: flags.retry,
    retryDelayMs: flags['retry-delay'] === undefined ? undefined : parseDuration(flags['retry-delay'], '--retry-delay', {allowZero: true}),
    retryOnTimeout: flags['retry-on'] === 'timeout',
    command: flags.shell === undefined && prompt === undefined ? command : undefined,
    shell: flags.shell,
    prompt,
    extraArgs: prompt === undefined ? undefined : command,
    name: flags.name,
    group: flags.group === undefined ? undefined : parseGroupName(flags.group),
    cwd: flags.cwd,
    env,
    agent: flags.agent,
    agentHooks: flags['agent-hooks'],
    keepChildren: flags['keep-children'] ?? false,
    timeoutMs: flags.timeout === undefined ? undefined : parseDuration(flags.timeout, '--timeout'),
    idleTimeoutMs: flags['idle-timeout'] === undefined ? undefined : parseDuration(flags['idle-timeout'], '--idle-timeout'),
    maxOutputBytes: maxOutput === 0 ? null : maxOutput,
    worktree: flags.worktree === undefined ? undefined : flags.worktree === '' ? true : flags.worktree,
    base: flags.base,
    existingBranch: flags['existing-branch'],
    pinBase: flags['pin-base'],
    maxCostUsd: flags['max-cost'] === undefined ? undefined : parseCost(flags['max-cost']),
    maxTurns: flags['max-turns'],
    maxTokens: flags['max-tokens'] === undefined ? undefined : parseCount(flags['max-tokens'], '--max-tokens'),
    onLimit: flags['on-limit'] as 'wait' | 'fail' | undefined,
    executor: flags.executor as ExecutorName | undefined,
    slurm: {
      partition: flags.partition,
      time: flags.time,
      cpus: flags.cpus,
      mem: flags.mem,
      drainBeforeLimitS:
        flags['drain-before-limit'] === undefined ? undefined : Math.ceil(parseDuration(flags['drain-before-limit'], '--drain-before-limit') / 1000),
      opts: flags['slurm-opt'],
    },
  }
}

/** --notify as given (not split at commas: a URL may hold them); `none` alone: none, whatever config.json says. */
function notifyTargets(values: string[] | undefined): string[] | undefined {
  if (values === undefined) return undefined
  const targets = values.map((v) => v.trim())
  if (targets.includes('none')) {
    if (targets.length > 1) throw usageError('--notify none goes alone')
    return []
  }
  return targets
}
