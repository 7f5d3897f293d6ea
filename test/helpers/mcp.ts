// Driving `drover mcp` as a client does: the built CLI spawned as a real child
// process and spoken to by the MCP SDK's own Client over stdio.

import {Client} from '@modelcontextprotocol/sdk/client/index.js'
import {StdioClientTransport} from '@modelcontextprotocol/sdk/client/stdio.js'
import {BIN} from './cli.js'

export interface McpSession {
  client: Client
  /** pid of the `drover mcp` process. */
  pid: number
  /** calls a tool; the result as the client got it (isError, structuredContent, content). */
  call: (name: string, args?: Record<string, unknown>) => Promise<ToolResult>
  close: () => Promise<void>
}

export interface ToolResult {
  isError?: boolean
  structuredContent?: any
  content: {type: string; text?: string}[]
  _meta?: {exitCode?: number}
}

const open: McpSession[] = []

export async function startMcp(stateDir: string, args: string[] = []): Promise<McpSession> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [BIN, 'mcp', '--state-dir', stateDir, ...args],
    env: {...(process.env as Record<string, string>), NO_COLOR: '1'},
    stderr: 'pipe',
  })
  const client = new Client({name: 'drover-test', version: '1.0.0'})
  await client.connect(transport)
  const session: McpSession = {
    client,
    pid: transport.pid!,
    call: async (name, callArgs = {}) => (await client.callTool({name, arguments: callArgs}, undefined, {timeout: 120_000})) as ToolResult,
    close: () => client.close(),
  }
  open.push(session)
  return session
}

export async function closeMcpSessions(): Promise<void> {
  await Promise.all(open.splice(0).map((session) => session.close().catch(() => {})))
}

/** The exit code a tool error carries, from its text `… (exit N)`. */
export function exitCodeOf(result: ToolResult): number | null {
  const match = /\(exit (\d)\)$/.exec(result.content[0]?.text ?? '')
  return match ? Number(match[1]) : null
}
