// The agents drover knows, as `drover doctor` looks at them, derived from each
// agent's own module (registry.ts): the program names to look for on PATH,
// how to ask its version and its flag grammar (the same `--help` argv resume
// learns from), the package that installs it, where it keeps its sessions
// (the part of the store that is the same whatever the working directory),
// and the variables that carry its API key.

import os from 'node:os'
import path from 'node:path'
import type {HelpGrammar} from './flags.js'
import type {AgentProfile} from './profile.js'
import {AGENTS} from './registry.js'

export interface KnownAgent {
  name: string
  /** the npm package that installs it (what a fix line names). */
  npmPackage: string
  /** program names looked up on PATH, first match wins. */
  binaries: string[]
  versionArgs: string[]
  /** the argv after the program that prints the options resume reads. */
  helpArgs: string[]
  helpGrammar?: HelpGrammar
  /** the folder (or file) the agent keeps its sessions in, for this environment. */
  sessionStore(env: NodeJS.ProcessEnv): string
  /** variables any of which authenticates the agent (presence only is ever shown). */
  apiKeyVars: string[]
}

/** The home directory the agent itself would use: HOME on Unix, USERPROFILE on Windows, as Node's os.homedir() reads them. */
export function homeOf(env: NodeJS.ProcessEnv): string {
  return env.HOME || env.USERPROFILE || os.homedir()
}

/** The leading path both share: where a per-directory store (claude's projects/<cwd>) has its root. */
function commonDir(a: string, b: string): string {
  const pa = a.split(path.sep)
  const pb = b.split(path.sep)
  let n = 0
  while (n < pa.length && n < pb.length && pa[n] === pb[n]) n++
  return pa.slice(0, n).join(path.sep) || path.sep
}

/**
 * A profile's store is per working directory for some agents (claude, qwen,
 * gemini): its root is what two different directories' stores share.
 */
export function storeRoot(profile: Pick<AgentProfile, 'sessionStore'>, home: string): string {
  const at = (name: string) => profile.sessionStore.path(home, path.resolve(path.sep, `drover-doctor-${name}`, name))
  return commonDir(at('a'), at('b'))
}

export function knownAgent(profile: AgentProfile): KnownAgent {
  return {
    name: profile.name,
    npmPackage: profile.npmPackage,
    binaries: profile.binaries,
    versionArgs: profile.versionArgv,
    helpArgs: profile.helpArgv([]),
    helpGrammar: profile.helpGrammar,
    sessionStore: (env) => storeRoot(profile, homeOf(env)),
    apiKeyVars: profile.apiKeyEnv,
  }
}

/** Every agent drover knows, in the registry's order. */
export const knownAgents = (): KnownAgent[] => AGENTS.map(knownAgent)
