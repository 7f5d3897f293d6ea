// Slurm end to end, on the real single-node cluster: a task's runner is a
// batch job. start → running → logs -f → its exit code; failed codes; graded
// stops over the whole tree (Slurm's default process tracking misses setsid
// escapees); cancel of a running and of a queued job; the runner killed (the
// job's state decides); --drain-before-limit with a short --time.

import {readFileSync} from 'node:fs'
import {isFinalStatus} from '../../src/state/record.js'
import path from 'node:path'
import {afterEach, describe, expect, it} from 'vitest'
import {cleanupStateDirs, fixture, isAlive, json, killLeftovers, leftoverList, makeStateDir, readOutput, readTask, waitFor} from '../helpers/cli.js'
import {cancelAllJobs, HEARTBEAT_MS, jobState, onCluster, SLURM_CONF, slurmCmd} from './cluster.js'

const node = process.execPath
const strays = leftoverList()

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

/** A job whose worker has a TERM-ignoring child and a setsid grandchild (control-tree.mjs), once all three are up. */
async function startTree(dir: string): Promise<{task: any; pids: {worker: number; child: number; escapee: number}}> {
  const pidsFile = path.join(dir, 'pids.json')
  const task = await start(dir, [node, fixture('control-tree.mjs'), pidsFile])
  const pids = await waitFor(() => JSON.parse(readFileSync(pidsFile, 'utf8')), {timeout: 20_000, message: 'the tree to be up'})
  strays.push(pids.worker, pids.child, pids.escapee)
  return {task, pids}
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
    const {task, pids} = await startTree(dir)
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

  it("a wedged runner (deaf to requests, SIGCONT and SIGTERM): scancel --signal=CONT --batch, then --signal=TERM --batch, then scancel ends the job; the stop is recorded", async () => {
    const dir = makeStateDir()
    // The runner's event loop blocks for good 1.5 s after it starts (a stand-in for one stuck in a system call),
    // preloaded through the job's environment: sbatch takes the last --export, so this one adds to drover's own.
    const wedge = [`--slurm-opt=--export=ALL,NODE_OPTIONS=--require=${fixture('wedged-runner.cjs')},WEDGE_AFTER_MS=1500`]
    const task = await start(dir, ['sleep', '300'], wedge)
    strays.push(readTask(dir, task.id).worker.pid)
    const runner = JSON.parse(readFileSync(path.join(dir, 'tasks', String(task.id), 'runner.json'), 'utf8')).pid
    // wedged: no more beats
    const beat = path.join(dir, 'tasks', String(task.id), 'heartbeat')
    const {statSync} = await import('node:fs')
    await waitFor(() => Date.now() - statSync(beat).mtimeMs > 4 * HEARTBEAT_MS, {timeout: 20_000, message: 'the runner to wedge'})
    expect(isAlive(runner)).toBe(true)

    const began = Date.now()
    const stopped = await onCluster(dir, ['stop', String(task.id), '--time', '10', '--json'], {timeout: 90_000})
    expect(stopped.exitCode, stopped.stderr).toBe(0)
    const result = json(stopped).results[0]
    expect(result).toMatchObject({status: 'stopped', final: true})
    expect(result.reason).toMatch(new RegExp(`^stopped by request \\(runner vanished without recording an end \\(Slurm job ${task.jobId} `))
    const events = readFileSync(path.join(dir, 'tasks', String(task.id), 'events.ndjson'), 'utf8').split('\n').filter(Boolean).map((line) => JSON.parse(line))
    const names = events.map((e) => e.event)
    // each step only after the one before went unanswered (5 s apiece)
    expect(names).toEqual(expect.arrayContaining(['runner-woken', 'runner-signalled', 'placement-cancelled']))
    // the vanished runner's run was settled lost (an exit like any other ending) before the stop
    expect(events.find((e) => e.event === 'exit' && e.status === 'lost')).toMatchObject({cause: 'runner-lost'})
    expect(names.indexOf('runner-woken')).toBeLessThan(names.indexOf('runner-signalled'))
    expect(names.indexOf('runner-signalled')).toBeLessThan(names.indexOf('placement-cancelled'))
    expect(events.find((e) => e.event === 'runner-signalled')).toMatchObject({executor: 'slurm'})
    expect(Date.now() - began).toBeGreaterThan(15_000)
    // Slurm's scancel ended the job and, after KillWait, the wedged runner with it
    await waitFor(() => !isAlive(runner), {timeout: 20_000, message: 'the wedged runner to be killed by the job end'})
    expect(['CANCELLED', 'COMPLETED', 'FAILED', null]).toContain(jobState(task.jobId))
    expect(readTask(dir, task.id)).toMatchObject({status: 'stopped', desired: 'stopped'})
  }, 120_000)

  it('cancel of a running job: cancelled, the job ends, and a TERM-ignoring child and a setsid grandchild are gone', async () => {
    const dir = makeStateDir()
    const {task, pids} = await startTree(dir)
    const cancelled = await onCluster(dir, ['cancel', String(task.id), '--json'])
    expect(json(cancelled).results[0]).toMatchObject({status: 'cancelled', final: true})
    for (const pid of [pids.worker, pids.child, pids.escapee]) expect(isAlive(pid), `pid ${pid}`).toBe(false)
    await waitFor(() => jobState(task.jobId) !== 'RUNNING', {timeout: 20_000, message: 'the job to end'})
  })

  it("the scheduler's own end (scancel from outside drover): stopped, and a TERM-ignoring child and a setsid grandchild are gone", async () => {
    const dir = makeStateDir()
    const {task, pids} = await startTree(dir)
    slurmCmd('scancel', [task.jobId])
    // the runner records it: nothing else reads the task meanwhile
    await waitFor(() => isFinalStatus(readTask(dir, task.id).status), {timeout: 30_000, message: 'the runner to record the end'})
    expect(readTask(dir, task.id)).toMatchObject({status: 'stopped', reason: expect.stringContaining('Slurm ended the job')})
    for (const pid of [pids.worker, pids.child, pids.escapee]) expect(isAlive(pid), `pid ${pid}`).toBe(false)
  }, 60_000)

  it('a job pending in Slurm is queued with its reason (start, status, list, --status queued), a drain leaves it, cancel withdraws it at once', async () => {
    const dir = makeStateDir()
    const big = await start(dir, ['sleep', '300'], ['--cpus', '2'])
    // the node's two CPUs can still be held by the job of the test before while Slurm ends it (its KillWait): then
    // this one waits its turn too, and runs once they are free
    const running = await waitFor(() => readTask(dir, big.id).worker?.pid ?? null, {timeout: 60_000, message: 'the two-CPU job to run'})
    strays.push(running)
    const queued = await start(dir, ['sleep', '300'])
    const why = /^queued in Slurm: job \d+ pending \((Resources|Priority)\)$/
    expect(queued).toMatchObject({status: 'queued', executor: 'slurm', node: null})
    expect(queued.reason).toMatch(why)
    expect(jobState(queued.jobId)).toBe('PENDING')
    // the record says starting: the job exists, its runner records running when Slurm runs it
    expect(readTask(dir, queued.id).status).toBe('starting')
    const shown = json(await onCluster(dir, ['status', String(queued.id), '--json']))
    expect(shown).toMatchObject({status: 'queued', jobId: queued.jobId, engineWait: {engine: 'Slurm', reason: expect.stringMatching(/^(Resources|Priority)$/)}})
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
  }, 120_000)

  it("the runner SIGKILLed: running until its heartbeat is stale whatever Slurm says, then lost naming the job's end and the processes left on the node", async () => {
    const dir = makeStateDir()
    // beats 3 s apart: stale after 9 s, long enough to look while Slurm already calls the job ended
    const slow = {DROVER_HEARTBEAT_MS: '3000'}
    const pidsFile = path.join(dir, 'pids.json')
    const started = await onCluster(dir, ['start', '--json', '--', node, fixture('control-tree.mjs'), pidsFile], {env: slow})
    expect(started.exitCode, started.stderr).toBe(0)
    const task = json(started)
    const pids = await waitFor(() => JSON.parse(readFileSync(pidsFile, 'utf8')), {timeout: 20_000, message: 'the tree to be up'})
    strays.push(pids.worker, pids.child, pids.escapee)
    const taskDir = path.join(dir, 'tasks', String(task.id))
    // the runner has seen the whole tree (tree.json), escapee included
    await waitFor(() => JSON.parse(readFileSync(path.join(taskDir, 'tree.json'), 'utf8')).length >= 3, {timeout: 10_000, message: 'tree.json'})
    const runner = JSON.parse(readFileSync(path.join(taskDir, 'runner.json'), 'utf8'))
    expect(runner.host).toBe(task.node)
    // right after a beat, so the whole window lies ahead
    const {statSync} = await import('node:fs')
    const before = statSync(path.join(taskDir, 'heartbeat')).mtimeMs
    await waitFor(() => statSync(path.join(taskDir, 'heartbeat')).mtimeMs > before, {timeout: 10_000, message: 'a fresh beat'})
    process.kill(runner.pid, 'SIGKILL')
    const lastBeat = statSync(path.join(taskDir, 'heartbeat')).mtimeMs
    await waitFor(() => jobState(task.jobId) !== 'RUNNING', {timeout: 20_000, message: 'the job to end'})
    // Slurm says the job ended; the heartbeat is not stale yet: still running
    const seen: {at: number; status: string}[] = []
    const lost = await waitFor(
      async () => {
        const shown = json(await onCluster(dir, ['status', String(task.id), '--json'], {env: slow}))
        seen.push({at: Date.now(), status: shown.status})
        return shown.status === 'lost' ? shown : null
      },
      {timeout: 40_000, interval: 300, message: 'the task to be lost'},
    )
    const staleAt = lastBeat + 3 * 3000
    expect(seen.filter((s) => s.at < staleAt - 500).length, 'looks before the heartbeat went stale').toBeGreaterThan(0)
    for (const look of seen.filter((s) => s.at < staleAt - 500)) expect(look.status).toBe('running')
    expect(seen.at(-1)!.at).toBeGreaterThanOrEqual(staleAt - 100)
    expect(lost.reason).toMatch(new RegExp(`^runner vanished without recording an end \\(Slurm job ${task.jobId} (FAILED|CANCELLED|COMPLETED)`))
    // Slurm's default process tracking (linuxproc) lost the worker's tree when its parent died: it lives on,
    // and drover, which signals nothing on another host, names it instead
    for (const pid of [pids.worker, pids.child, pids.escapee]) {
      expect(isAlive(pid), `pid ${pid}`).toBe(true)
      expect(lost.reason).toMatch(new RegExp(`its processes on ${task.node} were not checked \\(pids [\\d, ]*\\b${pid}\\b`))
    }
    expect(lost.reason).toMatch(/drover signals no process of another host$/)
  }, 90_000)

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
