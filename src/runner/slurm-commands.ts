// Slurm's command lines and what they print: sbatch, squeue, scontrol, sacct
// and scancel arguments built from a task's placement, and their text output
// parsed into one job view. Only text formats: their JSON output and REST paths
// are versioned per release (v0.0.38 in 22.05 … v0.0.44 in 25.11), while `-o`
// formats and `Key=Value` lines have stayed put (recorded from 22.05.8; read
// in the source up to 25.11: test/fixtures/slurm/README.md). No processes are
// run here.

import type {SlurmPlacement} from '../state/record.js'

export interface SbatchInput {
  placement: SlurmPlacement
  name: string
  /** where the batch script's own stdout and stderr go (the runner's log). */
  logFile: string
  workDir: string
  /** the task's own timeout: Slurm's --time becomes a backstop a little past it when none is given. */
  timeoutMs: number | null
}

// The runner stops the task itself at its timeout; Slurm's limit only catches a runner that cannot.
const BACKSTOP_MINUTES = 2

export function sbatchArgs(input: SbatchInput): string[] {
  const p = input.placement
  const args = ['--parsable', '--hold', '--no-requeue', '-J', input.name, '-o', input.logFile, '--open-mode=append', '-D', input.workDir]
  // ALL of an environment drover builds (jobEnv): a list of names or NONE would
  // make Slurm load the user's login environment on the node, a second or so.
  args.push('--export=ALL')
  if (p.partition) args.push('-p', p.partition)
  const time = p.time ?? (input.timeoutMs !== null ? String(Math.ceil(input.timeoutMs / 60_000) + BACKSTOP_MINUTES) : null)
  if (time) args.push(`--time=${time}`)
  if (p.cpus !== null) args.push(`--cpus-per-task=${p.cpus}`)
  if (p.mem) args.push(`--mem=${p.mem}`)
  if (p.drainBeforeLimitS !== null) args.push(`--signal=B:USR1@${p.drainBeforeLimitS}`)
  args.push(...p.opts)
  return args
}

// What the job's environment gets from the submitter. The controller stores
// it until the job is purged, so only these: the task's -e values are not
// among them (the runner reads them from the record), nor anything else of
// the submitting shell. SLURM_* and SBATCH_* stay too: they configure sbatch.
// Inside a job (a runner handing its queue slot on), SLURM_* describe that
// job (its id, CPUs, nodes): the next job must not inherit them, so only
// SLURM_CONF is kept there.
const PASSED = ['HOME', 'USER', 'LOGNAME', 'PATH', 'LANG', 'LC_ALL', 'TZ', 'TMPDIR', 'DROVER_HEARTBEAT_MS']

/** The environment sbatch runs with, which `--export=ALL` hands to the job. */
export function jobEnv(env: NodeJS.ProcessEnv): Record<string, string> {
  const inJob = env.SLURM_JOB_ID !== undefined
  const slurmVar = (key: string) => key.startsWith('SBATCH_') || (key.startsWith('SLURM_') && (!inJob || key === 'SLURM_CONF'))
  const out: Record<string, string> = {}
  for (const [key, value] of Object.entries(env)) {
    if (value !== undefined && (PASSED.includes(key) || slurmVar(key))) out[key] = value
  }
  return out
}

/** The batch script: the runner itself, replacing the shell so Slurm's signals (USR1, TERM) reach it. */
export function batchScript(node: string, nodeArgs: string[], runner: string, stateDir: string, id: number): string {
  return `#!/bin/sh\nexec ${[node, ...nodeArgs, runner, stateDir, String(id), '--slurm'].map(shQuote).join(' ')}\n`
}

export function shQuote(arg: string): string {
  return /^[\w@%+=:,./-]+$/.test(arg) ? arg : `'${arg.replace(/'/g, `'\\''`)}'`
}

/** `sbatch --parsable` prints `ID` or `ID;CLUSTER`. */
export function parseSbatch(stdout: string): string | null {
  const first = stdout.trim().split('\n').at(-1)?.split(';')[0]?.trim() ?? ''
  return /^\d+(_\d+)?$/.test(first) ? first : null
}

export type JobPhase = 'pending' | 'running' | 'ended'

export interface JobView {
  jobId: string
  /** Slurm's state word: PENDING, RUNNING, COMPLETED, FAILED, NODE_FAIL, … */
  state: string
  phase: JobPhase
  /** why it is pending (Resources, Priority, …) or why it ended; null for None. */
  reason: string | null
  node: string | null
  exitCode: number | null
  signal: number | null
}

// EXPEDITING (25.11): an ended job being checked for an expedited requeue, so not over yet.
const PENDING = new Set(['PENDING', 'REQUEUED', 'REQUEUE_HOLD', 'REQUEUE_FED', 'RESV_DEL_HOLD', 'CONFIGURING', 'SUSPENDED', 'STOPPED', 'SPECIAL_EXIT', 'RESIZING', 'EXPEDITING'])
const RUNNING = new Set(['RUNNING', 'COMPLETING', 'SIGNALING', 'STAGE_OUT'])

export function phaseOf(state: string): JobPhase {
  // sacct from the accounting database adds who cancelled: "CANCELLED by 1000".
  const base = state.trim().split(/[\s+]/)[0].toUpperCase()
  if (PENDING.has(base)) return 'pending'
  if (RUNNING.has(base)) return 'running'
  return 'ended'
}

const orNull = (v: string | undefined) => (v === undefined || v === '' || v === 'None' || v === '(null)' || v === 'n/a' ? null : v)

/** The squeue format drover reads: id, state, reason, node list. */
export const SQUEUE_FORMAT = '%i|%T|%r|%N'

export function squeueArgs(jobIds: string[]): string[] {
  return ['-h', '-t', 'all', '-o', SQUEUE_FORMAT, ...(jobIds.length > 0 ? ['-j', jobIds.join(',')] : [])]
}

/** `squeue -h -o '%i|%T|%r|%N'` lines. `%r` is the bare reason in every release (only `%R` wraps a pending job's in parentheses); it may hold spaces. */
export function parseSqueue(stdout: string): Map<string, JobView> {
  const jobs = new Map<string, JobView>()
  for (const line of stdout.split('\n')) {
    const [jobId, state, reason, node] = line.trim().split('|')
    if (!jobId || !state || !/^\d/.test(jobId)) continue
    jobs.set(jobId, {
      jobId,
      state,
      phase: phaseOf(state),
      reason: orNull(reason),
      node: orNull(node),
      exitCode: null,
      signal: null,
    })
  }
  return jobs
}

export function parseExitCode(text: string | undefined): {exitCode: number | null; signal: number | null} {
  const match = /^(\d+):(\d+)$/.exec(text?.trim() ?? '')
  return match ? {exitCode: Number(match[1]), signal: Number(match[2])} : {exitCode: null, signal: null}
}

/** `scontrol show job ID` (one record, `Key=Value` pairs over several lines); null for "Invalid job id". */
export function parseScontrolJob(stdout: string): JobView | null {
  const fields = new Map<string, string>()
  for (const match of stdout.matchAll(/(?:^|\s)([A-Za-z:/]+)=(\S*)/g)) if (!fields.has(match[1])) fields.set(match[1], match[2])
  const jobId = fields.get('JobId')
  const state = fields.get('JobState')
  if (!jobId || !state) return null
  return {
    jobId,
    state,
    phase: phaseOf(state),
    reason: orNull(fields.get('Reason')),
    node: orNull(fields.get('BatchHost')) ?? orNull(fields.get('NodeList')),
    ...parseExitCode(fields.get('ExitCode')),
  }
}

/** The job completion log (JobCompType=jobcomp/filetxt): clusters without slurmdbd. */
export function sacctArgs(jobId: string): string[] {
  return ['-c', '-j', jobId, '-o', 'JobID,State,ExitCode', '-P', '-n']
}

/** The accounting database (slurmdbd), the job's own line only (-X: no steps). */
export function sacctAccountingArgs(jobId: string): string[] {
  return ['-X', '-j', jobId, '-o', 'JobID,State,ExitCode', '-P', '-n']
}

/** `sacct [-c|-X] -P -n -o JobID,State,ExitCode` after the job left squeue; the line of the job itself, not its steps. */
export function parseSacct(stdout: string, jobId: string): JobView | null {
  for (const line of stdout.split('\n')) {
    const [id, state, exit] = line.trim().split('|')
    if (id !== jobId || !state) continue
    return {jobId, state, phase: phaseOf(state), reason: null, node: null, ...parseExitCode(exit)}
  }
  return null
}

/** The scancel that reaches only the batch script's process (the runner): a plain `--signal` reaches nothing in a script job. */
export function scancelSignalArgs(jobId: string, signal: string): string[] {
  return [`--signal=${signal.replace(/^SIG/, '')}`, '--batch', jobId]
}

export function scancelArgs(jobId: string): string[] {
  return [jobId]
}
