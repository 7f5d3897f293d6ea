// The agents drover knows, as `drover doctor` needs them: the program names
// to look for on PATH, how to ask the version and the flag grammar (the same
// `--help` argv resume learns from: profiles.ts flagHelpArgv), the
// environment that keeps those two calls offline, where the agent keeps its
// sessions (which a resume needs to find), and the variables that carry its
// API key. One small table, so that when each agent gets a module of its own
// this list is derived from those modules instead.

import os from 'node:os'
import path from 'node:path'

export interface KnownAgent {
  name: string
  /** the npm package that installs it (what a fix line names). */
  npmPackage: string
  /** program names looked up on PATH, first match wins. */
  binaries: string[]
  versionArgs: string[]
  /** the argv after the program that prints the options resume reads. */
  helpArgs: string[]
  /** set for the version and help calls: no update check, no telemetry. */
  quietEnv: Record<string, string>
  /** the folder the agent saves its sessions in, for this environment. */
  sessionStore(env: NodeJS.ProcessEnv): string
  /** variables any of which authenticates the agent (presence only is ever shown). */
  apiKeyVars: string[]
}

/** The home directory the agent itself would use: HOME on Unix, USERPROFILE on Windows, as Node's os.homedir() reads them. */
export function homeOf(env: NodeJS.ProcessEnv): string {
  return env.HOME || env.USERPROFILE || os.homedir()
}

const under = (env: NodeJS.ProcessEnv, override: string, dotDir: string, ...rest: string[]) =>
  path.join(env[override] || path.join(homeOf(env), dotDir), ...rest)

export const KNOWN_AGENTS: readonly KnownAgent[] = [
  {
    name: 'claude',
    npmPackage: '@anthropic-ai/claude-code',
    binaries: ['claude'],
    versionArgs: ['--version'],
    helpArgs: ['--help'],
    quietEnv: {DISABLE_AUTOUPDATER: '1', CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1', DISABLE_TELEMETRY: '1', DISABLE_ERROR_REPORTING: '1'},
    // ~/.claude/projects/<cwd, non-alphanumerics as ->/<session>.jsonl; CLAUDE_CONFIG_DIR moves ~/.claude
    sessionStore: (env) => under(env, 'CLAUDE_CONFIG_DIR', '.claude', 'projects'),
    apiKeyVars: ['ANTHROPIC_API_KEY', 'ANTHROPIC_AUTH_TOKEN', 'CLAUDE_CODE_OAUTH_TOKEN'],
  },
  {
    name: 'codex',
    npmPackage: '@openai/codex',
    binaries: ['codex'],
    versionArgs: ['--version'],
    helpArgs: ['exec', '--help'],
    quietEnv: {},
    // ~/.codex/sessions/YYYY/MM/DD/rollout-…-<thread id>.jsonl; CODEX_HOME moves ~/.codex
    sessionStore: (env) => under(env, 'CODEX_HOME', '.codex', 'sessions'),
    apiKeyVars: ['OPENAI_API_KEY', 'CODEX_API_KEY'],
  },
]
