// Which executor a new task gets, end to end on the real cluster: --executor,
// then DROVER_EXECUTOR, then the state dir's config.json, then local — and the
// config's sbatch defaults reaching the job (its --comment, as Slurm stores it).

import {readFileSync, writeFileSync} from 'node:fs'
import path from 'node:path'
import {afterEach, describe, expect, it} from 'vitest'
import {cleanupStateDirs, json, makeStateDir, readTask} from '../helpers/cli.js'
import {cancelAllJobs, onCluster, SLURM_CONF, slurmCmd} from './cluster.js'

afterEach(() => {
  cleanupStateDirs()
  cancelAllJobs()
})

async function start(dir: string, args: string[], env: Record<string, string>): Promise<any> {
  const result = await onCluster(dir, ['start', '--json', ...args, '--', 'sleep', '30'], {env})
  expect(result.exitCode, result.stderr).toBe(0)
  return json(result)
}

const comment = (jobId: string) => /Comment=(\S*)/.exec(slurmCmd('scontrol', ['show', 'job', jobId]))?.[1] ?? null

describe('the executor of a new task', () => {
  it('flag > DROVER_EXECUTOR > config.json > local, with the config\'s sbatch defaults under a flag of the same name', async () => {
    const dir = makeStateDir()
    // DROVER_EXECUTOR empty is unset (the cluster helper sets it to slurm otherwise)
    const unset = {DROVER_EXECUTOR: ''}

    expect(await start(dir, [], unset)).toMatchObject({executor: 'local', jobId: null})

    writeFileSync(path.join(dir, 'config.json'), JSON.stringify({executor: 'slurm', slurm: {opts: ['--comment=from-config']}}))
    const byConfig = await start(dir, [], unset)
    expect(byConfig).toMatchObject({executor: 'slurm', jobId: expect.stringMatching(/^\d+$/)})
    expect(comment(byConfig.jobId)).toBe('from-config')
    expect(readTask(dir, byConfig.id).slurm.opts).toEqual(['--comment=from-config'])

    expect(await start(dir, [], {DROVER_EXECUTOR: 'local'})).toMatchObject({executor: 'local', jobId: null})
    expect(await start(dir, ['--executor', 'local'], unset)).toMatchObject({executor: 'local', jobId: null})

    const byFlag = await start(dir, ['--executor', 'slurm', '--slurm-opt=--comment=from-flag'], {DROVER_EXECUTOR: 'local'})
    expect(byFlag.executor).toBe('slurm')
    expect(comment(byFlag.jobId)).toBe('from-flag')

    writeFileSync(path.join(dir, 'config.json'), JSON.stringify({executor: 'local', slurm: {opts: ['--comment=from-config']}}))
    const byEnv = await start(dir, [], {DROVER_EXECUTOR: 'slurm'})
    expect(byEnv.executor).toBe('slurm')
    expect(comment(byEnv.jobId)).toBe('from-config')
  })
})

describe('drover doctor on the cluster', () => {
  it('Slurm used by DROVER_EXECUTOR: its commands found and its controller answering; a wrong SLURM_CONF is an error with its fix', async () => {
    const dir = makeStateDir()
    const up = await onCluster(dir, ['doctor', '--json'])
    const slurm = json(up).executors.find((e: any) => e.name === 'slurm')
    expect(slurm, up.stdout).toMatchObject({used: true, usedBy: ['DROVER_EXECUTOR'], reachable: true, error: null, controller: expect.stringMatching(/Slurmctld\(primary\) at .* is UP/)})
    expect(slurm.commands.map((c: any) => c.name)).toEqual(['sbatch', 'squeue', 'scontrol', 'scancel'])
    expect(slurm.commands.every((c: any) => path.isAbsolute(c.path))).toBe(true)
    expect(json(up).problems.filter((p: any) => p.subject === 'executor slurm' && p.severity === 'error')).toEqual([])

    // scontrol itself would retry a missing config for a minute
    const missingConf = path.join(dir, 'no-such-slurm.conf')
    const noConf = await onCluster(dir, ['doctor'], {env: {SLURM_CONF: missingConf}})
    expect(noConf.exitCode).toBe(1)
    expect(noConf.stdout).toContain(
      `error: executor slurm: SLURM_CONF names ${missingConf}, which does not exist (used by DROVER_EXECUTOR): tasks cannot be placed on it; point SLURM_CONF at the cluster's slurm.conf, or unset it`,
    )

    // a controller that does not answer: a config naming a port nobody listens on
    const deaf = path.join(dir, 'deaf.conf')
    writeFileSync(deaf, readFileSync(SLURM_CONF, 'utf8').replace(/^SlurmctldPort=.*$/m, '').replace(/^(SlurmctldHost=.*)$/m, '$1\nSlurmctldPort=9'))
    const down = await onCluster(dir, ['doctor', '--timeout', '20s'], {env: {SLURM_CONF: deaf}})
    expect(down.exitCode, down.stdout).toBe(1)
    expect(down.stdout).toMatch(/^error: executor slurm: .*\(used by DROVER_EXECUTOR\): tasks cannot be placed on it; check the controller and SLURM_CONF \(`scontrol ping` must say UP\)$/m)
  })
})
