// The lines of one task's output a pane shows, in bounded memory: the last
// MAX_LINES lines (each cut to MAX_LINE_CHARS), plus the line being written
// now, shown before its newline comes. Text arrives in chunks that may end
// mid-line; an agent's lines are rendered as its transcript (the same wording
// as `logs --pretty`), others are cleaned of escapes so a task can only draw
// text.

import type {AgentProfileName} from '../api/values.js'
import {transcriptItems, transcriptLines, type TranscriptPaint} from '../api/transcript.js'
import {cleanLine} from './text.js'

/** Lines kept per pane: a few screens' worth to scroll back through; older ones are dropped. */
export const MAX_LINES = 5000
/** Characters kept of one line: more than any terminal is wide. */
export const MAX_LINE_CHARS = 4096
/** A line still being written keeps at most this much (a megabyte with no newline is not held whole). */
const MAX_PARTIAL_CHARS = 64 * 1024

export interface PaneOptions {
  /** show an agent's events as its transcript (else the raw lines). */
  pretty: boolean
  agent: AgentProfileName
  paint: TranscriptPaint
}

export class OutputPane {
  private lines: string[] = []
  /** index of the oldest kept line in `lines` (a ring kept as an array with a moving start). */
  private start = 0
  private partial = ''
  /** lines dropped off the top since the pane opened. */
  dropped = 0

  constructor(private readonly options: PaneOptions) {}

  /** Adds a chunk of output (any cut: mid-line, many lines). */
  append(text: string): void {
    let from = 0
    for (;;) {
      const newline = text.indexOf('\n', from)
      if (newline === -1) break
      const line = this.partial + text.slice(from, newline)
      this.partial = ''
      this.addLine(line)
      from = newline + 1
    }
    this.partial += text.slice(from)
    if (this.partial.length > MAX_PARTIAL_CHARS) this.partial = this.partial.slice(-MAX_PARTIAL_CHARS)
  }

  /** The output ended: a last line without its newline is a line all the same. */
  finish(): void {
    if (this.partial !== '') this.addLine(this.partial)
    this.partial = ''
  }

  /** Starts over (the log was truncated or replaced). */
  clear(): void {
    this.lines = []
    this.start = 0
    this.partial = ''
  }

  /** The lines to show, oldest first, the line being written last. */
  view(): string[] {
    const kept = this.start === 0 ? this.lines : this.lines.slice(this.start)
    const partial = this.partialLine()
    return partial === null ? kept : [...kept, partial]
  }

  get length(): number {
    return this.lines.length - this.start + (this.partialLine() === null ? 0 : 1)
  }

  private partialLine(): string | null {
    if (this.partial === '') return null
    // an agent's event is one JSON line: half of one is not worth showing raw in the transcript
    if (this.options.pretty && this.partial.trimStart().startsWith('{')) return null
    return cleanLine(this.partial.slice(0, MAX_LINE_CHARS))
  }

  private addLine(line: string): void {
    const rendered = this.options.pretty
      ? transcriptItems(this.options.agent, line).flatMap((item) => transcriptLines(item, {paint: this.options.paint, full: false}))
      : [cleanLine(line.length > MAX_LINE_CHARS ? line.slice(0, MAX_LINE_CHARS) : line)]
    for (const text of rendered) {
      const line = this.options.pretty && text.includes('\t') ? text.replace(/\t/g, '    ') : text
      this.lines.push(line.length > MAX_LINE_CHARS ? line.slice(0, MAX_LINE_CHARS) : line)
    }
    const excess = this.lines.length - this.start - MAX_LINES
    if (excess > 0) {
      this.start += excess
      this.dropped += excess
      // compact now and then, so dropping stays O(1) per line on average
      if (this.start > MAX_LINES) {
        this.lines = this.lines.slice(this.start)
        this.start = 0
      }
    }
  }
}
