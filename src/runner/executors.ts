// Which executor placed a task's runner, by its record, and the liveness
// questions the commands ask about a task's processes, answered through it
// (not in the runner's bundle: it loads every executor).
// A local executor checks a pid and its start time; an engine's runner on
// another host (Slurm) is judged by its heartbeat and the engine — never by
// a pid here, which names nothing on this machine (or a stranger).

import {currentPlatform, pidExists, type PlatformContext} from '../platform/platform.js'
import {isFinalStatus} from '../state/record.js'
import type {TaskRecord} from '../state/record.js'
import {readRunnerIdentity, taskPaths} from '../state/store.js'
import {capabilitiesOf, workerAliveHere, type Executor} from './executor.js'
import {heartbeatAge, localRunnerAlive} from './heartbeat.js'
import {localExecutor} from './local-executor.js'
import {slurmExecutor} from './slurm-executor.js'

/** The record names its executor (records from before executors were named are local). */
export function executorOf(record: Pick<TaskRecord, 'executor'>): Executor {
  return record.executor === 'slurm' ? slurmExecutor : localExecutor
}

export {workerAliveHere}

/**
 * Whether the task still has a live runner (one that may yet write its
 * folder), for the checks that keep a task from being removed or its live
 * hint dropped. No runner.json, no runner: every runner removes it as its
 * last write. A Slurm runner is asked of its executor (a fresh heartbeat, else
 * the scheduler); without a record to say which executor, a runner.json
 * naming a host (only remote runners write one) is judged by its heartbeat.
 */
export function runnerAlive(stateDir: string, id: number, record: TaskRecord | null, ctx: PlatformContext = currentPlatform()): boolean {
  const runner = readRunnerIdentity(stateDir, id)
  if (runner === null) return false
  if (record !== null && !executorOf(record).capabilities.directControl) return executorOf(record).observe(stateDir, record) === 'alive'
  if (record === null && runner.host !== undefined) {
    const {ageMs, staleMs} = heartbeatAge(taskPaths(stateDir, id).dir)
    return ageMs !== null && ageMs < staleMs
  }
  return localRunnerAlive(taskPaths(stateDir, id).dir, runner, ctx)
}

/**
 * Whether the worker lives, as a view shows it (`status`). A live runner
 * watches its worker and records its end the moment it sees it, so while the
 * runner lives and the run has not ended, a worker pid that still exists is
 * the worker: on Windows that is answered by kill(pid, 0), without starting
 * PowerShell. Decisions (adopting a worker, stopping a lost task's tree)
 * still confirm the identity (workerAliveHere).
 */
export function workerAliveShown(record: TaskRecord, runnerAlive: boolean, ctx: PlatformContext = currentPlatform()): boolean {
  if (ctx.os === 'win32' && runnerAlive && record.worker !== null && capabilitiesOf(record).directControl && !isFinalStatus(record.status)) {
    return pidExists(record.worker.pid, ctx)
  }
  return workerAliveHere(record, ctx)
}
