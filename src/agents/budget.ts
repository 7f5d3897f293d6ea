// Budgets over an agent's whole session (`--max-cost`, `--max-turns`,
// `--max-tokens`): whether the usage read from its stream has reached one.
// Counted on the session's totals, which carry over every run that continued
// the conversation, so a resume does not get a fresh allowance.

import {usageError} from '../base/errors.js'
import type {AgentProfileName, AgentUsage, Policies} from '../state/record.js'
import {AGENTS, profileOf} from './registry.js'

export type Budget = Pick<Policies, 'maxCostUsd' | 'maxTurns' | 'maxTokens'>

export const hasBudget = (b: Budget): boolean => (b.maxCostUsd ?? null) !== null || (b.maxTurns ?? null) !== null || (b.maxTokens ?? null) !== null

/** Only the limits given: a task without a budget keeps the policies it always had. */
export const givenLimits = (b: Budget): Budget => Object.fromEntries(Object.entries(b).filter(([, v]) => v !== null && v !== undefined)) as Budget

/** Which limit the session's usage has reached (`max-turns 3 reached`), or null. */
export function budgetReached(budget: Budget, session: AgentUsage | null): string | null {
  if (!session) return null
  const {maxCostUsd, maxTurns, maxTokens} = budget
  if (maxTurns != null && session.turns >= maxTurns) return `max-turns ${maxTurns} reached (${session.turns} turns)`
  if (maxCostUsd != null && session.costUsd !== null && session.costUsd >= maxCostUsd) {
    return `max-cost $${maxCostUsd} reached ($${session.costUsd.toFixed(4)})`
  }
  const tokens = session.inputTokens === null && session.outputTokens === null ? null : (session.inputTokens ?? 0) + (session.outputTokens ?? 0)
  if (maxTokens != null && tokens !== null && tokens >= maxTokens) return `max-tokens ${maxTokens} reached (${tokens} tokens)`
  return null
}

/**
 * The agent has just said its run is over (claude's result; codex's turn end,
 * after which the real codex exits): a budget reached there is not stopped —
 * the run is ending by itself, and whether a stop or the exit came first must
 * not decide its status. The next resume is refused instead.
 */
export const runEnding = (agent: AgentProfileName, lastEvent: string | null): boolean => profileOf(agent)?.runEnding(lastEvent) ?? false

/**
 * A budget the agent can be held to: only what it reports counts (codex
 * reports tokens but no cost; copilot nothing but its turns on stdout).
 * Refused at start rather than never enforced.
 */
export function checkBudget(agent: AgentProfileName, budget: Budget): void {
  if (!hasBudget(budget)) return
  const profile = profileOf(agent)
  if (!profile) throw usageError(`--max-cost, --max-turns and --max-tokens need an agent that reports its usage (${reportingAgents()})`)
  const {reports} = profile
  if (budget.maxCostUsd != null && !reports.cost) {
    throw usageError(`${agent} reports no cost: use ${reports.tokens ? '--max-tokens (or --max-turns)' : '--max-turns'} for a ${agent} task`)
  }
  if (budget.maxTokens != null && !reports.tokens) throw usageError(`${agent} reports no tokens: use --max-turns for a ${agent} task`)
}

/** The agents a budget can hold, from their profiles: `claude, codex, …; copilot: --max-turns`. */
function reportingAgents(): string {
  const tokens = AGENTS.filter((a) => a.reports.tokens).map((a) => a.name)
  const turnsOnly = AGENTS.filter((a) => !a.reports.tokens && a.reports.turns).map((a) => `${a.name}: --max-turns`)
  return [tokens.join(', '), ...turnsOnly].filter(Boolean).join('; ')
}

/** `--max-cost 2.5` → 2.5; a positive amount of US dollars. */
export function parseCost(text: string): number {
  const value = /^\$?(\d+(\.\d+)?|\.\d+)$/.test(text.trim()) ? Number(text.trim().replace('$', '')) : Number.NaN
  if (!(value > 0)) throw usageError(`--max-cost: expected an amount of US dollars above 0, e.g. 2.50, got ${JSON.stringify(text)}`)
  return value
}
