// Each task's record and output as MCP resources (drover://task/7 and
// drover://task/7/output), with subscriptions: a client that subscribes gets
// notifications/resources/updated when the record changes or the output
// grows, and list_changed when tasks come and go. Watching starts only once a
// client lists or subscribes, so a server used for tools alone polls nothing.

import type {Server} from '@modelcontextprotocol/sdk/server/index.js'
import {
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ReadResourceRequestSchema,
  SubscribeRequestSchema,
  UnsubscribeRequestSchema,
} from '@modelcontextprotocol/sdk/types.js'
import {McpError, ErrorCode} from '@modelcontextprotocol/sdk/types.js'
import type {Drover} from '../api/index.js'

const URI = /^drover:\/\/task\/([^/]+)(\/output)?$/
// How much of a log a resource read returns: its end, where an agent's latest work is.
const OUTPUT_WINDOW = 256 * 1024
const LISTED = 200
const POLL_MS = 500

export function registerResources(server: Server, drover: Drover): {close: () => Promise<void>} {
  const subscribed = new Set<string>()
  const seen = new Map<string, string>()
  const stop = new AbortController()
  let watching = false

  const parse = (uri: string): {ref: string; output: boolean} => {
    const match = URI.exec(uri)
    if (!match) throw new McpError(ErrorCode.InvalidParams, `not a drover resource: ${uri} (use drover://task/ID or drover://task/ID/output)`)
    return {ref: decodeURIComponent(match[1]), output: match[2] !== undefined}
  }
  const ref = (text: string) => (/^[1-9]\d*$/.test(text) ? Number(text) : text)

  /** What a subscriber is told changed: the record's JSON, or the log's size. */
  const fingerprint = async (uri: string): Promise<string> => {
    const {ref: task, output} = parse(uri)
    try {
      if (output) return String((await drover.read(ref(task), {tail: 0, maxBytes: 1})).size)
      const {runtimeMs: _, ...record} = await drover.get(ref(task))
      return JSON.stringify(record)
    } catch {
      return 'gone'
    }
  }

  const watch = () => {
    if (watching) return
    watching = true
    void (async () => {
      try {
        for await (const event of drover.events({signal: stop.signal})) {
          if (event.type === 'created' || event.type === 'removed') await server.sendResourceListChanged().catch(() => {})
        }
      } catch {
        // the state dir went away: nothing more to tell
      }
    })()
    const timer = setInterval(async () => {
      for (const uri of subscribed) {
        const now = await fingerprint(uri)
        if (seen.get(uri) !== now && subscribed.has(uri)) {
          seen.set(uri, now)
          await server.sendResourceUpdated({uri}).catch(() => {})
        }
      }
    }, POLL_MS)
    timer.unref()
    stop.signal.addEventListener('abort', () => clearInterval(timer))
  }

  server.setRequestHandler(ListResourcesRequestSchema, async () => {
    watch()
    const {tasks} = await drover.listNewest({limit: LISTED})
    return {
      resources: tasks.flatMap((task) => {
        const label = 'name' in task && task.name ? `task ${task.id} (${task.name})` : `task ${task.id}`
        return [
          {uri: `drover://task/${task.id}`, name: label, description: `record of ${label}: ${task.status}`, mimeType: 'application/json'},
          {uri: `drover://task/${task.id}/output`, name: `${label} output`, description: `the end of ${label}'s output`, mimeType: 'text/plain'},
        ]
      }),
    }
  })

  server.setRequestHandler(ListResourceTemplatesRequestSchema, async () => ({
    resourceTemplates: [
      {uriTemplate: 'drover://task/{task}', name: 'task record', description: 'a task\'s record (id or name), as get_task returns it', mimeType: 'application/json'},
      {uriTemplate: 'drover://task/{task}/output', name: 'task output', description: `the last ${OUTPUT_WINDOW / 1024} KiB of a task's output`, mimeType: 'text/plain'},
    ],
  }))

  server.setRequestHandler(ReadResourceRequestSchema, async (request) => {
    const {uri} = request.params
    const {ref: task, output} = parse(uri)
    try {
      if (!output) return {contents: [{uri, mimeType: 'application/json', text: JSON.stringify(await drover.get(ref(task)))}]}
      const {size} = await drover.read(ref(task), {tail: 0, maxBytes: 1})
      const page = await drover.read(ref(task), {offset: Math.max(0, size - OUTPUT_WINDOW), maxBytes: OUTPUT_WINDOW})
      return {contents: [{uri, mimeType: 'text/plain', text: page.text}]}
    } catch (error) {
      throw new McpError(ErrorCode.InvalidParams, (error as Error).message)
    }
  })

  server.setRequestHandler(SubscribeRequestSchema, async (request) => {
    const {uri} = request.params
    parse(uri)
    seen.set(uri, await fingerprint(uri))
    subscribed.add(uri)
    watch()
    return {}
  })

  server.setRequestHandler(UnsubscribeRequestSchema, async (request) => {
    subscribed.delete(request.params.uri)
    seen.delete(request.params.uri)
    return {}
  })

  return {close: async () => stop.abort()}
}
