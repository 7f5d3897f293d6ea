// Slurm end to end, on the real single-node cluster: a task's runner is a
// batch job. start → running → logs -f → its exit code; failed codes; graded
// stops over the whole tree (Slurm's default process tracking misses setsid
// escapees); cancel of a running and of a queued job; the runner killed (the
// job's state decides); --drain-before-limit with a short --time.

import {readFileSync} from 'node:fs'
import path from 'node:path'
import {afterEach, describe, expect, it} from 'vitest'
import {cleanupStateDirs, fixture, isAlive, json, killLeftovers, makeStateDir, readOutput, readTask, waitFor} from '../helpers/cli.js'
import {cancelAllJobs, HEARTBEAT_MS, jobState, onCluster, SLURM_CONF} from './cluster.js'

const node = process.execPath
const strays: number[] = []

afterEach(() => {
  killLeftovers(strays)
  cleanupStateDirs()
  cancelAllJobs()
})

async function start(dir: string, command: string[], flags: string[] = []): Promise<any> {
  const result = await onCluster(dir, ['start', '--json', ...flags, '--', ...command])
  expect(result.exitCode, result.stderr).toBe(0)
  return json(result)
}

describe('a task on Slurm', () => {
  it('start → running on the node → logs -f → succeeded; list and status show executor, job and node', async () => {
    const dir = makeStateDir()
    const task = await start(dir, ['sh', '-c', 'echo first; sleep 1; echo second'])
    expect(task).toMatchObject({status: 'running', executor: 'slurm'})
    expect(task.jobId).toMatch(/^\d+$/)
    expect(task.node).toBeTruthy()
    expect(jobState(task.jobId)).toBe('RUNNING')

    const listed = json(await onCluster(dir, ['list', '--json']))
    expect(listed[0]).toMatchObject({id: task.id, executor: 'slurm', jobId: task.jobId})

    const follow = await onCluster(dir, ['logs', '-f', String(task.id)])
    expect(follow.exitCode).toBe(0)
    expect(follow.stdout).toBe('first\nsecond')
    expect(readTask(dir, task.id)).toMatchObject({status: 'succeeded', exitCode: 0, executor: 'slurm', host: task.node})
    const status = await onCluster(dir, ['status', String(task.id), '--json'])
    expect(json(status)).toMatchObject({status: 'succeeded', jobId: task.jobId, runnerAlive: false})
  })

  it("failed exit codes are the task's own, through logs -f and status --wait", async () => {
    const dir = makeStateDir()
    const task = await start(dir, ['sh', '-c', 'echo oops >&2; exit 7'])
    const follow = await onCluster(dir, ['logs', '-f', String(task.id)])
    expect(follow.exitCode).toBe(7)
    expect(readTask(dir, task.id)).toMatchObject({status: 'failed', exitCode: 7, reason: 'exit 7'})
    const killed = await start(dir, ['sh', '-c', 'kill -KILL $$'])
    const waited = await onCluster(dir, ['status', String(killed.id), '--wait', '--json'])
    expect(waited.exitCode).toBe(137)
    expect(json(waited)).toMatchObject({status: 'failed', signal: 'SIGKILL'})
  })

  it('stop is graded over the whole tree: a TERM-ignoring child and a setsid grandchild are gone', async () => {
    const dir = makeStateDir()
    const pidsFile = path.join(dir, 'pids.json')
    const task = await start(dir, [node, fixture('control-tree.mjs'), pidsFile])
    const pids = await waitFor(() => JSON.parse(readFileSync(pidsFile, 'utf8')), {timeout: 20_000, message: 'the tree to be up'})
    strays.push(pids.worker, pids.child, pids.escapee)
    const stopped = await onCluster(dir, ['stop', String(task.id), '--time', '1', '--json'])
    expect(stopped.exitCode, stopped.stderr).toBe(0)
    expect(json(stopped).results[0]).toMatchObject({status: 'stopped', via: 'runner', final: true})
    for (const pid of [pids.worker, pids.child, pids.escapee]) expect(isAlive(pid), `pid ${pid}`).toBe(false)
    expect(readOutput(dir, task.id)).toContain('child ignores SIGTERM')
  })

  it('a frozen runner is reached through the scheduler: scancel --signal=CONT --batch wakes it and it takes the stop', async () => {
    const dir = makeStateDir()
    const task = await start(dir, ['sleep', '300'])
    strays.push(readTask(dir, task.id).worker.pid)
    const runner = JSON.parse(readFileSync(path.join(dir, 'tasks', String(task.id), 'runner.json'), 'utf8')).pid
    process.kill(runner, 'SIGSTOP')
    try {
      const stopped = await onCluster(dir, ['stop', String(task.id), '--time', '1', '--json'])
      expect(json(stopped).results[0]).toMatchObject({status: 'stopped', via: 'runner', final: true})
    } finally {
      try {
        process.kill(runner, 'SIGCONT')
      } catch {
        // gone: the point
      }
    }
    const events = readFileSync(path.join(dir, 'tasks', String(task.id), 'events.ndjson'), 'utf8')
    expect(events).toContain('"event":"runner-woken"')
  })

  it('cancel of a running job: cancelled, and the job ends', async () => {
    const dir = makeStateDir()
    const task = await start(dir, ['sleep', '300'])
    strays.push(readTask(dir, task.id).worker.pid)
    const cancelled = await onCluster(dir, ['cancel', String(task.id), '--json'])
    expect(json(cancelled).results[0]).toMatchObject({status: 'cancelled', final: true})
    await waitFor(() => jobState(task.jobId) !== 'RUNNING', {timeout: 20_000, message: 'the job to end'})
  })

  it('a job pending in Slurm is queued with its reason (start, status, list, --status queued), a drain leaves it, cancel withdraws it at once', async () => {
    const dir = makeStateDir()
    const big = await start(dir, ['sleep', '300'], ['--cpus', '2'])
    strays.push(readTask(dir, big.id).worker.pid)
    const queued = await start(dir, ['sleep', '300'])
    const why = /^queued in Slurm: job \d+ pending \((Resources|Priority)\)$/
    expect(queued).toMatchObject({status: 'queued', executor: 'slurm', node: null})
    expect(queued.reason).toMatch(why)
    expect(jobState(queued.jobId)).toBe('PENDING')
    // the record says starting: the job exists, its runner records running when Slurm runs it
    expect(readTask(dir, queued.id).status).toBe('starting')
    const shown = json(await onCluster(dir, ['status', String(queued.id), '--json']))
    expect(shown).toMatchObject({status: 'queued', jobId: queued.jobId})
    expect(shown.reason).toMatch(why)
    const table = await onCluster(dir, ['list'])
    const row = table.stdout.split('\n').find((line) => line.startsWith(`${queued.id} `))
    expect(row).toMatch(new RegExp(`queued \\(Slurm: (Resources|Priority)\\) +job ${queued.jobId}`))
    const onlyQueued = json(await onCluster(dir, ['list', '--status', 'queued', '--json']))
    expect(onlyQueued.map((t: any) => t.id)).toEqual([queued.id])
    const human = await onCluster(dir, ['status', String(queued.id)])
    expect(human.stdout).toMatch(new RegExp(`executor +slurm job ${queued.jobId}`))
    // nothing runs to drain: it stays queued, and drain --all passes it by
    const drained = await onCluster(dir, ['drain', String(queued.id), '--json'])
    expect(json(drained).results[0]).toMatchObject({accepted: false, final: false})
    expect(jobState(queued.jobId)).toBe('PENDING')
    const cancelled = await onCluster(dir, ['cancel', String(queued.id), '--json'])
    expect(json(cancelled).results[0]).toMatchObject({status: 'cancelled', via: 'direct', final: true})
    expect(jobState(queued.jobId)).toBe('CANCELLED')
    // the running one is untouched
    expect(readTask(dir, big.id).status).toBe('running')
  })

  it("the runner SIGKILLed: the job's end decides, and the task is lost once the heartbeat is stale", async () => {
    const dir = makeStateDir()
    const task = await start(dir, ['sleep', '300'])
    const worker = readTask(dir, task.id).worker.pid
    strays.push(worker)
    const runner = JSON.parse(readFileSync(path.join(dir, 'tasks', String(task.id), 'runner.json'), 'utf8'))
    expect(runner.host).toBe(task.node)
    process.kill(runner.pid, 'SIGKILL')
    await waitFor(() => jobState(task.jobId) !== 'RUNNING', {timeout: 20_000, message: 'the job to end'})
    const lost = await waitFor(
      async () => {
        const shown = json(await onCluster(dir, ['status', String(task.id), '--json']))
        return shown.status === 'lost' ? shown : null
      },
      {timeout: 20 * HEARTBEAT_MS, message: 'the task to be lost'},
    )
    expect(lost.reason).toMatch(new RegExp(`^runner vanished without recording an end \\(Slurm job ${task.jobId} (FAILED|CANCELLED|COMPLETED)`))
  })

  it('a live heartbeat keeps a task running whatever the scheduler says', async () => {
    const dir = makeStateDir()
    const task = await start(dir, ['sleep', '300'])
    strays.push(readTask(dir, task.id).worker.pid)
    // The job's record says nothing about a live runner elsewhere: forget the job id and the heartbeat alone speaks.
    const file = path.join(dir, 'tasks', String(task.id), 'task.json')
    const record = JSON.parse(readFileSync(file, 'utf8'))
    const {writeFileSync} = await import('node:fs')
    writeFileSync(file, JSON.stringify({...record, slurm: {...record.slurm, jobId: '999999'}}))
    for (let i = 0; i < 3; i++) {
      await new Promise((resolve) => setTimeout(resolve, 2 * HEARTBEAT_MS))
      expect(json(await onCluster(dir, ['status', String(task.id), '--json'])).status).toBe('running')
    }
  })
})

describe('secrets', () => {
  it("the submitter's environment stays home: the worker gets its -e values from the record, the controller never sees them", async () => {
    const dir = makeStateDir()
    const result = await onCluster(dir, ['start', '--json', '-e', 'TASK_TOKEN=tok-from-e', '--', 'sh', '-c', 'echo "task=$TASK_TOKEN shell=${SUBMITTER_SECRET:-unset}"; sleep 2'], {
      env: {SUBMITTER_SECRET: 'sub-secret-value'},
    })
    expect(result.exitCode, result.stderr).toBe(0)
    const task = json(result)
    await waitFor(() => readOutput(dir, task.id).includes('task='), {timeout: 20_000, message: 'the output'})
    expect(readOutput(dir, task.id)).toBe('task=tok-from-e shell=unset\n')
    // What the controller stores for the job (its environment and script) while the job is kept.
    const {readdirSync} = await import('node:fs')
    const spool = path.join(path.dirname(SLURM_CONF), 'spool', 'ctld')
    const jobDir = readdirSync(spool, {recursive: true}).map(String).find((entry) => entry.endsWith(`job.${task.jobId}`))
    expect(jobDir, 'the job in the controller state').toBeTruthy()
    for (const file of readdirSync(path.join(spool, jobDir!))) {
      const stored = readFileSync(path.join(spool, jobDir!, file), 'latin1')
      expect(stored, file).not.toContain('tok-from-e')
      expect(stored, file).not.toContain('sub-secret-value')
    }
  })
})

describe('--drain-before-limit', () => {
  it('Slurm warns the runner (USR1) ahead of a short --time, and the task is drained, not killed', async () => {
    const dir = makeStateDir()
    // exits on STOP, as an agent checkpointing its conversation does
    const task = await start(dir, [node, fixture('control-word.mjs'), 'STOP'], ['--time', '1', '--drain-before-limit', '50s'])
    strays.push(readTask(dir, task.id).worker.pid)
    const drained = await waitFor(() => (readTask(dir, task.id).status === 'drained' ? readTask(dir, task.id) : null), {
      timeout: 90_000,
      interval: 250,
      message: 'the drain before the time limit',
    })
    expect(drained.checkpoint).toMatchObject({mode: 'cooperative'})
    expect(readOutput(dir, task.id)).toContain('control: STOP')
    const events = readFileSync(path.join(dir, 'tasks', String(task.id), 'events.ndjson'), 'utf8')
    expect(events).toContain('"by":"time limit ahead"')
  }, 120_000)
})
