// The agent's readable transcript (what it said, → tool calls, ← results),
// rendered by the server with the same renderer as the MCP server and
// `logs`; read a page at a time from a byte cursor, and read on when the
// output feed says more was written.

import {el} from './dom.js'
import {getJson, type OutputPage} from './net.js'

export class TranscriptView {
  private readonly pre = el('pre', {className: 'output transcript', attrs: {id: 'transcript'}})
  private cursor = 0
  private reading = false
  private again = false
  private shown = false

  constructor(private readonly id: number) {}

  show(): HTMLElement {
    this.shown = true
    this.poke()
    return this.pre
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
      const page = await getJson<OutputPage>(`/api/tasks/${this.id}/output?format=transcript&offset=${this.cursor}`)
      if (page.text) this.pre.append(page.text)
      this.cursor = page.end
      if (!page.more) return
    }
  }
}
