// A task's output for front-ends: what is there now (whole, the last N lines,
// or from a byte offset), and following it as it grows until the task ends.
// Offsets are bytes of output.log, so a reader that stopped can carry on
// exactly where it was, from any process.

import {closeSync, createReadStream, fstatSync, openSync, readSync, type ReadStream} from 'node:fs'
import {DroverError, ExitCode} from '../base/errors.js'
import {signalNumber} from '../platform/platform.js'
import {taskExitCode, type TaskRecord} from '../state/record.js'
import {taskPaths} from '../state/store.js'
import {workerAlive} from '../tasks/reconcile.js'
import {loadTask} from '../tasks/read.js'
import {taskJson, type TaskJson} from './task-json.js'

/** Where reading starts: a byte `offset`, or the last `tail` lines; the whole log when neither is given. */
export interface OutputFrom {
  offset?: number
  tail?: number
}

/** Why output.log had to be read again from its start: it shrank, or a new file took its name. */
export type OutputReset = 'truncated' | 'replaced'

/** How following ended: the task ended (with drover's exit code for it), was removed, or the caller aborted. */
export type FollowResult =
  | {
      outcome: 'ended'
      task: TaskJson
      /** the task's code; 128 + the signal number when a signal ended it; 1 when it ended without one (lost). */
      exitCode: number
      /** a lost task's worker may still run: then it is true. */
      workerAlive: boolean
    }
  | {outcome: 'removed'; id: number}
  | {outcome: 'aborted'; id: number}

export interface FollowOutputOptions extends OutputFrom {
  /** gets every chunk with the offset of its first byte; following waits for a returned promise (backpressure). */
  write: (chunk: Buffer, offset: number) => Promise<void> | void
  /** told when output.log was truncated or replaced; offsets start again at 0. */
  onReset?: (reason: OutputReset) => Promise<void> | void
  signal?: AbortSignal
}

/** The task's id, even for a corrupt record (its output is still there); not-found (exit 3) otherwise. */
export async function outputTaskId(stateDir: string, ref: string): Promise<number> {
  const read = await loadTask(stateDir, ref)
  if (!read.ok && read.missing) throw new DroverError(`no such task: ${ref}`, ExitCode.notFound)
  return read.id
}

/** The byte offset reading starts at. */
export async function startOffset(stateDir: string, id: number, from: OutputFrom): Promise<number> {
  if (from.offset !== undefined) return from.offset
  if (from.tail === undefined) return 0
  const {tailOffset} = await import('../tasks/follow.js')
  return tailOffset(taskPaths(stateDir, id).output, from.tail)
}

/** The output from `offset` on, as it is now ('' when there is none yet). */
export function readOutput(stateDir: string, id: number, offset: number): Buffer {
  let fd: number
  try {
    fd = openSync(taskPaths(stateDir, id).output, 'r')
  } catch {
    return Buffer.alloc(0)
  }
  try {
    // Only the bytes asked for: the tail of a 1 GiB log is not read whole.
    const buffer = Buffer.alloc(Math.max(0, fstatSync(fd).size - offset))
    let got = 0
    while (got < buffer.length) {
      const n = readSync(fd, buffer, got, buffer.length - got, offset + got)
      if (n === 0) break
      got += n
    }
    return buffer.subarray(0, got)
  } finally {
    closeSync(fd)
  }
}

/** A stream of output.log from `offset`; it errors with ENOENT when the task has no output yet. */
export function outputStream(stateDir: string, id: number, offset: number): ReadStream {
  return createReadStream(taskPaths(stateDir, id).output, {start: offset})
}

export function followResultOf(record: TaskRecord): FollowResult & {outcome: 'ended'} {
  return {outcome: 'ended', task: taskJson(record), exitCode: taskExitCode(record, signalNumber), workerAlive: workerAlive(record)}
}

/** Follows output from `offset` until the task ends (after its last byte), it is removed, or `signal` aborts. */
export async function followOutput(stateDir: string, id: number, offset: number, opts: Omit<FollowOutputOptions, keyof OutputFrom>): Promise<FollowResult> {
  const {followTask} = await import('../tasks/follow.js')
  const end = await followTask({stateDir, id, offset, write: opts.write, onReset: opts.onReset, signal: opts.signal})
  return end.outcome === 'ended' ? followResultOf(end.record) : {outcome: end.outcome, id}
}
