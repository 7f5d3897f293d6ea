// The agent's readable transcript (what it said, → tool calls, ← results),
// rendered by the server with the same renderer as the MCP server and
// `logs`; read a page at a time from a byte cursor of the raw log, and read
// on when the output feed says more was written. Bounded like the output
// view: it opens on the last INITIAL_TAIL events, keeps at most MAX_LINES
// lines (and MAX_CHARS characters), and "older entries" pages earlier ones
// back in on demand — so an agent that ran all night does not fill the page.

import {el} from './dom.js'
import {getJson, type OutputPage} from './net.js'

/** Raw log lines (one event each) the view opens on: the rest is a click away. */
const INITIAL_TAIL = 1000
/** Transcript lines kept; beyond it the oldest leave the page (and can be paged back in). */
const MAX_LINES = 2000
/** Characters kept: an agent's message is one line however long, so lines alone do not bound the page. */
const MAX_CHARS = 1_000_000
/** How much earlier raw log one click brings back. */
const EARLIER_BYTES = 256 * 1024
/** The raw bytes read at a time while looking for where a line starts. */
const SEEK_BYTES = 64 * 1024

/** One page as shown (a block of whole lines, as in the output view): the raw byte range it was rendered from, and its text. */
interface Chunk {
  node: HTMLElement
  textNode: Text
  start: number
  end: number
  text: string
  lines: number
  /** its first lines were dropped: paging back in renders the whole range again. */
  cut: boolean
}

const countLines = (text: string) => text.split('\n').length - (text.endsWith('\n') ? 1 : 0)
const utf8Length = (text: string) => new TextEncoder().encode(text).length

function newChunk(start: number, end: number, text: string): Chunk {
  const textNode = document.createTextNode(text)
  return {node: el('span', {className: 'chunk'}, textNode), textNode, start, end, text, lines: countLines(text), cut: false}
}

export class TranscriptView {
  readonly root: HTMLElement
  private readonly pre = el('pre', {className: 'output transcript', attrs: {id: 'transcript', tabindex: '0'}})
  private readonly older = el('button', {attrs: {type: 'button', id: 'older-entries'}}, 'older entries')
  private readonly chunks: Chunk[] = []
  private lines = 0
  private chars = 0
  /**
   * "older entries" raises the bounds by what it brought back, so a click is
   * not undone at once; as new lines arrive the oldest still leave first, so
   * what is shown stays one unbroken stretch of the transcript.
   */
  private extraLines = 0
  private extraChars = 0
  /** raw offset to read on from; null until the first page (the tail) was read. */
  private cursor: number | null = null
  private reading = false
  private again = false
  private shown = false

  constructor(private readonly id: number) {
    this.older.hidden = true
    // one load at a time: a double click must not read the same entries twice
    this.older.addEventListener('click', () => {
      if (this.older.disabled) return
      this.older.disabled = true
      void this.loadOlder().finally(() => (this.older.disabled = false))
    })
    this.root = el('section', {className: 'output-view'}, this.older, this.pre)
  }

  show(): HTMLElement {
    this.shown = true
    this.poke()
    return this.root
  }

  /** New output was written: read on (at most one read at a time). */
  poke(): void {
    if (!this.shown) return
    if (this.reading) {
      this.again = true
      return
    }
    this.reading = true
    void this.readOn().finally(() => {
      this.reading = false
      if (this.again) {
        this.again = false
        this.poke()
      }
    })
  }

  private async readOn(): Promise<void> {
    for (;;) {
      const from = this.cursor === null ? `tail=${INITIAL_TAIL}` : `offset=${this.cursor}`
      const page = await getJson<OutputPage>(`/api/tasks/${this.id}/output?format=transcript&${from}`)
      if (page.reset) this.clear()
      if (page.text) this.append(page)
      this.cursor = page.end
      this.updateOlder()
      if (!page.more) return
    }
  }

  private append(page: OutputPage): void {
    const atBottom = this.pre.scrollTop + this.pre.clientHeight >= this.pre.scrollHeight - 4
    const chunk = newChunk(page.offset, page.end, page.text)
    this.pre.append(chunk.node)
    this.chunks.push(chunk)
    this.lines += chunk.lines
    this.chars += chunk.text.length
    this.trim()
    if (atBottom) this.pre.scrollTop = this.pre.scrollHeight
  }

  /** Drops the oldest lines past the bounds: whole chunks first, then whole lines of the oldest (its last line always stays). */
  private trim(): void {
    const maxLines = MAX_LINES + this.extraLines
    const maxChars = MAX_CHARS + this.extraChars
    while (this.lines > maxLines || this.chars > maxChars) {
      const oldest = this.chunks[0]
      if (this.chunks.length > 1 && (oldest.lines <= this.lines - maxLines || oldest.text.length <= this.chars - maxChars)) {
        this.chunks.shift()
        oldest.node.remove()
        this.lines -= oldest.lines
        this.chars -= oldest.text.length
        continue
      }
      let cut = 0
      let lines = 0
      while (this.lines - lines > maxLines || this.chars - cut > maxChars) {
        const newline = oldest.text.indexOf('\n', cut)
        if (newline === -1 || newline + 1 >= oldest.text.length) break
        cut = newline + 1
        lines++
      }
      if (cut > 0) {
        oldest.text = oldest.text.slice(cut)
        oldest.textNode.data = oldest.text
        oldest.lines -= lines
        oldest.cut = true
        this.lines -= lines
        this.chars -= cut
      }
      return
    }
  }

  private clear(): void {
    for (const chunk of this.chunks.splice(0)) chunk.node.remove()
    this.lines = this.chars = this.extraLines = this.extraChars = 0
  }

  private updateOlder(): void {
    const head = this.chunks[0]
    this.older.hidden = !(head ? head.cut || head.start > 0 : (this.cursor ?? 0) > 0)
  }

  /**
   * Renders the raw log just before what is shown, together with the first
   * chunk again (its first lines may have been dropped, now or while this
   * reads), from the start of a line: a transcript is rendered per event,
   * and half an event is not one.
   */
  private async loadOlder(): Promise<void> {
    const head = this.chunks[0]
    if (!head) return
    const to = head.end
    const from = await this.lineStartBefore(head.start)
    let text = ''
    let at = from
    while (at < to) {
      const page = await getJson<OutputPage>(`/api/tasks/${this.id}/output?format=transcript&offset=${at}&maxBytes=${to - at}`)
      if (page.end <= at || page.reset) return
      text += page.text
      at = page.end
    }
    // New output may have pushed the head out meanwhile: what was read joins what is shown only without a gap.
    const joined = this.chunks[0] === head ? 'replace' : this.chunks[0]?.start === to ? 'prepend' : null
    if (!joined) return
    const chunk = newChunk(from, to, text)
    const height = this.pre.scrollHeight
    if (joined === 'replace') {
      head.node.replaceWith(chunk.node)
      this.chunks[0] = chunk
      this.lines -= head.lines
      this.chars -= head.text.length
    } else {
      this.pre.prepend(chunk.node)
      this.chunks.unshift(chunk)
    }
    this.lines += chunk.lines
    this.chars += chunk.text.length
    this.extraLines = Math.max(0, this.lines - MAX_LINES)
    this.extraChars = Math.max(0, this.chars - MAX_CHARS)
    // the lines read stay where they were on screen
    this.pre.scrollTop += this.pre.scrollHeight - height
    this.updateOlder()
  }

  /** A raw offset at most EARLIER_BYTES before `until` (further back only for a line that long) where a line starts. */
  private async lineStartBefore(until: number): Promise<number> {
    let to = until
    for (;;) {
      const from = Math.max(0, to - EARLIER_BYTES)
      if (from === 0) return 0
      const start = await this.firstLineStart(from, to)
      if (start !== null && start < to) return start
      to = from
    }
  }

  /** Where the first line that starts in [from, to) starts, or null. */
  private async firstLineStart(from: number, to: number): Promise<number | null> {
    let at = from
    while (at < to) {
      const page = await getJson<OutputPage>(`/api/tasks/${this.id}/output?offset=${at}&maxBytes=${Math.min(SEEK_BYTES, to - at)}`)
      if (page.end <= at) return null
      const newline = page.text.indexOf('\n')
      // Counted back from the page's end: the bytes after a newline decode whole, even when `from` fell inside a character.
      if (newline !== -1) return page.end - utf8Length(page.text.slice(newline + 1))
      at = page.end
    }
    return null
  }
}
