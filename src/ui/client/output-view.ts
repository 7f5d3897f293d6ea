// A task's output in the page: streamed live from the server (partial lines
// included), rendered in animation frames so a flood of output never blocks
// the page, and bounded: past MAX_SHOWN characters the oldest chunks leave
// the page, and "earlier output" pages them back in from the server on
// demand. So a 10 MB log scrolls like a small one.

import {AnsiRenderer} from './ansi.js'
import {el} from './dom.js'
import {getJson, setLive, type OutputPage} from './net.js'

/** Characters kept in the page; beyond it the oldest chunks are dropped (and can be paged back in). */
const MAX_SHOWN = 1_000_000
/** How much earlier output one click brings back. */
const EARLIER_BYTES = 256 * 1024
/** A line still being written past this many characters goes on in a new block. */
const OPEN_MAX = 64 * 1024
/** Lines the page starts with: the rest is a click away. */
const INITIAL_TAIL = 1000

const utf8Length = (text: string) => new TextEncoder().encode(text).length

interface Shown {
  node: HTMLElement
  chars: number
  end: number
}

export class OutputView {
  readonly root: HTMLElement
  private readonly pre = el('pre', {className: 'output', attrs: {id: 'output', tabindex: '0'}})
  private readonly earlier = el('button', {attrs: {type: 'button', id: 'earlier'}}, 'earlier output')
  private readonly renderer = new AnsiRenderer()
  private readonly shown: Shown[] = []
  /** the last block, while its last line is still being written. */
  private open: Shown | null = null
  private chars = 0
  /**
   * "earlier output" raises the bound by what it brought back, so a click is
   * not undone by the next frame; the oldest chunks still leave first, so the
   * page always shows one unbroken stretch of the log and `first` stays true.
   */
  private extraChars = 0
  /** byte offset of the first byte shown, once known. */
  private first: number | null = null
  /** byte offset just past the last byte received. */
  private end = 0
  private queue: {text: string; end: number | null}[] = []
  private frame = 0
  private source: EventSource | null = null
  private ended = false

  constructor(
    private readonly id: number,
    private readonly on: {
      /** more output arrived. */
      output: () => void
      /** the task's record changed (the feed carries its own task's changes). */
      changed: () => void
      removed: () => void
      /** the feed ended: the task ended, or was removed. */
      end: (outcome: string) => void
    },
  ) {
    this.earlier.hidden = true
    this.earlier.addEventListener('click', () => void this.loadEarlier())
    this.root = el('section', {className: 'output-view'}, this.earlier, this.pre)
  }

  start(): void {
    this.connect(`/api/tasks/${this.id}/stream?tail=${INITIAL_TAIL}`)
  }

  close(): void {
    this.source?.close()
    cancelAnimationFrame(this.frame)
  }

  private connect(url: string): void {
    const source = new EventSource(url)
    this.source = source
    source.addEventListener('open', () => setLive('live'))
    source.addEventListener('output', (event) => {
      const chunk = JSON.parse((event as MessageEvent<string>).data) as {offset: number | null; end: number | null; text: string}
      if (this.first === null && chunk.offset !== null) {
        this.first = chunk.offset
        this.earlier.hidden = chunk.offset === 0
      }
      this.queue.push({text: chunk.text, end: chunk.end})
      if (!this.frame) this.frame = requestAnimationFrame(() => this.flush())
      this.on.output()
    })
    source.addEventListener('task', () => this.on.changed())
    source.addEventListener('removed', () => this.on.removed())
    source.addEventListener('reset', () => {
      this.queue.push({text: '\n[drover: the log was truncated or replaced; reading it again from the start]\n', end: 0})
    })
    source.addEventListener('end', (event) => {
      this.ended = true
      source.close()
      this.on.end((JSON.parse((event as MessageEvent<string>).data) as {outcome: string}).outcome)
    })
    // EventSource would reconnect to the same URL and replay: reconnect from where we are instead.
    // Only while the task is still there: a removed task (or a dashboard that was stopped) ends it.
    source.addEventListener('error', () => {
      source.close()
      if (this.ended) return
      setLive('reconnecting')
      setTimeout(() => {
        getJson(`/api/tasks/${this.id}`).then(
          () => this.connect(`/api/tasks/${this.id}/stream?offset=${this.end}`),
          () => setLive('ended'),
        )
      }, 1000)
    })
  }

  private flush(): void {
    this.frame = 0
    const atBottom = this.pre.scrollTop + this.pre.clientHeight >= this.pre.scrollHeight - 4
    let text = ''
    for (const chunk of this.queue.splice(0)) {
      text += chunk.text
      if (chunk.end !== null) this.end = chunk.end
    }
    // Whole lines close the open block; what follows the last newline opens the next.
    // (Its byte length is the decoded text's: exact but for invalid UTF-8 in a partial line.)
    const cut = text.lastIndexOf('\n') + 1
    if (cut > 0) {
      this.appendToOpen(text.slice(0, cut), this.end - utf8Length(text.slice(cut)))
      this.open = null
    }
    if (cut < text.length) this.appendToOpen(text.slice(cut), this.end)
    while (this.chars > MAX_SHOWN + this.extraChars && this.shown.length > 1) {
      const dropped = this.shown.shift()!
      dropped.node.remove()
      this.chars -= dropped.chars
      this.first = dropped.end
      this.earlier.hidden = false
    }
    if (atBottom) this.pre.scrollTop = this.pre.scrollHeight
  }

  /**
   * Output goes into blocks of whole lines, one per frame: dropping the
   * oldest block or adding one lays out only that block, where one run of
   * inline text would be laid out whole (a megabyte) every frame. A line
   * still being written stays in the open last block, which is closed anyway
   * past OPEN_MAX characters (a line that long wraps there).
   */
  private appendToOpen(text: string, end: number): void {
    let open = this.open
    if (!open || open.chars > OPEN_MAX) {
      open = {node: el('span', {className: 'chunk'}), chars: 0, end}
      this.pre.append(open.node)
      this.shown.push(open)
      this.open = open
    }
    open.node.append(this.renderer.render(text))
    open.chars += text.length
    open.end = end
    this.chars += text.length
  }

  /** Pages in the output just before what is shown, starting at a line's beginning. */
  private async loadEarlier(): Promise<void> {
    const until = this.first ?? 0
    if (until === 0) return
    let from = Math.max(0, until - EARLIER_BYTES)
    let text = ''
    let at = from
    while (at < until) {
      const page = await getJson<OutputPage>(`/api/tasks/${this.id}/output?offset=${at}&maxBytes=${until - at}`)
      if (page.end <= at) break
      text += page.text
      at = page.end
    }
    if (from > 0) {
      const newline = text.indexOf('\n')
      if (newline !== -1) {
        from += utf8Length(text.slice(0, newline + 1))
        text = text.slice(newline + 1)
      }
    }
    // New output may have pushed what was first out meanwhile: what was read joins the page only without a gap.
    if (this.first !== until) return
    const node = el('span', {className: 'chunk'}, new AnsiRenderer().render(text))
    const height = this.pre.scrollHeight
    this.pre.prepend(node)
    this.shown.unshift({node, chars: text.length, end: until})
    this.chars += text.length
    this.extraChars = Math.max(0, this.chars - MAX_SHOWN)
    this.pre.scrollTop += this.pre.scrollHeight - height
    this.first = from
    this.earlier.hidden = from === 0
  }
}
