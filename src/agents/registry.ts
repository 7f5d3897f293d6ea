// Every agent drover knows, one module each; the rest of drover asks here.
// Adding an agent is one module under src/agents/ and one line below.

import path from 'node:path'
import type {AgentProfileName} from '../state/record.js'
import {claude} from './claude.js'
import {codex} from './codex.js'
import {copilot} from './copilot.js'
import {gemini} from './gemini.js'
import {opencode} from './opencode.js'
import type {AgentName, AgentProfile, UsageLimit} from './profile.js'
import {qwen} from './qwen.js'

export const AGENTS: readonly AgentProfile[] = [claude, codex, gemini, qwen, copilot, opencode]

const BY_NAME = new Map<string, AgentProfile>(AGENTS.map((a) => [a.name, a]))

/** The profile of a known agent; null for `generic`. */
export function profileOf(name: AgentProfileName | string): AgentProfile | null {
  return BY_NAME.get(name) ?? null
}

/** The program's name decides, ignoring a directory and a Windows extension. */
export function detectProfile(command: string[]): AgentProfileName {
  const program = path.basename(command[0] ?? '').replace(/\.(exe|cmd|bat|ps1)$/i, '').toLowerCase()
  return AGENTS.find((a) => a.binaries.includes(program))?.name ?? 'generic'
}

/** The limit an agent event reports, or null. */
export function usageLimitOf(name: AgentName, type: string, event: Record<string, unknown>, now = Date.now()): UsageLimit | null {
  return profileOf(name)?.usageLimit(type, event, now) ?? null
}
