// A state dir the compute nodes do not share, both ways drover can tell:
// up front, a state dir in this machine's memory (tmpfs) gets a warning; after
// the fact, a job whose runner never reached the task (the node does not see
// the state dir) is recorded failed with that hint. The second is real: slurmd
// is restarted in a mount namespace of its own where the state dir's parent is
// an empty tmpfs, so its jobs look for the task folder and find nothing, as on
// a node without the shared file system.

import {spawnSync} from 'node:child_process'
import {existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statfsSync} from 'node:fs'
import path from 'node:path'
import {afterEach, describe, expect, it} from 'vitest'
import {cleanupStateDirs, isAlive, json, makeTempDir, readTask, waitFor} from '../helpers/cli.js'
import {cancelAllJobs, onCluster, SLURM_CONF} from './cluster.js'

const clusterDir = path.dirname(SLURM_CONF)
const slurmdPid = () => Number(readFileSync(path.join(clusterDir, 'run', 'slurmd.pid'), 'utf8').trim())
const nodeState = () => spawnSync('sinfo', ['-h', '-o', '%T'], {encoding: 'utf8', env: {...process.env, SLURM_CONF}}).stdout.trim()
const dirs: string[] = []

/** slurmd stopped by its pid file (checked to be slurmd) and started again, in `namespace` or as usual. */
async function restartSlurmd(namespace: string | null): Promise<void> {
  const pid = slurmdPid()
  if (isAlive(pid) && readFileSync(`/proc/${pid}/comm`, 'utf8').trim() === 'slurmd') {
    process.kill(pid, 'SIGTERM')
    await waitFor(() => !isAlive(pid), {timeout: 20_000, message: 'slurmd to stop'})
  }
  const started = namespace
    ? spawnSync('unshare', ['--mount', '--propagation', 'private', 'sh', '-c', `mount -t tmpfs -o size=1m,mode=700 drover-unshared "$1" && exec slurmd -f "$2"`, 'sh', namespace, SLURM_CONF])
    : spawnSync('slurmd', ['-f', SLURM_CONF])
  expect(started.status, String(started.stderr)).toBe(0)
  await waitFor(() => /^(idle|mixed)/.test(nodeState()), {timeout: 60_000, message: 'the node back'})
}

afterEach(async () => {
  const mine = readFileSync(`/proc/${slurmdPid()}/mountinfo`, 'utf8').includes('drover-unshared')
  if (mine) await restartSlurmd(null)
  cleanupStateDirs()
  cancelAllJobs()
  for (const dir of dirs.splice(0)) rmSync(dir, {recursive: true, force: true})
})

describe('a state dir the nodes do not share', () => {
  it('after the fact: the job ends without its runner reaching the task, and the task is failed with the hint', async () => {
    const hidden = makeTempDir('drover-unshared-')
    const dir = path.join(hidden, 'state')
    mkdirSync(dir, {mode: 0o700})
    await restartSlurmd(hidden)
    const started = await onCluster(dir, ['start', '--json', '--', 'sh', '-c', 'echo never'])
    expect(started.exitCode).toBe(1)
    const task = json(started)
    expect(task).toMatchObject({status: 'failed', executor: 'slurm', pid: null})
    expect(task.reason).toMatch(/^Slurm job \d+ ended \(\w+\) without its runner reaching the task: the state dir must be on a file system the compute nodes share$/)
    expect(started.stderr).toContain(`task ${task.id} failed to start`)
    expect(readTask(dir, task.id)).toMatchObject({status: 'failed', reason: task.reason})
    // the job's output went nowhere the submitter can see
    const log = path.join(dir, 'tasks', String(task.id), 'runner.log')
    expect(existsSync(log) ? readFileSync(log, 'utf8') : '').toBe('')
  })

  const shm = '/dev/shm'
  const onTmpfs = existsSync(shm) && statfsSync(shm).type === 0x01021994
  it.runIf(onTmpfs)('up front: a state dir on tmpfs is warned about on stderr, and the task still goes (one node: it is this machine)', async () => {
    const dir = mkdtempSync(path.join(shm, 'drover-state-'))
    dirs.push(dir)
    const started = await onCluster(dir, ['start', '--json', '--', 'sh', '-c', 'echo here'])
    expect(started.exitCode, started.stderr).toBe(0)
    expect(started.stderr).toContain(`drover: warning: state dir ${dir} is on tmpfs, in this machine's memory: Slurm's compute nodes cannot read it unless this machine is the only node`)
    expect(json(started)).toMatchObject({executor: 'slurm'})
    await waitFor(() => readTask(dir, json(started).id).status === 'succeeded', {timeout: 30_000, message: 'the task to succeed'})
    // a local task there is nobody's business
    const local = await onCluster(dir, ['start', '--executor', 'local', '--', 'true'])
    expect(local.stderr).not.toContain('warning')
  })
})
