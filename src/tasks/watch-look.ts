// What a watch of the state dir (Drover.events(): top, the dashboard, MCP's
// subscriptions) has to look at on each pass. At 100,000 tasks a stat of every
// record four times a second is most of a core; what can change is far less:
//
// - the task folders present change only with the folder tasks/ itself, so its
//   listing is reused while tasks/ is unchanged (tasks-listing.ts);
// - a record that ended changes again only after its task's live hint is made
//   (live-index.ts: every run opens with its hint before its record), so an
//   ended task without a hint need not be looked at.
//
// Every SWEEP_MS (monotonic time) a pass looks at everything anyway, so a
// clock stepped back or a writer that broke the rule costs a late event, never
// a lost one. A state dir without an index is looked at whole, every pass.

import {liveHints} from '../state/live-index.js'
import {TasksListing} from '../state/index-listing.js'

const SWEEP_MS = 60_000

export interface Look {
  /** the ids in tasks/, ascending. */
  ids: Float64Array
  /** ids that must be looked at even when seen ended before; null: every one. */
  hinted: ReadonlySet<number> | null
  /** the live hints read for this pass, sweep or not (empty without an index). */
  hints: ReadonlySet<number>
  /** whether tasks/ was listed again (false: the same ids as the last pass, the same folders). */
  relisted: boolean
}

export class WatchLook {
  private readonly listing: TasksListing
  private lastSweep = Number.NEGATIVE_INFINITY

  constructor(
    private readonly stateDir: string,
    private readonly sweepMs = SWEEP_MS,
  ) {
    this.listing = new TasksListing(stateDir)
  }

  next(): Look {
    const now = performance.now()
    const hints = liveHints(this.stateDir)
    const sweep = hints === null || now - this.lastSweep >= this.sweepMs
    if (sweep) this.lastSweep = now
    const hintSet = new Set(hints)
    return {...this.listing.ids(sweep), hinted: sweep ? null : hintSet, hints: hintSet}
  }
}
