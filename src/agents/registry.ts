// Every agent drover knows, one module each; the rest of drover asks here.
// Adding an agent is one module under src/agents/ and one line in the list below:
// its name is then what `--agent`, the MCP schema, the dashboard's form, `doctor`
// and every message offer, with nothing else naming it.
//
// A record only stores the name, as a string (the state layer knows no agent).
// A name this drover has no profile for — `generic`, or an agent a newer drover
// knows — is handled as generic everywhere: its output is not read as events,
// and a resume runs the command again.

import path from 'node:path'
import {claude} from './claude.js'
import {codex} from './codex.js'
import {copilot} from './copilot.js'
import {gemini} from './gemini.js'
import {opencode} from './opencode.js'
import type {AgentName, AgentProfile, UsageLimit} from './profile.js'
import {qwen} from './qwen.js'

const REGISTERED: AgentProfile[] = [claude, codex, gemini, qwen, copilot, opencode]

export const AGENTS: readonly AgentProfile[] = REGISTERED

/** Any other program: drover runs it and reads nothing of its output as events. */
export const GENERIC_AGENT = 'generic'

/** The known agents' names, in the registry's order (for help and messages). */
export const knownAgentNames = (): string[] => REGISTERED.map((a) => a.name)

/** The agents whose profile passes `test`, by name: for help that says which agents a feature serves. */
export const agentsThat = (test: (profile: AgentProfile) => boolean): string[] => REGISTERED.filter(test).map((a) => a.name)

/** The names `--agent` takes: every agent's, then `generic`. */
export const AGENT_NAMES: readonly string[] = [...REGISTERED.map((a) => a.name), GENERIC_AGENT]

const BY_NAME = new Map<string, AgentProfile>(REGISTERED.map((a) => [a.name, a]))

/**
 * Adds an agent for the life of this process: for tests only, which prove
 * with a test-only agent that the line in AGENTS is all a new agent needs
 * (test/e2e/agent-registry.test.ts). Not part of the package's API: each
 * process must run the registration itself (a runner is a process of its
 * own: that test preloads it there), and drover's builds never do.
 */
export function registerAgent(profile: AgentProfile): void {
  if (BY_NAME.has(profile.name) || profile.name === GENERIC_AGENT) throw new Error(`agent ${profile.name} is already known`)
  REGISTERED.push(profile)
  BY_NAME.set(profile.name, profile)
  // the arrays above are shared (the start options' shape check holds AGENT_NAMES): grow them in place
  ;(AGENT_NAMES as string[]).splice(AGENT_NAMES.length - 1, 0, profile.name)
}

/** The profile of a known agent; null for `generic` and for a name this drover does not know. */
export function profileOf(name: string): AgentProfile | null {
  return BY_NAME.get(name) ?? null
}

/** Whether drover reads this agent's output as its events (turns, session, transcript): a name with a profile. */
export const readsAgentEvents = (name: string): boolean => BY_NAME.has(name)

/** The program's name decides, ignoring a directory and a Windows extension. */
export function detectProfile(command: string[]): string {
  const program = path.basename(command[0] ?? '').replace(/\.(exe|cmd|bat|ps1)$/i, '').toLowerCase()
  return REGISTERED.find((a) => a.binaries.includes(program))?.name ?? GENERIC_AGENT
}

/** The limit an agent event reports, or null. */
export function usageLimitOf(name: AgentName, type: string, event: Record<string, unknown>, now = Date.now()): UsageLimit | null {
  return profileOf(name)?.usageLimit(type, event, now) ?? null
}
