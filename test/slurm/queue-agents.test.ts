// Slurm end to end, the longer cases: 20 tasks through a 2-CPU node (queued
// in Slurm, shown with Slurm's reason, all complete), and drain + resume of
// the fake claude with its runner on the cluster.

import {mkdtempSync, readdirSync, readFileSync, rmSync} from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import {afterEach, describe, expect, it} from 'vitest'
import {cleanupStateDirs, fixture, json, makeStateDir, readTask, waitFor} from '../helpers/cli.js'
import {cancelAllJobs, onCluster, slurmCmd} from './cluster.js'

const homes: string[] = []

afterEach(() => {
  cleanupStateDirs()
  cancelAllJobs()
  for (const dir of homes.splice(0)) rmSync(dir, {recursive: true, force: true})
})

describe('a 2-CPU partition', () => {
  it('takes 20 tasks: the ones waiting show as queued with the reason, and all complete, never more than 2 at once', async () => {
    // the cluster script's node has 2 CPUs whatever this machine has
    expect(slurmCmd('sinfo', ['-h', '-o', '%c']).trim()).toBe('2')
    const dir = makeStateDir()
    let queuedAtStart = 0
    const ids: number[] = []
    const reasons: string[] = []
    for (let i = 0; i < 20; i++) {
      // 6 s each: a start that takes a few seconds on a loaded machine still finds the CPUs taken
      const started = await onCluster(dir, ['start', '--json', '--cpus', '1', '--', 'sh', '-c', `sleep 6; echo task ${i}`])
      expect(started.exitCode, started.stderr).toBe(0)
      const task = json(started)
      ids.push(task.id)
      // start returns a queued job at once, and status shows why it waits
      if (task.status === 'queued') {
        queuedAtStart++
        expect(task.reason).toMatch(/^queued in Slurm: /)
        const shown = json(await onCluster(dir, ['status', String(task.id), '--json']))
        // (a job the scheduler has just started shows its runner booting instead)
        if (shown.status === 'queued') reasons.push(shown.reason)
      }
    }
    // 20 tasks of 6 s each through 2 CPUs: most of them wait, and start says so
    expect(queuedAtStart).toBeGreaterThanOrEqual(10)
    expect(reasons.length).toBeGreaterThan(0)
    for (const reason of reasons) expect(reason).toMatch(/^queued in Slurm: job \d+ pending \((Resources|Priority|waiting)\)$/)
    await waitFor(() => ids.every((id) => readTask(dir, id).status === 'succeeded'), {timeout: 180_000, interval: 250, message: 'all 20 to succeed'})
    for (const [i, id] of ids.entries()) {
      expect(readFileSync(path.join(dir, 'tasks', String(id), 'output.log'), 'utf8')).toBe(`task ${i}\n`)
    }
    // the runs as recorded: at no moment were more than 2 running
    const runs = ids.map((id) => readTask(dir, id)).map((r) => [Date.parse(r.startedAt), Date.parse(r.endedAt)])
    const most = Math.max(...runs.map(([at]) => runs.filter(([from, to]) => from <= at && at < to).length))
    expect(most).toBeLessThanOrEqual(2)
    expect(most).toBe(2)
  }, 300_000)
})

describe('agents on Slurm', () => {
  it('the fake claude drains cooperatively and resumes as a new job in the same session', async () => {
    const dir = makeStateDir()
    const home = mkdtempSync(path.join(os.tmpdir(), 'drover-home-'))
    const work = mkdtempSync(path.join(os.tmpdir(), 'drover-work-'))
    homes.push(home, work)
    const env = {PATH: `${fixture('bin')}${path.delimiter}${process.env.PATH}`, HOME: home}
    const agentVars = ['-e', 'FAKE_AGENT_TURN_MS=100', '-e', 'FAKE_AGENT_TURNS=100000']
    const started = await onCluster(dir, ['start', '--json', ...agentVars, '--', 'claude', '-p', 'count the turns', '--output-format', 'stream-json', '--verbose'], {env, cwd: work})
    expect(started.exitCode, started.stderr).toBe(0)
    const task = json(started)
    const firstJob = task.jobId
    await waitFor(() => readTask(dir, task.id).agentInfo?.turns >= 3, {timeout: 30_000, message: '3 turns'})
    const sessionId = readTask(dir, task.id).agentInfo.sessionId

    const drained = await onCluster(dir, ['drain', String(task.id), '--grace', '20s'], {env})
    expect(drained.exitCode, drained.stderr).toBe(0)
    expect(readTask(dir, task.id)).toMatchObject({status: 'drained', checkpoint: {profile: 'claude', sessionId, mode: 'cooperative'}})

    const resumed = await onCluster(dir, ['resume', String(task.id), '--json'], {env})
    expect(resumed.exitCode, resumed.stderr).toBe(0)
    const again = readTask(dir, task.id)
    expect(again.slurm.jobId).not.toBe(firstJob)
    expect(again.runs).toHaveLength(2)
    await waitFor(() => readTask(dir, task.id).agentInfo?.turns >= 2, {timeout: 30_000, message: 'resumed turns'})
    expect(readTask(dir, task.id).agentInfo.sessionId).toBe(sessionId)
    const conversations = readdirSync(path.join(home, '.claude-fake'), {recursive: true}).filter((f) => String(f).endsWith('.json'))
    expect(conversations).toHaveLength(1)
    const stopped = await onCluster(dir, ['stop', String(task.id)], {env})
    expect(stopped.exitCode, stopped.stderr).toBe(0)
  }, 120_000)
})
