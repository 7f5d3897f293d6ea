// Slurm end to end with drover's own queues, dependencies, timeouts and exit
// hooks: a task in a queue waits (queued) for a slot, and when a task ends its
// runner — a batch job on the node — hands the slot on by submitting the next
// task's job, with no drover command run meanwhile.

import {readFileSync, writeFileSync} from 'node:fs'
import path from 'node:path'
import {afterEach, describe, expect, it} from 'vitest'
import {cleanupStateDirs, json, makeStateDir, makeTempDir, readTask, taskEvents, waitFor} from '../helpers/cli.js'
import {cancelAllJobs, onCluster, slurmCmd} from './cluster.js'

afterEach(() => {
  cleanupStateDirs()
  cancelAllJobs()
})

async function start(dir: string, args: string[]): Promise<any> {
  const result = await onCluster(dir, ['start', '--json', ...args])
  expect(result.exitCode, result.stderr).toBe(0)
  return json(result)
}

const ended = (dir: string, ids: number[], what: string) =>
  waitFor(() => ids.every((id) => !['queued', 'starting', 'running', 'stopping'].includes(readTask(dir, id).status)), {timeout: 60_000, interval: 200, message: what})

describe("drover's queues on Slurm", () => {
  it('a queue of 1 runs its Slurm tasks one at a time, in order, each its own job, handed on by the runner on the node', async () => {
    const dir = makeStateDir()
    expect((await onCluster(dir, ['queue', 'set', 'q', '--parallel', '1'])).exitCode).toBe(0)
    const tasks = []
    // the first runs long enough for the others to be started behind it
    for (let i = 0; i < 3; i++) tasks.push(await start(dir, ['--queue', 'q', '--', 'sh', '-c', `echo task ${i}; sleep ${i === 0 ? 4 : 1}`]))
    expect(tasks[0].status).toBe('running')
    // waiting for drover's slot: no job yet
    expect(tasks[1]).toMatchObject({status: 'queued', jobId: null, position: 1})
    expect(tasks[1].reason).toBe('waiting for a slot in queue q')
    // only the records are read from here on: the hand-off is the runners' own
    await ended(dir, tasks.map((t) => t.id), 'the queue to drain')
    const records = tasks.map((t) => readTask(dir, t.id))
    for (const [i, record] of records.entries()) {
      expect(record).toMatchObject({status: 'succeeded', executor: 'slurm'})
      expect(readFileSync(path.join(dir, 'tasks', String(record.id), 'output.log'), 'utf8')).toBe(`task ${i}\n`)
      expect(taskEvents(dir, record.id).some((e) => e.event === 'submitted')).toBe(true)
    }
    expect(new Set(records.map((r) => r.slurm.jobId)).size).toBe(3)
    for (let i = 1; i < 3; i++) expect(Date.parse(records[i].startedAt)).toBeGreaterThanOrEqual(Date.parse(records[i - 1].endedAt))
  })

  it('--after: a dependent starts as a job once its dependency succeeded; one after a failure is skipped', async () => {
    const dir = makeStateDir()
    // it runs until the dependent has been seen queued behind it (a time of its own could pass before the next start on a busy machine)
    const gate = path.join(makeTempDir('drover-gate-'), 'open')
    const first = await start(dir, ['--name', 'first', '--', 'sh', '-c', `until [ -e '${gate}' ]; do sleep 0.1; done`])
    const then = await start(dir, ['--after', 'first', '--', 'sh', '-c', 'echo then'])
    expect(then).toMatchObject({status: 'queued', after: [first.id]})
    writeFileSync(gate, '')
    const bad = await start(dir, ['--', 'sh', '-c', 'exit 3'])
    const never = await start(dir, ['--after', String(bad.id), '--', 'sh', '-c', 'echo never'])
    await ended(dir, [first.id, then.id, bad.id, never.id], 'the chain to end')
    expect(readTask(dir, then.id)).toMatchObject({status: 'succeeded', executor: 'slurm'})
    expect(readTask(dir, then.id).slurm.jobId).not.toBe(readTask(dir, first.id).slurm.jobId)
    expect(Date.parse(readTask(dir, then.id).startedAt)).toBeGreaterThanOrEqual(Date.parse(readTask(dir, first.id).endedAt))
    expect(readTask(dir, never.id)).toMatchObject({status: 'skipped', slurm: {jobId: null}})
  })
})

describe('timeouts and exit hooks on Slurm', () => {
  it("--timeout is the runner's own timer; Slurm's limit is set a little past it as a backstop", async () => {
    const dir = makeStateDir()
    const task = await start(dir, ['--timeout', '2s', '--', 'sleep', '60'])
    await ended(dir, [task.id], 'the timeout')
    expect(readTask(dir, task.id)).toMatchObject({status: 'failed'})
    expect(readTask(dir, task.id).reason).toMatch(/^timeout/)
    const shown = slurmCmd('scontrol', ['show', 'job', task.jobId])
    // 2 s round up to a minute, plus the 2-minute backstop
    expect(shown).toMatch(/TimeLimit=00:03:00/)
  })

  it("an exit hook runs to its end before the runner's job ends (a job's end takes its processes with it)", async () => {
    const dir = makeStateDir()
    const out = path.join(makeTempDir('drover-hook-'), 'hook.txt')
    const task = await start(dir, ['--on-exit', `sleep 2; echo "$DROVER_STATUS" > ${out}`, '--', 'true'])
    await waitFor(() => /succeeded/.test(safeRead(out)), {timeout: 30_000, message: 'the hook'})
    // the job stays on while its runner waits for the 2-second hook (EndTime is local time, whole seconds)
    await waitFor(() => !/JobState=(RUNNING|COMPLETING)/.test(slurmCmd('scontrol', ['show', 'job', task.jobId])), {timeout: 20_000, message: 'the job to end'})
    const end = /EndTime=(\S+)/.exec(slurmCmd('scontrol', ['show', 'job', task.jobId]))![1]
    expect(Date.parse(end)).toBeGreaterThan(Date.parse(readTask(dir, task.id).endedAt) + 1000)
  })
})

function safeRead(file: string): string {
  try {
    return readFileSync(file, 'utf8')
  } catch {
    return ''
  }
}
