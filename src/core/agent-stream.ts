// Reading an agent's own output as it grows: complete lines from output.log,
// folded into what the profile understands (session id, turns, cost, tokens).
// Reads at most a bounded chunk per call, so a flood of output never stalls
// the runner or costs it memory.

import {closeSync, openSync, readSync} from 'node:fs'
import {emptyAgentInfo, readAgentLine} from './profiles.js'
import type {AgentInfo, AgentProfileName} from './record.js'

const READ_CHUNK = 4 * 1024 * 1024

export class AgentStream {
  private remainder = ''

  constructor(
    private readonly file: string,
    private readonly profile: AgentProfileName,
    /** where this run's output starts: earlier runs belong to earlier sessions. */
    private offset: number,
  ) {}

  /** Folds the lines written since the last call into `info`; null when nothing changed. */
  read(size: number, info: AgentInfo | null): AgentInfo | null {
    if (size < this.offset) {
      this.offset = 0 // truncated by someone: start over
      this.remainder = ''
    }
    if (size <= this.offset) return null
    const length = Math.min(size - this.offset, READ_CHUNK)
    const buffer = Buffer.alloc(length)
    let fd: number
    try {
      fd = openSync(this.file, 'r')
    } catch {
      return null
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
    let next: AgentInfo | null = null
    for (const line of lines) next = readAgentLine(this.profile, line.trim(), next ?? info ?? emptyAgentInfo()) ?? next
    return next
  }
}
