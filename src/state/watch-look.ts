// What a watch of the state dir (Drover.events(): top, the dashboard, MCP's
// subscriptions) has to look at on each pass. At 100,000 tasks a stat of every
// record four times a second is most of a core; what can change is far less:
//
// - the task folders present change only with the folder tasks/ itself, so its
//   listing is reused while tasks/ keeps its identity and modification time —
//   unless the listing was made so soon after that change (within RACY_MS,
//   by the wall clock beside the file system's) that a second change in the
//   same tick could hide behind the same time;
// - a record that ended changes again only after its task's live hint is made
//   (live-index.ts: every run opens with its hint before its record), so an
//   ended task without a hint need not be looked at.
//
// Every SWEEP_MS (monotonic time) a pass looks at everything anyway, so a
// clock stepped back or a writer that broke the rule costs a late event, never
// a lost one. A state dir without an index is looked at whole, every pass.

import {readdirSync, statSync} from 'node:fs'
import {liveHints} from './live-index.js'
import {tasksDir} from './store.js'

const RACY_MS = 2000
const SWEEP_MS = 60_000

export interface Look {
  /** the entries of tasks/ (names, unfiltered). */
  names: string[]
  /** ids that must be looked at even when seen ended before; null: every one. */
  hinted: ReadonlySet<number> | null
  /** the live hints read for this pass, sweep or not (empty without an index). */
  hints: ReadonlySet<number>
  /** whether tasks/ was listed again (false: the same names as the last pass, the same folders). */
  relisted: boolean
}

export class WatchLook {
  private listing: {names: string[]; stamp: string; trusted: boolean} | null = null
  private lastSweep = Number.NEGATIVE_INFINITY

  constructor(
    private readonly stateDir: string,
    private readonly sweepMs = SWEEP_MS,
  ) {}

  next(): Look {
    const now = performance.now()
    const hints = liveHints(this.stateDir)
    const sweep = hints === null || now - this.lastSweep >= this.sweepMs
    if (sweep) this.lastSweep = now
    const hintSet = new Set(hints)
    return {...this.list(sweep), hinted: sweep ? null : hintSet, hints: hintSet}
  }

  private list(sweep: boolean): {names: string[]; relisted: boolean} {
    const dir = tasksDir(this.stateDir)
    const stat = statSync(dir, {throwIfNoEntry: false})
    const stamp = stat ? `${stat.ino}:${stat.mtimeMs}:${stat.size}` : null
    if (!sweep && stamp !== null && this.listing?.trusted && this.listing.stamp === stamp) return {names: this.listing.names, relisted: false}
    let names: string[] = []
    try {
      names = readdirSync(dir)
    } catch {
      // no tasks yet
    }
    // Listed well after the folder's last change: a later change gives it a later time.
    this.listing = stat && stamp !== null ? {names, stamp, trusted: Date.now() - stat.mtimeMs >= RACY_MS} : null
    return {names, relisted: true}
  }
}
