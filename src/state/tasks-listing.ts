// The ids in tasks/, listed again only when tasks/ may have changed: for a
// process that looks many times (a watch, the dashboard's server, MCP's), at
// 100,000 tasks a listing is 75–90 ms, a stat of the folder a few µs.
//
// The task folders present change only with the folder tasks/ itself, so its
// listing is reused while tasks/ keeps its identity and modification time —
// unless the listing was made so soon after that change (within RACY_MS, by
// the wall clock beside the file system's) that a second change in the same
// tick of a coarse clock could hide behind the same time. A reader that must
// see every change at once anyway (a watch's sweep) asks for a fresh listing.

import {statSync, type Stats} from 'node:fs'
import {listTasksKept} from './kept-listing.js'
import {idsIn, tasksDir} from './layout.js'

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
    const dir = tasksDir(this.stateDir)
    if (!fresh && this.listing?.trusted) {
      const stat = statSync(dir, {throwIfNoEntry: false})
      if (stat && this.listing.stamp === stampOf(stat)) return {ids: this.listing.ids, relisted: false}
    }
    if (fresh) {
      const stat = statSync(dir, {throwIfNoEntry: false})
      const ids = idsIn(dir)
      // Listed well after the folder's last change: a later change gives it a later time.
      this.listing = stat ? {ids, stamp: stampOf(stat), trusted: Date.now() - stat.mtimeMs >= RACY_MS} : null
      return {ids, relisted: true}
    }
    const {ids, stamp, settled} = listTasksKept(this.stateDir)
    this.listing = stamp === null ? null : {ids, stamp, trusted: settled || this.clockSays(dir)}
    return {ids, relisted: true}
  }

  /** By this process's clock, tasks/ last changed RACY_MS ago or more. */
  private clockSays(dir: string): boolean {
    const stat = statSync(dir, {throwIfNoEntry: false})
    return stat !== undefined && Date.now() - stat.mtimeMs >= RACY_MS
  }
}

const stampOf = (stat: Stats) => `${stat.ino}:${stat.mtimeMs}:${stat.size}`
