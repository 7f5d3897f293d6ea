// The live tasks alone, found through the live index (state/live-index.ts):
// what `stop --all`, `wait --all`, a filter on live statuses and a name's
// uniqueness look at. They must cost what the live tasks cost, not what the
// 100,000 ended ones beside them would.

import {liveHints, meantToRun, readHintedRecords} from '../state/live-index.js'
import {isFinalStatus, type TaskStatus} from '../state/record.js'
import type {RecordRead} from '../state/store.js'
import {fireHooks} from '../runner/local-executor.js'
import {foldDone, loadTasks, notATask} from './read.js'
import {reconcile} from './reconcile.js'

/** Whether a status filter can take only tasks that have not ended (then loadLiveTasks finds them all). */
export function onlyLiveStatuses(statuses: readonly string[]): boolean {
  return statuses.length > 0 && statuses.every((status) => status !== 'corrupt' && !isFinalStatus(status as TaskStatus))
}

/**
 * Every task not ended yet, reconciled (so one whose runner died shows as
 * `lost` now), ascending by id, with perhaps a few that ended lately: callers
 * choose by status. A hinted task that ended is treated as loadTasks treats
 * it (its exit hooks fired if nobody claimed them), so choosing by this
 * changes nothing but what is read.
 */
export async function loadLiveTasks(stateDir: string): Promise<RecordRead[]> {
  // No index yet (no run opened by this drover): every task, as loadTasks reads them.
  if (liveHints(stateDir) === null) return loadTasks(stateDir)
  const reads = readHintedRecords(stateDir).filter((read) => !notATask(stateDir, read))
  for (const read of reads) {
    if (!read.ok) continue
    if (!isFinalStatus(read.record.status)) read.record = await reconcile(stateDir, read.record)
    // an end whose writer was killed before its hooks: as loadTasks settles it for a hinted task
    if (isFinalStatus(read.record.status)) fireHooks(stateDir, read.record)
  }
  // Ended ones among them are read by every look like this until folded.
  await foldDone(stateDir, reads.filter((read) => read.ok && !meantToRun(read.record)).map((read) => read.id))
  return reads
}
