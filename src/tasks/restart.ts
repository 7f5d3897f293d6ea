// `start <id>`: any ended task — cancelled included — runs again as a new run
// with the same command, cwd and -e variables. A cancel ends a run for good
// (no resume picks it up), not the task: asking for it by id is a new decision.

import {conflictError, DroverError, ExitCode} from '../base/errors.js'
import {readiness} from '../runner/advance.js'
import {startNewRun} from './launch.js'
import {findTask} from './lookup.js'
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
  if (read.record.status === 'skipped') refuseSkippedAgain(stateDir, read.record)
  return startNewRun(stateDir, read.id, {resumed: false, prepare: () => ({command: null})})
}

/**
 * A skipped task started again keeps its dependencies: while one of them
 * still failed (and nothing will bring it back), the new run would be skipped
 * at once, silently. Refused instead (exit 4), naming the dependency to run
 * first; one that is queued, running or coming back lets it queue again.
 */
function refuseSkippedAgain(stateDir: string, record: TaskRecord): void {
  const verdict = readiness(stateDir, {...record, status: 'queued', retryAt: null})
  if (verdict.kind !== 'skip') return
  const dep = /^dependency (\d+)/.exec(verdict.reason)?.[1]
  const first = dep ? `; start task ${dep} again first (it queues behind it: drover start ${dep} && drover start ${record.id})` : ''
  throw conflictError(`task ${record.id} would be skipped again at once: ${verdict.reason}${first}`, {id: record.id, status: record.status})
}
