// Whether a task's agent session can be continued, and the command line that
// continues it, from the task's record and the agent's profile
// (src/agents/<agent>.ts). The rule for a resume: every token of the original
// command is kept verbatim and in order except the prompt (and flags that pick
// a session). Telling values from the prompt uses the agent's own grammar
// (flags.ts), read from its --help.

import {classifyArgs, type FlagTable} from './flags.js'
import type {AgentArgs} from './profile.js'
import {detectProfile, profileOf} from './registry.js'
import type {TaskRecord} from '../state/record.js'

export {detectProfile}

export const DEFAULT_RESUME_PROMPT = 'Continue from where you left off.'

function splitAgentArgs(record: TaskRecord): AgentArgs {
  const [program, ...args] = record.command
  return profileOf(record.agent)?.splitArgs(args, program) ?? {head: [], rest: args}
}

/** The program to run for a later run: resolved at start, so the caller's PATH does not matter. */
export const programOf = (record: TaskRecord): string => record.executable ?? record.command[0]

/** The argv that prints the agent's options: what resume learns the grammar from. */
export function flagHelpArgv(record: TaskRecord): string[] {
  const {head} = splitAgentArgs(record)
  const profile = profileOf(record.agent)
  return [programOf(record), ...(profile ? profile.helpArgv(head) : [...head, '--help'])]
}

export function sessionIdOf(record: TaskRecord): string | null {
  return record.agentInfo?.sessionId ?? record.checkpoint?.sessionId ?? null
}

/**
 * Why the task's agent session cannot be continued, or null when it can. Only
 * what the record says: no process is run, so drain, status and list can ask.
 * A generic task is always resumable (it runs again with DROVER_RESUME=1).
 */
export function sessionRefusal(record: TaskRecord): string | null {
  const profile = profileOf(record.agent)
  if (!profile) return null
  const agent = profile.name
  if (record.shell !== null) {
    return `it runs ${agent} through --shell, whose script drover cannot rewrite to continue the session; \`drover start ${record.id}\` runs the script again`
  }
  const {rest} = splitAgentArgs(record)
  const separator = rest.indexOf('--')
  const before = separator === -1 ? rest : rest.slice(0, separator)
  const flag = profile.noPersistenceFlags.find((f) => before.includes(f))
  if (flag) {
    return `it ran with ${flag}, so ${agent} saved no session to continue; \`drover start ${record.id}\` runs it again from the start`
  }
  if (!sessionIdOf(record)) {
    return `${agent} reported no session id before the task ended (drover reads it from ${profile.headless}); \`drover start ${record.id}\` runs the original prompt again from the start`
  }
  return null
}

export interface ResumePlan {
  command: string[]
}

/**
 * The command that continues the task's conversation (call sessionRefusal
 * first). `flags` is the installed agent's grammar; for a generic task it is
 * not needed and the same command runs again.
 */
export function resumeCommand(record: TaskRecord, prompt: string, flags: FlagTable | null): ResumePlan {
  const sessionId = sessionIdOf(record)
  const profile = profileOf(record.agent)
  if (!profile || !sessionId || !flags) return {command: [programOf(record), ...record.command.slice(1)]}
  const {head, rest} = splitAgentArgs(record)
  const tokens = classifyArgs(rest, flags)
  return {command: profile.resumeArgv({program: programOf(record), head, tokens, sessionId, prompt, cwd: record.cwd})}
}

/**
 * The agent's interactive mode on the task's session, for a person at a
 * terminal (`drover attach`), or null when there is no session to open (call
 * sessionRefusal first). `flags`: the installed agent's grammar, which tells
 * the flags carried over from their values.
 */
export function interactiveCommand(record: TaskRecord, flags: FlagTable): string[] | null {
  const sessionId = sessionIdOf(record)
  const profile = profileOf(record.agent)
  if (!profile || !sessionId) return null
  const {head, rest} = splitAgentArgs(record)
  return profile.interactiveArgv({program: programOf(record), head, tokens: classifyArgs(rest, flags), sessionId, cwd: record.cwd})
}
