// Folding an agent's own event stream into what drover shows and acts on: the
// session id, this run's and the session's turns, cost and tokens, the
// agent's own error, a usage limit, and whether a tool call is running right
// now (a drain's safe point). What each event means is the agent's profile's
// (src/agents/<agent>.ts); this is the bookkeeping around it. Node builtins
// only: the runner uses it.

import type {AgentInfo, AgentProfileName, AgentUsage} from '../state/record.js'
import {add, minus, obj, str} from './json.js'
import type {AgentProfile, FoldState} from './profile.js'
import {profileOf} from './registry.js'

export const emptyUsage = (): AgentUsage => ({turns: 0, costUsd: null, inputTokens: null, outputTokens: null})

export const emptyAgentInfo = (): AgentInfo => ({...emptyUsage(), sessionId: null, lastEvent: null, session: null, error: null})

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

/**
 * Reads one run's events. Bookkeeping that only matters while reading (the
 * message being streamed, tool calls in flight) stays here, not in the record:
 * a runner that adopts a worker rebuilds it by reading the run's output again.
 */
export class AgentEventReader {
  private info: AgentInfo
  private readonly base: AgentUsage | null
  private readonly profile: AgentProfile | null
  private readonly tools = new Set<string>()
  private readonly scratch: Record<string, unknown> = {}
  /** ids of the usage log's model calls counted (a log read again after a truncation counts none twice). */
  private readonly loggedCalls = new Set<string>()

  constructor(
    profile: AgentProfileName,
    /** the session's totals before this run (null on a first run). */
    base: AgentUsage | null,
    sessionId: string | null,
  ) {
    this.profile = profileOf(profile)
    this.base = base
    this.info = {...emptyAgentInfo(), sessionId, session: base ? {...base} : null}
  }

  current(): AgentInfo {
    return this.info
  }

  /** The session id drover gave the agent at launch: the stream may still name another. */
  presetSession(id: string): void {
    this.info = {...this.info, sessionId: id}
  }

  /** Whether the agent has started a tool call whose result has not come back. */
  toolInFlight(): boolean {
    return this.tools.size > 0
  }

  /** Folds one output line; false when it was no event of this agent (progress text, stderr). */
  fold(line: string, now = Date.now()): boolean {
    if (!this.profile || line.charCodeAt(0) !== 123 /* { */) return false
    let event: Record<string, unknown> | null
    try {
      event = obj(JSON.parse(line))
    } catch {
      return false
    }
    const type = event ? str(event.type) : null
    if (!event || !type) return false
    const state: FoldState = {info: {...this.info}, base: this.base, tools: this.tools, scratch: this.scratch, sessionCost: null}
    this.profile.fold(state, type, event)
    this.info = this.withSession(state.info, state.sessionCost)
    // The first report that names a reset time stands: claude's structured
    // rate_limit_event comes before the result that words the same limit.
    const limit = this.profile.usageLimit(type, event, now)
    if (limit && !this.info.limit?.resetAt) this.info = {...this.info, limit}
    return true
  }

  /**
   * Folds one line of the agent's usage log (profile.usageLog): a model
   * call's tokens count once (by its id), and only when made at or after
   * `since`, the run's start — the log is the whole session's.
   */
  foldUsage(line: string, since: number): boolean {
    const log = this.profile?.usageLog
    if (!log || line.charCodeAt(0) !== 123 /* { */) return false
    let event: Record<string, unknown> | null
    try {
      event = obj(JSON.parse(line))
    } catch {
      return false
    }
    const usage = event ? log.usage(event) : null
    if (!usage || usage.at < since || this.loggedCalls.has(usage.id)) return false
    this.loggedCalls.add(usage.id)
    const info = {...this.info, inputTokens: add(this.info.inputTokens, usage.inputTokens), outputTokens: add(this.info.outputTokens, usage.outputTokens)}
    this.info = this.withSession(info, null)
    return true
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
