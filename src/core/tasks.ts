// Reading tasks as they truly are: records reconciled against their runners.
// Shared by every command that shows or selects tasks.

import {findTask} from './lookup.js'
import {reconcile} from './reconcile.js'
import {isFinalStatus} from './record.js'
import {readAllRecords, type RecordRead} from './store.js'

/** All tasks, ascending by id; corrupt ones included as such. */
export async function loadTasks(stateDir: string): Promise<RecordRead[]> {
  const reads = readAllRecords(stateDir)
  for (const read of reads) {
    if (read.ok && !isFinalStatus(read.record.status)) read.record = await reconcile(stateDir, read.record)
  }
  return reads
}

/** One task by id or name, reconciled. Throws not-found (exit 3) or usage (exit 2). */
export async function loadTask(stateDir: string, ref: string): Promise<RecordRead> {
  const read = findTask(stateDir, ref)
  if (read.ok && !isFinalStatus(read.record.status)) read.record = await reconcile(stateDir, read.record)
  return read
}
