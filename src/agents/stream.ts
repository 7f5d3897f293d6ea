// Reading an agent's own output as it grows: complete lines from output.log,
// folded into what the profile understands (session id, turns, cost, tokens),
// and for an agent that logs its tokens elsewhere (copilot), that log too.
// Reads at most a bounded chunk per call, so a flood of output never stalls
// the runner or costs it memory.

import {closeSync, openSync, readSync, statSync} from 'node:fs'
import {AgentEventReader} from './events.js'
import {profileOf} from './registry.js'
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

/** Where the agent's usage log is looked for, and from when its calls are this run's (profile.usageLog). */
export interface UsageLogSource {
  /** the worker's environment: the log lives under its HOME. */
  env: NodeJS.ProcessEnv
  /** the run's start (ms): calls logged before it were earlier runs'. */
  since: number
}

/** How often a usage log is looked at while stdout is quiet: its calls come with stdout events anyway. */
const USAGE_LOG_EVERY_MS = 1000

export class AgentStream {
  private readonly output: LineTail
  private readonly reader: AgentEventReader
  private readonly logPath: ((sessionId: string) => string) | null
  private log: {sessionId: string; tail: LineTail; lookedAt: number} | null = null
  private dirty = false
  private writtenAt = 0

  constructor(
    file: string,
    profile: AgentProfileName,
    /** where this run's output starts: earlier runs belong to earlier sessions. */
    offset: number,
    /** the session's totals before this run, and its id so far. */
    base: AgentUsage | null,
    sessionId: string | null,
    private readonly usageLog: UsageLogSource | null = null,
  ) {
    this.output = new LineTail(file, offset)
    this.reader = new AgentEventReader(profile, base, sessionId)
    const log = profileOf(profile)?.usageLog
    this.logPath = log && usageLog ? (id) => log.path(id, usageLog.env) : null
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
    let changed = false
    const lines = this.output.linesUpTo(size)
    for (const line of lines) changed = this.reader.fold(line.trim()) || changed
    if (this.readUsageLog(lines.length > 0, now)) changed = true
    if (changed) this.dirty = true
    if (!this.dirty) return null
    const persist = this.reader.current().sessionId !== sessionBefore || now - this.writtenAt >= WRITE_EVERY_MS
    if (persist) {
      this.dirty = false
      this.writtenAt = now
    }
    return {info: this.reader.current(), persist}
  }

  /** The usage log's new lines, once the session is known: when stdout moved, else at most every second. */
  private readUsageLog(outputMoved: boolean, now: number): boolean {
    const sessionId = this.reader.current().sessionId
    if (!this.logPath || !this.usageLog || sessionId === null) return false
    if (this.log?.sessionId !== sessionId) this.log = {sessionId, tail: new LineTail(this.logPath(sessionId), 0), lookedAt: 0}
    if (!outputMoved && now - this.log.lookedAt < USAGE_LOG_EVERY_MS) return false
    this.log.lookedAt = now
    let size: number
    try {
      size = statSync(this.log.tail.file).size
    } catch {
      return false // not written yet
    }
    let changed = false
    for (const line of this.log.tail.linesUpTo(size)) changed = this.reader.foldUsage(line.trim(), this.usageLog.since) || changed
    return changed
  }
}

/** Complete lines appended to a file since the last look, a bounded chunk at a time. */
class LineTail {
  private remainder = ''

  constructor(
    readonly file: string,
    private offset: number,
  ) {}

  linesUpTo(size: number): string[] {
    if (size < this.offset) {
      this.offset = 0 // truncated by someone: start over
      this.remainder = ''
    }
    if (size <= this.offset) return []
    const length = Math.min(size - this.offset, READ_CHUNK)
    const buffer = Buffer.alloc(length)
    let fd: number
    try {
      fd = openSync(this.file, 'r')
    } catch {
      return []
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
    return lines
  }
}
