// Reading an agent's own output as it grows: complete lines from output.log,
// folded into what the profile understands (session id, turns, cost, tokens).
// Reads at most a bounded chunk per call, so a flood of output never stalls
// the runner or costs it memory.

import {closeSync, openSync, readSync} from 'node:fs'
import {AgentEventReader} from './events.js'
import type {AgentInfo, AgentProfileName, AgentUsage} from '../state/record.js'

const READ_CHUNK = 4 * 1024 * 1024
// What the stream tells is written to the record at most this often: a chatty
// agent must not turn into a stream of record rewrites. A new session id is
// written at once: it is what makes the task resumable.
const WRITE_EVERY_MS = 1000

export interface AgentRead {
  info: AgentInfo
  /** time to write it to the record (a new session id, or the last write is old enough). */
  persist: boolean
}

export class AgentStream {
  private remainder = ''
  private readonly reader: AgentEventReader
  private dirty = false
  private writtenAt = 0

  constructor(
    private readonly file: string,
    profile: AgentProfileName,
    /** where this run's output starts: earlier runs belong to earlier sessions. */
    private offset: number,
    /** the session's totals before this run, and its id so far. */
    base: AgentUsage | null,
    sessionId: string | null,
  ) {
    this.reader = new AgentEventReader(profile, base, sessionId)
  }

  /** What has been read so far (before anything: the session id and totals it started with). */
  current(): AgentInfo {
    return this.reader.current()
  }

  /** The session id drover gave the agent at launch (copilot names it only at the end). */
  presetSession(id: string): void {
    this.reader.presetSession(id)
  }

  /** A tool call has started and not finished, as far as the stream has been read. */
  toolInFlight(): boolean {
    return this.reader.toolInFlight()
  }

  /** Folds the lines written since the last call; null when there is nothing new to keep or write. */
  read(size: number, now = Date.now()): AgentRead | null {
    const sessionBefore = this.reader.current().sessionId
    if (this.fold(size)) this.dirty = true
    if (!this.dirty) return null
    const persist = this.reader.current().sessionId !== sessionBefore || now - this.writtenAt >= WRITE_EVERY_MS
    if (persist) {
      this.dirty = false
      this.writtenAt = now
    }
    return {info: this.reader.current(), persist}
  }

  private fold(size: number): boolean {
    if (size < this.offset) {
      this.offset = 0 // truncated by someone: start over
      this.remainder = ''
    }
    if (size <= this.offset) return false
    const length = Math.min(size - this.offset, READ_CHUNK)
    const buffer = Buffer.alloc(length)
    let fd: number
    try {
      fd = openSync(this.file, 'r')
    } catch {
      return false
    }
    let read = 0
    try {
      read = readSync(fd, buffer, 0, length, this.offset)
    } finally {
      closeSync(fd)
    }
    this.offset += read
    const lines = (this.remainder + buffer.toString('utf8', 0, read)).split('\n')
    this.remainder = lines.pop() ?? ''
    // A "line" longer than a chunk is no event we could use: drop it rather than grow.
    if (this.remainder.length > READ_CHUNK) this.remainder = ''
    let changed = false
    for (const line of lines) changed = this.reader.fold(line.trim()) || changed
    return changed
  }
}
