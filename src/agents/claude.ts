// Claude Code (`claude -p`): everything drover knows about it. Measured with
// the real binary offline (test/real-agents/): stream-json events, one
// `assistant` event per content block of a message, `result.total_cost_usd`
// as the session's running total, resume with `--resume ID` from the session's
// cwd, a PreToolUse hook (added by hooks.ts) to end its turn on a drain.

import path from 'node:path'
import {clip, iso, list, num, obj, oneLine, str} from './json.js'
import {carriedTokens, flagModes, keptTokens, positionalMisread} from './argv.js'
import {resetFromText} from './limits.js'
import type {AgentProfile, FoldState} from './profile.js'
import {shortArgs, type TranscriptItem} from './transcript-items.js'
import {localTimeWithOffset} from '../base/local-time.js'

const text = (v: unknown): string | null => (typeof v === 'string' ? v : null)

// "Claude AI usage limit reached|1755615600" (older), "You've hit your limit ·
// resets 2pm (Asia/Shanghai)", "You've hit your session limit · resets 3:50pm
// (Asia/Tokyo)", "Claude usage limit reached. Your limit will reset at 5pm
// (Europe/Warsaw)."; API errors 429 rate_limit_error, 529 overloaded_error.
const LIMIT = /usage limit reached|hit your (?:\w+ )?limit|rate_limit_error|overloaded_error|\b429\b|\b529\b|rate limit/i

/** Where a command started through a launcher (`node cli.js -p …`) has claude's own arguments: from -p. */
export function splitAtPrint(args: string[], program: string, binaries: string[]): {head: string[]; rest: string[]} {
  const name = path.basename(program).replace(/\.(exe|cmd|bat|ps1)$/i, '').toLowerCase()
  const printAt = args.findIndex((a) => a === '-p' || a === '--print')
  const head = binaries.includes(name) || printAt === -1 ? [] : args.slice(0, printAt)
  return {head, rest: args.slice(head.length)}
}

function fold(state: FoldState, type: string, event: Record<string, unknown>): void {
  const info = state.info
  const subtype = str(event.subtype)
  info.lastEvent = subtype ? `${type}/${subtype}` : type
  // Every event has session_id; the latest wins (a resume may fork the session).
  info.sessionId = str(event.session_id) ?? info.sessionId
  const message = obj(event.message)
  const blocks = list(message?.content).map(obj)
  if (type === 'assistant' && message) {
    const id = str(message.id)
    if (id === null || id !== state.scratch.messageId) {
      state.scratch.messageId = id
      state.scratch.messageTokens = [0, 0]
      info.turns += 1
    }
    // Every block of a message repeats the message's usage so far: count the growth only.
    const usage = obj(message.usage)
    if (usage) {
      const seen = (state.scratch.messageTokens as [number, number] | undefined) ?? [0, 0]
      const tokens: [number, number] = [num(usage.input_tokens) ?? 0, num(usage.output_tokens) ?? 0]
      info.inputTokens = (info.inputTokens ?? 0) + Math.max(0, tokens[0] - seen[0])
      info.outputTokens = (info.outputTokens ?? 0) + Math.max(0, tokens[1] - seen[1])
      state.scratch.messageTokens = [Math.max(tokens[0], seen[0]), Math.max(tokens[1], seen[1])]
    }
    for (const block of blocks) if (block?.type === 'tool_use' && str(block.id)) state.tools.add(block.id as string)
  }
  if (type === 'user') {
    for (const block of blocks) if (block?.type === 'tool_result' && str(block.tool_use_id)) state.tools.delete(block.tool_use_id as string)
  }
  if (type === 'result') {
    state.tools.clear()
    // usage is this run's; total_cost_usd is the whole session's, across resumes.
    const usage = obj(event.usage)
    if (usage) {
      info.inputTokens = num(usage.input_tokens) ?? info.inputTokens
      info.outputTokens = num(usage.output_tokens) ?? info.outputTokens
    }
    const sessionCost = num(event.total_cost_usd) ?? num(event.cost_usd)
    if (sessionCost !== null) {
      info.costUsd = state.base?.costUsd == null ? sessionCost : Math.max(0, sessionCost - state.base.costUsd)
      state.sessionCost = sessionCost
    }
    if (event.is_error === true || (subtype !== null && subtype !== 'success')) info.error = resultError(event, subtype)
  }
}

/** The error a claude-shaped `result` event reports (qwen's too). */
export function resultError(event: Record<string, unknown>, subtype: string | null): string {
  const errors = list(event.errors).filter((e): e is string => typeof e === 'string')
  return clip(str(event.result) ?? (errors.length > 0 ? errors.join('; ') : null) ?? subtype ?? 'error')
}

function usageLimit(type: string, event: Record<string, unknown>, now: number) {
  if (type === 'rate_limit_event') {
    const info = obj(event.rate_limit_info)
    if (info?.status !== 'rejected') return null
    const resets = typeof info.resetsAt === 'number' ? info.resetsAt * 1000 : null
    return {message: `${str(info.rateLimitType) ?? 'usage'} limit reached`, resetAt: iso(resets)}
  }
  if (type !== 'result' || (event.is_error !== true && str(event.subtype) === 'success')) return null
  const errors = list(event.errors).map((e) => (typeof e === 'string' ? e : JSON.stringify(e))).join('; ')
  const said = `${str(event.result) ?? ''} ${errors}`.trim()
  // claude 2.1 also says it in fields: api_error_status 429 (529 overloaded), api_error_type rate_limit_error.
  const structured = event.api_error_status === 429 || event.api_error_status === 529 || /rate_limit|overloaded/.test(str(event.api_error_type) ?? '')
  if (!structured && !LIMIT.test(said)) return null
  return {message: oneLine(said.replace(/\|\d{9,}\b/, '')), resetAt: iso(resetFromText(said, now))}
}

function resultText(content: unknown): string {
  if (typeof content === 'string') return content
  if (!Array.isArray(content)) return content === undefined ? '' : JSON.stringify(content)
  return content
    .map((part) => {
      const p = obj(part)
      return p?.type === 'text' ? (text(p.text) ?? '') : p?.type === 'image' ? '[image]' : ''
    })
    .join('\n')
}

/** The transcript of claude-shaped stream-json (qwen's is the same shape). */
export function claudeShapedItems(type: string, event: Record<string, unknown>): TranscriptItem[] {
  const subtype = text(event.subtype)
  const blocks = list(obj(event.message)?.content).map(obj)
  switch (type) {
    case 'system':
      if (subtype === 'init') {
        const facts = [text(event.model) && `model ${event.model}`, text(event.cwd) && `cwd ${event.cwd}`].filter(Boolean)
        return [{kind: 'session', text: `session ${text(event.session_id) ?? '?'}${facts.length > 0 ? ` (${facts.join(', ')})` : ''}`}]
      }
      return []
    case 'assistant':
      return blocks.flatMap((b): TranscriptItem[] => {
        if (b?.type === 'text' && text(b.text)) return [{kind: 'text', text: b.text as string}]
        if (b?.type === 'thinking' && text(b.thinking)) return [{kind: 'thinking', text: b.thinking as string}]
        if (b?.type === 'tool_use') return [{kind: 'tool', name: text(b.name) ?? '?', args: shortArgs(b.input)}]
        return []
      })
    case 'user':
      return blocks.flatMap((b): TranscriptItem[] => (b?.type === 'tool_result' ? [{kind: 'result', text: resultText(b.content), isError: b.is_error === true}] : []))
    case 'rate_limit_event': {
      const info = obj(event.rate_limit_info)
      if (info?.status !== 'rejected') return []
      const resets = num(info.resetsAt)
      return [{kind: 'error', text: `${text(info.rateLimitType) ?? 'usage'} limit reached${resets !== null ? `; resets ${localTimeWithOffset(new Date(resets * 1000))}` : ''}`}]
    }
    case 'result': {
      const ok = event.is_error !== true && (subtype === null || subtype === 'success')
      const errors = list(event.errors).filter((e): e is string => typeof e === 'string').join('; ')
      const usage = obj(event.usage)
      const tokens = usage ? (num(usage.input_tokens) ?? 0) + (num(usage.output_tokens) ?? 0) : null
      return [
        {
          kind: 'final',
          ok,
          text: text(event.result) ?? (errors || (subtype ?? '')),
          costUsd: num(event.total_cost_usd),
          turns: num(event.num_turns),
          tokens,
          durationMs: num(event.duration_ms),
        },
      ]
    }
    default:
      return []
  }
}

const BINARIES = ['claude']
const CLAUDE_CARRIED = [
  '--model',
  '--permission-mode',
  '--dangerously-skip-permissions',
  '--allowedTools',
  '--allowed-tools',
  '--disallowedTools',
  '--disallowed-tools',
  '--tools',
  '--add-dir',
  '--settings',
  '--setting-sources',
  '--mcp-config',
  '--strict-mcp-config',
  '--append-system-prompt',
  '--system-prompt',
  '--effort',
  '--agent',
  '--agents',
  '--plugin-dir',
]

export const claude: AgentProfile = {
  name: 'claude',
  title: 'Claude Code',
  npmPackage: '@anthropic-ai/claude-code',
  testedVersion: '2.1.332',
  binaries: BINARIES,
  versionArgv: ['--version'],
  helpArgv: (head) => [...head, '--help'],
  headless: 'claude -p … --output-format stream-json --verbose',
  start: {
    // stream-json needs --verbose in print mode; the prompt is -p's positional, so a misread one goes after `--`
    argv: (prompt, after) =>
      positionalMisread(prompt)
        ? ['-p', '--output-format', 'stream-json', '--verbose', ...after, '--', prompt]
        : ['-p', prompt, '--output-format', 'stream-json', '--verbose', ...after],
    modelFlags: ['--model'],
    // --permission-mode's choices in 2.1.332's --help
    permissionModes: flagModes('--permission-mode', ['acceptEdits', 'auto', 'bypassPermissions', 'manual', 'dontAsk', 'plan']),
    defaultPermissionMode: null,
    permissionFlags: ['--permission-mode', '--dangerously-skip-permissions'],
  },
  apiKeyEnv: ['ANTHROPIC_API_KEY', 'ANTHROPIC_AUTH_TOKEN', 'CLAUDE_CODE_OAUTH_TOKEN'],
  sessionStore: {
    // ~/.claude/projects/<cwd, every non-alphanumeric as ->/<session>.jsonl
    path: (home, cwd) => path.join(home, '.claude', 'projects', cwd.replace(/[^A-Za-z0-9]/g, '-')),
    describe: '~/.claude/projects/<cwd with every non-alphanumeric as ->/<session>.jsonl',
  },
  sessionSource: 'stream',
  sessionFlags: ['--resume', '--session-id', '--continue', '--fork-session'],
  noPersistenceFlags: ['--no-session-persistence'],
  cwdRule: 'same-cwd',
  splitArgs: (args, program) => splitAtPrint(args, program, BINARIES),
  resumeArgv({program, head, tokens, sessionId, prompt}) {
    const kept = keptTokens(tokens, claude.sessionFlags)
    const print = tokens.some((t) => t.role === 'flag' && (t.flag === '--print' || t.text === '-p')) ? [] : ['-p']
    return [program, ...head, ...print, ...kept, '--resume', sessionId, '--', prompt]
  },
  interactive: 'claude --resume <session id>',
  // Print-mode flags (output format, max turns, budget) have no place in a terminal session.
  interactiveArgv: ({program, head, tokens, sessionId}) => [program, ...head, ...carriedTokens(tokens, CLAUDE_CARRIED), '--resume', sessionId],
  fold,
  runEnding: (lastEvent) => lastEvent !== null && lastEvent.startsWith('result'),
  reportedSuccess: (info) => info.lastEvent === 'result/success' && !info.error,
  exitZeroWithoutResult: 'success',
  usageLimit,
  reports: {turns: true, tokens: true, cost: true},
  drain: 'hook',
  leftovers: 'its Bash tool starts commands in a new session (setsid): drover finds them by its task mark and stops them with the tree',
  transcript: claudeShapedItems,
}
