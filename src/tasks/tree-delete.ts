// Measuring and deleting a task tree synchronously: what the threads deleting
// a big prune's trash run (trash-worker.ts, one job per claimed task), and
// the measure every removal reports. Builtins only: a deleting thread loads
// this and little else. Nothing here follows a symlink.

import {lstatSync, readdirSync, rmdirSync, rmSync, unlinkSync} from 'node:fs'
import path from 'node:path'
import {retryOnBusySync} from '../platform/platform.js'

/** What a claimed task's folder (or a trash folder of them) is renamed to start with: hidden, and debris to the next prune. */
export const TRASH_PREFIX = '.trash-'

/**
 * Sum of the sizes of the files under target, by lstat (folders count
 * nothing): a symlink counts as itself, never its target. Folders are known
 * by their entries' types, so only files are lstat()ed: a dry run measures
 * every task it would remove.
 */
export function treeBytes(target: string): number {
  let total = 0
  const folders: string[] = []
  const file = (at: string) => {
    try {
      const stats = lstatSync(at)
      if (stats.isDirectory()) folders.push(at)
      else total += stats.size
    } catch {
      // vanished while we looked
    }
  }
  file(target)
  while (folders.length > 0) {
    const dir = folders.pop()!
    let entries
    try {
      entries = readdirSync(dir, {withFileTypes: true})
    } catch {
      continue // unreadable or vanished: counts as empty
    }
    for (const entry of entries) {
      const inside = dir + path.sep + entry.name
      // A type the file system did not report is lstat()ed like a file.
      if (entry.isDirectory()) folders.push(inside)
      else file(inside)
    }
  }
  return total
}

/**
 * Deletes a claimed (renamed, so ours alone) tree, adding to `removed.bytes`
 * the size of each file (as treeBytes counts it) once it is gone. Each
 * folder is listed once with its entries' types and each file lstat()ed
 * once for its size (a symlink is unlinked as itself); anything unexpected
 * (a file appearing, a permission) falls back to fs.rmSync for what is left,
 * measured first, so it is never less thorough than fs.rm. `delays`: the
 * waits of a retry on a busy file (Windows), as busyRetryDelays gives them.
 */
export function deleteTreeSync(target: string, removed: {bytes: number}, delays: readonly number[] = []): void {
  const stats = lstatSync(target, {throwIfNoEntry: false})
  if (stats === undefined) return
  if (!stats.isDirectory()) {
    retryOnBusySync(() => rmSync(target, {force: true}), undefined, delays)
    removed.bytes += stats.size
    return
  }
  try {
    emptyAndRemoveSync(target, removed)
  } catch {
    const left = treeBytes(target)
    try {
      retryOnBusySync(() => rmSync(target, {recursive: true, force: true}), undefined, delays)
    } finally {
      removed.bytes += left - treeBytes(target)
    }
  }
}

function emptyAndRemoveSync(dir: string, removed: {bytes: number}): void {
  for (const entry of readdirSync(dir, {withFileTypes: true})) {
    const inside = dir + path.sep + entry.name
    if (entry.isDirectory()) {
      emptyAndRemoveSync(inside, removed)
      continue
    }
    // A type the file system did not report: lstat says.
    const stats = lstatSync(inside)
    if (stats.isDirectory()) emptyAndRemoveSync(inside, removed)
    else {
      unlinkSync(inside)
      removed.bytes += stats.size
    }
  }
  rmdirSync(dir)
}

/** A batch for a deleting thread: the claimed tasks of one trash folder, then that folder. */
export interface TrashBatch {
  /** the trash folder the batch's tasks were renamed into: removed once they are. */
  folder: string
  jobs: TrashJob[]
  delays: readonly number[]
}

export interface TrashJob {
  seq: number
  trash: string
  /** the claim's released task lock, renamed beside the trash: deleted, not counted. */
  grave: string | null
}

export interface TrashDone {
  seq: number
  /** what the tree held when claimed: what was deleted plus what a failure left. */
  bytes: number
  error: string | null
}

/** Deletes one claimed task's tree and lock grave; a failure leaves hidden trash for the next prune. */
export function deleteJob(job: TrashJob, delays: readonly number[]): TrashDone {
  const removed = {bytes: 0}
  let error: string | null = null
  try {
    deleteTreeSync(job.trash, removed, delays)
  } catch (failure) {
    error = (failure as Error).message
    removed.bytes += treeBytes(job.trash)
  }
  if (job.grave !== null) {
    try {
      // A released lock holds owner.json alone: two calls where the walk takes eight. Anything else, the walk.
      try {
        unlinkSync(job.grave + path.sep + 'owner.json')
        rmdirSync(job.grave)
      } catch {
        deleteTreeSync(job.grave, {bytes: 0}, delays)
      }
    } catch (failure) {
      error ??= (failure as Error).message
    }
  }
  return {seq: job.seq, bytes: removed.bytes, error}
}

/** A batch's jobs, then its folder; a folder something could not leave stays hidden trash for the next prune. */
export function deleteBatch(batch: TrashBatch): TrashDone[] {
  const done = batch.jobs.map((job) => deleteJob(job, batch.delays))
  try {
    retryOnBusySync(() => rmdirSync(batch.folder), undefined, batch.delays)
  } catch {
    // reported already with the task whose files stayed; or gone
  }
  return done
}
