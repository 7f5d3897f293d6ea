// The live index: an empty file live/<id> for every task that may be meant to
// run, so the `list` a person types finds them among 10,000 without looking
// into every task folder. A hint is made before a run's record says
// `starting` (start, restart, resume) and removed lazily, by `list` under the
// task lock, once the record shows the task is done with: ended, and not lost
// while running (that one waits for `resume --interrupted`). A stale hint
// costs one record read; a missing one would hide a live task from the
// default view — so hints are made eagerly and removed only on proof.

import {closeSync, constants as fsc, existsSync, lstatSync, mkdirSync, openSync, readdirSync, renameSync, rmSync, unlinkSync} from 'node:fs'
import path from 'node:path'
import {acquireLock, taskLockPath} from './lock.js'
import {isFinalStatus, type TaskRecord} from './record.js'
import {DIR_MODE, FILE_MODE, isRealTaskDir, listTaskIds, readAllRecords, readRecord, taskPaths, uniqueSuffix, type RecordRead} from './store.js'

const NOFOLLOW = fsc.O_NOFOLLOW ?? 0

/** Live, or lost while it was meant to run: work nobody has put down yet. */
export function meantToRun(record: TaskRecord): boolean {
  return !isFinalStatus(record.status) || (record.status === 'lost' && record.desired === 'running')
}

export const liveDir = (stateDir: string) => path.join(stateDir, 'live')

function touch(file: string): void {
  try {
    closeSync(openSync(file, fsc.O_WRONLY | fsc.O_CREAT | NOFOLLOW, FILE_MODE))
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ELOOP') throw error
    // A link planted in the index is not ours to write through: replace it.
    unlinkSync(file)
    closeSync(openSync(file, fsc.O_WRONLY | fsc.O_CREAT | fsc.O_EXCL | NOFOLLOW, FILE_MODE))
  }
}

/**
 * Makes the index if the state dir has none yet (made by an earlier drover, or
 * new): hints for every task whose runner keeps a runner.json, built aside and
 * renamed into place, so a reader sees no index or a whole one.
 */
export function ensureLiveIndex(stateDir: string): void {
  const dir = liveDir(stateDir)
  const stats = lstatSync(dir, {throwIfNoEntry: false})
  if (stats?.isDirectory()) return
  if (stats) unlinkSync(dir) // a file or link in its place
  const temp = path.join(stateDir, `.live-${uniqueSuffix()}`)
  mkdirSync(temp, {mode: DIR_MODE})
  try {
    for (const id of listTaskIds(stateDir)) if (existsSync(taskPaths(stateDir, id).runner)) touch(path.join(temp, String(id)))
    renameSync(temp, dir)
  } catch (error) {
    rmSync(temp, {recursive: true, force: true})
    // Another drover made it meanwhile: theirs is as good.
    if (!['EEXIST', 'ENOTEMPTY'].includes((error as NodeJS.ErrnoException).code ?? '')) throw error
  }
}

/** Called before a run's record says `starting`. */
export function markLive(stateDir: string, id: number): void {
  ensureLiveIndex(stateDir)
  touch(path.join(liveDir(stateDir), String(id)))
}

/** The ids with a hint, or null when the state dir has no index. */
export function liveHints(stateDir: string): number[] | null {
  try {
    return readdirSync(liveDir(stateDir))
      .filter((name) => /^[1-9][0-9]*$/.test(name))
      .map(Number)
  } catch (error) {
    if (['ENOENT', 'ENOTDIR'].includes((error as NodeJS.ErrnoException).code ?? '')) return null
    throw error
  }
}

/**
 * The records of every task that may be meant to run, ascending by id: every
 * task not final is among them, since its hint was made before its record
 * said `queued` or `starting` and is dropped only once the record shows it
 * done with; a few that ended lately may be too (their hint not dropped yet).
 * Reads as many records as there are hints, not as there are tasks; a state
 * dir without an index reads them all.
 */
export function readHintedRecords(stateDir: string): RecordRead[] {
  const hints = liveHints(stateDir)
  if (hints === null) return readAllRecords(stateDir)
  const reads: RecordRead[] = []
  // Only real task folders, as readAllRecords lists them: one pruned meanwhile, a link or a stray file is no task.
  for (const id of hints.sort((a, b) => a - b)) if (isRealTaskDir(stateDir, id)) reads.push(readRecord(stateDir, id, {dirChecked: true}))
  return reads
}

/**
 * Removes the hint of a task that is done with, best effort: under the task lock
 * (which a new run takes while it makes its hint and writes `starting`), after
 * reading the record again, so a run opening right now keeps its hint. A
 * runner still finishing keeps it too: `runnerAlive` is the caller's, which
 * knows the task's executor (a pid is checked here only for a local runner).
 */
export async function dropHintIfDone(stateDir: string, id: number, runnerAlive: (record: TaskRecord) => boolean): Promise<void> {
  const hint = path.join(liveDir(stateDir), String(id))
  let release
  try {
    release = await acquireLock(taskLockPath(stateDir, id), {waitMs: 0})
  } catch {
    return // busy or unwritable: the next list tries again
  }
  try {
    const read = readRecord(stateDir, id)
    // Ids are never reused: a task folder gone is gone for good.
    const gone = !read.ok && read.missing && !isRealTaskDir(stateDir, id)
    const done = read.ok && !meantToRun(read.record)
    if (gone || (done && !runnerAlive(read.record))) unlinkSync(hint)
  } catch {
    // read-only or already gone: nothing to do
  } finally {
    release()
  }
}
