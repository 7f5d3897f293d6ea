// Follows one task's output into an OutputPane through the API's follow()
// (the same reader as `logs -f`), from its last lines, until the task ends,
// another task is selected, or top quits. One follower at a time: moving the
// selection aborts the old one, so scrolling through the list never leaves
// readers behind.

import type {Drover} from '../api/drover.js'
import type {AgentProfileName} from '../api/values.js'
import type {TranscriptPaint} from '../api/transcript.js'
import {OutputPane} from './output-pane.js'

/** Lines of the log read when a task is selected: enough to fill a tall pane and some to scroll back. */
export const START_LINES = 500

export class Follower {
  readonly pane: OutputPane
  private readonly aborter = new AbortController()
  /** still reading (false once the task ended, was removed, or the follow failed). */
  live = true
  error: string | null = null

  constructor(
    private readonly drover: Drover,
    readonly id: number,
    readonly pretty: boolean,
    agent: AgentProfileName,
    paint: TranscriptPaint,
    private readonly changed: () => void,
  ) {
    this.pane = new OutputPane({pretty, agent, paint})
    void this.run()
  }

  stop(): void {
    this.aborter.abort()
  }

  private async run(): Promise<void> {
    try {
      const following = this.drover.follow(this.id, {tail: START_LINES, signal: this.aborter.signal})
      for (;;) {
        const next = await following.next()
        if (this.aborter.signal.aborted) return
        if (next.done) break
        this.pane.append(next.value.text)
        this.changed()
      }
      this.pane.finish()
    } catch (error) {
      if (!this.aborter.signal.aborted) this.error = (error as Error).message
    } finally {
      this.live = false
      if (!this.aborter.signal.aborted) this.changed()
    }
  }
}
