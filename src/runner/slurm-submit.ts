// Placing one run as a Slurm job: sbatch held, the job id recorded (no runner
// writes the record yet), then released. Used by the Slurm executor (`start`,
// `resume`, a command advancing a queue) and by a runner handing its queue
// slot on, so it takes the runner to run as given and uses Node builtins
// only: the runner bundle imports it.

import {spawnSync} from 'node:child_process'
import type {TaskRecord} from '../state/record.js'
import {settle} from './settle.js'
import {appendEvent, readRecord, safeUnlink, taskPaths} from '../state/store.js'
import {commitRecord} from './commit-record.js'
import type {RunnerEntry} from './exit-hooks.js'
import {heartbeatFile} from './heartbeat.js'
import {batchScript, jobEnv, parseSbatch, sbatchArgs, scancelArgs} from './slurm-commands.js'

export interface SlurmRun {
  ok: boolean
  stdout: string
  stderr: string
}

/** Runs one of Slurm's client commands; never throws (a missing command is `ok: false` with ENOENT). */
export function slurm(command: string, args: string[], input?: string, env?: Record<string, string>): SlurmRun {
  const result = spawnSync(command, args, {encoding: 'utf8', input, env, timeout: 30_000, stdio: [input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe']})
  if (result.error) return {ok: false, stdout: '', stderr: `${command}: ${result.error.message}`}
  return {ok: result.status === 0, stdout: result.stdout ?? '', stderr: (result.stderr ?? '').trim()}
}

/** Records a run that never reached a runner (sbatch refused it, the job ended at once): nobody else writes it. */
export function failSubmission(stateDir: string, record: TaskRecord, reason: string, runner: RunnerEntry): void {
  settle(stateDir, record, {status: 'failed', cause: 'not-started', reason}, {entry: runner})
}

/**
 * Submits the task's current run as a job whose batch script is `runner`,
 * and releases it. The job id, or null when the run was recorded failed
 * (sbatch missing or refusing, the release refused) or is not a Slurm task.
 */
export function placeJob(stateDir: string, id: number, runner: RunnerEntry): string | null {
  const read = readRecord(stateDir, id)
  if (!read.ok || !read.record.slurm) return null
  const record = read.record
  const paths = taskPaths(stateDir, id)
  const args = sbatchArgs({
    placement: record.slurm!,
    name: `drover-${id}${record.name ? `-${record.name}` : ''}`,
    logFile: paths.runnerLog,
    workDir: paths.dir,
    timeoutMs: record.policies.timeoutMs,
  })
  // A heartbeat left by an earlier run says nothing about this one.
  safeUnlink(heartbeatFile(paths.dir))
  const sbatch = slurm('sbatch', args, batchScript(process.execPath, runner.execArgv, runner.script, stateDir, id), jobEnv(process.env))
  const jobId = sbatch.ok ? parseSbatch(sbatch.stdout) : null
  if (!jobId && /ENOENT/.test(sbatch.stderr)) {
    failSubmission(stateDir, record, "sbatch not found on PATH: Slurm's client commands are needed for --executor slurm", runner)
    return null
  }
  if (!jobId) {
    failSubmission(stateDir, record, `sbatch refused the job: ${(sbatch.stderr || sbatch.stdout).split('\n').find((line) => line.trim() !== '' && !line.startsWith('Try ')) || 'no message'}`, runner)
    return null
  }
  // Held until now, so this write cannot race the runner: it is the only writer once the job runs.
  commitRecord(stateDir, {...record, slurm: {...record.slurm!, jobId}, host: null}, record.status, {fire: null})
  appendEvent(paths, {event: 'submitted', run: record.runs.length, executor: 'slurm', jobId})
  const release = slurm('scontrol', ['release', jobId])
  if (!release.ok) {
    slurm('scancel', scancelArgs(jobId))
    failSubmission(stateDir, {...record, slurm: {...record.slurm!, jobId}}, `scontrol release ${jobId} failed: ${release.stderr}`, runner)
    return null
  }
  return jobId
}
