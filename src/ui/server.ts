// The dashboard's HTTP server: the checks every request passes (security.ts),
// then the page, its assets, the JSON reads, the live feeds (sse.ts) and the
// actions (actions.ts). Everything goes through the Drover it is given; the
// server owns no task, so closing it stops nothing.

import {createServer as createHttpServer, type IncomingMessage, type Server, type ServerResponse} from 'node:http'
import type {Drover} from '../api/drover.js'
import {TASK_STATUSES, type TaskStatus} from '../api/values.js'
import {QUEUE_ACTIONS, runQueueAction, runTaskAction, startOptionsOf, TASK_ACTIONS, type QueueAction, type TaskAction} from './actions.js'
import {assetFile, pageHtml} from './assets.js'
import {EventHub} from './hub.js'
import {HttpError, intParam, readJsonBody, sendError, sendJson} from './http.js'
import {queueViews} from './queues.js'
import {taskRow} from './rows.js'
import {browserPort, cookieName, hostAllowed, sameSecret, sessionCookie, setCommonHeaders, WRONG_HOST_HINT, type Secrets} from './security.js'
import {outputEvents, taskEvents} from './sse.js'
import {worktreeView} from './worktree.js'

export interface UiOptions {
  readOnly: boolean
  /** the address bound, for the Host check. */
  host: string
}

/** How many ended tasks the list loads at first (the live ones always). */
const LIST_LAST = 200
/** The newest entries of a task's events journal a page shows. */
const JOURNAL_LAST = 500
/** The largest page of output one read returns. */
const MAX_PAGE_BYTES = 1024 * 1024

export interface UiServer {
  server: Server
  secrets: Secrets
  /** ends the live feeds and stops listening; tasks keep running. */
  close: () => Promise<void>
}

export function createUiServer(drover: Drover, secrets: Secrets, options: UiOptions): UiServer {
  const closing = new AbortController()
  const hub = new EventHub(drover)
  const server = createHttpServer((req, res) => {
    setCommonHeaders(res)
    handle(req, res).catch((error: unknown) => sendError(res, error))
  })

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const address = server.address()
    const bound = typeof address === 'object' && address ? address.port : 0
    if (!hostAllowed(req.headers.host, options.host, bound)) throw new HttpError(403, 'wrong Host', WRONG_HOST_HINT)
    const port = browserPort(req.headers.host) ?? bound
    const url = new URL(req.url ?? '/', 'http://dashboard.invalid')
    const given = url.searchParams.get('token')
    if (given !== null && sameSecret(given, secrets.token) && req.method === 'GET') {
      // The token leaves the address bar (and history) for the cookie at once.
      url.searchParams.delete('token')
      res.writeHead(303, {'Set-Cookie': sessionCookie(port, secrets.token), Location: url.pathname + url.search})
      res.end()
      return
    }
    if (!sameSecret(cookieValue(req, cookieName(port)), secrets.token)) throw new HttpError(401, 'open the URL drover ui printed (it carries the token)')
    if (req.method === 'POST') {
      if (!sameSecret(header(req, 'x-csrf-token'), secrets.csrf)) throw new HttpError(403, 'missing or wrong CSRF token')
      if (options.readOnly) throw new HttpError(403, 'the dashboard is read-only')
      return post(url, req, res)
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') throw new HttpError(405, 'GET or POST only')
    return get(url, req, res)
  }

  async function get(url: URL, req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = url.pathname
    if (path === '/' || path === '/queues' || /^\/task\/\d+$/.test(path)) {
      const html = pageHtml({csrf: secrets.csrf, readOnly: options.readOnly})
      res.writeHead(200, {'Content-Type': 'text/html; charset=utf-8'})
      res.end(html)
      return
    }
    const asset = assetFile(path)
    if (asset) {
      const body = await asset.read()
      res.writeHead(200, {'Content-Type': asset.type})
      res.end(body)
      return
    }
    if (path === '/api/tasks') {
      const statuses = url.searchParams.getAll('status').filter((s): s is TaskStatus => (TASK_STATUSES as readonly string[]).includes(s))
      const {tasks, hidden} = await drover.recent({last: intParam(url, 'last') ?? LIST_LAST, status: statuses.length > 0 ? statuses : undefined})
      return sendJson(res, 200, {tasks: tasks.map(taskRow), hidden, readOnly: options.readOnly})
    }
    if (path === '/api/queues') return sendJson(res, 200, {queues: await queueViews(drover)})
    if (path === '/api/events') return taskEvents(hub, req, res, closing.signal)
    const task = /^\/api\/tasks\/(\d+)(?:\/(output|stream|usage|worktree|journal))?$/.exec(path)
    if (!task) throw new HttpError(404, 'not found')
    const id = Number(task[1])
    if (task[2] === undefined) return sendJson(res, 200, taskRow(await drover.get(id)))
    if (task[2] === 'usage') return sendJson(res, 200, await drover.usage(id))
    if (task[2] === 'journal') return sendJson(res, 200, await drover.journal(id, {last: JOURNAL_LAST}))
    if (task[2] === 'worktree') return sendJson(res, 200, await worktreeView(drover, id))
    if (task[2] === 'output') {
      const format = url.searchParams.get('format') === 'transcript' ? 'transcript' : 'raw'
      const maxBytes = Math.min(intParam(url, 'maxBytes') ?? MAX_PAGE_BYTES, MAX_PAGE_BYTES)
      return sendJson(res, 200, await drover.read(id, {offset: intParam(url, 'offset'), tail: intParam(url, 'tail'), maxBytes, format}))
    }
    return outputEvents(drover, hub, id, {offset: intParam(url, 'offset'), tail: intParam(url, 'tail')}, req, res, closing.signal)
  }

  async function post(url: URL, req: IncomingMessage, res: ServerResponse): Promise<void> {
    const body = await readJsonBody(req)
    if (url.pathname === '/api/tasks') return sendJson(res, 201, taskRow(await drover.start(startOptionsOf(body))))
    const queue = /^\/api\/queues\/([^/]+)\/([a-z]+)$/.exec(url.pathname)
    if (queue) {
      if (!(QUEUE_ACTIONS as readonly string[]).includes(queue[2])) throw new HttpError(404, 'no such action')
      return sendJson(res, 200, await runQueueAction(drover, decodeURIComponent(queue[1]), queue[2] as QueueAction, body))
    }
    const match = /^\/api\/tasks\/(\d+)\/([a-z]+)$/.exec(url.pathname)
    if (!match || !(TASK_ACTIONS as readonly string[]).includes(match[2])) throw new HttpError(404, 'no such action')
    return sendJson(res, 200, await runTaskAction(drover, Number(match[1]), match[2] as TaskAction, body))
  }

  return {
    server,
    secrets,
    close: () =>
      new Promise<void>((resolve) => {
        closing.abort()
        hub.stop()
        server.close(() => resolve())
        server.closeAllConnections()
      }),
  }
}

function header(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name]
  return Array.isArray(value) ? value[0] : value
}

function cookieValue(req: IncomingMessage, name: string): string | undefined {
  for (const part of (req.headers.cookie ?? '').split(';')) {
    const eq = part.indexOf('=')
    if (eq !== -1 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim()
  }
  return undefined
}
