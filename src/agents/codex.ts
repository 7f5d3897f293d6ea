// OpenAI Codex CLI (`codex exec --json`): everything drover knows about it.
// Measured with the real binary offline: `thread.started` names the thread
// (again on a resume), `turn.completed` usage is the thread's total so far,
// `-C DIR` before `resume` restores DIR, tools run inside bwrap.

import path from 'node:path'
import {clip, list, minus, num, obj, oneLine, iso, str} from './json.js'
import {carriedTokens, flagModes, keptTokens, positionalMisread} from './argv.js'
import {resetFromText} from './limits.js'
import type {AgentProfile, FoldState} from './profile.js'
import {shortArgs, type TranscriptItem} from './transcript-items.js'

const text = (v: unknown): string | null => (typeof v === 'string' ? v : null)

// items that are the model talking or thinking, not a tool at work.
const NON_TOOL_ITEMS = new Set(['agent_message', 'reasoning', 'todo_list', 'error'])

// "You've hit your usage limit. … try again at 2:51 PM.", the API's
// usage_limit_reached with resets_at / resets_in_seconds, "exceeded retry
// limit, last status: 429 Too Many Requests".
const LIMIT = /usage limit|usage_limit_reached|rate limit|rate_limit|429 Too Many Requests|quota/i

function fold(state: FoldState, type: string, event: Record<string, unknown>): void {
  const info = state.info
  info.lastEvent = type
  if (type === 'thread.started') info.sessionId = str(event.thread_id) ?? info.sessionId
  const item = obj(event.item)
  const itemId = item ? str(item.id) : null
  if (type === 'item.started' && item && itemId && !NON_TOOL_ITEMS.has(String(item.type))) state.tools.add(itemId)
  if (type === 'item.completed' && itemId) state.tools.delete(itemId)
  if (type === 'turn.completed' || type === 'turn.failed') state.tools.clear()
  if (type === 'turn.completed') {
    info.turns += 1
    // the thread's totals so far: this run's is the difference
    const usage = obj(event.usage)
    if (usage) {
      info.inputTokens = minus(num(usage.input_tokens), state.base?.inputTokens ?? null) ?? info.inputTokens
      info.outputTokens = minus(num(usage.output_tokens), state.base?.outputTokens ?? null) ?? info.outputTokens
    }
  }
  if (type === 'turn.failed') info.error = clip(str(obj(event.error)?.message) ?? 'the turn failed')
  if (type === 'error') info.error = clip(str(event.message) ?? 'error')
}

function usageLimit(type: string, event: Record<string, unknown>, now: number) {
  if (type !== 'error' && type !== 'turn.failed') return null
  const said = type === 'error' ? (str(event.message) ?? '') : (str(obj(event.error)?.message) ?? '')
  if (!LIMIT.test(said)) return null
  return {message: oneLine(said), resetAt: iso(resetFromText(said, now))}
}

function completed(item: Record<string, unknown>, itemType: string | null): TranscriptItem[] {
  switch (itemType) {
    case 'agent_message':
      return text(item.text) ? [{kind: 'text', text: item.text as string}] : []
    case 'reasoning':
      return text(item.text) ? [{kind: 'thinking', text: item.text as string}] : []
    case 'command_execution': {
      const code = num(item.exit_code)
      const failed = item.status === 'failed' || item.status === 'declined' || (code !== null && code !== 0)
      const output = text(item.aggregated_output) ?? ''
      return [{kind: 'result', text: code !== null && code !== 0 ? `${output}${output.endsWith('\n') || output === '' ? '' : '\n'}exit ${code}` : output, isError: failed}]
    }
    case 'file_change': {
      const changes = list(item.changes).map(obj).map((c) => `${text(c?.kind) ?? 'change'} ${text(c?.path) ?? '?'}`)
      return [{kind: 'tool', name: 'edit', args: changes.join(', ')}]
    }
    case 'mcp_tool_call': {
      const error = text(obj(item.error)?.message)
      return [{kind: 'result', text: error ?? JSON.stringify(item.result ?? ''), isError: error !== null || item.status === 'failed'}]
    }
    case 'todo_list': {
      const items = list(item.items).map(obj).map((t) => `${t?.completed ? '[x]' : '[ ]'} ${text(t?.text) ?? ''}`)
      return [{kind: 'text', text: items.join('\n')}]
    }
    case 'error':
      return [{kind: 'error', text: text(item.message) ?? 'error'}]
    default:
      return []
  }
}

function transcript(type: string, event: Record<string, unknown>): TranscriptItem[] {
  const item = obj(event.item)
  const itemType = text(item?.type)
  switch (type) {
    case 'thread.started':
      return [{kind: 'session', text: `thread ${text(event.thread_id) ?? '?'}`}]
    case 'item.started':
      if (itemType === 'command_execution') return [{kind: 'tool', name: 'shell', args: shortArgs({command: item!.command})}]
      if (itemType === 'mcp_tool_call') return [{kind: 'tool', name: `${text(item!.server) ?? 'mcp'}.${text(item!.tool) ?? '?'}`, args: shortArgs(item!.arguments)}]
      if (itemType === 'web_search') return [{kind: 'tool', name: 'web_search', args: shortArgs({query: item!.query})}]
      return []
    case 'item.completed':
      return item ? completed(item, itemType) : []
    case 'turn.completed': {
      const usage = obj(event.usage)
      const tokens = usage ? (num(usage.input_tokens) ?? 0) + (num(usage.output_tokens) ?? 0) : null
      return [{kind: 'final', ok: true, text: 'turn completed', costUsd: null, turns: null, tokens, durationMs: null}]
    }
    case 'turn.failed':
      return [{kind: 'error', text: text(obj(event.error)?.message) ?? 'the turn failed'}]
    case 'error':
      return [{kind: 'error', text: text(event.message) ?? 'error'}]
    default:
      return []
  }
}

export const codex: AgentProfile = {
  name: 'codex',
  title: 'OpenAI Codex CLI',
  npmPackage: '@openai/codex',
  testedVersion: '0.171.0',
  binaries: ['codex'],
  versionArgv: ['--version'],
  helpArgv: (head) => [...head, 'exec', '--help'],
  headless: 'codex exec --json …',
  start: {
    // the prompt right after --json: -i/--image takes several values and would swallow a prompt after it
    argv: (prompt, after) => (positionalMisread(prompt) ? ['exec', '--json', ...after, '--', prompt] : ['exec', '--json', prompt, ...after]),
    modelFlags: ['--model', '-m'],
    // exec never asks for approval; what its commands may do is the sandbox (--sandbox's values in 0.171.0's exec --help)
    permissionModes: flagModes('--sandbox', ['read-only', 'workspace-write', 'danger-full-access']),
    defaultPermissionMode: null,
    permissionFlags: ['--sandbox', '-s', '--dangerously-bypass-approvals-and-sandbox', '--approve-for-me'],
  },
  apiKeyEnv: ['OPENAI_API_KEY', 'CODEX_API_KEY'],
  sessionStore: {
    path: (home) => path.join(process.env.CODEX_HOME || path.join(home, '.codex'), 'sessions'),
    describe: '$CODEX_HOME/sessions (default ~/.codex/sessions)/YYYY/MM/DD/rollout-…-<thread>.jsonl',
  },
  sessionSource: 'stream',
  sessionFlags: ['--last', '--all'],
  noPersistenceFlags: ['--ephemeral'],
  cwdRule: 'dir-flag',
  // `exec`'s flags stay before `resume` (where -C restores the directory).
  splitArgs(args) {
    const execAt = args.indexOf('exec')
    return execAt === -1 ? {head: [], rest: args} : {head: args.slice(0, execAt), rest: args.slice(execAt + 1)}
  },
  // The positionals dropped are the old prompt, or `resume <id>` of a run that was itself a resume.
  resumeArgv({program, head, tokens, sessionId, prompt}) {
    const kept = keptTokens(tokens, codex.sessionFlags)
    const json = kept.includes('--json') ? [] : ['--json']
    return [program, ...head, 'exec', ...json, ...kept, 'resume', sessionId, '--', prompt]
  },
  interactive: 'codex resume --no-daemon <session id>',
  // `exec` becomes `resume`, the TUI's own: what shapes the session (model, sandbox, directories, config) goes with it.
  // --no-daemon: the session runs in this process, not through codex's shared background server, whose start
  // hangs at "Resuming session…" where it cannot reach its service (offline, behind a proxy), and which may
  // hold the thread a drained run wrote; the thread is read from its files either way.
  interactiveArgv: ({program, head, tokens, sessionId}) => [
    program,
    ...head,
    'resume',
    '--no-daemon',
    ...carriedTokens(tokens, ['--model', '--sandbox', '--cd', '--add-dir', '--config', '--profile', '--dangerously-bypass-approvals-and-sandbox', '--oss', '--local-provider', '--enable', '--disable']),
    sessionId,
  ],
  fold,
  // after its turn's end the real codex exits
  runEnding: (lastEvent) => lastEvent === 'turn.completed' || lastEvent === 'turn.failed',
  reportedSuccess: (info) => info.lastEvent === 'turn.completed' && !info.error,
  exitZeroWithoutResult: 'success',
  usageLimit,
  reports: {turns: true, tokens: true, cost: false},
  drain: 'safe-point',
  leftovers: 'its tools run inside bwrap (own pid namespace, --die-with-parent); its launcher re-raises SIGTERM; it keeps /tmp/codex-daemon-<uid> whatever TMPDIR says',
  transcript,
}
