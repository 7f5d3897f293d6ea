// Agent profiles: how drover recognises an agent, whether a task's agent
// session can be continued, and the command line that continues it. The rule
// for a resume: every token of the original command is kept verbatim and in
// order except the prompt (and flags that pick a session); the new prompt goes
// after `--`, so no variadic flag can swallow it. Telling values from the
// prompt uses the agent's own grammar (agent-flags.ts).

import path from 'node:path'
import {classifyArgs, type FlagTable} from './flags.js'
import type {AgentProfileName, TaskRecord} from '../state/record.js'

export const DEFAULT_RESUME_PROMPT = 'Continue from where you left off.'

/** The program name decides, ignoring a directory and a Windows extension. */
export function detectProfile(command: string[]): AgentProfileName {
  const program = path.basename(command[0] ?? '').replace(/\.(exe|cmd|bat|ps1)$/i, '').toLowerCase()
  if (program === 'claude') return 'claude'
  if (program === 'codex') return 'codex'
  return 'generic'
}

// Flags that pick which claude session runs: the resume names its own.
const CLAUDE_SESSION_FLAGS = new Set(['--resume', '--session-id', '--continue', '--fork-session'])
// Flags under which the agent saves nothing to continue.
const NO_PERSISTENCE: Record<AgentProfileName, string | null> = {claude: '--no-session-persistence', codex: '--ephemeral', generic: null}

/** Where the agent's own arguments start: after a launcher (`node cli.js`, `npx pkg`) and, for codex, after `exec`. */
interface AgentArgs {
  /** the launcher's tokens after the program, and for codex everything up to `exec`. */
  head: string[]
  /** the agent's (or `exec`'s) arguments. */
  rest: string[]
}

function splitAgentArgs(record: TaskRecord): AgentArgs {
  const [program, ...args] = record.command
  if (record.agent === 'codex') {
    const execAt = args.indexOf('exec')
    return execAt === -1 ? {head: [], rest: args} : {head: args.slice(0, execAt), rest: args.slice(execAt + 1)}
  }
  // Started through a launcher with --agent claude: what precedes -p belongs to the launcher.
  const printAt = args.findIndex((a) => a === '-p' || a === '--print')
  const head = detectProfile([program]) === 'claude' || printAt === -1 ? [] : args.slice(0, printAt)
  return {head, rest: args.slice(head.length)}
}

/** The program to run for a later run: resolved at start, so the caller's PATH does not matter. */
export const programOf = (record: TaskRecord): string => record.executable ?? record.command[0]

/** The argv that prints the agent's options: what resume learns the grammar from. */
export function flagHelpArgv(record: TaskRecord): string[] {
  const {head} = splitAgentArgs(record)
  const program = programOf(record)
  return record.agent === 'codex' ? [program, ...head, 'exec', '--help'] : [program, ...head, '--help']
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
  if (record.agent === 'generic') return null
  const agent = record.agent
  if (record.shell !== null) {
    return `it runs ${agent} through --shell, whose script drover cannot rewrite to continue the session; \`drover start ${record.id}\` runs the script again`
  }
  const {rest} = splitAgentArgs(record)
  const separator = rest.indexOf('--')
  const flag = NO_PERSISTENCE[agent]
  if (flag && (separator === -1 ? rest : rest.slice(0, separator)).includes(flag)) {
    return `it ran with ${flag}, so ${agent} saved no session to continue; \`drover start ${record.id}\` runs it again from the start`
  }
  if (!sessionIdOf(record)) {
    const need = agent === 'claude' ? 'claude -p … --output-format stream-json --verbose' : 'codex exec --json …'
    return `${agent} reported no session id before the task ended (drover reads it from ${need}); \`drover start ${record.id}\` runs the original prompt again from the start`
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
  if (record.agent === 'generic' || !sessionId || !flags) return {command: [programOf(record), ...record.command.slice(1)]}
  const {head, rest} = splitAgentArgs(record)
  const tokens = classifyArgs(rest, flags)
  const keep = (drop: Set<string>) =>
    tokens.filter((t) => t.role !== 'positional' && t.role !== 'separator' && !(t.flag && drop.has(t.flag))).map((t) => t.text)
  const program = programOf(record)
  if (record.agent === 'claude') {
    const kept = keep(CLAUDE_SESSION_FLAGS)
    const print = tokens.some((t) => t.role === 'flag' && (t.flag === '--print' || t.text === '-p')) ? [] : ['-p']
    return {command: [program, ...head, ...print, ...kept, '--resume', sessionId, '--', prompt]}
  }
  // codex: `exec`'s flags stay before `resume` (where -C restores the directory);
  // the positionals dropped are the old prompt, or `resume <id>` of a run that was itself a resume.
  const kept = keep(new Set(['--last', '--all']))
  const json = kept.includes('--json') ? [] : ['--json']
  return {command: [program, ...head, 'exec', ...json, ...kept, 'resume', sessionId, '--', prompt]}
}
