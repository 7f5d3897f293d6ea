// Where the real agents are: the cache dir scripts/install-agents.mjs fills.
// The suite never installs by itself (it runs with no network); a missing
// agent is a loud failure that names the command to run.

import {existsSync} from 'node:fs'
import path from 'node:path'
// @ts-expect-error: a plain .mjs script, shared so both agree on the cache dir
import {AGENT_PACKAGES, agentBin, agentsDir, missingAgents, opencodePluginDir as pluginDir} from '../../../scripts/install-agents.mjs'

export {agentsDir}

export type AgentKind = 'claude' | 'codex' | 'gemini' | 'qwen' | 'copilot' | 'opencode'

/** The versions installed in the cache dir this run uses (the pinned ones, or the newest in a newest-versions run). */
export const AGENT_VERSIONS: Record<AgentKind, string> = Object.fromEntries(Object.entries(AGENT_PACKAGES).map(([kind, pkg]: [string, any]) => [kind, pkg.version])) as Record<AgentKind, string>

export function bin(kind: AgentKind): string {
  const missing: string[] = missingAgents()
  if (missing.length > 0) {
    throw new Error(`test agents missing or at the wrong version (${missing.join(', ')}) in ${agentsDir()}: run node scripts/install-agents.mjs`)
  }
  const file: string = agentBin(kind)
  if (!existsSync(file)) throw new Error(`no ${kind} launcher at ${file}: run node scripts/install-agents.mjs`)
  return file
}

export const claudeBin = (): string => bin('claude')
export const codexBin = (): string => bin('codex')

/** The directory holding both launchers, to put first on PATH. */
export const agentBinDir = (): string => path.dirname(claudeBin())

/** opencode's plugin package, installed beside the agents (it would npm-install it at every start): a config dir to copy. */
export const opencodePluginDir = (): string | null => pluginDir()
