// A run's start, from its runner's first look at the record to `running`.
// Until the runner's runner.json is in place, a run still starting looks the
// same as one whose runner never came up, and any command may record it `lost`
// (a start-up past the grace, or a clock stepped back so that the start-up
// seems to lie in the future). The runner takes no lock for the rest of its
// run — it is the record's only writer while it lives — but it holds the task
// lock from a re-read of the record, through spawning the worker, to its first
// write: a run recorded meanwhile (lost, or withdrawn while a scheduler still
// held it) is no longer this runner's, and writing over it would give one run
// two ends and fire two ends' hooks (found by chaos, seed 1355076861).

import {acquireLock, taskLockPath} from '../state/lock.js'
import {readRecord} from '../state/store.js'
import type {TaskRecord} from '../state/record.js'

// Holds of a task lock are short (a record's write, a reconcile's stop of
// orphans); a longer one is a stuck holder, and the re-read alone still tells.
const LOCK_WAIT_MS = 10_000

export interface StartHold {
  /** The record that took the run before this runner could hold it, or null: the run is this runner's. */
  readonly taken: TaskRecord | null
  /**
   * The same question again, right before the first write: only a hold without
   * the lock (a full disk, a stuck holder) can get a different answer.
   */
  takenNow(): TaskRecord | null
  release(): void
}

/** The record, if it no longer shows the run this runner was started for still starting; else null. */
export function runTaken(stateDir: string, id: number, runs: number): TaskRecord | null {
  const fresh = readRecord(stateDir, id)
  // An unreadable record is no one else's claim: the runner's write repairs it.
  return fresh.ok && (fresh.record.status !== 'starting' || fresh.record.runs.length !== runs) ? fresh.record : null
}

/** `runs`: how many runs the record had when the runner read it (a later run, opened by `start ID`, is not its either). */
export async function holdStart(stateDir: string, id: number, runs: number): Promise<StartHold> {
  let release: (() => void) | null = null
  try {
    release = await acquireLock(taskLockPath(stateDir, id), {waitMs: LOCK_WAIT_MS})
  } catch {
    // no lock dir can be made (a full disk) or its holder is stuck: the re-reads still catch a run taken before them
  }
  const takenNow = () => runTaken(stateDir, id, runs)
  return {
    taken: takenNow(),
    takenNow: () => (release ? null : takenNow()),
    release: () => release?.(),
  }
}
