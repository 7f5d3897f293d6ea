// `start <id>`: any ended task — cancelled included — runs again as a new run
// with the same command, cwd and -e variables. A cancel ends a run for good
// (no resume picks it up), not the task: asking for it by id is a new decision.

import {DroverError, ExitCode} from '../base/errors.js'
import {startNewRun} from './launch.js'
import {findTask} from '../state/lookup.js'
import type {TaskRecord} from '../state/record.js'
import type {RecordRead} from '../state/store.js'

/** The task `start <ref>` means; for an unknown name, a hint that the `--` may be missing. */
export function findTaskToRestart(stateDir: string, ref: string): RecordRead {
  try {
    return findTask(stateDir, ref)
  } catch (error) {
    // `drover start sleep` (the `--` forgotten) lands here: say how to run a command.
    if (error instanceof DroverError && error.exitCode === ExitCode.notFound && !/^[0-9]+$/.test(ref)) {
      throw new DroverError(`${error.message} (to run a command, put it after --: drover start -- ${ref} …)`, ExitCode.notFound, error.data)
    }
    throw error
  }
}

export async function restartTask(stateDir: string, ref: string): Promise<TaskRecord> {
  const read = findTaskToRestart(stateDir, ref)
  if (!read.ok) throw new DroverError(`task ${read.id} cannot be started again: ${read.error}`, ExitCode.failed)
  return startNewRun(stateDir, read.id, {resumed: false, prepare: () => null})
}
