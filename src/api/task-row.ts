// The few fields of a task's `list --json` view that a table row shows, cut
// out of the view's bytes the derived index stores (state/index.ts) without
// parsing the whole object: at 100,000 tasks JSON.parse of every view (its
// runs, policies, env …) and the garbage it left were most of `list --all`.
// Each wanted value is what JSON.parse makes of its own bytes, so a row holds
// exactly what the parsed view would; anything unexpected (whitespace, a
// malformed view) returns null and the caller parses the view whole.

import {isFinalStatus} from '../state/record.js'
import {textOf, type IndexEntry} from '../state/index.js'
import type {CorruptTaskJson, TaskJson} from './task-json.js'

/** What the `list` table reads of a task: a TaskJson has all of it. */
export type TaskRow = Pick<
  TaskJson,
  | 'id'
  | 'name'
  | 'group'
  | 'status'
  | 'reason'
  | 'cause'
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
  | 'engineWait'
>

/**
 * The keys of a view up to the last one a row needs, in the order taskJson
 * writes them (a test pins it): a view whose keys come otherwise is parsed whole.
 */
export const VIEW_KEYS = [
  'id',
  'name',
  'group',
  'status',
  'desired',
  'reason',
  'cause',
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

/** stringEnd for a string only skipped: the loop without the bookkeeping (most of a view's bytes are skipped). */
function skipString(b: Uint8Array, p: number, end: number): number {
  for (let i = p + 1; i < end; i++) {
    const c = b[i]
    if (c === QUOTE) return i + 1
    if (c === BACKSLASH) i++
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
        i = skipString(b, i, end) - 1
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

const RUNS = VIEW_KEYS.indexOf('runs')
const RUNS_END = Buffer.from('],"policies":{')

/**
 * The index after the `runs` array at `p` (a third of a view, and most of
 * one with many runs), found without scanning it: `],"policies":{` cannot
 * lie inside a string (a quote there is escaped), so its first match is a
 * `policies` key after an array — and the only such key is the view's own,
 * the member after `runs` (a run has no `policies`). -1 when not found.
 */
function runsEnd(b: Buffer, p: number, end: number): number {
  if (b[p] !== OPEN_ARRAY) return -1
  if (b[p + 1] === CLOSE_ARRAY) return p + 2
  const at = b.indexOf(RUNS_END, p)
  return at > p && at < end && b[at - 1] === CLOSE_OBJECT ? at + 1 : -1
}

/** Whether b holds `what` at `at` — byte by byte: for these few bytes a native compare costs more than the loop. */
function bytesAt(b: Uint8Array, at: number, what: Uint8Array, limit: number): boolean {
  if (at + what.length > limit) return false
  for (let i = 0; i < what.length; i++) if (b[at + i] !== what[i]) return false
  return true
}

// Buffer's own decoders, without toString's look-up of the encoding on every call (100,000 views make a million calls).
type Decoders = Buffer & {latin1Slice?: (start: number, end: number) => string; utf8Slice?: (start: number, end: number) => string}
const fastDecoders = typeof (Buffer.prototype as Decoders).latin1Slice === 'function' && typeof (Buffer.prototype as Decoders).utf8Slice === 'function'
const latin1 = fastDecoders ? (b: Buffer, start: number, end: number) => (b as Decoders).latin1Slice!(start, end) : (b: Buffer, start: number, end: number) => b.toString('latin1', start, end)
const utf8 = fastDecoders ? (b: Buffer, start: number, end: number) => (b as Decoders).utf8Slice!(start, end) : (b: Buffer, start: number, end: number) => b.toString('utf8', start, end)

// Short strings seen before, by a hash of their bytes: a status, an executor,
// a signal, `exit 0`, a program's name repeat across most rows, and reusing
// them spares a decode and the garbage.
const SHORT = 20
const seen = new Map<number, string>()

/** The plain ASCII bytes b[start..end) as a string, one seen before where it can. */
function plainText(b: Buffer, start: number, end: number): string {
  const length = end - start
  if (length > SHORT) return latin1(b, start, end)
  let hash = length
  for (let i = start; i < end; i++) hash = (Math.imul(hash, 31) + b[i]) | 0
  const known = seen.get(hash)
  if (known !== undefined && known.length === length) {
    let same = true
    for (let i = 0; i < length; i++) {
      if (known.charCodeAt(i) !== b[start + i]) {
        same = false
        break
      }
    }
    if (same) return known
  }
  const text = latin1(b, start, end)
  if (seen.size < 4096) seen.set(hash, text)
  return text
}

/** The value at start..end as JSON.parse reads it, without its call for the common shapes. */
function valueOf(b: Buffer, start: number, end: number, plain: boolean): unknown {
  const first = b[start]
  if (first === QUOTE) return plain ? plainText(b, start + 1, end - 1) : JSON.parse(utf8(b, start, end))
  if (first === 0x6e && end - start === 4) return null // null
  if (first === 0x74 && end - start === 4) return true
  if (first === 0x66 && end - start === 5) return false
  if (first === OPEN_ARRAY) return plainStrings(b, start, end) ?? JSON.parse(utf8(b, start, end))
  if (first === OPEN_OBJECT) return JSON.parse(utf8(b, start, end))
  return integerAt(b, start, end) ?? JSON.parse(latin1(b, start, end)) // a number
}

/** A JSON integer of up to 15 digits (ids, pids, exit codes, milliseconds), or null for any other number. */
function integerAt(b: Buffer, start: number, end: number): number | null {
  const negative = b[start] === 0x2d
  const from = negative ? start + 1 : start
  if (end - from < 1 || end - from > 15 || (b[from] === 0x30 && end - from > 1)) return null
  let value = 0
  for (let i = from; i < end; i++) {
    const digit = b[i] - 0x30
    if (digit < 0 || digit > 9) return null
    value = value * 10 + digit
  }
  return negative ? -value : value
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
    out.push(plainText(b, p + 1, after - 1))
    if (b[after] === COMMA) p = after + 1
    else return b[after] === CLOSE_ARRAY && after + 1 === end ? out : null
  }
}

/**
 * The row fields of the view at b[start..end) (a JSON object), or null when
 * it is not compact JSON with the keys in taskJson's order (the caller parses
 * it whole). Reads up to the last key a row needs.
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
      const after = k === RUNS ? runsEnd(b, valueStart, end) : valueEnd(b, valueStart, end)
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
    group: v[2],
    status: v[3],
    reason: v[5],
    cause: v[6],
    exitCode: v[7],
    signal: v[8],
    pid: v[9],
    command: v[10],
    shell: v[11],
    startedAt: v[16],
    runtimeMs: v[18],
    agentInfo: v[22],
    checkpoint: v[23],
    executor: v[24],
    jobId: v[25],
    node: v[26],
    queue: v[27],
    position: v[31],
    queuePaused: v[32],
    attempt: v[33],
    retryMax: v[34],
    retryAt: v[35],
    // an indexed view is of an ended task: no engine holds it
    engineWait: null,
  }
}

/** An index entry's row: cut out of its stored view (the caller checked it has one), or (a view of another shape) the view parsed whole. */
export function viewRow(entry: IndexEntry): TaskRow {
  const view = textOf(entry, 'view')!
  return rowOfView(view, 0, view.length) ?? (JSON.parse(utf8(view, 0, view.length)) as TaskJson)
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
