// Slurm command lines and output parsing, against outputs recorded from
// Slurm 22.05 (the tested cluster) and in the shapes of 24.05.

import {readFileSync} from 'node:fs'
import path from 'node:path'
import {fileURLToPath} from 'node:url'
import {describe, expect, it} from 'vitest'
import {
  batchScript,
  jobEnv,
  parseSacct,
  parseSbatch,
  parseScontrolJob,
  parseSqueue,
  phaseOf,
  sacctArgs,
  sbatchArgs,
  scancelSignalArgs,
  squeueArgs,
} from '../../src/runner/slurm-commands.js'
import type {SlurmPlacement} from '../../src/state/record.js'

const here = path.dirname(fileURLToPath(import.meta.url))
const recorded = (name: string) => readFileSync(path.join(here, '..', 'fixtures', 'slurm', name), 'utf8')

const placement = (over: Partial<SlurmPlacement> = {}): SlurmPlacement => ({
  jobId: null,
  partition: null,
  time: null,
  cpus: null,
  mem: null,
  drainBeforeLimitS: null,
  opts: [],
  ...over,
})

const input = {name: 'drover-3', logFile: '/s/tasks/3/runner.log', workDir: '/s/tasks/3', timeoutMs: null}

describe('sbatch arguments', () => {
  it('submits held, not requeued, appending to the runner log, exporting the environment drover built', () => {
    expect(sbatchArgs({...input, placement: placement()})).toEqual([
      '--parsable',
      '--hold',
      '--no-requeue',
      '-J',
      'drover-3',
      '-o',
      '/s/tasks/3/runner.log',
      '--open-mode=append',
      '-D',
      '/s/tasks/3',
      '--export=ALL',
    ])
  })

  it("the job's environment is a short list, never the submitter's whole one", () => {
    const env = jobEnv({HOME: '/h', PATH: '/bin', AWS_SECRET_ACCESS_KEY: 'x', GITHUB_TOKEN: 'y', SLURM_CONF: '/c', SBATCH_ACCOUNT: 'lab', DROVER_HEARTBEAT_MS: '500'})
    expect(env).toEqual({HOME: '/h', PATH: '/bin', SLURM_CONF: '/c', SBATCH_ACCOUNT: 'lab', DROVER_HEARTBEAT_MS: '500'})
  })

  it("inside a job (a runner handing its slot on), passes none of that job's SLURM_* but SLURM_CONF", () => {
    const env = jobEnv({PATH: '/bin', SLURM_CONF: '/c', SLURM_JOB_ID: '41', SLURM_CPUS_PER_TASK: '8', SLURM_MEM_PER_NODE: '64000', SBATCH_ACCOUNT: 'lab'})
    expect(env).toEqual({PATH: '/bin', SLURM_CONF: '/c', SBATCH_ACCOUNT: 'lab'})
  })

  it('maps partition, time, cpus, mem, drain-before-limit and passes extra options last, as given', () => {
    const args = sbatchArgs({
      ...input,
      placement: placement({partition: 'gpu', time: '90', cpus: 4, mem: '4G', drainBeforeLimitS: 300, opts: ['--account=lab', '--qos', 'long']}),
    })
    expect(args.slice(11)).toEqual(['-p', 'gpu', '--time=90', '--cpus-per-task=4', '--mem=4G', '--signal=B:USR1@300', '--account=lab', '--qos', 'long'])
  })

  it("sets a time limit a little past the task's own timeout when none is given", () => {
    expect(sbatchArgs({...input, timeoutMs: 90_000, placement: placement()})).toContain('--time=4')
    expect(sbatchArgs({...input, timeoutMs: 90_000, placement: placement({time: '1'})})).toContain('--time=1')
  })

  it('the batch script execs the runner, quoting paths', () => {
    expect(batchScript('/usr/bin/node', ['--lite-mode'], "/opt/my app/runner.cjs", "/s/it's", 3)).toBe(
      "#!/bin/sh\nexec /usr/bin/node --lite-mode '/opt/my app/runner.cjs' '/s/it'\\''s' 3 --slurm\n",
    )
  })
})

describe('sbatch --parsable', () => {
  it('reads the id, with or without a cluster name', () => {
    expect(parseSbatch('42\n')).toBe('42')
    expect(parseSbatch('4242;cluster1\n')).toBe('4242')
    expect(parseSbatch('sbatch: warning: something\n17\n')).toBe('17')
    expect(parseSbatch('sbatch: error: Batch job submission failed\n')).toBeNull()
  })
})

describe('squeue', () => {
  it('asks for every state of the given jobs', () => {
    expect(squeueArgs(['5', '6'])).toEqual(['-h', '-t', 'all', '-o', '%i|%T|%r|%N', '-j', '5,6'])
  })

  it('parses 22.05 output', () => {
    const jobs = parseSqueue(recorded('squeue-22.05.txt'))
    expect(jobs.get('5')).toMatchObject({state: 'PENDING', phase: 'pending', reason: 'Resources', node: null})
    expect(jobs.get('3')).toMatchObject({phase: 'running', reason: null, node: 'c1'})
    expect(jobs.get('2')).toMatchObject({state: 'FAILED', phase: 'ended', reason: 'JobLaunchFailure'})
    expect(jobs.get('1')).toMatchObject({phase: 'ended'})
  })

  it('parses 24.05 output: a reason in parentheses, COMPLETING, OUT_OF_MEMORY', () => {
    const jobs = parseSqueue(recorded('squeue-24.05.txt'))
    expect(jobs.get('4242')).toMatchObject({phase: 'pending', reason: 'Priority'})
    expect(jobs.get('4244')).toMatchObject({phase: 'running', node: 'node02'})
    expect(jobs.get('4245')).toMatchObject({phase: 'ended', reason: 'OutOfMemory'})
  })

  it('ignores lines that are not jobs', () => {
    expect(parseSqueue('slurm_load_jobs error: Invalid job id specified\n\n').size).toBe(0)
  })
})

describe('scontrol show job', () => {
  it('parses a pending 22.05 job', () => {
    expect(parseScontrolJob(recorded('scontrol-pending-22.05.txt'))).toMatchObject({
      jobId: '5',
      state: 'PENDING',
      phase: 'pending',
      reason: 'Resources',
      node: null,
    })
  })

  it('parses a completed 22.05 job with its exit code', () => {
    expect(parseScontrolJob(recorded('scontrol-completed-22.05.txt'))).toMatchObject({phase: 'ended', state: 'COMPLETED', exitCode: 0, signal: 0})
  })

  it('parses a 24.05 job killed for memory: batch host, exit code and signal', () => {
    expect(parseScontrolJob(recorded('scontrol-oom-24.05.txt'))).toMatchObject({
      jobId: '4242',
      state: 'OUT_OF_MEMORY',
      phase: 'ended',
      reason: 'OutOfMemory',
      node: 'node01',
      exitCode: 0,
      signal: 125,
    })
  })

  it('is null for an unknown job', () => {
    expect(parseScontrolJob('slurm_load_jobs error: Invalid job id specified\n')).toBeNull()
  })
})

describe('sacct -c after a purge', () => {
  it('builds the call', () => {
    expect(sacctArgs('9')).toEqual(['-c', '-j', '9', '-o', 'JobID,State,ExitCode', '-P', '-n'])
  })

  it('parses 22.05 and 24.05 lines, taking the job and not its steps', () => {
    expect(parseSacct(recorded('sacct-22.05.txt'), '2')).toMatchObject({state: 'FAILED', phase: 'ended', exitCode: 0, signal: 6})
    expect(parseSacct(recorded('sacct-24.05.txt'), '4242')).toMatchObject({state: 'CANCELLED by 1000', phase: 'ended', signal: 15})
    expect(parseSacct(recorded('sacct-24.05.txt'), '4243')).toMatchObject({state: 'TIMEOUT', phase: 'ended'})
    expect(parseSacct(recorded('sacct-24.05.txt'), '1')).toBeNull()
  })
})

describe('states and signals', () => {
  it('knows pending, running and ended states', () => {
    expect(['PENDING', 'REQUEUED', 'CONFIGURING', 'SUSPENDED'].map(phaseOf)).toEqual(['pending', 'pending', 'pending', 'pending'])
    expect(['RUNNING', 'COMPLETING'].map(phaseOf)).toEqual(['running', 'running'])
    expect(['COMPLETED', 'FAILED', 'NODE_FAIL', 'TIMEOUT', 'PREEMPTED', 'BOOT_FAIL', 'DEADLINE'].map(phaseOf)).toEqual(Array(7).fill('ended'))
  })

  it('signals reach the batch script process only', () => {
    expect(scancelSignalArgs('7', 'SIGTERM')).toEqual(['--signal=TERM', '--batch', '7'])
    expect(scancelSignalArgs('7', 'SIGCONT')).toEqual(['--signal=CONT', '--batch', '7'])
  })
})
