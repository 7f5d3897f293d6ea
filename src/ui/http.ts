// Small helpers for answering over node:http: JSON in and out, and drover's
// errors as HTTP statuses (the exit code goes along, so the page can say
// what the CLI would).

import type {IncomingMessage, ServerResponse} from 'node:http'
import {DroverError, ExitCode} from '../api/values.js'

/** Bodies are small forms; anything bigger is not ours. */
const MAX_BODY_BYTES = 64 * 1024

const STATUS_OF_EXIT: Record<number, number> = {
  [ExitCode.usage]: 400,
  [ExitCode.notFound]: 404,
  [ExitCode.conflict]: 409,
}

export class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
    /** what to do instead, sent beside the error. */
    readonly hint?: string,
  ) {
    super(message)
  }
}

export function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body)
  res.writeHead(status, {'Content-Type': 'application/json; charset=utf-8', 'Content-Length': Buffer.byteLength(text)})
  res.end(text)
}

export function sendError(res: ServerResponse, error: unknown): void {
  if (res.headersSent) {
    res.destroy()
    return
  }
  if (error instanceof HttpError) return sendJson(res, error.status, error.hint === undefined ? {error: error.message} : {error: error.message, hint: error.hint})
  if (error instanceof DroverError) return sendJson(res, STATUS_OF_EXIT[error.exitCode] ?? 500, {error: error.message, exitCode: error.exitCode})
  sendJson(res, 500, {error: error instanceof Error ? error.message : String(error)})
}

export async function readJsonBody(req: IncomingMessage): Promise<Record<string, unknown>> {
  if (!/^application\/json\b/i.test(req.headers['content-type'] ?? '')) throw new HttpError(415, 'send application/json')
  const chunks: Buffer[] = []
  let size = 0
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length
    if (size > MAX_BODY_BYTES) throw new HttpError(413, 'request body too large')
    chunks.push(chunk)
  }
  if (size === 0) return {}
  let body: unknown
  try {
    body = JSON.parse(Buffer.concat(chunks).toString('utf8'))
  } catch {
    throw new HttpError(400, 'the body is not JSON')
  }
  if (body === null || typeof body !== 'object' || Array.isArray(body)) throw new HttpError(400, 'the body must be a JSON object')
  return body as Record<string, unknown>
}

/** A non-negative integer query parameter, or undefined when absent. */
export function intParam(url: URL, name: string): number | undefined {
  const raw = url.searchParams.get(name)
  if (raw === null || raw === '') return undefined
  if (!/^\d+$/.test(raw)) throw new HttpError(400, `${name} must be a non-negative integer`)
  return Number(raw)
}
