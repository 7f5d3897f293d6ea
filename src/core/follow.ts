// Reading a task's output: the last N lines, and following it like `tail -F`
// until the task ends. Works on bytes, so a multi-byte character split across
// two reads is never mangled, and re-opens the file on every read so a
// truncated or replaced log is noticed.

import {closeSync, existsSync, fstatSync, openSync, readSync} from 'node:fs'
import {isFinalStatus, type TaskRecord} from './record.js'
import {reconcile} from './reconcile.js'
import {fileSize, readRecord, taskPaths} from './store.js'
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

export type Sink = (chunk: Buffer) => Promise<void> | void

interface ReadState {
  offset: number
  inode: number | null
}

/**
 * Reads what was appended since `state.offset`. With `whole` false it stops at
 * the last newline, leaving a partial line for the next read. Returns what it
 * noticed about the file so the caller can tell the user.
 */
function readNew(
  file: string,
  state: ReadState,
  whole: boolean,
): {data: Buffer | null; reset: 'truncated' | 'replaced' | null; more: boolean} {
  let fd: number
  try {
    fd = openSync(file, 'r')
  } catch {
    return {data: null, reset: null, more: false}
  }
  try {
    const stats = fstatSync(fd)
    let reset: 'truncated' | 'replaced' | null = null
    if (state.inode !== null && stats.ino !== state.inode) {
      reset = 'replaced'
      state.offset = 0
    } else if (stats.size < state.offset) {
      reset = 'truncated'
      state.offset = 0
    }
    state.inode = stats.ino
    const available = stats.size - state.offset
    if (available <= 0) return {data: null, reset, more: false}
    const length = Math.min(available, MAX_READ)
    const buffer = Buffer.alloc(length)
    const read = readSync(fd, buffer, 0, length, state.offset)
    let usable = read
    // A bounded read that stops short of the end may split a line: cut it like a live one.
    if (!whole || length < available) {
      const lastNewline = buffer.lastIndexOf(10, read - 1)
      usable = lastNewline === -1 ? (read > MAX_HELD ? read : 0) : lastNewline + 1
    }
    state.offset += usable
    return {data: usable > 0 ? buffer.subarray(0, usable) : null, reset, more: usable > 0 && state.offset < stats.size}
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
  /** told when the log was truncated or replaced under us. */
  notice?: (message: string) => void
  signal?: AbortSignal
  pollMs?: number
}

const RUNNER_CHECK_MS = 1000

/**
 * Follows output until the task reaches a final status, then does one last
 * read (the worker is gone by then, so nothing more will come) and returns.
 * Wakes on fs.watch for low latency and on a short timer because fs.watch
 * misses events and follows the inode rather than the name.
 */
export async function followTask(options: FollowOptions): Promise<FollowEnd> {
  const paths = taskPaths(options.stateDir, options.id)
  const state: ReadState = {offset: options.offset, inode: null}
  const pollMs = options.pollMs ?? 100
  const wakeup = new Wakeup().watch([paths.output, paths.dir])
  options.signal?.addEventListener('abort', wakeup.wake)
  let lastRunnerCheck = Date.now()
  const emit = async (whole: boolean) => {
    for (;;) {
      const {data, reset, more} = readNew(paths.output, state, whole)
      if (reset) options.notice?.(`output.log was ${reset}; reading it from the start`)
      if (data) await options.write(data)
      if (!more) return
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
        await emit(true)
        return {outcome: 'ended', record}
      }
      await emit(false)
      await wakeup.sleep(pollMs)
    }
  } finally {
    wakeup.close()
    options.signal?.removeEventListener('abort', wakeup.wake)
  }
}
