// Which executor a new task gets, end to end on the real cluster: --executor,
// then DROVER_EXECUTOR, then the state dir's config.json, then local — and the
// config's sbatch defaults reaching the job (its --comment, as Slurm stores it).

import {writeFileSync} from 'node:fs'
import path from 'node:path'
import {afterEach, describe, expect, it} from 'vitest'
import {cleanupStateDirs, json, makeStateDir, readTask} from '../helpers/cli.js'
import {cancelAllJobs, onCluster, slurmCmd} from './cluster.js'

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
