// The MCP server over one state dir: lists the tools its options allow,
// validates each call's arguments itself (so a bad one is a tool error with
// the CLI's usage message and exit 2, like every other failure), runs it
// through the API and returns the result as structured content. It keeps no
// state of its own: another server or the CLI on the same dir sees the same tasks.

import {Server} from '@modelcontextprotocol/sdk/server/index.js'
import {CallToolRequestSchema, ListToolsRequestSchema, type CallToolResult} from '@modelcontextprotocol/sdk/types.js'
import type {Drover} from '../api/index.js'
import {registerResources} from './resources.js'
import {watchStatusNotices} from './status-notices.js'
import {argumentsError, errorResult, toolError} from './tool-error.js'
import {listedTool, toolSchemas, toolsFor, type ToolContext, type ToolDefinition} from './tools.js'
import type {ToolName} from './schemas.js'

export interface ServerOptions {
  readOnly: boolean
  /** extra tools to expose: 'prune'. */
  allow: readonly string[]
  /** the longest wait_tasks may block (default 5 minutes). */
  maxWaitMs?: number
  version: string
}

export const DEFAULT_MAX_WAIT_MS = 5 * 60_000
export const HEARTBEAT_MS = 5000

const INSTRUCTIONS = `drover runs commands and AI coding agents (claude -p, codex exec) as background tasks that outlive this session. Start one with start_task, read its output incrementally with read_output (pass the nextCursor you got back), wait with wait_tasks, and end it with stop_task (graceful), drain_tasks (checkpoint to resume later) or cancel_task (abandon). Tasks persist when this server or client exits; nothing is stopped unless you ask. Each change of a task's status comes as a log message (logger "drover"; warning when a task needs a person). Tell an agent at work what to do next with send_followup (delivered when its run ends well). A task started with worktree is brought into its branch with merge_task once it has ended. Errors end with the drover CLI's exit code: (exit 2) bad arguments, (exit 3) no such task, (exit 4) conflict with the task's state.`

export interface McpServerHandle {
  server: Server
  /** ends waits in flight and stops watching; resolves once no tool call is running (or after `graceMs`). */
  close: (graceMs: number) => Promise<void>
}

export function createServer(drover: Drover, options: ServerOptions): McpServerHandle {
  const server = new Server(
    {name: 'drover', version: options.version},
    {capabilities: {tools: {}, resources: {subscribe: true, listChanged: true}, logging: {}}, instructions: INSTRUCTIONS},
  )
  let notices: {close: () => void} | null = null
  server.oninitialized = () => (notices ??= watchStatusNotices(server, drover))
  const tools = new Map(toolsFor(options).map((tool) => [tool.name, tool]))
  const maxWaitMs = options.maxWaitMs ?? DEFAULT_MAX_WAIT_MS
  // Computed once: the schemas never change while the server runs.
  const listed = [...tools.values()].map(listedTool)

  // Calls in flight, so a shutdown lets a start half done write its record.
  const inFlight = new Set<Promise<unknown>>()
  const closing = new AbortController()

  server.setRequestHandler(ListToolsRequestSchema, async () => ({tools: listed}))

  server.setRequestHandler(CallToolRequestSchema, async (request, extra): Promise<CallToolResult> => {
    const tool = tools.get(request.params.name as ToolName)
    if (!tool) return unknownTool(request.params.name, options)
    const parsed = toolSchemas(tool.name).input.safeParse(request.params.arguments ?? {})
    if (!parsed.success) return argumentsError(tool.name, parsed.error)
    const token = request.params._meta?.progressToken
    const ctx: ToolContext = {
      drover,
      signal: AbortSignal.any([extra.signal, closing.signal]),
      maxWaitMs,
      progress: async (progress, total, message) => {
        if (token === undefined || extra.signal.aborted) return
        const params = {progressToken: token, progress, message, ...(total === undefined ? {} : {total})}
        await extra.sendNotification({method: 'notifications/progress', params}).catch(() => {})
      },
    }
    const call = (tool as ToolDefinition).run(parsed.data as never, ctx)
    inFlight.add(call)
    // A stop or drain can take its whole grace (a minute by default): a
    // heartbeat lets clients that reset their timeout on progress keep
    // waiting. wait_tasks reports its own progress (tasks ended of all).
    const began = Date.now()
    const heartbeat =
      tool.name === 'wait_tasks'
        ? undefined
        : setInterval(() => void ctx.progress(Math.round((Date.now() - began) / 1000), undefined, `${tool.name} still working`), HEARTBEAT_MS)
    try {
      const structured = await call
      return {structuredContent: structured, content: contentOf(tool.name, structured)}
    } catch (error) {
      return errorResult(error)
    } finally {
      inFlight.delete(call)
      clearInterval(heartbeat)
    }
  })

  const resources = registerResources(server, drover)
  return {
    server,
    close: async (graceMs) => {
      closing.abort()
      notices?.close()
      await resources.close()
      const grace = new Promise((resolve) => setTimeout(resolve, graceMs).unref())
      await Promise.race([Promise.allSettled([...inFlight]), grace])
    },
  }
}

function unknownTool(name: string, options: ServerOptions): CallToolResult {
  const all = toolsFor({readOnly: false, allow: ['prune']}).map((tool) => tool.name as string)
  if (!all.includes(name)) return toolError(`unknown tool: ${name}`, 2)
  const why = options.readOnly ? 'this server is read-only (--read-only)' : `this server was not started with --allow prune`
  return toolError(`${name} is not available: ${why}`, 2)
}

/**
 * The text a client without structured-content support shows its model: the
 * same JSON, except that read_output's text comes as itself after it, so
 * output reads as output rather than as an escaped string.
 */
function contentOf(name: ToolName, structured: Record<string, unknown>): CallToolResult['content'] {
  if (name !== 'read_output') return [{type: 'text', text: JSON.stringify(structured)}]
  const {text, ...meta} = structured
  return [
    {type: 'text', text: JSON.stringify(meta)},
    {type: 'text', text: String(text)},
  ]
}
