// slurmd killed under a running task: Slurm soon calls the node down and the
// job failed, while the runner and its worker go on (they do: slurmd's death
// does not end a job's processes). The task stays running as long as its
// heartbeat is fresh, and is lost only once the runner is gone too — not
// before its heartbeat has gone stale (beats 3 s apart here, so the window in
// which Slurm already says NODE_FAIL and drover still says running is seen).

import {readFileSync} from 'node:fs'
import {spawnSync} from 'node:child_process'
import path from 'node:path'
import {afterEach, describe, expect, it} from 'vitest'
import {cleanupStateDirs, isAlive, json, killLeftovers, leftoverList, makeStateDir, readTask, waitFor} from '../helpers/cli.js'
import {cancelAllJobs, jobState, onCluster, SLURM_CONF} from './cluster.js'

const strays = leftoverList()
const BEAT_MS = 3000
const slow = {DROVER_HEARTBEAT_MS: String(BEAT_MS)}
const clusterDir = path.dirname(SLURM_CONF)
const slurmdPid = () => Number(readFileSync(path.join(clusterDir, 'run', 'slurmd.pid'), 'utf8').trim())

function nodeState(): string {
  return spawnSync('sinfo', ['-h', '-o', '%T'], {encoding: 'utf8', env: {...process.env, SLURM_CONF}}).stdout.trim()
}

function startSlurmd(): void {
  if (isAlive(slurmdPid())) return
  spawnSync('slurmd', ['-f', SLURM_CONF], {env: {...process.env, SLURM_CONF}})
}

afterEach(async () => {
  killLeftovers(strays)
  startSlurmd()
  await waitFor(() => /^(idle|mixed|allocated)/.test(nodeState()), {timeout: 60_000, message: 'the node back'})
  cleanupStateDirs()
  cancelAllJobs()
})

describe('a node that stops answering', () => {
  it('is not the end of a task whose heartbeat goes on; lost only once the heartbeat is stale', async () => {
    const dir = makeStateDir()
    const started = await onCluster(dir, ['start', '--json', '--', 'sleep', '300'], {env: slow})
    expect(started.exitCode, started.stderr).toBe(0)
    const task = json(started)
    const worker = readTask(dir, task.id).worker.pid
    const runner = JSON.parse(readFileSync(path.join(dir, 'tasks', String(task.id), 'runner.json'), 'utf8')).pid
    strays.push(worker, runner)

    // the pid file names slurmd (read as 0 while rewritten, kill would reach this test's own group)
    const slurmd = slurmdPid()
    expect(slurmd > 1 && readFileSync(`/proc/${slurmd}/comm`, 'utf8').trim() === 'slurmd', `slurmd pid ${slurmd}`).toBe(true)
    process.kill(slurmd, 'SIGKILL')
    // SlurmdTimeout=10: the node is down within ~30 s, and the job with it.
    await waitFor(() => /down/.test(nodeState()) || jobState(task.jobId) !== 'RUNNING', {timeout: 60_000, interval: 500, message: 'Slurm to give up on the node'})
    expect(isAlive(worker)).toBe(true)
    expect(json(await onCluster(dir, ['status', String(task.id), '--json'], {env: slow})).status).toBe('running')

    // Now the work really is gone: the runner (and so its heartbeat) stops, right after a beat.
    const beat = path.join(dir, 'tasks', String(task.id), 'heartbeat')
    const {statSync} = await import('node:fs')
    const before = statSync(beat).mtimeMs
    await waitFor(() => statSync(beat).mtimeMs > before, {timeout: 10_000, message: 'a fresh beat'})
    process.kill(runner, 'SIGKILL')
    process.kill(worker, 'SIGKILL')
    const lastBeat = statSync(beat).mtimeMs
    const seen: {at: number; status: string}[] = []
    const lost = await waitFor(
      async () => {
        const shown = json(await onCluster(dir, ['status', String(task.id), '--json'], {env: slow}))
        seen.push({at: Date.now(), status: shown.status})
        return shown.status === 'lost' ? shown : null
      },
      {timeout: 40_000, interval: 300, message: 'the task to be lost'},
    )
    // not lost before the heartbeat went stale (3 beats), whatever Slurm said meanwhile
    const staleAt = lastBeat + 3 * BEAT_MS
    const early = seen.filter((look) => look.at < staleAt - 500)
    expect(early.length, 'looks before the heartbeat went stale').toBeGreaterThan(0)
    for (const look of early) expect(look.status).toBe('running')
    expect(seen.at(-1)!.at).toBeGreaterThanOrEqual(staleAt - 100)
    expect(lost.reason).toMatch(/^runner vanished without recording an end \(Slurm job \d+ (NODE_FAIL|FAILED|CANCELLED|COMPLETED)/)
  }, 150_000)
})
