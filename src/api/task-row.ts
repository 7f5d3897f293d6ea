// The few fields of a task's `list --json` view that a table row shows, cut
// out of the view's bytes the summary stores (state/summary-codec.ts) without
// parsing the whole object: at 100,000 tasks JSON.parse of every view (its
// runs, policies, env …) and the garbage it left were most of `list --all`.
// Each wanted value is what JSON.parse makes of its own bytes, so a row holds
// exactly what the parsed view would; anything unexpected (whitespace, a
// malformed view) returns null and the caller parses the view whole.

import {isFinalStatus} from '../state/record.js'
import type {SummaryEntry} from '../state/summary-codec.js'
import type {CorruptTaskJson, TaskJson} from './task-json.js'

/** What the `list` table reads of a task: a TaskJson has all of it. */
export type TaskRow = Pick<
  TaskJson,
  | 'id'
  | 'name'
  | 'status'
  | 'reason'
  | 'exitCode'
  | 'signal'
  | 'pid'
  | 'command'
  | 'shell'
  | 'startedAt'
  | 'runtimeMs'
  | 'agentInfo'
  | 'checkpoint'
  | 'executor'
  | 'jobId'
  | 'node'
  | 'queue'
  | 'position'
  | 'queuePaused'
  | 'attempt'
  | 'retryMax'
  | 'retryAt'
>

/**
 * The keys of a view up to the last one a row needs, in the order taskJson
 * writes them (a test pins it): a view whose keys come otherwise is parsed whole.
 */
export const VIEW_KEYS = [
  'id',
  'name',
  'status',
  'desired',
  'reason',
  'exitCode',
  'signal',
  'pid',
  'command',
  'shell',
  'cwd',
  'env',
  'agent',
  'createdAt',
  'startedAt',
  'endedAt',
  'runtimeMs',
  'run',
  'runs',
  'policies',
  'agentInfo',
  'checkpoint',
  'executor',
  'jobId',
  'node',
  'queue',
  'priority',
  'after',
  'afterEnded',
  'position',
  'queuePaused',
  'attempt',
  'retryMax',
  'retryAt',
] as const

// Each key as the bytes that open its member: `"key":`.
const KEY_BYTES = VIEW_KEYS.map((key) => Buffer.from(`"${key}":`))
const SKIPPED = new Set(['desired', 'cwd', 'env', 'agent', 'createdAt', 'endedAt', 'run', 'runs', 'policies', 'priority', 'after', 'afterEnded'])
const WANTED = VIEW_KEYS.map((key) => !SKIPPED.has(key))

const QUOTE = 0x22
const BACKSLASH = 0x5c
const COMMA = 0x2c
const OPEN_OBJECT = 0x7b
const CLOSE_OBJECT = 0x7d
const OPEN_ARRAY = 0x5b
const CLOSE_ARRAY = 0x5d

// What a string scan found: whether the string had an escape or a byte above ASCII (then JSON.parse decodes it).
let plainString = true

/** The index after the string whose opening quote is at `p`, or -1. */
function stringEnd(b: Uint8Array, p: number, end: number): number {
  plainString = true
  for (let i = p + 1; i < end; i++) {
    const c = b[i]
    if (c === QUOTE) return i + 1
    if (c === BACKSLASH) {
      plainString = false
      i++
    } else if (c > 0x7e || c < 0x20) plainString = false
  }
  return -1
}

/** The index after the JSON value at `p` (compact JSON, as JSON.stringify writes it), or -1. */
function valueEnd(b: Uint8Array, p: number, end: number): number {
  const first = b[p]
  if (first === QUOTE) return stringEnd(b, p, end)
  if (first === OPEN_OBJECT || first === OPEN_ARRAY) {
    let depth = 0
    for (let i = p; i < end; i++) {
      const c = b[i]
      if (c === QUOTE) {
        i = stringEnd(b, i, end) - 1
        if (i < 0) return -1
      } else if (c === OPEN_OBJECT || c === OPEN_ARRAY) depth++
      else if (c === CLOSE_OBJECT || c === CLOSE_ARRAY) {
        if (--depth === 0) return i + 1
      }
    }
    return -1
  }
  // a number, true, false or null: up to the next comma or closing brace
  for (let i = p; i < end; i++) {
    const c = b[i]
    if (c === COMMA || c === CLOSE_OBJECT || c === CLOSE_ARRAY) return i === p ? -1 : i
    if (c <= 0x20) return -1
  }
  return -1
}

/** Whether b holds `what` at `at` — byte by byte: for these few bytes a native compare costs more than the loop. */
function bytesAt(b: Uint8Array, at: number, what: Uint8Array, limit: number): boolean {
  if (at + what.length > limit) return false
  for (let i = 0; i < what.length; i++) if (b[at + i] !== what[i]) return false
  return true
}

/** The value at start..end as JSON.parse reads it, without its call for the common shapes. */
function valueOf(b: Buffer, start: number, end: number, plain: boolean): unknown {
  const first = b[start]
  if (first === QUOTE) return plain ? b.toString('latin1', start + 1, end - 1) : JSON.parse(b.toString('utf8', start, end))
  if (first === 0x6e && end - start === 4) return null // null
  if (first === 0x74 && end - start === 4) return true
  if (first === 0x66 && end - start === 5) return false
  if (first === OPEN_ARRAY) return plainStrings(b, start, end) ?? JSON.parse(b.toString('utf8', start, end))
  if (first === OPEN_OBJECT) return JSON.parse(b.toString('utf8', start, end))
  return JSON.parse(b.toString('latin1', start, end)) // a number
}

/** An array of plain ASCII strings (a command line, mostly) read as JSON.parse would; null for any other array. */
function plainStrings(b: Buffer, start: number, end: number): string[] | null {
  const out: string[] = []
  let p = start + 1
  if (b[p] === CLOSE_ARRAY) return p + 1 === end ? out : null
  for (;;) {
    if (b[p] !== QUOTE) return null
    const after = stringEnd(b, p, end)
    if (after < 0 || !plainString) return null
    out.push(b.toString('latin1', p + 1, after - 1))
    if (b[after] === COMMA) p = after + 1
    else return b[after] === CLOSE_ARRAY && after + 1 === end ? out : null
  }
}

/**
 * The row fields of the view at b[start..end) (a JSON object), or null when
 * it is not compact JSON with the keys in taskJson's order (the caller parses
 * it whole). Reads up to the last key a row needs; cutLine (summary-codec.ts)
 * checked the view ends where its line says.
 */
export function rowOfView(b: Buffer, start: number, end: number): TaskRow | null {
  if (b[start] !== OPEN_OBJECT || b[end - 1] !== CLOSE_OBJECT) return null
  const values: unknown[] = new Array(KEY_BYTES.length)
  let p = start + 1
  try {
    for (let k = 0; k < KEY_BYTES.length; k++) {
      const key = KEY_BYTES[k]
      if (!bytesAt(b, p, key, end)) return null
      const valueStart = p + key.length
      const after = valueEnd(b, valueStart, end)
      if (after < 0) return null
      if (WANTED[k]) values[k] = valueOf(b, valueStart, after, plainString)
      if (b[after] !== COMMA) return null
      p = after + 1
    }
  } catch {
    return null
  }
  const v = values as any[]
  // One literal, so every row has the same shape.
  return {
    id: v[0],
    name: v[1],
    status: v[2],
    reason: v[4],
    exitCode: v[5],
    signal: v[6],
    pid: v[7],
    command: v[8],
    shell: v[9],
    startedAt: v[14],
    runtimeMs: v[16],
    agentInfo: v[20],
    checkpoint: v[21],
    executor: v[22],
    jobId: v[23],
    node: v[24],
    queue: v[25],
    position: v[29],
    queuePaused: v[30],
    attempt: v[31],
    retryMax: v[32],
    retryAt: v[33],
  }
}

/** A summary entry's row: cut out of its stored view, or (a view of another shape) the view parsed whole. */
export function viewRow(entry: SummaryEntry): TaskRow {
  return rowOfView(entry.bytes, entry.viewStart, entry.viewEnd) ?? (JSON.parse(entry.bytes.toString('utf8', entry.viewStart, entry.viewEnd)) as TaskJson)
}

/**
 * The live tasks and the `last` newest ended ones (corrupt ones count as
 * ended), as newestEnded (tasks/read.ts) picks them among record reads.
 */
export function newestEndedRows<T extends TaskRow | CorruptTaskJson>(rows: T[], last: number): {tasks: T[]; hidden: number} {
  const kept: boolean[] = new Array(rows.length).fill(false)
  let ended = 0
  let shown = 0
  for (let k = rows.length - 1; k >= 0; k--) {
    const status = rows[k].status
    if (status !== 'corrupt' && !isFinalStatus(status)) kept[k] = true
    else if (ended < last) {
      kept[k] = true
      ended++
    }
    if (kept[k]) shown++
  }
  return {tasks: rows.filter((_, k) => kept[k]), hidden: rows.length - shown}
}
