// Folding an agent's own event stream (claude stream-json, codex JSONL) into
// what drover shows and acts on: the session id, this run's and the session's
// turns, cost and tokens, the agent's own error, and whether a tool call is
// running right now (a drain's safe point). Node builtins only: the runner uses it.

import type {AgentInfo, AgentProfileName, AgentUsage} from '../state/record.js'
import {usageLimitOf} from './limits.js'

export const emptyUsage = (): AgentUsage => ({turns: 0, costUsd: null, inputTokens: null, outputTokens: null})

export const emptyAgentInfo = (): AgentInfo => ({...emptyUsage(), sessionId: null, lastEvent: null, session: null, error: null})

const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null)
const str = (v: unknown): string | null => (typeof v === 'string' && v !== '' ? v : null)
const obj = (v: unknown): Record<string, unknown> | null => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : null)
const add = (a: number | null, b: number | null): number | null => (a === null && b === null ? null : (a ?? 0) + (b ?? 0))
const minus = (a: number | null, b: number | null): number | null => (a === null ? null : Math.max(0, a - (b ?? 0)))

/** The session's totals before this run: what the record says now minus what this run has counted so far. */
export function sessionBase(info: AgentInfo | null): AgentUsage | null {
  if (!info?.session) return null
  const s = info.session
  return {
    turns: Math.max(0, s.turns - info.turns),
    costUsd: minus(s.costUsd, info.costUsd),
    inputTokens: minus(s.inputTokens, info.inputTokens),
    outputTokens: minus(s.outputTokens, info.outputTokens),
  }
}

// codex items that are the model talking or thinking, not a tool at work.
const CODEX_NON_TOOL_ITEMS = new Set(['agent_message', 'reasoning', 'todo_list', 'error'])

// One line of an error is what a status line can show; the rest is in output.log.
const ERROR_CHARS = 500

/**
 * Reads one run's events. Bookkeeping that only matters while reading (the
 * message being streamed, tool calls in flight) stays here, not in the record:
 * a runner that adopts a worker rebuilds it by reading the run's output again.
 */
export class AgentEventReader {
  private info: AgentInfo
  private readonly base: AgentUsage | null
  private messageId: string | null = null
  private messageTokens: [number, number] = [0, 0]
  private readonly toolsRunning = new Set<string>()

  constructor(
    private readonly profile: AgentProfileName,
    /** the session's totals before this run (null on a first run). */
    base: AgentUsage | null,
    sessionId: string | null,
  ) {
    this.base = base
    this.info = {...emptyAgentInfo(), sessionId, session: base ? {...base} : null}
  }

  current(): AgentInfo {
    return this.info
  }

  /** Whether the agent has started a tool call whose result has not come back. */
  toolInFlight(): boolean {
    return this.toolsRunning.size > 0
  }

  /** Folds one output line; false when it was no event of this agent (progress text, stderr). */
  fold(line: string): boolean {
    if (this.profile === 'generic' || line.charCodeAt(0) !== 123 /* { */) return false
    let event: Record<string, unknown> | null
    try {
      event = obj(JSON.parse(line))
    } catch {
      return false
    }
    const type = event ? str(event.type) : null
    if (!event || !type) return false
    if (this.profile === 'claude') this.foldClaude(type, event)
    else this.foldCodex(type, event)
    // The first report that names a reset time stands: claude's structured
    // rate_limit_event comes before the result that words the same limit.
    const limit = usageLimitOf(this.profile, type, event)
    if (limit && !this.info.limit?.resetAt) this.info = {...this.info, limit}
    return true
  }

  // claude -p --output-format stream-json --verbose: system/init, then one
  // `assistant` event per content block (all with the message's id), `user`
  // events carrying tool results, and a final `result`. Every event has
  // session_id; the latest wins (a resume may fork the session).
  private foldClaude(type: string, event: Record<string, unknown>): void {
    const info = {...this.info}
    const subtype = str(event.subtype)
    info.lastEvent = subtype ? `${type}/${subtype}` : type
    info.sessionId = str(event.session_id) ?? info.sessionId
    const message = obj(event.message)
    const blocks = Array.isArray(message?.content) ? (message!.content as unknown[]).map(obj) : []
    if (type === 'assistant' && message) {
      const id = str(message.id)
      if (id === null || id !== this.messageId) {
        this.messageId = id
        this.messageTokens = [0, 0]
        info.turns += 1
      }
      // Every block of a message repeats the message's usage so far: count the growth only.
      const usage = obj(message.usage)
      if (usage) {
        const tokens: [number, number] = [num(usage.input_tokens) ?? 0, num(usage.output_tokens) ?? 0]
        info.inputTokens = (info.inputTokens ?? 0) + Math.max(0, tokens[0] - this.messageTokens[0])
        info.outputTokens = (info.outputTokens ?? 0) + Math.max(0, tokens[1] - this.messageTokens[1])
        this.messageTokens = [Math.max(tokens[0], this.messageTokens[0]), Math.max(tokens[1], this.messageTokens[1])]
      }
      for (const block of blocks) if (block?.type === 'tool_use' && str(block.id)) this.toolsRunning.add(block.id as string)
    }
    if (type === 'user') {
      for (const block of blocks) if (block?.type === 'tool_result' && str(block.tool_use_id)) this.toolsRunning.delete(block.tool_use_id as string)
    }
    if (type === 'result') {
      this.toolsRunning.clear()
      // usage is this run's; total_cost_usd is the whole session's, across resumes.
      const usage = obj(event.usage)
      if (usage) {
        info.inputTokens = num(usage.input_tokens) ?? info.inputTokens
        info.outputTokens = num(usage.output_tokens) ?? info.outputTokens
      }
      const sessionCost = num(event.total_cost_usd) ?? num(event.cost_usd)
      if (sessionCost !== null) info.costUsd = this.base?.costUsd == null ? sessionCost : Math.max(0, sessionCost - this.base.costUsd)
      const failed = event.is_error === true || (subtype !== null && subtype !== 'success')
      if (failed) info.error = claudeError(event, subtype)
      this.info = this.withSession(info, sessionCost)
      return
    }
    this.info = this.withSession(info, null)
  }

  // codex exec --json: thread.started carries the thread id (again on a
  // resume); item.started/item.completed frame each tool call; turn.completed's
  // usage is the thread's total so far, not the turn's.
  private foldCodex(type: string, event: Record<string, unknown>): void {
    const info = {...this.info, lastEvent: type}
    if (type === 'thread.started') info.sessionId = str(event.thread_id) ?? info.sessionId
    const item = obj(event.item)
    const itemId = item ? str(item.id) : null
    if (type === 'item.started' && item && itemId && !CODEX_NON_TOOL_ITEMS.has(String(item.type))) this.toolsRunning.add(itemId)
    if (type === 'item.completed' && itemId) this.toolsRunning.delete(itemId)
    if (type === 'turn.completed' || type === 'turn.failed') this.toolsRunning.clear()
    if (type === 'turn.completed') {
      info.turns += 1
      const usage = obj(event.usage)
      if (usage) {
        const input = num(usage.input_tokens)
        const output = num(usage.output_tokens)
        info.inputTokens = minus(input, this.base?.inputTokens ?? null) ?? info.inputTokens
        info.outputTokens = minus(output, this.base?.outputTokens ?? null) ?? info.outputTokens
      }
    }
    if (type === 'turn.failed') info.error = clip(str(obj(event.error)?.message) ?? 'the turn failed')
    if (type === 'error') info.error = clip(str(event.message) ?? 'error')
    this.info = this.withSession(info, null)
  }

  private withSession(info: AgentInfo, sessionCost: number | null): AgentInfo {
    const base = this.base ?? emptyUsage()
    const session: AgentUsage = {
      turns: base.turns + info.turns,
      costUsd: sessionCost ?? add(base.costUsd, info.costUsd),
      inputTokens: add(base.inputTokens, info.inputTokens),
      outputTokens: add(base.outputTokens, info.outputTokens),
    }
    return {...info, session}
  }
}

function claudeError(event: Record<string, unknown>, subtype: string | null): string {
  const errors = Array.isArray(event.errors) ? event.errors.filter((e): e is string => typeof e === 'string') : []
  const text = str(event.result) ?? (errors.length > 0 ? errors.join('; ') : null) ?? subtype ?? 'error'
  return clip(text)
}

function clip(text: string): string {
  return text.length > ERROR_CHARS ? `${text.slice(0, ERROR_CHARS)}…` : text
}
