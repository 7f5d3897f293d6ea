// The ids in tasks/, listed again only when tasks/ may have changed: for a
// process that looks many times (a watch, the dashboard's server, MCP's), at
// 100,000 tasks a listing is 75–90 ms, a stat of the folder a few µs.
//
// The task folders present change only with the folder tasks/ itself, so its
// listing is reused while tasks/ keeps its identity and modification time —
// unless the listing was made so soon after that change that a second change
// in the same tick of a coarse clock could hide behind the same time: trusted
// when kept-listing.ts's rule (the file system's clock) says so, or, where it
// cannot be applied, when this process's clock puts the change RACY_MS back.
// A reader that must see every change at once anyway (a watch's sweep) asks
// for a fresh listing.

import {listTasksKept} from './kept-listing.js'
import {tasksStamp} from './listing-journal.js'
import {ageByFileSystem, clockDir} from './fs-clock.js'

const RACY_MS = 2000

export class TasksListing {
  private listing: {ids: Float64Array; stamp: string; trusted: boolean} | null = null

  constructor(private readonly stateDir: string) {}

  /**
   * The ids of the entries of tasks/ named like ids, ascending; `relisted`
   * false when they are the last listing's. `fresh` lists the folder itself
   * (not the listing kept on disk, kept-listing.ts).
   */
  ids(fresh = false): {ids: Float64Array; relisted: boolean} {
    if (!fresh && this.listing?.trusted) {
      if (this.listing.stamp === tasksStamp(this.stateDir)) return {ids: this.listing.ids, relisted: false}
    }
    const {ids, stamp, changedMs, settled} = listTasksKept(this.stateDir, {fresh})
    // Kept under the file system's clock, or listed well after the folder's last change by that clock (fs-clock.ts).
    this.listing = stamp === null ? null : {ids, stamp, trusted: settled || ageByFileSystem(changedMs, clockDir(this.stateDir)) >= RACY_MS}
    return {ids, relisted: true}
  }
}
