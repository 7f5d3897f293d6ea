// One bounded read of a task's output at a byte cursor, without following:
// what a client that polls (an MCP tool call, a web page) needs to read a
// growing log piece by piece, with no byte lost or shown twice between calls.

import {closeSync, fstatSync, openSync, readSync} from 'node:fs'
import {renderTranscript} from '../agents/transcript.js'
import {isFinalStatus, type TaskRecord, type TaskStatus} from '../state/record.js'
import {taskPaths} from '../state/store.js'
import {completeUtf8Length, tailOffset} from './follow.js'

export interface OutputPage {
  id: number
  /** the task's status when the page was read (read before the file). */
  status: TaskStatus
  /** byte offset in output.log where `text` starts. */
  offset: number
  /** offset just past `text`: the cursor for the next read. */
  end: number
  /** output.log's size when it was read. */
  size: number
  text: string
  /** output was already there beyond `end` (the page hit its byte limit, or a line was still being written). */
  more: boolean
  /** the task has ended and every byte of its output has been read: nothing more will come. */
  complete: boolean
  /** the cursor was past the end of the log (it was truncated or replaced, e.g. by prune): reading restarted at 0. */
  reset: boolean
}

export interface PageOptions {
  /** byte offset to read from (a previous page's `end`). */
  offset?: number
  /** start at the last N lines instead (ignored when `offset` is given). */
  tail?: number
  /** at most this many bytes (default 64 KiB; at least 4, one character). */
  maxBytes?: number
  /** `transcript`: an agent's event stream rendered for reading (agents/transcript.ts); cursors stay byte offsets of the raw log. */
  format?: 'raw' | 'transcript'
}

export const DEFAULT_PAGE_BYTES = 64 * 1024

/**
 * Reads from the cursor to the end of the log, up to `maxBytes`. While the
 * task runs, a page ends after its last newline so lines stay whole; a page
 * with no newline at all (a prompt, one huge line) is cut at a character
 * boundary instead, and the next page continues from there. The record is
 * read before the file: if it says the task has ended, the worker is gone and
 * the bytes read are the last there will be.
 */
export function readOutputPage(stateDir: string, record: TaskRecord, opts: PageOptions = {}): OutputPage {
  const file = taskPaths(stateDir, record.id).output
  const ended = isFinalStatus(record.status)
  // Room for one whole character at least, or a page could never move on.
  const maxBytes = Math.max(4, opts.maxBytes ?? DEFAULT_PAGE_BYTES)
  let offset = opts.offset ?? (opts.tail === undefined ? 0 : tailOffset(file, opts.tail))
  let fd: number
  try {
    fd = openSync(file, 'r')
  } catch {
    return {id: record.id, status: record.status, offset: 0, end: 0, size: 0, text: '', more: false, complete: ended, reset: offset > 0}
  }
  try {
    const size = fstatSync(fd).size
    const reset = offset > size
    if (reset) offset = 0
    const length = Math.min(size - offset, maxBytes)
    const buffer = Buffer.alloc(length)
    const read = length > 0 ? readSync(fd, buffer, 0, length, offset) : 0
    let usable = read
    const atEnd = offset + read >= size
    if (!(ended && atEnd)) {
      const lastNewline = buffer.lastIndexOf(10, read - 1)
      usable = lastNewline !== -1 && read > 0 ? lastNewline + 1 : completeUtf8Length(buffer, read)
    }
    const end = offset + usable
    return {
      id: record.id,
      status: record.status,
      offset,
      end,
      size,
      text: opts.format === 'transcript' ? renderTranscript(buffer.subarray(0, usable).toString('utf8'), record.agent) : buffer.subarray(0, usable).toString('utf8'),
      more: end < size,
      complete: ended && end >= size,
      reset,
    }
  } finally {
    closeSync(fd)
  }
}
