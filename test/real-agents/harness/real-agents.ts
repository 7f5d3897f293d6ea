// What differs between the two real agents for a test: how drover starts
// them, which fake server they talk to, and how a request names the session.
// Tests loop over AGENTS so every scenario runs for both.

import type {FakeModelServer, LoggedRequest} from './fake-server.js'
import {startAnthropicServer} from './anthropic-server.js'
import {startOpenAIServer} from './openai-server.js'
import {startChatServer} from './chat-server.js'
import {agentEnv, copilotEnv, geminiEnv, opencodeEnv, qwenEnv} from './env.js'
import {startGeminiServer} from './gemini-server.js'
import type {AgentKind} from './agents.js'

export interface RealAgent {
  kind: AgentKind
  startServer(logDir?: string): Promise<FakeModelServer>
  /** The env for `drover start`: agents first on PATH, a fresh HOME, pointed at `server`. */
  env(server: FakeModelServer, extra?: Record<string, string>): Record<string, string> & {HOME: string}
  /** The agent command line as a user would give it to `drover start --`. */
  command(prompt: string, ...flags: string[]): string[]
  /** The session (claude) or thread (codex) id a request to the model belongs to, when the agent sends it. */
  sessionOf(request: LoggedRequest): string | undefined
  /** Ids of the tool calls the agent's JSON stream shows started and not yet finished. */
  toolsInFlight(events: any[]): string[]
}

/** The JSON objects among an agent's output lines (drover's output.log mixes in other text). */
export function jsonLines(text: string): any[] {
  return text.split('\n').flatMap((line) => {
    if (!line.startsWith('{')) return []
    try {
      return [JSON.parse(line)]
    } catch {
      return []
    }
  })
}

// claude: an assistant event with a tool_use block, answered by a user event
// with a tool_result of the same tool_use_id.
function claudeToolsInFlight(events: any[]): string[] {
  const open = new Set<string>()
  for (const e of events) {
    for (const block of Array.isArray(e?.message?.content) ? e.message.content : []) {
      if (e.type === 'assistant' && block?.type === 'tool_use') open.add(block.id)
      if (e.type === 'user' && block?.type === 'tool_result') open.delete(block.tool_use_id)
    }
  }
  return [...open]
}

// codex: item.started of a command, closed by item.completed of the same item id.
function codexToolsInFlight(events: any[]): string[] {
  const open = new Set<string>()
  for (const e of events) {
    if (e?.type === 'item.started' && e.item?.type !== 'agent_message') open.add(e.item.id)
    if (e?.type === 'item.completed') open.delete(e.item?.id)
    // a resumed run counts its items from item_0 again
    if (e?.type === 'thread.started') open.clear()
  }
  return [...open]
}

export const CLAUDE: RealAgent = {
  kind: 'claude',
  startServer: startAnthropicServer,
  env: (server, extra) => agentEnv({anthropic: server, extra}),
  // Bash allowed up front: -p has nobody to answer a permission prompt.
  command: (prompt, ...flags) => ['claude', '-p', prompt, '--output-format', 'stream-json', '--verbose', '--allowedTools', 'Bash', ...flags],
  sessionOf: (request) => request.headers['x-claude-code-session-id'] as string | undefined,
  toolsInFlight: claudeToolsInFlight,
}

export const CODEX: RealAgent = {
  kind: 'codex',
  startServer: startOpenAIServer,
  env: (server, extra) => agentEnv({openai: server, extra}),
  // Test work dirs are not git repositories.
  command: (prompt, ...flags) => ['codex', 'exec', '--json', '--skip-git-repo-check', ...flags, prompt],
  sessionOf: (request) => request.headers['session-id'] as string | undefined,
  toolsInFlight: codexToolsInFlight,
}

export const AGENTS: RealAgent[] = [CLAUDE, CODEX]

// gemini: tool_use and tool_result with the same tool_id.
function pairedToolsInFlight(events: any[], start: string, end: string, id: (e: any) => string | undefined): string[] {
  const open = new Set<string>()
  for (const e of events) {
    if (e?.type === start && id(e)) open.add(id(e)!)
    if (e?.type === end) open.delete(id(e)!)
  }
  return [...open]
}

export const GEMINI: RealAgent = {
  kind: 'gemini',
  startServer: startGeminiServer,
  env: (server, extra) => agentEnv({setup: (home) => geminiEnv(home, server), extra}),
  // -m: without it a router call to :generateContent comes first; --yolo: nobody answers a tool prompt headless.
  command: (prompt, ...flags) => ['gemini', '-m', 'gemini-2.5-flash', '-p', prompt, '--output-format', 'stream-json', '--yolo', ...flags],
  sessionOf: () => undefined,
  toolsInFlight: (events) => pairedToolsInFlight(events, 'tool_use', 'tool_result', (e) => e.tool_id),
}

export const QWEN: RealAgent = {
  kind: 'qwen',
  startServer: startChatServer,
  env: (server, extra) => agentEnv({setup: (home) => qwenEnv(home, server), extra}),
  command: (prompt, ...flags) => ['qwen', prompt, '--output-format', 'stream-json', '--yolo', ...flags],
  sessionOf: () => undefined,
  toolsInFlight: claudeToolsInFlight,
}

export const COPILOT: RealAgent = {
  kind: 'copilot',
  startServer: startChatServer,
  env: (server, extra) => agentEnv({setup: () => copilotEnv(server), extra}),
  command: (prompt, ...flags) => ['copilot', '-p', prompt, '--output-format', 'json', '--allow-all-tools', '--no-auto-update', '--disable-client-telemetry', ...flags],
  sessionOf: () => undefined,
  toolsInFlight: (events) => pairedToolsInFlight(events, 'tool.execution_start', 'tool.execution_complete', (e) => e.data?.toolCallId),
}

export const OPENCODE: RealAgent = {
  kind: 'opencode',
  startServer: startChatServer,
  env: (server, extra) => agentEnv({setup: (home) => opencodeEnv(home, server), extra}),
  command: (prompt, ...flags) => ['opencode', 'run', '--format', 'json', ...flags, prompt],
  sessionOf: () => undefined,
  // tools are reported once finished: a step started and not finished is the work in flight
  toolsInFlight: (events) => pairedToolsInFlight(events, 'step_start', 'step_finish', (e) => e.part?.messageID),
}

export const MORE_AGENTS: RealAgent[] = [GEMINI, QWEN, COPILOT, OPENCODE]
export const ALL_AGENTS: RealAgent[] = [...AGENTS, ...MORE_AGENTS]
