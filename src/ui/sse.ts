// The two live feeds, as server-sent events: changes to the task list
// (Drover.events, the same wake-up as `logs -f`) and one task's output as it
// is written (Drover.followOutput). Both end when the browser goes away; a
// slow browser slows the output feed down (backpressure), it never drops or
// reorders bytes, since every chunk carries the byte offsets it covers.

import type {IncomingMessage, ServerResponse} from 'node:http'
import type {Drover, TaskRef} from '../api/drover.js'
import type {EventHub} from './hub.js'
import {taskRow} from './rows.js'

/** A comment line now and then, so proxies and the browser keep the stream open. */
const HEARTBEAT_MS = 15_000
/** One event's worth of output: big enough to move fast, small enough to render in one frame. */
const MAX_EVENT_BYTES = 64 * 1024

interface Feed {
  /** writes an event and waits until the socket takes more (backpressure). */
  send: (event: string, data: unknown) => Promise<void>
  /** writes an event without waiting: for small, rare ones. */
  push: (event: string, data: unknown) => void
  signal: AbortSignal
  end: () => void
}

function openFeed(req: IncomingMessage, res: ServerResponse, closing: AbortSignal): Feed {
  const aborter = new AbortController()
  const abort = () => aborter.abort()
  req.on('close', abort)
  res.on('close', abort)
  closing.addEventListener('abort', abort)
  res.writeHead(200, {'Content-Type': 'text/event-stream; charset=utf-8', Connection: 'keep-alive'})
  res.write(': open\n\n')
  const heartbeat = setInterval(() => res.write(': ping\n\n'), HEARTBEAT_MS)
  aborter.signal.addEventListener('abort', () => {
    clearInterval(heartbeat)
    closing.removeEventListener('abort', abort)
    res.end()
  })
  return {
    signal: aborter.signal,
    async send(event, data) {
      if (aborter.signal.aborted) return
      if (res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`)) return
      await new Promise<void>((resolve) => {
        res.once('drain', resolve)
        aborter.signal.addEventListener('abort', () => resolve(), {once: true})
      })
    },
    push(event, data) {
      if (!aborter.signal.aborted) res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`)
    },
    end: abort,
  }
}

/** Every change to the state dir's tasks, as `task` (created or changed) and `removed` events, until the browser goes. */
export async function taskEvents(hub: EventHub, req: IncomingMessage, res: ServerResponse, closing: AbortSignal): Promise<void> {
  const feed = openFeed(req, res, closing)
  // Pushed without waiting for a slow browser: these events are small and
  // rare, and one tab must not hold up the others sharing the watch.
  const unsubscribe = hub.subscribe((event) => {
    if (event.type === 'removed') feed.push('removed', {id: event.id})
    else if (event.type !== 'ended') feed.push('task', taskRow(event.task))
  })
  await new Promise<void>((resolve) => feed.signal.addEventListener('abort', () => resolve(), {once: true}))
  unsubscribe()
}

/**
 * A task's output from `offset` (or its last `tail` lines) as `output`
 * events `{offset, end, text}`, the task's changes meanwhile as `task` and
 * `removed` events, then one `end` event when the task has ended or was
 * removed. An event's text is exactly the bytes from `offset` to
 * `end`: a character split between two writes is held back until it is
 * whole, so a page that reconnects from the last `end` it saw never gets
 * half a character.
 */
export async function outputEvents(
  drover: Drover,
  hub: EventHub,
  ref: TaskRef,
  from: {offset?: number; tail?: number},
  req: IncomingMessage,
  res: ServerResponse,
  closing: AbortSignal,
): Promise<void> {
  const start = await drover.outputStart(ref, from)
  const feed = openFeed(req, res, closing)
  // The task's own changes ride along, so its page needs no second feed:
  // a browser keeps six connections to a host, and each held feed is one.
  const unsubscribe = hub.subscribe((event) => {
    if (event.id !== start.id) return
    if (event.type === 'removed') feed.push('removed', {id: event.id})
    else if (event.type !== 'ended') feed.push('task', taskRow(event.task))
  })
  // bytes of a character not yet whole, and where they start in the log
  let held = Buffer.alloc(0)
  let heldAt = start.offset
  const send = async (bytes: Buffer, offset: number) => {
    for (let at = 0; at < bytes.length; at += MAX_EVENT_BYTES) {
      const piece = bytes.subarray(at, at + MAX_EVENT_BYTES)
      await feed.send('output', {offset: offset + at, end: offset + at + piece.length, text: piece.toString('utf8')})
    }
  }
  try {
    const result = await drover.followOutput(ref, {
      offset: start.offset,
      signal: feed.signal,
      onReset: async (reason) => {
        held = Buffer.alloc(0)
        await feed.send('reset', {reason})
      },
      write: async (chunk, offset) => {
        const bytes = held.length > 0 ? Buffer.concat([held, chunk]) : chunk
        const whole = completeUtf8Length(bytes)
        held = Buffer.from(bytes.subarray(whole))
        heldAt = offset + chunk.length - held.length
        await send(bytes.subarray(0, whole), offset - (bytes.length - chunk.length))
      },
    })
    if (held.length > 0 && result.outcome === 'ended') await send(held, heldAt)
    await feed.send('end', result.outcome === 'ended' ? {outcome: 'ended', task: taskRow(result.task)} : {outcome: result.outcome})
  } finally {
    unsubscribe()
    feed.end()
  }
}

/** How many leading bytes hold whole UTF-8 characters: a sequence cut at the end is left out. */
export function completeUtf8Length(bytes: Buffer): number {
  for (let back = 1; back <= Math.min(3, bytes.length); back++) {
    const byte = bytes[bytes.length - back]
    if ((byte & 0xc0) === 0x80) continue // a continuation byte: look further back
    const needed = byte >= 0xf8 ? 1 : byte >= 0xf0 ? 4 : byte >= 0xe0 ? 3 : byte >= 0xc0 ? 2 : 1
    return needed > back ? bytes.length - back : bytes.length
  }
  return bytes.length
}
