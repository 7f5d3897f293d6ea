// `start <id>`: a stopped, failed, drained or lost task runs again as a new
// run with the same command, cwd and -e variables. Cancelled tasks are final.

import {conflictError, DroverError, ExitCode} from './errors.js'
import {startNewRun} from './launch.js'
import {findTask} from './lookup.js'
import type {TaskRecord} from './record.js'

export async function restartTask(stateDir: string, ref: string): Promise<TaskRecord> {
  const read = findTask(stateDir, ref)
  if (!read.ok) throw new DroverError(`task ${read.id} cannot be started again: ${read.error}`, ExitCode.failed)
  return startNewRun(stateDir, read.id, {
    resumed: false,
    prepare(record) {
      if (record.status === 'cancelled') {
        throw conflictError(`task ${record.id} was cancelled; cancelled tasks are final (start a new task instead)`, {
          id: record.id,
          status: record.status,
        })
      }
      return null
    },
  })
}
