// Reading a task's output: the last N lines, and following it like `tail -F`
// until the task ends. Works on bytes, so a multi-byte character split across
// two reads is never mangled, and re-opens the file on every read so a
// truncated or replaced log is noticed.

import {closeSync, existsSync, fstatSync, openSync, readSync} from 'node:fs'
import {isFinalStatus, type TaskRecord} from '../state/record.js'
import {reconcile} from './reconcile.js'
import {fileSize, readRecord, taskPaths} from '../state/store.js'
import {Wakeup} from './wakeup.js'

const CHUNK = 64 * 1024
// A line longer than this is passed on without waiting for its newline:
// holding back partial lines must never mean holding back unbounded memory.
const MAX_HELD = 1024 * 1024
// Reads are bounded so following a multi-gigabyte log never allocates it whole.
const MAX_READ = 4 * 1024 * 1024

/** Byte offset where the last `lines` lines of the file begin (0 when it has fewer). */
export function tailOffset(file: string, lines: number): number {
  if (lines <= 0) return fileSize(file) ?? 0
  let fd: number
  try {
    fd = openSync(file, 'r')
  } catch {
    return 0
  }
  try {
    const size = fstatSync(fd).size
    let position = size
    let newlines = 0
    const buffer = Buffer.alloc(CHUNK)
    // A final line without its newline still counts as a line.
    let skipLast = true
    while (position > 0) {
      const length = Math.min(CHUNK, position)
      position -= length
      readSync(fd, buffer, 0, length, position)
      for (let i = length - 1; i >= 0; i--) {
        if (buffer[i] !== 10) {
          skipLast = false
          continue
        }
        if (skipLast && position + i === size - 1) {
          skipLast = false
          continue
        }
        newlines++
        if (newlines === lines) return position + i + 1
      }
    }
    return 0
  } finally {
    closeSync(fd)
  }
}

/** Receives output in order; `offset` is where the chunk starts in output.log. A rejection ends following with that error. */
export type Sink = (chunk: Buffer, offset: number) => Promise<void> | void

export type ResetReason = 'truncated' | 'replaced'

/**
 * How long a line without its newline is held back. Most partial reads are a
 * line caught mid-write whose end follows within a millisecond, and holding
 * them keeps lines whole for `--json` readers; a prompt (`Continue? `) or a
 * `\r` progress bar never completes, so after this it is shown as it is. With
 * the 100 ms poll as the worst-case wake-up, a partial line shows within 150 ms.
 */
export const PARTIAL_LINE_MS = 50

interface ReadState {
  offset: number
  inode: number | null
}

/**
 * How much of what was read to pass on: `lines` stops after the last newline
 * (a partial line waits for the next read), `partial` takes everything but a
 * multi-byte character cut in two, `all` takes every byte (the task has ended).
 */
type ReadMode = 'lines' | 'partial' | 'all'

/** Length of `buffer` without a trailing UTF-8 sequence that is not complete yet. */
export function completeUtf8Length(buffer: Buffer, length: number): number {
  // Walk back over at most three continuation bytes to the lead byte of the last character.
  for (let i = length - 1; i >= Math.max(0, length - 4); i--) {
    const byte = buffer[i]
    if ((byte & 0xc0) === 0x80) continue
    const needed = byte >= 0xf0 ? 4 : byte >= 0xe0 ? 3 : byte >= 0xc0 ? 2 : 1
    return length - i >= needed ? length : i
  }
  return length
}

/**
 * Reads what was appended since `state.offset`, as `mode` says. Returns the
 * data with the offset where it starts, what it noticed about the file (so the
 * caller can tell the user), and how many bytes it left for later.
 */
function readNew(
  file: string,
  state: ReadState,
  mode: ReadMode,
): {data: Buffer | null; start: number; reset: ResetReason | null; left: number} {
  let fd: number
  try {
    fd = openSync(file, 'r')
  } catch {
    return {data: null, start: state.offset, reset: null, left: 0}
  }
  try {
    const stats = fstatSync(fd)
    let reset: ResetReason | null = null
    if (state.inode !== null && stats.ino !== state.inode) {
      reset = 'replaced'
      state.offset = 0
    } else if (stats.size < state.offset) {
      reset = 'truncated'
      state.offset = 0
    }
    state.inode = stats.ino
    const start = state.offset
    const available = stats.size - start
    if (available <= 0) return {data: null, start, reset, left: 0}
    const length = Math.min(available, MAX_READ)
    const buffer = Buffer.alloc(length)
    const read = readSync(fd, buffer, 0, length, start)
    let usable = read
    // A bounded read that stops short of the end may split a line: cut it like a live one.
    if (mode === 'lines' || (mode === 'partial' && length < available)) {
      const lastNewline = buffer.lastIndexOf(10, read - 1)
      usable = lastNewline !== -1 ? lastNewline + 1 : read > MAX_HELD ? completeUtf8Length(buffer, read) : 0
    } else if (mode === 'partial' || length < available) {
      usable = completeUtf8Length(buffer, read)
    }
    state.offset += usable
    return {data: usable > 0 ? buffer.subarray(0, usable) : null, start, reset, left: stats.size - state.offset}
  } finally {
    closeSync(fd)
  }
}

export type FollowEnd =
  | {outcome: 'ended'; record: TaskRecord}
  | {outcome: 'removed'}
  | {outcome: 'aborted'}

export interface FollowOptions {
  stateDir: string
  id: number
  /** byte offset to start from (see tailOffset). */
  offset: number
  write: Sink
  /** told when the log was truncated or replaced under us; offsets start again at 0. */
  onReset?: (reason: ResetReason) => Promise<void> | void
  signal?: AbortSignal
  pollMs?: number
  /** see PARTIAL_LINE_MS. */
  partialLineMs?: number
}

const RUNNER_CHECK_MS = 1000

/**
 * Follows output until the task reaches a final status, then does one last
 * read (the worker is gone by then, so nothing more will come) and returns.
 * Wakes on fs.watch for low latency and on a short timer because fs.watch
 * misses events and follows the inode rather than the name. A failing write
 * is never caught here: it ends following and reaches the caller.
 */
export async function followTask(options: FollowOptions): Promise<FollowEnd> {
  const paths = taskPaths(options.stateDir, options.id)
  const state: ReadState = {offset: options.offset, inode: null}
  const pollMs = options.pollMs ?? 100
  const partialLineMs = options.partialLineMs ?? PARTIAL_LINE_MS
  const wakeup = new Wakeup().watch([paths.output, paths.dir])
  options.signal?.addEventListener('abort', wakeup.wake)
  let lastRunnerCheck = Date.now()
  // The partial line held back: where it starts and since when it waits.
  let held = null as {offset: number; since: number} | null
  /** Passes on what `mode` allows; returns how many bytes it left for later. */
  const emit = async (mode: ReadMode): Promise<number> => {
    for (;;) {
      const {data, start, reset, left} = readNew(paths.output, state, mode)
      if (reset) await options.onReset?.(reset)
      if (data) await options.write(data, start)
      if (!data || left === 0) return left
    }
  }
  try {
    for (;;) {
      if (options.signal?.aborted) return {outcome: 'aborted'}
      const read = readRecord(options.stateDir, options.id)
      if (!read.ok && read.missing) return {outcome: 'removed'}
      let record = read.ok ? read.record : null
      if (record && !isFinalStatus(record.status) && Date.now() - lastRunnerCheck >= RUNNER_CHECK_MS) {
        lastRunnerCheck = Date.now()
        record = await reconcile(options.stateDir, record)
        // reconcile of a task pruned meanwhile reports it lost in memory: it is gone.
        if (!existsSync(paths.record)) return {outcome: 'removed'}
      }
      if (record && isFinalStatus(record.status)) {
        await emit('all')
        return {outcome: 'ended', record}
      }
      const left = await emit('lines')
      if (left === 0) held = null
      else if (held === null || held.offset !== state.offset) held = {offset: state.offset, since: Date.now()}
      else if (Date.now() - held.since >= partialLineMs) {
        // A prompt or progress bar: show it now. The rest of its line is read
        // from the new offset later, so nothing is shown twice.
        await emit('partial')
        held = null
      }
      await wakeup.sleep(held === null ? pollMs : Math.min(pollMs, Math.max(1, held.since + partialLineMs - Date.now())))
    }
  } finally {
    wakeup.close()
    options.signal?.removeEventListener('abort', wakeup.wake)
  }
}
