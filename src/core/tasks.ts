// Reading tasks as they truly are: records reconciled against their runners.
// Shared by every command that shows or selects tasks.

import {statSync} from 'node:fs'
import {findTask} from './lookup.js'
import {reconcile} from './reconcile.js'
import {isFinalStatus} from './record.js'
import {readAllRecords, taskPaths, type RecordRead} from './store.js'

// `start` makes the task folder (its id) a moment before it writes task.json;
// a folder that young without a record is a task being created, not a corrupt one.
const CREATING_GRACE_MS = 5000

function beingCreated(stateDir: string, read: RecordRead): boolean {
  if (read.ok || !read.missing) return false
  try {
    return Date.now() - statSync(taskPaths(stateDir, read.id).dir).mtimeMs < CREATING_GRACE_MS
  } catch {
    return true // removed meanwhile: not a task to show either
  }
}

/** All tasks, ascending by id; corrupt ones included as such. */
export async function loadTasks(stateDir: string): Promise<RecordRead[]> {
  const reads = readAllRecords(stateDir).filter((read) => !beingCreated(stateDir, read))
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
