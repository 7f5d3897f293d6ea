// The state dir's own settings: an optional config.json written by hand, read
// by every start (CLI, API, MCP) for what a new task defaults to when neither
// a flag nor the environment says — so a state dir on a cluster's shared file
// system can default to Slurm for everyone who uses it, and `start --agent
// NAME --prompt P` writes each agent's command with the model, permission
// mode and flags chosen once for the state dir. Checked whole: a bad
// file is one line naming it (exit 2, as a bad DROVER_EXECUTOR is), never half
// applied. Only the shape is checked here; start-options checks the values.

import {constants as fsc, lstatSync, readFileSync} from 'node:fs'
import path from 'node:path'
import {usageError} from '../base/errors.js'
import {notifyTargetProblem} from '../base/notify-target.js'
import {EXECUTOR_NAMES, type ExecutorName} from './record.js'

export const CONFIG_FILE = 'config.json'

// A settings file is a few lines; anything bigger is not one.
const MAX_CONFIG_BYTES = 64 * 1024

/** Defaults for a task placed on Slurm, each replaced by its `start` flag (`opts` come before --slurm-opt's, which win in sbatch). */
export interface SlurmDefaults {
  partition?: string
  time?: string
  cpus?: number
  mem?: string
  /** a duration as `--drain-before-limit` takes it (`10m`). */
  drainBeforeLimit?: string
  opts?: string[]
}

/**
 * What `start --agent NAME --prompt P` adds to the command it writes for that
 * agent (agents/headless.ts): the state layer knows no agent, so the names and
 * the permission modes are checked there, against each agent's module.
 */
export interface AgentDefaults {
  /** given with the agent's model flag, unless the extra flags name a model. */
  model?: string
  /** one of the agent's own permission modes (claude's `acceptEdits`, codex's `workspace-write`, …), unless the extra flags decide. */
  permissionMode?: string
  /** more of the agent's own flags, before the ones given at start. */
  flags?: string[]
}

export interface StateConfig {
  /** the executor a new task gets when neither `--executor` nor DROVER_EXECUTOR says. */
  executor?: ExecutorName
  slurm?: SlurmDefaults
  /** where a new task tells of its end or a need for attention when `--notify` does not say (URLs, `desktop`). */
  notify?: string[]
  /** by agent name: what a command written for that agent gets (`start --agent NAME --prompt P`). */
  agents?: Record<string, AgentDefaults>
  /** the check a new task with a worktree gets when `--check` does not say: a shell command run in its worktree once a run has ended (`drover compare` shows it). */
  check?: string
  /** the file it was read from, for messages about its values (absent: no file). */
  source?: string
}

export const configPath = (stateDir: string) => path.join(stateDir, CONFIG_FILE)

const CONFIG_KEYS = ['executor', 'slurm', 'notify', 'agents', 'check']
const AGENT_KEYS = ['model', 'permissionMode', 'flags']
const SLURM_STRING_KEYS = ['partition', 'time', 'mem', 'drainBeforeLimit'] as const
const SLURM_KEYS = [...SLURM_STRING_KEYS, 'cpus', 'opts']

/**
 * The state dir's config, or an empty one when it has none (or the state dir
 * does not exist yet). Throws a usage error naming the file for anything that
 * is not a config: unreadable, not JSON, an unknown key, a value of the wrong
 * type — a misspelt key silently ignored would leave tasks on the wrong executor.
 */
export function readStateConfig(stateDir: string): StateConfig {
  const file = configPath(stateDir)
  const bad = (why: string) => usageError(`${file}: ${why}`)
  let stats
  try {
    stats = lstatSync(file)
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    if (code === 'ENOENT' || code === 'ENOTDIR') return {}
    throw bad(`cannot read it (${code ?? (error as Error).message})`)
  }
  // lstat, and O_NOFOLLOW below: a link planted in place of config.json is refused, not followed.
  if (!stats.isFile()) throw bad('not a regular file')
  if (stats.size > MAX_CONFIG_BYTES) throw bad(`too big for a config (${stats.size} bytes)`)
  let text: string
  try {
    // O_NOFOLLOW as store.readOwnFile, without loading the store: bin/run.js reads this file before oclif loads.
    text = readFileSync(file, {encoding: 'utf8', flag: (fsc.O_RDONLY | (fsc.O_NOFOLLOW ?? 0)) as unknown as string})
  } catch (error) {
    throw bad(`cannot read it (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`)
  }
  let parsed: unknown
  try {
    parsed = JSON.parse(text)
  } catch (error) {
    throw bad(`not valid JSON (${(error as Error).message})`)
  }
  return {...checkConfig(parsed, bad), source: file}
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

function checkConfig(value: unknown, bad: (why: string) => Error): StateConfig {
  if (!isObject(value)) throw bad('must be a JSON object, e.g. {"executor": "slurm"}')
  for (const key of Object.keys(value)) if (!CONFIG_KEYS.includes(key)) throw bad(`unknown key '${key}' (known: ${CONFIG_KEYS.join(', ')})`)
  const config: StateConfig = {}
  if (value.executor !== undefined) {
    if (typeof value.executor !== 'string' || !EXECUTOR_NAMES.includes(value.executor as ExecutorName)) {
      throw bad(`executor must be ${EXECUTOR_NAMES.map((n) => `"${n}"`).join(' or ')}, not ${JSON.stringify(value.executor)}`)
    }
    config.executor = value.executor as ExecutorName
  }
  if (value.slurm !== undefined) {
    const s = value.slurm
    if (!isObject(s)) throw bad('slurm must be an object of sbatch defaults, e.g. {"partition": "gpu"}')
    for (const key of Object.keys(s)) if (!SLURM_KEYS.includes(key)) throw bad(`unknown key 'slurm.${key}' (known: ${SLURM_KEYS.join(', ')})`)
    const slurm: SlurmDefaults = {}
    for (const key of SLURM_STRING_KEYS) {
      if (s[key] === undefined) continue
      if (typeof s[key] !== 'string' || s[key] === '') throw bad(`slurm.${key} must be a non-empty string`)
      slurm[key] = s[key] as string
    }
    if (s.cpus !== undefined) {
      if (!Number.isSafeInteger(s.cpus) || (s.cpus as number) < 1) throw bad('slurm.cpus must be a positive whole number')
      slurm.cpus = s.cpus as number
    }
    if (s.opts !== undefined) {
      if (!Array.isArray(s.opts) || !s.opts.every((opt) => typeof opt === 'string' && opt !== '')) {
        throw bad('slurm.opts must be an array of sbatch arguments, e.g. ["--account=lab"]')
      }
      slurm.opts = [...(s.opts as string[])]
    }
    config.slurm = slurm
  }
  if (value.notify !== undefined) {
    if (!Array.isArray(value.notify) || !value.notify.every((t) => typeof t === 'string')) throw bad('notify must be an array of targets, e.g. ["desktop", "https://ntfy.sh/…"]')
    for (const target of value.notify as string[]) {
      const problem = notifyTargetProblem(target)
      if (problem) throw bad(`notify: ${problem.replace(/^--notify /, '')}`)
    }
    config.notify = [...(value.notify as string[])]
  }
  if (value.agents !== undefined) config.agents = checkAgents(value.agents, bad)
  if (value.check !== undefined) {
    if (typeof value.check !== 'string' || value.check.trim() === '') throw bad('check must be a shell command, e.g. "npm test"')
    config.check = value.check
  }
  return config
}

function checkAgents(value: unknown, bad: (why: string) => Error): Record<string, AgentDefaults> {
  if (!isObject(value)) throw bad('agents must be an object by agent name, e.g. {"claude": {"permissionMode": "acceptEdits"}}')
  const agents: Record<string, AgentDefaults> = {}
  for (const [name, v] of Object.entries(value)) {
    if (!isObject(v)) throw bad(`agents.${name} must be an object, e.g. {"model": "…", "permissionMode": "…", "flags": ["…"]}`)
    for (const key of Object.keys(v)) if (!AGENT_KEYS.includes(key)) throw bad(`unknown key 'agents.${name}.${key}' (known: ${AGENT_KEYS.join(', ')})`)
    const defaults: AgentDefaults = {}
    for (const key of ['model', 'permissionMode'] as const) {
      if (v[key] === undefined) continue
      if (typeof v[key] !== 'string' || v[key].trim() === '') throw bad(`agents.${name}.${key} must be a non-empty string`)
      defaults[key] = v[key]
    }
    if (v.flags !== undefined) {
      if (!Array.isArray(v.flags) || !v.flags.every((f) => typeof f === 'string')) throw bad(`agents.${name}.flags must be an array of the agent's own arguments, e.g. ["--max-turns", "30"]`)
      // a value may be anything; what comes first must be a flag, or it would be taken for the prompt
      if (v.flags.length > 0 && !(v.flags[0] as string).startsWith('-')) throw bad(`agents.${name}.flags must start with a flag, not '${v.flags[0] as string}'`)
      defaults.flags = [...(v.flags as string[])]
    }
    agents[name] = defaults
  }
  return agents
}

