// A fan-out: one prompt given to several agents, or to one agent several
// times, each attempt a task of its own in a group, in a worktree of its own
// from one base commit, so the attempts can be compared and the best merged
// (`drover compare`, `drover merge`, `drover rm --group G --discard`). Each
// attempt is an ordinary start: its command is written as `start --agent NAME
// --prompt P` writes it (agentCommand), and budgets, --on-limit, hooks, queues
// and --after apply to each. This module checks the whole fan-out before
// anything is written; tasks/fanout.ts makes and launches the attempts.

import {usageError} from '../base/errors.js'
import {MAX_TASK_NAME_LENGTH, parseGroupName} from '../base/parse.js'
import {suggest} from '../base/suggest.js'
import {GENERIC_AGENT, knownAgentNames} from '../agents/registry.js'
import type {StateConfig} from '../state/config.js'
import type {FanOutPlan} from '../tasks/fanout.js'
import type {TaskJson} from './task-json.js'
import {prepareStart, type StartOptions} from './start-options.js'

/** One line of a fan-out: an agent and how many attempts it gets. */
export interface AttemptSpec {
  agent: string
  /** attempts of this agent (default 1). */
  count?: number
}

/** The most attempts one fan-out may start: more is a typo (claude:20 for claude:2), not a plan. */
export const MAX_ATTEMPTS = 32

/**
 * `claude:2,codex,gemini` as the attempts it asks for, in the order given: an
 * agent drover writes commands for, with a count from 1 (default 1). An agent
 * named twice has its counts added (`claude,claude` is `claude:2`). A usage
 * error (exit 2) for an empty item, an unknown agent (with the one meant), a
 * count that is not a whole number from 1, or more than MAX_ATTEMPTS in all.
 */
export function parseAttempts(input: string | readonly AttemptSpec[], what = '--agent'): {agent: string; count: number}[] {
  const items: AttemptSpec[] =
    typeof input === 'string'
      ? input.split(',').map((item) => {
          const [agent, count, ...rest] = item.trim().split(':')
          if (rest.length > 0 || (count !== undefined && !/^\d+$/.test(count.trim()))) {
            throw usageError(`${what}: '${item.trim()}' is not AGENT or AGENT:N (e.g. claude:2,codex)`)
          }
          return {agent: agent.trim(), count: count === undefined ? 1 : Number(count)}
        })
      : [...input]
  if (!Array.isArray(items) || items.length === 0) throw usageError(`${what}: no agent given (e.g. claude:2,codex)`)
  const known = knownAgentNames()
  const counts = new Map<string, number>()
  for (const item of items) {
    if (item === null || typeof item !== 'object' || typeof item.agent !== 'string') throw usageError(`${what}: each attempt is {agent, count}`)
    const {agent} = item
    const count = item.count ?? 1
    if (agent === '') throw usageError(`${what}: an empty agent in the list (e.g. claude:2,codex)`)
    if (!known.includes(agent)) {
      const near = suggest(agent, known)
      const why = agent === GENERIC_AGENT ? `${GENERIC_AGENT} has no command drover can write` : `unknown value '${agent}'${near ? ` (did you mean ${near}?)` : ''}`
      throw usageError(`${what}: ${why}; use one of: ${known.join(', ')}`)
    }
    if (!Number.isSafeInteger(count) || count < 1) throw usageError(`${what}: ${agent}'s attempts must be a whole number from 1, got ${JSON.stringify(item.count)}`)
    counts.set(agent, (counts.get(agent) ?? 0) + count)
  }
  const total = [...counts.values()].reduce((a, b) => a + b, 0)
  if (total > MAX_ATTEMPTS) throw usageError(`${what}: ${total} attempts; a fan-out starts at most ${MAX_ATTEMPTS}`)
  return [...counts].map(([agent, count]) => ({agent, count}))
}

/** Whether an `--agent` value asks for a fan-out (`claude:2`, `claude,codex`) rather than naming one agent. */
export const isFanOut = (agent: string): boolean => agent.includes(',') || agent.includes(':')

/**
 * What a fan-out is asked to be: the start options every attempt shares, the
 * attempts, and the group they form. Each attempt's command is written from
 * `prompt` for its agent; `extraArgs` (the agent's own flags) go to every
 * attempt, so they are refused when the attempts are of several agents.
 */
export interface FanOutOptions extends Omit<StartOptions, 'command' | 'shell' | 'name' | 'agent' | 'ifAbsent' | 'existingBranch' | 'worktree' | 'pinBase'> {
  /** `claude:2,codex` or [{agent: 'claude', count: 2}, {agent: 'codex'}]. */
  attempts: string | AttemptSpec[]
  prompt: string
  /** the group's name; by default `g` and the first attempt's id. An attempt is named GROUP-AGENT-N. */
  group?: string
  /** must be true: each attempt runs in a worktree of its own, all from one base commit (`base`, default HEAD). */
  worktree: true
}

/** A fan-out checked whole, ready to make (Drover.fanOut takes it as it takes FanOutOptions). */
export interface PreparedFanOut {
  readonly preparedFanOut: true
  readonly plan: FanOutPlan
  readonly queue: Pick<StartOptions, 'queue' | 'priority' | 'after' | 'afterEnded'>
}

/** `drover start --agent claude:2,codex --prompt P --worktree`'s answer. */
export interface FanOutResult {
  group: string
  /** the commit every attempt's worktree started from, and the ref that named it. */
  base: {ref: string; commit: string; branch: string | null}
  /** the attempts, in the order started (their ids ascending). */
  tasks: TaskJson[]
}

/**
 * Checks a fan-out whole, as prepareStart checks a start (it is called once
 * per attempt): nothing is written, and a mistake is a usage error (exit 2).
 * `config` is the state dir's (startDefaults).
 */
export function prepareFanOut(o: FanOutOptions, config: StateConfig = {}): PreparedFanOut {
  if (o === null || typeof o !== 'object') throw usageError('fan-out options must be an object')
  const {attempts: given, group, ...shared} = o as FanOutOptions & Record<string, unknown>
  for (const key of ['command', 'shell', 'name', 'agent', 'ifAbsent', 'existingBranch', 'pinBase'] as const) {
    if (key in shared && shared[key] !== undefined) throw usageError(fanOutRefusal(key))
  }
  if (o.worktree !== true) throw usageError('a fan-out runs each attempt in a worktree of its own: give worktree (--worktree), without a branch name (each attempt gets drover/<id>-<name>)')
  if (o.prompt === undefined) throw usageError('a fan-out needs a prompt: each attempt\'s command is written from it')
  const attempts = parseAttempts(given, typeof given === 'string' ? '--agent' : 'attempts')
  if (attempts.length > 1 && (o.extraArgs ?? []).length > 0) {
    throw usageError(`the flags after -- are one agent's own, and this fan-out has several (${attempts.map((a) => a.agent).join(', ')}): give each its flags in config.json's agents.NAME.flags`)
  }
  const groupName = group === undefined ? null : parseGroupName(group)
  const specs = attempts.map(({agent, count}) => {
    // a name too long for the task names' rule is refused now (the numbers made later are checked again as they are made)
    const longest = `${groupName}-${agent}-${count}`
    if (groupName !== null && longest.length > MAX_TASK_NAME_LENGTH) {
      throw usageError(`--group ${groupName} is too long for its attempts' names: ${longest} has ${longest.length} characters, a name at most ${MAX_TASK_NAME_LENGTH}`)
    }
    const {spec, queue} = prepareStart({...shared, agent, prompt: o.prompt, worktree: true, pinBase: true}, config)
    return {agent, count, spec, queue}
  })
  return {preparedFanOut: true, plan: {group: groupName, attempts: specs.map(({agent, count, spec}) => ({agent, count, spec}))}, queue: specs[0].queue}
}

/** Why an option of a single start has no place in a fan-out. */
function fanOutRefusal(key: string): string {
  switch (key) {
    case 'name':
      return 'a fan-out names each attempt GROUP-AGENT-N: give the group its name (--group), not a task name'
    case 'command':
    case 'shell':
      return 'a fan-out writes each attempt\'s command from the prompt: give a prompt, not a command'
    case 'agent':
      return 'a fan-out takes its agents as attempts (claude:2,codex), not as agent'
    case 'ifAbsent':
      return '--if-absent is for one named task, not a fan-out'
    case 'existingBranch':
      return 'each attempt of a fan-out gets a branch of its own: --existing-branch does not go with it'
    default:
      return 'a fan-out fixes the base commit of every attempt when it starts (--pin-base is implied)'
  }
}
