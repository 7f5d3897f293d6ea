// The HTTP side shared by both fake model servers: 127.0.0.1 on a random
// port, every request logged (in memory and as JSONL, so a test can prove what
// a resumed run sent), anything off the expected routes answered 404 and kept
// as unexpected, and a queue of scripted replies that wins over the markers.

import {appendFileSync} from 'node:fs'
import http from 'node:http'
import type {AddressInfo} from 'node:net'
import {defaultReply, splitText, type Reply, type Responder, type Turn} from './script.js'

export interface LoggedRequest {
  seq: number
  at: string
  method: string
  /** Path with the query string, as the agent sent it. */
  url: string
  headers: http.IncomingHttpHeaders
  /** Parsed JSON body, or the raw text when it is not JSON. */
  body: any
  /** The reply the server chose, for reading a failed test. */
  reply?: Reply
  /** The usage the reply reported, once it was sent whole (in memory only, not in the JSONL log). */
  usage?: Usage
}

export interface Usage {
  inputTokens: number
  outputTokens: number
}

export interface Unexpected {
  method: string
  url: string
}

/** One API's handling: which routes it serves, how it reads a turn, how it streams a reply. */
export interface ModelApi {
  readonly name: string
  /** True for the method and path (query stripped) this API answers. */
  serves(method: string, pathname: string): boolean
  readTurn(body: any): Turn
  /** A reply for a request that is no turn of the conversation (opencode's title request), before any queued one. */
  aside?(body: any): Reply | undefined
  /** Streams the reply; resolves to the usage it reported, or undefined for an error or a stream cut short. */
  send(res: http.ServerResponse, body: any, reply: Reply, signal: AbortSignal): Promise<Usage | undefined>
}

export class FakeModelServer {
  readonly requests: LoggedRequest[] = []
  readonly unexpected: Unexpected[] = []
  private readonly queued: Reply[] = []
  private responder: Responder | undefined
  private server: http.Server | undefined
  private port = 0
  private seq = 0
  private readonly open = new Set<http.ServerResponse>()

  constructor(
    private readonly api: ModelApi,
    /** JSONL copy of every request, for reading after the test or from another process. */
    readonly logFile?: string,
  ) {}

  get url(): string {
    if (!this.server) throw new Error(`${this.api.name} fake server is not started`)
    return `http://127.0.0.1:${this.port}`
  }

  async start(): Promise<this> {
    this.server = http.createServer((req, res) => void this.handle(req, res))
    await new Promise<void>((resolve, reject) => {
      this.server!.once('error', reject)
      this.server!.listen(0, '127.0.0.1', () => resolve())
    })
    this.port = (this.server.address() as AddressInfo).port
    return this
  }

  async stop(): Promise<void> {
    const server = this.server
    if (!server) return
    this.server = undefined
    for (const res of this.open) res.destroy()
    server.closeAllConnections()
    await new Promise<void>((resolve) => server.close(() => resolve()))
  }

  /** Replies used before any marker, first in first out. */
  queue(...replies: Reply[]): void {
    this.queued.push(...replies)
  }

  /** A function consulted after the queue; returning undefined falls back to the markers. */
  respondWith(responder: Responder | undefined): void {
    this.responder = responder
  }

  /** The requests the model API answered (not 404s), optionally only those whose body contains `text`. */
  modelRequests(text?: string): LoggedRequest[] {
    return this.requests.filter((r) => r.reply && (text === undefined || JSON.stringify(r.body).includes(text)))
  }

  assertNoUnexpected(): void {
    if (this.unexpected.length > 0) {
      const list = this.unexpected.map((u) => `${u.method} ${u.url}`).join(', ')
      throw new Error(`${this.api.name} fake server got unexpected requests: ${list}`)
    }
  }

  /** Forgets requests and queued replies between tests that share a server. */
  reset(): void {
    this.requests.length = 0
    this.unexpected.length = 0
    this.queued.length = 0
    this.responder = undefined
  }

  private async handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    this.open.add(res)
    res.once('close', () => this.open.delete(res))
    const chunks: Buffer[] = []
    for await (const chunk of req) chunks.push(chunk as Buffer)
    const text = Buffer.concat(chunks).toString('utf8')
    let body: any = text
    try {
      body = text ? JSON.parse(text) : null
    } catch {
      // kept as text: the log shows what arrived
    }
    const entry: LoggedRequest = {seq: ++this.seq, at: new Date().toISOString(), method: req.method ?? '', url: req.url ?? '', headers: req.headers, body}
    this.requests.push(entry)
    const pathname = (req.url ?? '').split('?')[0]
    if (!this.api.serves(entry.method, pathname)) {
      this.unexpected.push({method: entry.method, url: entry.url})
      this.log(entry)
      res.writeHead(404, {'content-type': 'application/json'}).end(JSON.stringify({error: {type: 'not_found', message: `no route ${entry.method} ${pathname}`}}))
      return
    }
    let reply: Reply
    try {
      const turn = this.api.readTurn(body)
      reply = this.api.aside?.(body) ?? this.queued.shift() ?? this.responder?.(turn) ?? defaultReply(turn)
    } catch (error) {
      reply = {kind: 'http-error', status: 400, message: `fake server could not read the request: ${String(error)}`}
    }
    entry.reply = reply
    this.log(entry)
    // An agent killed mid-stream closes the socket: stop streaming to it.
    const abort = new AbortController()
    res.once('close', () => abort.abort())
    try {
      if (reply.kind === 'tool' && reply.latencyMs) await sleep(reply.latencyMs, abort.signal)
      entry.usage = await this.api.send(res, body, reply, abort.signal)
    } catch {
      res.destroy()
    }
  }

  private log(entry: LoggedRequest): void {
    if (this.logFile) appendFileSync(this.logFile, JSON.stringify(entry) + '\n')
  }
}

/** The token count both fake APIs report: a quarter of the JSON text, at least one. */
export const estimateTokens = (value: unknown) => Math.max(1, Math.round(JSON.stringify(value ?? '').length / 4))

export const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve) => {
    if (signal?.aborted) return resolve()
    // One listener per pause, removed when it ends: a slow reply pauses hundreds of times.
    const abort = () => {
      clearTimeout(timer)
      resolve()
    }
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', abort)
      resolve()
    }, ms)
    signal?.addEventListener('abort', abort, {once: true})
  })

/** Writes one SSE event; the name line is left out when the API does not use one. */
export function sse(res: http.ServerResponse, event: string | null, data: unknown): void {
  res.write(`${event ? `event: ${event}\n` : ''}data: ${JSON.stringify(data)}\n\n`)
}

export const randomId = (prefix: string, length = 24) =>
  prefix + Array.from({length}, () => 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789'[Math.floor(Math.random() * 62)]).join('')

/**
 * A reply's text sent in pieces (`chunks` of a text reply, else 2), spread
 * over its `durationMs`; false when the client went away meanwhile.
 */
export async function streamPieces(text: string, reply: Reply, signal: AbortSignal, send: (piece: string) => void): Promise<boolean> {
  const pieces = splitText(text, reply.kind === 'text' ? (reply.chunks ?? 3) : 2)
  const pause = reply.kind === 'text' && reply.durationMs ? reply.durationMs / pieces.length : 0
  for (const piece of pieces) {
    if (pause) await sleep(pause, signal)
    if (signal.aborted) return false
    send(piece)
  }
  return true
}
