// The buttons and the start form: each one call of the API the CLI uses, so
// a stop from the page is the stop `drover stop` makes. They ask and return
// at once (wait: false); what happens next reaches the page through the live
// feeds like any change made from a shell.

import type {Drover} from '../api/drover.js'
import type {StartOptions} from '../api/start-options.js'
import {AGENT_PROFILES, parseDuration, usageError} from '../api/values.js'
import {HttpError} from './http.js'

export const TASK_ACTIONS = ['stop', 'cancel', 'drain', 'resume', 'again'] as const
export type TaskAction = (typeof TASK_ACTIONS)[number]

export async function runTaskAction(drover: Drover, id: number, action: TaskAction, body: Record<string, unknown>): Promise<unknown> {
  switch (action) {
    case 'stop':
      return drover.stop(id, {wait: false})
    case 'cancel':
      return drover.cancel(id, {wait: false})
    case 'drain':
      return drover.drain(id, {wait: false})
    case 'resume':
      return drover.resume(id, {prompt: optionalString(body, 'prompt')})
    case 'again':
      return drover.startAgain(id)
  }
}

/**
 * The start form: a shell script, or argv one argument per line (what an
 * agent needs: drover rewrites its command line to resume it). Checked by
 * the API's own prepareStart, so the form is refused exactly like the CLI.
 */
export function startOptionsOf(body: Record<string, unknown>): StartOptions {
  const mode = optionalString(body, 'mode') ?? 'shell'
  const command = optionalString(body, 'command') ?? ''
  const options: StartOptions = mode === 'argv' ? {command: command.split(/\r?\n/).filter((line) => line !== '')} : {shell: command}
  const name = optionalString(body, 'name')
  if (name) options.name = name
  const cwd = optionalString(body, 'cwd')
  if (cwd) options.cwd = cwd
  const agent = optionalString(body, 'agent')
  if (agent) {
    if (!(AGENT_PROFILES as readonly string[]).includes(agent)) throw usageError(`unknown agent profile: ${agent}`)
    options.agent = agent as StartOptions['agent']
  }
  const timeout = optionalString(body, 'timeout')
  if (timeout) options.timeoutMs = parseDuration(timeout)
  return options
}

function optionalString(body: Record<string, unknown>, key: string): string | undefined {
  const value = body[key]
  if (value === undefined || value === null) return undefined
  if (typeof value !== 'string') throw new HttpError(400, `${key} must be a string`)
  return value.trim() === '' ? undefined : value
}
