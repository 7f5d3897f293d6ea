// start_task's arguments → the API's StartOptions, with the checks the CLI's
// `drover start` makes on its flags before the API sees them (durations with
// a unit, options that only go with another). Everything here runs before the
// state dir is touched, so a refused call changes nothing on disk.

import {parseDuration, usageError, type FanOutOptions, type StartOptions} from '../api/index.js'
import type {ToolInput} from './schemas.js'

type StartArgs = ToolInput<'start_task'>

const durationMs = (value: string | undefined, name: string, opts: {allowZero?: boolean} = {}) =>
  value === undefined ? undefined : parseDuration(value, name, opts)

export function startOptions(args: StartArgs): StartOptions {
  const given = [args.command, args.shell, args.prompt].filter((v) => v !== undefined).length
  if (given !== 1) throw usageError('give exactly one of command (an argv array), shell (a script) or prompt (with agent: drover writes the agent\'s command)')
  if (args.extraArgs !== undefined && args.prompt === undefined) throw usageError('extraArgs go with prompt: with command, give the arguments in it')
  if ((args.retryDelay !== undefined || args.retryOnTimeout !== undefined) && !args.retry) throw usageError('retryDelay and retryOnTimeout go with retry N')
  const worktree = args.worktree === false ? undefined : args.worktree
  if ((args.base !== undefined || args.existingBranch !== undefined) && worktree === undefined) throw usageError('base and existingBranch go with worktree')
  return {
    command: args.command,
    shell: args.shell,
    prompt: args.prompt,
    extraArgs: args.extraArgs,
    name: args.name,
    cwd: args.cwd,
    env: args.env,
    agent: args.agent,
    timeoutMs: durationMs(args.timeout, 'timeout'),
    idleTimeoutMs: durationMs(args.idleTimeout, 'idleTimeout'),
    maxOutputBytes: args.maxOutputBytes === 0 ? null : args.maxOutputBytes,
    keepChildren: args.keepChildren,
    queue: args.queue,
    priority: args.priority,
    after: args.after,
    afterEnded: args.afterEnded,
    worktree,
    base: args.base,
    existingBranch: args.existingBranch,
    maxTurns: args.maxTurns,
    maxTokens: args.maxTokens,
    maxCostUsd: args.maxCostUsd,
    onLimit: args.onLimit,
    retry: args.retry,
    retryDelayMs: durationMs(args.retryDelay, 'retryDelay', {allowZero: true}),
    retryOnTimeout: args.retryOnTimeout,
    ifAbsent: args.ifAbsent,
    notify: args.notify,
    group: args.group,
    check: args.check,
    checkTimeoutMs: durationMs(args.checkTimeout, 'checkTimeout'),
  }
}

/**
 * start_task with `attempts`: a fan-out. A number is that many attempts of
 * `agent`; "claude:2,codex" names the agents itself. The options of one task
 * only (a name, a command, a branch of its own) are refused by the API.
 */
export function fanOutOptions(args: StartArgs): FanOutOptions {
  const attempts = args.attempts!
  if (args.prompt === undefined) throw usageError('attempts go with prompt: each attempt\'s command is written from it')
  if (typeof attempts === 'number' && args.agent === undefined) throw usageError('a number of attempts is of `agent`: give agent, or attempts as "claude:2,codex"')
  if (typeof attempts === 'string' && args.agent !== undefined) throw usageError('attempts "claude:2,codex" names the agents itself: leave out agent')
  if (args.worktree !== true) throw usageError('attempts run each in a worktree of its own, from one base commit: give worktree: true')
  const {command, shell, name, agent, ifAbsent, existingBranch, worktree: _worktree, pinBase, ...shared} = startOptions({...args, attempts: undefined})
  for (const [key, value] of Object.entries({command, shell, name, ifAbsent, existingBranch, pinBase})) {
    if (value !== undefined) throw usageError(`${key} is for one task, not for attempts`)
  }
  return {...shared, prompt: args.prompt, attempts: typeof attempts === 'number' ? [{agent: agent!, count: attempts}] : attempts, worktree: true}
}
