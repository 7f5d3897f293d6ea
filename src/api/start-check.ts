// The checks `drover start` makes before anything touches the state dir, for
// callers of the API that take a command from someone else (a model over MCP):
// a bad variable name or a program that cannot be what was meant is a usage
// error (exit 2) up front, rather than a task recorded as failed to start.

import path from 'node:path'
import {usageError} from '../base/errors.js'
import {parseEnvAssignment} from '../base/parse.js'
import {commandProblem} from '../process/command-check.js'
import type {StartOptions} from './index.js'

/** Throws the CLI's usage error (exit 2) for options `start` would refuse or run in vain. */
export function checkStartOptions(options: StartOptions): void {
  for (const [key, value] of Object.entries(options.env ?? {})) parseEnvAssignment(`${key}=${value}`)
  if (options.shell !== undefined && options.shell.trim() === '') throw usageError('--shell needs a non-empty script')
  if (options.command !== undefined && options.shell === undefined && options.command.length > 0) {
    const cwd = path.resolve(options.cwd ?? process.cwd())
    const problem = commandProblem(options.command, cwd, {...process.env, ...options.env})
    if (problem) throw usageError(problem)
  }
}
