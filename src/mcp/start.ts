// start_task's arguments → the API's StartOptions, with the checks the CLI's
// `drover start` makes on its flags before the API sees them (durations with
// a unit, options that only go with another). Everything here runs before the
// state dir is touched, so a refused call changes nothing on disk.

import {parseDuration, usageError, type StartOptions} from '../api/index.js'
import type {ToolInput} from './schemas.js'

type StartArgs = ToolInput<'start_task'>

const durationMs = (value: string | undefined, name: string, opts: {allowZero?: boolean} = {}) =>
  value === undefined ? undefined : parseDuration(value, name, opts)

export function startOptions(args: StartArgs): StartOptions {
  if ((args.command === undefined) === (args.shell === undefined)) throw usageError('give exactly one of command (an argv array) or shell (a script)')
  if ((args.retryDelay !== undefined || args.retryOnTimeout !== undefined) && !args.retry) throw usageError('retryDelay and retryOnTimeout go with retry N')
  const worktree = args.worktree === false ? undefined : args.worktree
  if ((args.base !== undefined || args.existingBranch !== undefined) && worktree === undefined) throw usageError('base and existingBranch go with worktree')
  return {
    command: args.command,
    shell: args.shell,
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
  }
}
