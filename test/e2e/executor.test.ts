// Choosing an executor from the command line, without a cluster: the checks
// that refuse a bad choice before anything is written, and a Slurm start on a
// machine without Slurm's commands, which fails the task with a clear reason.
// (The Slurm executor itself is tested on a real cluster in test/slurm.)

import {existsSync, mkdtempSync, rmSync, symlinkSync} from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import {afterEach, describe, expect, it} from 'vitest'
import {cleanupStateDirs, drover, json, makeStateDir, readTask} from '../helpers/cli.js'

const bins: string[] = []
afterEach(() => {
  cleanupStateDirs()
  for (const dir of bins.splice(0)) rmSync(dir, {recursive: true, force: true})
})

describe('start --executor', () => {
  it('refuses an unknown executor, from the flag or DROVER_EXECUTOR, and Slurm flags without Slurm — exit 2, nothing written', async () => {
    const dir = makeStateDir()
    const flag = await drover(dir, ['start', '--executor', 'k8s', '--', 'true'])
    expect(flag.exitCode).toBe(2)
    const fromEnv = await drover(dir, ['start', '--', 'true'], {env: {DROVER_EXECUTOR: 'nomad'}})
    expect(fromEnv).toMatchObject({exitCode: 2, stderr: expect.stringContaining("unknown executor 'nomad' (from DROVER_EXECUTOR)")})
    const orphanFlag = await drover(dir, ['start', '--partition', 'gpu', '--', 'true'], {env: {DROVER_EXECUTOR: ''}})
    expect(orphanFlag).toMatchObject({exitCode: 2, stderr: expect.stringContaining('need --executor slurm')})
    const badTime = await drover(dir, ['start', '--executor', 'slurm', '--time', 'soon', '--', 'true'])
    expect(badTime.exitCode).toBe(2)
    // a job would hold its allocation idle for hours: refused in one line
    const onLimit = await drover(dir, ['start', '--executor', 'slurm', '--on-limit', 'wait', '--agent', 'claude', '--', 'claude', '-p', 'x'])
    expect(onLimit).toMatchObject({exitCode: 2, stderr: expect.stringMatching(/^[^\n]*--on-limit wait does not go with --executor slurm[^\n]*\n?$/)})
    expect(existsSync(path.join(dir, 'tasks'))).toBe(false)
  })

  it('an explicit --executor local wins over DROVER_EXECUTOR', async () => {
    const dir = makeStateDir()
    const result = await drover(dir, ['start', '--json', '--executor', 'local', '--', 'true'], {env: {DROVER_EXECUTOR: 'slurm'}})
    expect(result.exitCode, result.stderr).toBe(0)
    expect(json(result)).toMatchObject({executor: 'local', jobId: null, node: null})
  })

  it('a task started again cannot change its placement', async () => {
    const dir = makeStateDir()
    const first = json(await drover(dir, ['start', '--json', '--', 'true']))
    const again = await drover(dir, ['start', String(first.id), '--cpus', '2'])
    expect(again).toMatchObject({exitCode: 2, stderr: `drover: --cpus cannot change task ${first.id} when it starts again: run drover start ${first.id} alone, or start a new task with --cpus`})
  })

  it('without Slurm on PATH, a Slurm start fails the task and says why', async () => {
    const dir = makeStateDir()
    // a PATH with node and sh only
    const bin = mkdtempSync(path.join(os.tmpdir(), 'drover-bin-'))
    bins.push(bin)
    for (const program of ['sh', 'true']) symlinkSync(`/bin/${program}`, path.join(bin, program))
    const result = await drover(dir, ['start', '--json', '--executor', 'slurm', '--', 'true'], {env: {PATH: bin}})
    expect(result.exitCode).toBe(1)
    expect(json(result)).toMatchObject({status: 'failed', executor: 'slurm', reason: expect.stringContaining('sbatch not found on PATH')})
    expect(readTask(dir, json(result).id).slurm).toMatchObject({jobId: null})
  })
})
