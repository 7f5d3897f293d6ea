// The live index: an empty file live/<id> for every task whose record must be
// read rather than taken from the derived index (index.ts): a task that may
// be meant to run, or whose record may differ from what the index holds.
// So the `list` a person types finds the live tasks among 100,000 without
// looking into every task folder, and the full listings read only the records
// that may have changed. A hint is made before a run's record says `starting`
// (start, restart, resume) and before every record write (store.ts); it is
// removed only by a fold (index.ts), under the index lock and the task
// lock, after the record it re-read — done with: ended, not lost while running
// (that one waits for `resume --interrupted`), its runner gone, its exit hooks
// claimed (runner/exit-hooks.ts) — is in an
// index segment. A stale hint costs one record read; a missing one would
// hide a live task from the default view or let the index show an old
// record — so hints are made eagerly and removed only on proof.

import {readdirSync} from 'node:fs'
import {isFinalStatus, type TaskRecord} from './record.js'
import {isRealTaskDir, readAllRecords, readRecord, type RecordRead} from './store.js'

export {liveDir} from './layout.js'
export {ensureLiveIndex, markLive} from './live-hint.js'
import {liveDir} from './layout.js'

/** Live, or lost while it was meant to run: work nobody has put down yet. */
export function meantToRun(record: TaskRecord): boolean {
  return !isFinalStatus(record.status) || (record.status === 'lost' && record.desired === 'running')
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
 * done with; ended ones whose hint was not folded yet (an end, a rewrite) may be
 * among them too.
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

