// What an agent's event stream says, as a person reads it: the assistant's
// text, each tool call with its arguments in short, the tool's result, errors,
// and the run's final result with cost and turns. One line of claude
// stream-json or codex JSONL in, zero or more items out; rendering is the
// front-end's. Lines that are not the agent's events come back as `plain`.

import type {AgentProfileName} from '../state/record.js'
import {excerpt} from './excerpt.js'

export type TranscriptItem =
  /** session start: the session or thread id, and what else the agent says about itself. */
  | {kind: 'session'; text: string}
  | {kind: 'text'; text: string}
  /** the model's reasoning, when the agent shows it. */
  | {kind: 'thinking'; text: string}
  | {kind: 'tool'; name: string; args: string}
  | {kind: 'result'; text: string; isError: boolean}
  | {kind: 'error'; text: string}
  /** the end of a run (claude's result) or of a turn (codex): cost, turns, tokens, time. */
  | {kind: 'final'; ok: boolean; text: string; costUsd: number | null; turns: number | null; tokens: number | null; durationMs: number | null}
  /** a line that is no event of the agent: its stderr, drover's separators. */
  | {kind: 'plain'; text: string}

const obj = (v: unknown): Record<string, unknown> | null => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : null)
const str = (v: unknown): string | null => (typeof v === 'string' ? v : null)
const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null)

/** A tool's input in one short line: the one argument that says what it does, else compact JSON. */
export function shortArgs(input: unknown, max = 120): string {
  const o = obj(input)
  const telling = o && (str(o.command) ?? str(o.file_path) ?? str(o.path) ?? str(o.pattern) ?? str(o.url) ?? str(o.query) ?? str(o.description))
  const text = telling ?? (input === undefined ? '' : JSON.stringify(input))
  const line = text.replace(/\s+/g, ' ').trim()
  return line.length > max ? `${line.slice(0, max - 1)}…` : line
}

function claudeResultText(content: unknown): string {
  if (typeof content === 'string') return content
  if (!Array.isArray(content)) return content === undefined ? '' : JSON.stringify(content)
  return content
    .map((part) => {
      const p = obj(part)
      return p?.type === 'text' ? (str(p.text) ?? '') : p?.type === 'image' ? '[image]' : ''
    })
    .join('\n')
}

function claudeItems(type: string, event: Record<string, unknown>): TranscriptItem[] {
  const subtype = str(event.subtype)
  const blocks = (Array.isArray(obj(event.message)?.content) ? (obj(event.message)!.content as unknown[]) : []).map(obj)
  switch (type) {
    case 'system':
      if (subtype === 'init') {
        const facts = [str(event.model) && `model ${event.model}`, str(event.cwd) && `cwd ${event.cwd}`].filter(Boolean)
        return [{kind: 'session', text: `session ${str(event.session_id) ?? '?'}${facts.length > 0 ? ` (${facts.join(', ')})` : ''}`}]
      }
      return []
    case 'assistant':
      return blocks.flatMap((b): TranscriptItem[] => {
        if (b?.type === 'text' && str(b.text)) return [{kind: 'text', text: b.text as string}]
        if (b?.type === 'thinking' && str(b.thinking)) return [{kind: 'thinking', text: b.thinking as string}]
        if (b?.type === 'tool_use') return [{kind: 'tool', name: str(b.name) ?? '?', args: shortArgs(b.input)}]
        return []
      })
    case 'user':
      return blocks.flatMap((b): TranscriptItem[] =>
        b?.type === 'tool_result' ? [{kind: 'result', text: claudeResultText(b.content), isError: b.is_error === true}] : [],
      )
    case 'rate_limit_event': {
      const info = obj(event.rate_limit_info)
      if (info?.status !== 'rejected') return []
      const resets = num(info.resetsAt)
      return [{kind: 'error', text: `${str(info.rateLimitType) ?? 'usage'} limit reached${resets !== null ? `; resets ${new Date(resets * 1000).toISOString()}` : ''}`}]
    }
    case 'result': {
      const ok = event.is_error !== true && (subtype === null || subtype === 'success')
      const errors = Array.isArray(event.errors) ? event.errors.filter((e): e is string => typeof e === 'string').join('; ') : ''
      const usage = obj(event.usage)
      const tokens = usage ? (num(usage.input_tokens) ?? 0) + (num(usage.output_tokens) ?? 0) : null
      return [
        {
          kind: 'final',
          ok,
          text: str(event.result) ?? (errors || (subtype ?? '')),
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

function codexItems(type: string, event: Record<string, unknown>): TranscriptItem[] {
  const item = obj(event.item)
  const itemType = str(item?.type)
  switch (type) {
    case 'thread.started':
      return [{kind: 'session', text: `thread ${str(event.thread_id) ?? '?'}`}]
    case 'item.started':
      if (itemType === 'command_execution') return [{kind: 'tool', name: 'shell', args: shortArgs({command: item!.command})}]
      if (itemType === 'mcp_tool_call') return [{kind: 'tool', name: `${str(item!.server) ?? 'mcp'}.${str(item!.tool) ?? '?'}`, args: shortArgs(item!.arguments)}]
      if (itemType === 'web_search') return [{kind: 'tool', name: 'web_search', args: shortArgs({query: item!.query})}]
      return []
    case 'item.completed':
      return codexCompleted(item!, itemType)
    case 'turn.completed': {
      const usage = obj(event.usage)
      const tokens = usage ? (num(usage.input_tokens) ?? 0) + (num(usage.output_tokens) ?? 0) : null
      return [{kind: 'final', ok: true, text: 'turn completed', costUsd: null, turns: null, tokens, durationMs: null}]
    }
    case 'turn.failed':
      return [{kind: 'error', text: str(obj(event.error)?.message) ?? 'the turn failed'}]
    case 'error':
      return [{kind: 'error', text: str(event.message) ?? 'error'}]
    default:
      return []
  }
}

function codexCompleted(item: Record<string, unknown>, itemType: string | null): TranscriptItem[] {
  switch (itemType) {
    case 'agent_message':
      return str(item.text) ? [{kind: 'text', text: item.text as string}] : []
    case 'reasoning':
      return str(item.text) ? [{kind: 'thinking', text: item.text as string}] : []
    case 'command_execution': {
      const code = num(item.exit_code)
      const failed = item.status === 'failed' || item.status === 'declined' || (code !== null && code !== 0)
      const output = str(item.aggregated_output) ?? ''
      return [{kind: 'result', text: code !== null && code !== 0 ? `${output}${output.endsWith('\n') || output === '' ? '' : '\n'}exit ${code}` : output, isError: failed}]
    }
    case 'file_change': {
      const changes = Array.isArray(item.changes) ? item.changes.map(obj).map((c) => `${str(c?.kind) ?? 'change'} ${str(c?.path) ?? '?'}`) : []
      return [{kind: 'tool', name: 'edit', args: changes.join(', ')}]
    }
    case 'mcp_tool_call': {
      const error = str(obj(item.error)?.message)
      return [{kind: 'result', text: error ?? JSON.stringify(item.result ?? ''), isError: error !== null || item.status === 'failed'}]
    }
    case 'todo_list': {
      const items = Array.isArray(item.items) ? item.items.map(obj).map((t) => `${t?.completed ? '[x]' : '[ ]'} ${str(t?.text) ?? ''}`) : []
      return [{kind: 'text', text: items.join('\n')}]
    }
    case 'error':
      return [{kind: 'error', text: str(item.message) ?? 'error'}]
    default:
      return []
  }
}

/** The items one output line holds for a person (none for bookkeeping events). */
export function transcriptItems(profile: AgentProfileName, line: string): TranscriptItem[] {
  if (profile === 'generic' || !line.startsWith('{')) return line === '' ? [] : [{kind: 'plain', text: line}]
  let event: Record<string, unknown> | null
  try {
    event = obj(JSON.parse(line))
  } catch {
    return [{kind: 'plain', text: line}]
  }
  const type = str(event?.type)
  if (!event || !type) return [{kind: 'plain', text: line}]
  return profile === 'claude' ? claudeItems(type, event) : codexItems(type, event)
}

const PLAIN_MAX = 300

const plainClip = (text: string, max = PLAIN_MAX) => {
  const flat = text.replace(/\s+/g, ' ').trim()
  return flat.length > max ? `${flat.slice(0, max)}… (${flat.length - max} more characters)` : flat
}

/**
 * A tool result or an error as plain lines: the first line after `lead`, the
 * rest indented, cut to its head, tail and error-looking lines (the same rule
 * as `logs --pretty`), each line at most PLAIN_MAX characters.
 */
function plainBlock(lead: string, text: string): string {
  const parts = excerpt(text, {head: 3, tail: 3, errors: 20, lineChars: PLAIN_MAX})
  return parts
    .map((part, i) => `${i === 0 ? lead : '  '}${'skipped' in part ? `… ${part.skipped} more line${part.skipped === 1 ? '' : 's'}` : part.line}`)
    .join('\n')
}

/** One item as plain text, for readers without a terminal (a supervising model over MCP, the dashboard): no colour, long payloads cut. */
function plainLine(item: TranscriptItem): string {
  switch (item.kind) {
    case 'session':
      return `[${item.text}]`
    case 'text':
    case 'plain':
      return item.text
    case 'thinking':
      return `(thinking) ${plainClip(item.text)}`
    case 'tool':
      return `→ ${item.name}${item.args ? ` ${item.args}` : ''}`
    case 'result':
      return plainBlock(`← ${item.isError ? 'error: ' : ''}`, item.text)
    case 'error':
      return `[error: ${plainClip(item.text)}]`
    case 'final': {
      const facts = [
        item.ok ? 'success' : 'failed',
        item.turns !== null ? `${item.turns} turns` : '',
        item.costUsd !== null ? `$${item.costUsd.toFixed(4)}` : '',
        item.tokens !== null ? `${item.tokens} tokens` : '',
      ].filter(Boolean)
      const said = item.text && item.text !== 'turn completed' ? ` ${plainClip(item.text, 2000)}` : ''
      return `[${item.text === 'turn completed' ? 'turn completed' : 'result'}: ${facts.join(', ')}]${said}`
    }
  }
}

/**
 * Whole lines of an agent's output as plain transcript lines (the same items
 * `logs --pretty` shows); the agent's bookkeeping events say nothing and are
 * left out, a line still being written stays as it is (the next read renders
 * it whole), and a generic task's output is returned untouched.
 */
export function renderTranscript(text: string, profile: AgentProfileName): string {
  if (profile === 'generic' || text === '') return text
  const lines = text.split('\n')
  const last = lines.pop()!
  const out = lines.flatMap((line) => transcriptItems(profile, line).map(plainLine))
  return out.map((line) => `${line}\n`).join('') + last
}
