// What differs between the two real agents for a test: how drover starts
// them, which fake server they talk to, and how a request names the session.
// Tests loop over AGENTS so every scenario runs for both.

import type {FakeModelServer, LoggedRequest} from './fake-server.js'
import {startAnthropicServer} from './anthropic-server.js'
import {startOpenAIServer} from './openai-server.js'
import {agentEnv} from './env.js'
import type {AgentKind} from './agents.js'

export interface RealAgent {
  kind: AgentKind
  startServer(logDir?: string): Promise<FakeModelServer>
  /** The env for `drover start`: agents first on PATH, a fresh HOME, pointed at `server`. */
  env(server: FakeModelServer, extra?: Record<string, string>): Record<string, string> & {HOME: string}
  /** The agent command line as a user would give it to `drover start --`. */
  command(prompt: string, ...flags: string[]): string[]
  /** The session (claude) or thread (codex) id a request to the model belongs to. */
  sessionOf(request: LoggedRequest): string | undefined
}

export const CLAUDE: RealAgent = {
  kind: 'claude',
  startServer: startAnthropicServer,
  env: (server, extra) => agentEnv({anthropic: server, extra}),
  // Bash allowed up front: -p has nobody to answer a permission prompt.
  command: (prompt, ...flags) => ['claude', '-p', prompt, '--output-format', 'stream-json', '--verbose', '--allowedTools', 'Bash', ...flags],
  sessionOf: (request) => request.headers['x-claude-code-session-id'] as string | undefined,
}

export const CODEX: RealAgent = {
  kind: 'codex',
  startServer: startOpenAIServer,
  env: (server, extra) => agentEnv({openai: server, extra}),
  // Test work dirs are not git repositories.
  command: (prompt, ...flags) => ['codex', 'exec', '--json', '--skip-git-repo-check', ...flags, prompt],
  sessionOf: (request) => request.headers['session-id'] as string | undefined,
}

export const AGENTS: RealAgent[] = [CLAUDE, CODEX]
