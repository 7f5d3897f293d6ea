// Agent profiles: how drover recognises an agent, what it reads from the
// agent's own output stream (session id, turns, cost), and how it continues
// the agent's conversation on resume. Node builtins only: the runner uses it.

import path from 'node:path'
import type {AgentInfo, AgentProfileName, TaskRecord} from './record.js'

export const DEFAULT_RESUME_PROMPT = 'Continue from where you left off.'

/** The program name decides, ignoring a directory and a Windows extension. */
export function detectProfile(command: string[]): AgentProfileName {
  const program = path.basename(command[0] ?? '').replace(/\.(exe|cmd|bat|ps1)$/i, '').toLowerCase()
  if (program === 'claude') return 'claude'
  if (program === 'codex') return 'codex'
  return 'generic'
}

export const emptyAgentInfo = (): AgentInfo => ({
  sessionId: null,
  turns: 0,
  lastEvent: null,
  costUsd: null,
  inputTokens: null,
  outputTokens: null,
})

const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null)

/**
 * Folds one line of agent output into what we know. Lines that are not JSON
 * objects (progress text, stderr mixed into the log) are ignored, so a noisy
 * agent can never break the runner. Returns null when nothing changed.
 */
export function readAgentLine(profile: AgentProfileName, line: string, info: AgentInfo): AgentInfo | null {
  if (profile === 'generic' || line.charCodeAt(0) !== 123 /* { */) return null
  let event: Record<string, unknown>
  try {
    const parsed = JSON.parse(line) as unknown
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return null
    event = parsed as Record<string, unknown>
  } catch {
    return null
  }
  const type = typeof event.type === 'string' ? event.type : null
  if (!type) return null
  return profile === 'claude' ? readClaudeEvent(type, event, info) : readCodexEvent(type, event, info)
}

// claude -p --output-format stream-json --verbose: system/init first, then
// assistant/user messages, and a final result with cost, turns and usage.
// Every event carries session_id; the latest one wins (a resume may fork).
function readClaudeEvent(type: string, event: Record<string, unknown>, info: AgentInfo): AgentInfo {
  const next: AgentInfo = {...info}
  const subtype = typeof event.subtype === 'string' ? event.subtype : null
  next.lastEvent = subtype ? `${type}/${subtype}` : type
  if (typeof event.session_id === 'string' && event.session_id) next.sessionId = event.session_id
  if (type === 'assistant') next.turns = info.turns + 1
  if (type === 'result') {
    next.costUsd = num(event.total_cost_usd) ?? num(event.cost_usd) ?? info.costUsd
    next.turns = num(event.num_turns) ?? next.turns
    const usage = event.usage as Record<string, unknown> | undefined
    if (usage) {
      next.inputTokens = num(usage.input_tokens) ?? info.inputTokens
      next.outputTokens = num(usage.output_tokens) ?? info.outputTokens
    }
  }
  return next
}

// codex exec --json: thread.started carries the thread id; each turn ends with
// turn.completed and its token usage, which we add up.
function readCodexEvent(type: string, event: Record<string, unknown>, info: AgentInfo): AgentInfo {
  const next: AgentInfo = {...info, lastEvent: type}
  if (type === 'thread.started' && typeof event.thread_id === 'string') next.sessionId = event.thread_id
  if (type === 'turn.completed') {
    next.turns = info.turns + 1
    const usage = event.usage as Record<string, unknown> | undefined
    if (usage) {
      const input = num(usage.input_tokens)
      const output = num(usage.output_tokens)
      if (input !== null) next.inputTokens = (info.inputTokens ?? 0) + input
      if (output !== null) next.outputTokens = (info.outputTokens ?? 0) + output
    }
  }
  return next
}

// Flags of `claude` that take a value: needed to tell a flag's value from the
// prompt when the original command is rebuilt for a resume.
const CLAUDE_VALUE_FLAGS = new Set([
  '--output-format', '--input-format', '--model', '--fallback-model', '--permission-mode',
  '--allowedTools', '--allowed-tools', '--disallowedTools', '--disallowed-tools', '--tools',
  '--append-system-prompt', '--system-prompt', '--system-prompt-file', '--max-turns', '--mcp-config',
  '--add-dir', '--settings', '--setting-sources', '--agents', '--agent', '--permission-prompt-tool',
  '--max-budget-usd', '--json-schema', '--betas', '--plugin-dir',
])
// Flags that pick the session: dropped, the resume names it instead.
const CLAUDE_SESSION_FLAGS = new Set(['--resume', '-r', '--session-id'])
const CLAUDE_SESSION_SWITCHES = new Set(['--continue', '-c', '--fork-session'])

const CODEX_VALUE_FLAGS = new Set(['-m', '--model', '-c', '--config', '-s', '--sandbox', '-p', '--profile',
  '-i', '--image', '--output-schema', '--color', '-o', '--output-last-message', '--enable', '--disable'])
// `codex exec resume` runs in the original cwd and does not take -C/--cd.
const CODEX_DROPPED_VALUE_FLAGS = new Set(['-C', '--cd', '--add-dir'])

/** Splits argv into the flags to keep (with their values) and drops positionals (the prompt). */
function keepFlags(args: string[], valueFlags: Set<string>, droppedValueFlags: Set<string>, droppedSwitches: Set<string>): string[] {
  const kept: string[] = []
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]
    const bare = arg.includes('=') ? arg.slice(0, arg.indexOf('=')) : arg
    if (droppedValueFlags.has(bare)) {
      if (!arg.includes('=')) i++
      continue
    }
    if (droppedSwitches.has(arg)) continue
    if (valueFlags.has(bare)) {
      kept.push(arg)
      if (!arg.includes('=') && i + 1 < args.length) kept.push(args[++i])
      continue
    }
    if (arg.startsWith('-')) kept.push(arg)
    // anything else is a positional: the original prompt, replaced on resume
  }
  return kept
}

export interface ResumePlan {
  command: string[]
  env: Record<string, string>
}

export class ResumeRefused extends Error {}

/** The command that continues a task's conversation, or why it cannot be continued. */
export function resumeCommand(record: TaskRecord, prompt: string): ResumePlan {
  const sessionId = record.checkpoint?.sessionId ?? record.agentInfo?.sessionId ?? null
  const [program, ...args] = record.command
  switch (record.agent) {
    case 'claude': {
      if (!sessionId) throw new ResumeRefused('no claude session id was recorded (was it run with --output-format stream-json --verbose?)')
      // Started through a launcher with --agent claude (`node cli.js -p …`,
      // `npx pkg -p …`): what precedes -p belongs to the launcher and stays.
      const printAt = Math.max(args.lastIndexOf('-p'), args.lastIndexOf('--print'))
      const launcher = detectProfile([program]) === 'claude' || printAt === -1 ? [] : args.slice(0, printAt)
      const flags = keepFlags(args.slice(launcher.length), CLAUDE_VALUE_FLAGS, CLAUDE_SESSION_FLAGS, CLAUDE_SESSION_SWITCHES)
      const withPrint = flags.includes('-p') || flags.includes('--print') ? flags : ['-p', ...flags]
      return {command: [program, ...launcher, ...withPrint, '--resume', sessionId, prompt], env: {}}
    }
    case 'codex': {
      if (!sessionId) throw new ResumeRefused('no codex thread id was recorded (was it run with exec --json?)')
      const execAt = args.indexOf('exec')
      // What precedes `exec` stays: codex's global flags, or a launcher
      // (`node codex.js`, `npx @openai/codex`) when started with --agent codex.
      const head = execAt === -1 ? [] : args.slice(0, execAt)
      const rest = execAt === -1 ? args : args.slice(execAt + 1)
      const flags = keepFlags(rest, CODEX_VALUE_FLAGS, CODEX_DROPPED_VALUE_FLAGS, new Set(['resume', '--last']))
      const withJson = flags.includes('--json') ? flags : ['--json', ...flags]
      return {command: [program, ...head, 'exec', ...withJson, 'resume', sessionId, prompt], env: {}}
    }
    default:
      return {command: record.command, env: {DROVER_RESUME: '1'}}
  }
}
