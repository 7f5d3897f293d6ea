// The buttons and the start form: each one call of the API the CLI uses, so
// a stop from the page is the stop `drover stop` makes. They ask and return
// at once (wait: false); what happens next reaches the page through the live
// feeds like any change made from a shell.

import type {Drover} from '../api/drover.js'
import type {StartOptions} from '../api/start-options.js'
import {AGENT_NAMES, parseCount, parseDuration, usageError} from '../api/values.js'
import {HttpError} from './http.js'
import {mergeSentence, type MergeMode} from '../api/merge.js'

export const TASK_ACTIONS = ['stop', 'cancel', 'drain', 'resume', 'again', 'rm', 'followup', 'withdraw', 'merge', 'discard'] as const
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
    case 'followup':
      // as `drover resume ID --prompt …`: queued for an agent at work, a new run for one that is not
      return drover.followUp(id, {prompt: optionalString(body, 'prompt') ?? '', now: body.now === true, keep: body.keep === true, wait: false})
    case 'withdraw': {
      const n = body.n
      if (typeof n !== 'number' || !Number.isInteger(n) || n < 1) throw new HttpError(400, "n must be a follow-up's number")
      return drover.withdrawFollowups(id, [n])
    }
    case 'rm': {
      // as `drover rm ID`: an ended task only, its worktree only when no work is lost
      const result = await drover.rm([id])
      const skipped = result.skipped[0]
      if (skipped) throw new HttpError(409, `task ${id} was not removed: ${skipped.reason}`)
      if (result.errors[0]) throw new HttpError(500, result.errors[0].error)
      return result
    }
    case 'merge': {
      // as `drover merge ID [--squash|--rebase]`: its refusals and conflicts are the API's (409)
      const mode = optionalString(body, 'mode') as MergeMode | undefined
      const result = await drover.merge(id, {mode})
      return {...result, message: mergeSentence(result)}
    }
    case 'discard': {
      // as `drover rm --discard ID`: the commits thrown away are named in the answer
      const result = await drover.rm([id], {discard: true})
      const skipped = result.skipped[0]
      if (skipped) throw new HttpError(409, `task ${id} was not removed: ${skipped.reason}`)
      if (result.errors[0]) throw new HttpError(500, result.errors[0].error)
      const note = result.removed[0]?.worktree?.note
      return {...result, message: `task ${id} removed${note ? `: ${note}` : ''}`}
    }
  }
}

export const QUEUE_ACTIONS = ['pause', 'resume', 'set'] as const
export type QueueAction = (typeof QUEUE_ACTIONS)[number]

/** The queue page's controls: `drover queue pause|resume NAME` and `queue set NAME --parallel N`. */
export async function runQueueAction(drover: Drover, name: string, action: QueueAction, body: Record<string, unknown>): Promise<unknown> {
  switch (action) {
    case 'pause':
      return drover.pauseQueue(name)
    case 'resume':
      return drover.resumeQueue(name)
    case 'set': {
      const parallel = body.parallel
      if (typeof parallel !== 'number' || !Number.isInteger(parallel) || parallel < 1) throw usageError('the limit must be a whole number of at least 1 (pause the queue to start nothing)')
      return drover.setQueue(name, {parallel})
    }
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
    if (!AGENT_NAMES.includes(agent)) throw usageError(`unknown agent profile: ${agent}`)
    options.agent = agent
  }
  const timeout = optionalString(body, 'timeout')
  if (timeout) options.timeoutMs = parseDuration(timeout, 'timeout')
  // the fields `drover start` has for queues, chains, worktrees, retries and budgets; the API checks what they mean
  const queue = optionalString(body, 'queue')
  if (queue) options.queue = queue
  const priority = optionalString(body, 'priority')
  if (priority) options.priority = wholeNumber(priority, 'priority')
  const after = optionalString(body, 'after')
  if (after) options.after = after.split(',').map((ref) => ref.trim()).filter(Boolean)
  const worktree = optionalString(body, 'worktree')
  if (worktree === 'new') options.worktree = true
  else if (worktree) options.worktree = worktree
  const base = optionalString(body, 'base')
  if (base) options.base = base
  const retry = optionalString(body, 'retry')
  if (retry) options.retry = wholeNumber(retry, 'retry')
  const retryDelay = optionalString(body, 'retryDelay')
  if (retryDelay) options.retryDelayMs = parseDuration(retryDelay, 'retry delay', {allowZero: true})
  const maxTurns = optionalString(body, 'maxTurns')
  if (maxTurns) options.maxTurns = wholeNumber(maxTurns, 'max turns')
  const maxTokens = optionalString(body, 'maxTokens')
  if (maxTokens) options.maxTokens = parseCount(maxTokens, 'max tokens')
  const maxCost = optionalString(body, 'maxCost')
  if (maxCost) {
    const usd = Number(maxCost.replace(/^\$/, ''))
    if (!Number.isFinite(usd) || usd <= 0) throw usageError(`max cost: '${maxCost}' is no amount of US dollars (e.g. 2.50)`)
    options.maxCostUsd = usd
  }
  return options
}

function wholeNumber(text: string, what: string): number {
  if (!/^-?\d+$/.test(text.trim())) throw usageError(`${what}: '${text}' is not a whole number`)
  return Number(text)
}

function optionalString(body: Record<string, unknown>, key: string): string | undefined {
  const value = body[key]
  if (value === undefined || value === null) return undefined
  if (typeof value !== 'string') throw new HttpError(400, `${key} must be a string`)
  return value.trim() === '' ? undefined : value
}
