// Making live/<id> hints (the index itself is described in live-index.ts).
// Apart from the reading side so that store.ts can mark a task before every
// record write without importing the readers — and the runner, which writes
// records, loads nothing more than this.

import {closeSync, constants as fsc, existsSync, lstatSync, mkdirSync, openSync, readdirSync, renameSync, rmSync, unlinkSync} from 'node:fs'
import path from 'node:path'
import {DIR_MODE, FILE_MODE, listTaskIds, liveDir, NOFOLLOW, indexDir, taskPaths, uniqueSuffix} from './layout.js'

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

/** Whether index/ holds any segment (a temp file of a dead writer is none). */
function hasIndex(stateDir: string): boolean {
  try {
    return readdirSync(indexDir(stateDir)).some((name) => name.startsWith('seg-'))
  } catch {
    return false
  }
}

/**
 * Makes the index if the state dir has none yet (made by an earlier drover, or
 * new), built aside and renamed into place, so a reader sees no index or a
 * whole one. Without a derived index a hint is needed only where a runner keeps a
 * runner.json. With one, a live index that went missing (removed by hand) took
 * with it the hints of records rewritten since they were summarised: every
 * task gets a hint, so none is taken from the index until a fold proves it.
 */
export function ensureLiveIndex(stateDir: string): void {
  const dir = liveDir(stateDir)
  const stats = lstatSync(dir, {throwIfNoEntry: false})
  if (stats?.isDirectory()) return
  if (stats) unlinkSync(dir) // a file or link in its place
  const temp = path.join(stateDir, `.live-${uniqueSuffix()}`)
  mkdirSync(temp, {mode: DIR_MODE})
  try {
    const all = hasIndex(stateDir)
    for (const id of listTaskIds(stateDir)) if (all || existsSync(taskPaths(stateDir, id).runner)) touch(path.join(temp, String(id)))
    renameSync(temp, dir)
  } catch (error) {
    rmSync(temp, {recursive: true, force: true})
    // Another drover made it meanwhile: theirs is as good.
    if (!['EEXIST', 'ENOTEMPTY'].includes((error as NodeJS.ErrnoException).code ?? '')) throw error
  }
}

/**
 * Marks a task: before a run's record says `starting`, and (store.ts) before
 * every write of its record — a hinted record is read, never taken from the
 * derived index. One open/close when the index is there.
 */
export function markLive(stateDir: string, id: number): void {
  const hint = path.join(liveDir(stateDir), String(id))
  try {
    touch(hint)
    return
  } catch (error) {
    if (!['ENOENT', 'ENOTDIR'].includes((error as NodeJS.ErrnoException).code ?? '')) throw error
  }
  ensureLiveIndex(stateDir)
  touch(hint)
}
