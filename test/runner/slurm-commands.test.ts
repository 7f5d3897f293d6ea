// Slurm command lines and output parsing, against outputs recorded from
// Slurm 22.05.8 (the tested cluster) and composed from the source of 25.11
// (test/fixtures/slurm/README.md says where each shape comes from).

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
  sacctAccountingArgs,
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

  it('reads what 22.05.8 printed for a held submission', () => {
    expect(parseSbatch(recorded('sbatch-parsable-22.05.8.txt'))).toMatch(/^\d+$/)
  })
})

describe('squeue', () => {
  it('asks for every state of the given jobs', () => {
    expect(squeueArgs(['5', '6'])).toEqual(['-h', '-t', 'all', '-o', '%i|%T|%r|%N', '-j', '5,6'])
  })

  it('parses 22.05.8 output: pending with its reason, running, completed, failed, a pending job cancelled', () => {
    const jobs = parseSqueue(recorded('squeue-22.05.8.txt'))
    expect(jobs.size).toBe(6)
    expect(jobs.get('25')).toMatchObject({state: 'PENDING', phase: 'pending', reason: 'Resources', node: null})
    expect(jobs.get('24')).toMatchObject({state: 'RUNNING', phase: 'running', reason: null, node: 'node01'})
    expect(jobs.get('21')).toMatchObject({state: 'COMPLETED', phase: 'ended', reason: null})
    expect(jobs.get('22')).toMatchObject({state: 'FAILED', phase: 'ended', reason: 'NonZeroExitCode'})
    // killed by a signal: Slurm says the launch failed
    expect(jobs.get('23')).toMatchObject({state: 'FAILED', phase: 'ended', reason: 'JobLaunchFailure'})
    // cancelled while pending keeps the reason it waited for
    expect(jobs.get('26')).toMatchObject({state: 'CANCELLED', phase: 'ended', reason: 'Priority', node: null})
    for (const job of jobs.values()) expect([job.exitCode, job.signal]).toEqual([null, null])
  })

  it("parses 25.11's shapes: a bare reason (spaces and all), COMPLETING, OUT_OF_MEMORY, EXPEDITING, an array task", () => {
    const jobs = parseSqueue(recorded('squeue-from-source-25.11.txt'))
    expect(jobs.get('4242')).toMatchObject({phase: 'pending', reason: 'Priority'})
    expect(jobs.get('4243')).toMatchObject({phase: 'running', node: 'node[01-02]'})
    expect(jobs.get('4244')).toMatchObject({phase: 'running', node: 'node02', reason: 'NonZeroExitCode'})
    expect(jobs.get('4245')).toMatchObject({phase: 'ended', reason: 'OutOfMemory'})
    expect(jobs.get('4246')).toMatchObject({phase: 'pending', reason: 'ReqNodeNotAvail, UnavailableNodes:node04'})
    expect(jobs.get('4247')).toMatchObject({phase: 'pending', reason: 'DependencyNeverSatisfied'})
    expect(jobs.get('4248')).toMatchObject({state: 'EXPEDITING', phase: 'pending'})
    expect(jobs.get('4249_3')).toMatchObject({phase: 'running', node: 'node06'})
  })

  it('a reason is never unwrapped: %r prints none in parentheses, so one that has them is kept as printed', () => {
    expect(parseSqueue('7|PENDING|(Priority)|\n').get('7')?.reason).toBe('(Priority)')
  })

  it('ignores lines that are not jobs (what 22.05.8 says of a purged job)', () => {
    expect(parseSqueue(recorded('squeue-invalid-22.05.8.txt')).size).toBe(0)
    expect(recorded('squeue-invalid-22.05.8.txt')).toMatch(/invalid job id/i)
  })
})

describe('scontrol show job', () => {
  it('parses 22.05.8 jobs: pending, running, completed, failed with a code, killed by a signal', () => {
    expect(parseScontrolJob(recorded('scontrol-pending-22.05.8.txt'))).toEqual({
      jobId: '25', state: 'PENDING', phase: 'pending', reason: 'Resources', node: null, exitCode: 0, signal: 0,
    })
    expect(parseScontrolJob(recorded('scontrol-running-22.05.8.txt'))).toMatchObject({jobId: '24', phase: 'running', node: 'node01', reason: null})
    expect(parseScontrolJob(recorded('scontrol-completed-22.05.8.txt'))).toMatchObject({jobId: '21', state: 'COMPLETED', phase: 'ended', exitCode: 0, signal: 0})
    expect(parseScontrolJob(recorded('scontrol-failed-22.05.8.txt'))).toMatchObject({jobId: '22', state: 'FAILED', reason: 'NonZeroExitCode', exitCode: 3, signal: 0})
    expect(parseScontrolJob(recorded('scontrol-signal-22.05.8.txt'))).toMatchObject({jobId: '23', state: 'FAILED', reason: 'JobLaunchFailure', node: 'node01', exitCode: 0, signal: 9})
  })

  it("parses 25.11's shapes: a job killed for memory (batch host, exit code and signal; SubmitLine's flags not taken for fields)", () => {
    expect(parseScontrolJob(recorded('scontrol-oom-from-source-25.11.txt'))).toEqual({
      jobId: '4242', state: 'OUT_OF_MEMORY', phase: 'ended', reason: 'OutOfMemory', node: 'node01', exitCode: 0, signal: 125,
    })
    // white space in a reason is printed as _ by scontrol
    expect(parseScontrolJob(recorded('scontrol-pending-from-source-25.11.txt'))).toMatchObject({
      jobId: '4246', phase: 'pending', reason: 'ReqNodeNotAvail,_UnavailableNodes:node04', node: null,
    })
  })

  it('is null for an unknown job (what 22.05.8 says of a purged one)', () => {
    expect(parseScontrolJob(recorded('scontrol-invalid-22.05.8.txt'))).toBeNull()
  })
})

describe('sacct after a purge', () => {
  it('asks the completion log, then the accounting database (the job alone, no steps)', () => {
    expect(sacctArgs('9')).toEqual(['-c', '-j', '9', '-o', 'JobID,State,ExitCode', '-P', '-n'])
    expect(sacctAccountingArgs('9')).toEqual(['-X', '-j', '9', '-o', 'JobID,State,ExitCode', '-P', '-n'])
  })

  it('parses the 22.05.8 completion log: exit codes and signals', () => {
    const text = recorded('sacct-c-22.05.8.txt')
    expect(parseSacct(text, '21')).toMatchObject({state: 'COMPLETED', phase: 'ended', exitCode: 0, signal: 0})
    expect(parseSacct(text, '22')).toMatchObject({state: 'FAILED', exitCode: 3, signal: 0})
    expect(parseSacct(text, '23')).toMatchObject({state: 'FAILED', exitCode: 0, signal: 9})
    expect(parseSacct(text, '26')).toMatchObject({state: 'CANCELLED', phase: 'ended'})
    expect(parseSacct(text, '2')).toBeNull()
  })

  it("parses 25.11's accounting shapes: who cancelled, TIMEOUT, OUT_OF_MEMORY, an array task; a step line is not the job", () => {
    const text = recorded('sacct-accounting-from-source-25.11.txt')
    expect(parseSacct(text, '4242')).toMatchObject({state: 'CANCELLED by 1000', phase: 'ended', exitCode: 0, signal: 15})
    expect(parseSacct(text, '4243')).toMatchObject({state: 'TIMEOUT', phase: 'ended'})
    expect(parseSacct(text, '4244')).toMatchObject({state: 'OUT_OF_MEMORY', phase: 'ended', signal: 125})
    expect(parseSacct(text, '4245_3')).toMatchObject({state: 'COMPLETED', phase: 'ended'})
    expect(parseSacct('4250.batch|CANCELLED|0:15\n', '4250')).toBeNull()
  })
})

describe('states and signals', () => {
  it('knows pending, running and ended states', () => {
    expect(['PENDING', 'REQUEUED', 'CONFIGURING', 'SUSPENDED', 'EXPEDITING'].map(phaseOf)).toEqual(Array(5).fill('pending'))
    expect(['RUNNING', 'COMPLETING'].map(phaseOf)).toEqual(['running', 'running'])
    expect(['COMPLETED', 'FAILED', 'NODE_FAIL', 'TIMEOUT', 'PREEMPTED', 'BOOT_FAIL', 'DEADLINE', 'OUT_OF_MEMORY', 'REVOKED', 'CANCELLED by 0'].map(phaseOf)).toEqual(Array(10).fill('ended'))
  })

  it('signals reach the batch script process only', () => {
    expect(scancelSignalArgs('7', 'SIGTERM')).toEqual(['--signal=TERM', '--batch', '7'])
    expect(scancelSignalArgs('7', 'SIGCONT')).toEqual(['--signal=CONT', '--batch', '7'])
  })
})
