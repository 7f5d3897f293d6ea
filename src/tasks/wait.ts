// Waiting for a task to reach a final status, from any process: wakes on
// fs.watch of the task folder (task.json is replaced by rename) and polls as a
// safety net, reconciling now and then so a dead runner cannot make it hang.

import {DroverError, ExitCode} from '../base/errors.js'
import {reconcile} from './reconcile.js'
import {isFinalStatus, type TaskRecord} from '../state/record.js'
import {readRecord, taskPaths} from '../state/store.js'
import {Wakeup} from './wakeup.js'

export async function waitForFinal(
  stateDir: string,
  id: number,
  opts: {timeoutMs?: number; pollMs?: number; until?: (record: TaskRecord) => boolean} = {},
): Promise<TaskRecord> {
  const until = opts.until ?? ((record: TaskRecord) => isFinalStatus(record.status))
  const deadline = opts.timeoutMs === undefined ? Infinity : Date.now() + opts.timeoutMs
  const pollMs = opts.pollMs ?? 100
  const wakeup = new Wakeup().watch([taskPaths(stateDir, id).dir])
  let lastReconcile = 0
  try {
    for (;;) {
      const read = readRecord(stateDir, id)
      if (!read.ok) {
        if (read.missing) throw new DroverError(`task ${id} was removed`, ExitCode.notFound, {id, found: false})
      } else {
        let record = read.record
        if (until(record)) return record
        if (Date.now() - lastReconcile > 1000) {
          lastReconcile = Date.now()
          record = await reconcile(stateDir, record)
          if (until(record) || isFinalStatus(record.status)) return record
        }
      }
      if (Date.now() >= deadline) {
        const last = readRecord(stateDir, id)
        if (last.ok) return last.record
        throw new DroverError(`task ${id}: ${last.ok ? '' : last.error}`, ExitCode.failed)
      }
      await wakeup.sleep(Math.min(pollMs, Math.max(1, deadline - Date.now())))
    }
  } finally {
    wakeup.close()
  }
}
