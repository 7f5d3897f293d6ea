// What the completion scripts know of the command line, taken from oclif's own
// description of the commands (so a new flag completes without a change here):
// each command's flags, which of them take a value, and where it takes TASK.

import type {Command} from '@oclif/core/command'
import {AGENT_NAMES} from '../../api/values.js'

export interface FlagSpec {
  /** `--name`, and `--no-name` for a flag that allows it */
  long: string[]
  /** `-x` or null */
  short: string | null
  takesValue: boolean
  /** the fixed values of a flag that has them (start --agent) */
  options: string[]
  /** its value is a task (start --after) */
  task: boolean
  description: string
}

/** Where a command takes TASK: nowhere, as its first argument, as every argument, or after `move`. */
export type TaskPosition = 'none' | 'first' | 'all' | 'move'

export interface CommandSpec {
  id: string
  summary: string
  flags: FlagSpec[]
  task: TaskPosition
  /** fixed values of the first argument (completion's SHELL) */
  firstArgOptions: string[]
}

// Values a flag takes that oclif is not told of: start's --agent takes a fan-out too
// (claude:2,codex), so it checks the names itself, and they complete from here.
const VALUES: Record<string, readonly string[]> = {agent: AGENT_NAMES}

// Flags whose value is a task: start's dependencies.
const TASK_FLAGS = new Set(['after', 'after-ended'])
// `queue move TASK`: the one command that takes TASK after a verb.
const MOVE_COMMANDS = new Set(['queue'])

/** Global flags: typed before the command word too (src/cli/argv.ts moves them behind it). */
export const GLOBAL_SWITCHES = ['--json', '--color', '--no-color']
export const GLOBAL_WITH_VALUE = ['--state-dir']

type Loadable = Pick<Command.Loadable, 'id' | 'hidden' | 'summary' | 'description' | 'flags' | 'args' | 'strict' | 'aliases'>

export function commandSpecs(commands: readonly Loadable[]): CommandSpec[] {
  return commands
    .filter((c) => !c.hidden)
    .map((c) => ({
      id: c.id,
      summary: oneLine(c.summary ?? c.description ?? ''),
      flags: Object.entries(c.flags ?? {})
        .filter(([, f]) => !f.hidden)
        .map(([name, f]) => ({
          long: [`--${name}`, ...(f.type === 'boolean' && f.allowNo ? [`--no-${name}`] : [])],
          short: f.char ? `-${f.char}` : null,
          takesValue: f.type === 'option',
          options: f.type === 'option' ? [...(f.options ?? VALUES[name] ?? [])] : [],
          task: TASK_FLAGS.has(name),
          description: oneLine(f.summary ?? f.description ?? ''),
        })),
      task: taskPosition(c),
      firstArgOptions: [...(Object.values(c.args ?? {})[0]?.options ?? [])],
    }))
    .sort((a, b) => a.id.localeCompare(b.id))
}

function taskPosition(c: Loadable): TaskPosition {
  if (MOVE_COMMANDS.has(c.id)) return 'move'
  if (!Object.hasOwn(c.args ?? {}, 'task')) return 'none'
  return c.strict === false ? 'all' : 'first'
}

// Descriptions go into scripts in four languages: one line, and short.
function oneLine(text: string): string {
  const first = text.split('\n')[0].replace(/\s+/g, ' ').trim()
  return first.length > 80 ? `${first.slice(0, 79)}…` : first
}

/** Every word a script embeds must be one it can embed unquoted (commands, flags, fixed values). */
export function isPlainWord(word: string): boolean {
  return /^[A-Za-z0-9._:,+=\/-]+$/.test(word)
}
