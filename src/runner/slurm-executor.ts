// The Slurm executor: a task's runner is the batch script's process of a job
// on a compute node. drover submits it held, records the job id (the runner
// is not writing the record yet), then releases it. From here the runner is
// reached only through the task folder (a shared file system) and the
// scheduler: liveness from its heartbeat plus squeue/scontrol (sacct after a
// purge), signals through `scancel --signal=… --batch`, the end of the
// placement through `scancel`. Pids on another host mean nothing here, so
// drover never adopts or stops a Slurm task's worker itself.

import {existsSync, statSync} from 'node:fs'
import path from 'node:path'
import {fileURLToPath} from 'node:url'
import type {ProcessSignal} from '../platform/platform.js'
import type {TaskRecord} from '../state/record.js'
import {readRecord, taskPaths} from '../state/store.js'
import {EXECUTOR_CAPABILITIES, type EngineNote, type Executor, type RunnerPresence} from './executor.js'
import {heartbeatAge} from './heartbeat.js'
import {ageByFileSystem, clockDir} from '../state/fs-clock.js'
import {failSubmission, placeJob, slurm} from './slurm-submit.js'
import {parseSacct, parseScontrolJob, parseSqueue, sacctAccountingArgs, sacctArgs, scancelArgs, scancelSignalArgs, squeueArgs, type JobView} from './slurm-commands.js'

// How long `start` waits for a released job to run before calling it queued.
const SUBMIT_WAIT_MS = 30_000
// A job still pending without a reason after this long is queued all the same.
const QUEUED_AFTER_MS = 3000
// A job id recorded, nothing seen yet: the scheduler is given this long before the task counts as never started.
const STARTUP_GRACE_MS = 15_000
// squeue answers are shared by every check within this window (list of many tasks).
const CACHE_MS = 1000

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))

const cache = new Map<string, {view: JobView | null | 'unknown'; at: number}>()

/** The job as the scheduler sees it: null once it is unknown to it, 'unknown' when the scheduler cannot be asked. */
export function queryJob(jobId: string, fresh = false): JobView | null | 'unknown' {
  const hit = cache.get(jobId)
  if (!fresh && hit && Date.now() - hit.at < CACHE_MS) return hit.view
  const view = askScheduler(jobId)
  cache.set(jobId, {view, at: Date.now()})
  return view
}

function askScheduler(jobId: string): JobView | null | 'unknown' {
  const squeue = slurm('squeue', squeueArgs([jobId]))
  if (squeue.ok) {
    const found = parseSqueue(squeue.stdout).get(jobId)
    if (found) {
      if (found.phase !== 'ended') return found
      // squeue has no exit code; scontrol does while the job is still kept.
      const shown = slurm('scontrol', ['show', 'job', jobId])
      return (shown.ok && parseScontrolJob(shown.stdout)) || found
    }
  } else if (!/invalid job id/i.test(squeue.stderr)) {
    return 'unknown'
  }
  // Purged after MinJobAge: the job completion log (jobcomp/filetxt), else the
  // accounting database (slurmdbd) still knows how it ended — whichever the
  // cluster keeps; sacct fails at once for the one it has not.
  for (const args of [sacctArgs(jobId), sacctAccountingArgs(jobId)]) {
    const sacct = slurm('sacct', args)
    const view = sacct.ok ? parseSacct(sacct.stdout, jobId) : null
    if (view) return view
  }
  return null
}

function runnerEntry(): {script: string; execArgv: string[]} {
  const here = path.dirname(fileURLToPath(import.meta.url))
  const built = path.join(here, '..', 'runner.cjs')
  if (existsSync(built)) return {script: built, execArgv: ['--lite-mode']}
  return {script: path.join(here, 'main.ts'), execArgv: ['--lite-mode', '--import', 'tsx']}
}

async function submit(stateDir: string, id: number, opts: {adopt?: boolean; detach?: boolean} = {}): Promise<void | {queued: true}> {
  if (opts.adopt) return
  const jobId = placeJob(stateDir, id, runnerEntry())
  // A queue's hand-off waits for nothing: the runner records its own start.
  if (jobId === null || opts.detach) return
  return waitPlaced(stateDir, id, jobId)
}

/** Until the runner recorded `running` or the failure, the job ended without it, or it is queued. */
async function waitPlaced(stateDir: string, id: number, jobId: string): Promise<void | {queued: true}> {
  const began = Date.now()
  const deadline = began + SUBMIT_WAIT_MS
  for (;;) {
    const read = readRecord(stateDir, id)
    if (!read.ok || read.record.status !== 'starting') return
    const view = queryJob(jobId, true)
    // Pending with a reason (Resources, Priority, …), or not yet looked at by
    // a busy scheduler after a while: it waits its turn, and `start` need not.
    const waited = Date.now() - began > QUEUED_AFTER_MS
    if (view !== 'unknown' && view !== null && view.phase === 'pending' && (view.reason !== null || waited)) return {queued: true}
    if (view === null || (view !== 'unknown' && view.phase === 'ended')) {
      // Give the runner's last write a moment to show on a shared file system.
      await sleep(200)
      const again = readRecord(stateDir, id)
      if (!again.ok || again.record.status !== 'starting') return
      const log = taskPaths(stateDir, id).runnerLog
      if (!existsSync(log) || statSync(log).size === 0) {
        failSubmission(
          stateDir,
          again.record,
          `Slurm job ${jobId} ended (${view?.state ?? 'gone'}) without its runner reaching the task: the state dir must be on a file system the compute nodes share`,
          runnerEntry(),
        )
      }
      return
    }
    if (Date.now() > deadline) return {queued: true}
    await sleep(50)
  }
}

function recordWrittenAt(stateDir: string, id: number): number {
  try {
    return statSync(taskPaths(stateDir, id).record).mtimeMs
  } catch {
    return 0
  }
}

function observe(stateDir: string, record: TaskRecord): RunnerPresence {
  const {ageMs, staleMs} = heartbeatAge(taskPaths(stateDir, record.id).dir)
  const starting = record.status === 'starting'
  if (ageMs !== null && ageMs < staleMs) return starting ? 'starting' : 'alive'
  const jobId = record.slurm?.jobId ?? null
  if (jobId === null) return starting && ageByFileSystem(recordWrittenAt(stateDir, record.id), clockDir(stateDir)) < STARTUP_GRACE_MS ? 'starting' : 'gone'
  const view = queryJob(jobId)
  // The scheduler cannot be asked: never call work lost on a controller's hiccup.
  if (view === 'unknown') return starting ? 'starting' : 'alive'
  if (view !== null && view.phase === 'pending') return 'starting'
  if (view !== null && view.phase === 'running') return starting ? 'starting' : 'alive'
  return 'gone'
}

function explain(_stateDir: string, record: TaskRecord): EngineNote | null {
  const jobId = record.slurm?.jobId
  if (!jobId) return null
  const view = queryJob(jobId)
  const said = (reason: string) => ({reason, waiting: null})
  if (view === 'unknown') return said(`Slurm job ${jobId}: the scheduler does not answer`)
  if (view === null) return said(`Slurm job ${jobId} is gone`)
  if (view.phase === 'pending') {
    const why = view.reason ?? 'waiting'
    return {reason: `queued in Slurm: job ${jobId} pending (${why})`, waiting: {engine: 'Slurm', reason: why}}
  }
  if (view.phase === 'running') return said(`Slurm job ${jobId} ${view.state} on ${view.node ?? 'a node'}`)
  const exit = view.exitCode !== null ? ` (exit ${view.exitCode}:${view.signal ?? 0})` : ''
  return said(`Slurm job ${jobId} ${view.state}${exit}${view.reason ? `, ${view.reason}` : ''}`)
}

function jobOf(stateDir: string, id: number): string | null {
  const read = readRecord(stateDir, id)
  return read.ok ? (read.record.slurm?.jobId ?? null) : null
}

export const slurmExecutor: Executor = {
  name: 'slurm',
  capabilities: EXECUTOR_CAPABILITIES.slurm,
  submit,
  observe,
  explain,

  signal(stateDir: string, id: number, signal: ProcessSignal): boolean {
    const jobId = jobOf(stateDir, id)
    return jobId !== null && slurm('scancel', scancelSignalArgs(jobId, signal)).ok
  },

  cancel(stateDir: string, id: number): boolean {
    const jobId = jobOf(stateDir, id)
    if (jobId === null) return false
    cache.delete(jobId)
    return slurm('scancel', scancelArgs(jobId)).ok
  },
}
