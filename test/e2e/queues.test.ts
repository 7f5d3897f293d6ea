// Queues end to end: a parallel limit with `queued` tasks and their place in
// line, FIFO with --priority, pause/resume, cancel/stop of a queued task,
// `stop --all`/`drain --all` and queued tasks, and a SIGKILLed runner whose
// queue moves on at the next drover command of any kind.

import {existsSync, readdirSync} from 'node:fs'
import path from 'node:path'
import {afterEach, describe, expect, it, vi} from 'vitest'
import {jobs, statusOf} from '../helpers/queue-jobs.js'
import {startOk, cleanupStateDirs, drover, isAlive, json, makeStateDir, readTask, taskEvents, waitFor} from '../helpers/cli.js'

vi.setConfig({testTimeout: 120_000})
afterEach(() => cleanupStateDirs())

describe('queues', () => {
  it('runs at most N at once; the rest are queued with their position and start as slots free, in order', async () => {
    const dir = makeStateDir()
    const j = jobs()
    expect((await drover(dir, ['queue', 'set', 'q', '--parallel', '2'])).exitCode).toBe(0)
    const ids: number[] = []
    for (const name of ['a', 'b', 'c', 'd']) ids.push(await startOk(dir, ['--queue', 'q', ...j.argv(name)]))
    await waitFor(() => j.started('a') && j.started('b'), {message: 'a and b started'})
    expect(ids.map((id) => statusOf(dir, id)).slice(2)).toEqual(['queued', 'queued'])
    const list = json(await drover(dir, ['list', '--json']))
    expect(list.map((t: any) => [t.status, t.queue, t.position])).toEqual([
      ['running', 'q', null],
      ['running', 'q', null],
      ['queued', 'q', 1],
      ['queued', 'q', 2],
    ])
    expect(list[3].reason).toBe('waiting for a slot in queue q')
    const table = (await drover(dir, ['list'])).stdout
    expect(table).toContain('queued (#1 in q)')
    expect(json(await drover(dir, ['queue', '--json']))).toEqual([expect.objectContaining({name: 'q', parallel: 2, paused: false, running: 2, waiting: 2})])

    j.release('a')
    // The runner of a hands its slot to c, with no drover command in between.
    await waitFor(() => j.started('c'), {message: 'c started after a ended'})
    expect(j.started('d')).toBe(false)
    expect(statusOf(dir, ids[3])).toBe('queued')
    j.release('b')
    await waitFor(() => j.started('d'), {message: 'd started after b ended'})
    j.release('c')
    j.release('d')
    await waitFor(() => ids.every((id) => statusOf(dir, id) === 'succeeded'), {message: 'all succeeded'})
  })

  it('--priority jumps ahead; a paused queue starts nothing until resumed', async () => {
    const dir = makeStateDir()
    const j = jobs()
    const blocker = await startOk(dir, ['--queue', 'p', ...j.argv('blocker')])
    await waitFor(() => j.started('blocker'))
    const low = await startOk(dir, ['--queue', 'p', ...j.argv('low')])
    const high = await startOk(dir, ['--queue', 'p', '--priority', '5', ...j.argv('high')])
    expect(readTask(dir, high).priority).toBe(5)
    expect(json(await drover(dir, ['status', String(high), '--json'])).position).toBe(1)
    expect(json(await drover(dir, ['status', String(low), '--json'])).position).toBe(2)
    expect((await drover(dir, ['queue', 'pause', 'p'])).exitCode).toBe(0)
    j.release('blocker')
    await waitFor(() => statusOf(dir, blocker) === 'succeeded')
    // Any command would start a task now if the queue were not paused.
    await drover(dir, ['list'])
    expect(statusOf(dir, high)).toBe('queued')
    const paused = json(await drover(dir, ['queue', '--json']))
    expect(paused).toEqual([expect.objectContaining({name: 'p', parallel: 1, paused: true, running: 0, waiting: 2})])
    // the paused queue is said wherever its tasks show: list, status, wait
    expect((await drover(dir, ['list'])).stdout).toMatch(new RegExp(`^${high}\\s+queued \\(#1 in p, paused\\)`, 'm'))
    const status = json(await drover(dir, ['status', String(high), '--json']))
    expect(status).toMatchObject({queuePaused: true, reason: 'waiting for a slot in queue p (paused: drover queue resume p)'})
    expect((await drover(dir, ['status', String(high)])).stdout).toContain('paused: drover queue resume p')
    const waited = await drover(dir, ['wait', '--timeout', '1s', String(high), String(low)])
    expect(waited.exitCode).toBe(124)
    expect(waited.stderr).toContain(`drover: queue p is paused: tasks ${low}, ${high} will not start until drover queue resume p`)
    await drover(dir, ['queue', 'resume', 'p'])
    await waitFor(() => j.started('high'), {message: 'high started first'})
    expect(j.started('low')).toBe(false)
    j.release('high')
    await waitFor(() => j.started('low'))
    j.release('low')
    await waitFor(() => statusOf(dir, low) === 'succeeded')
  })

  it('cancel and stop end a queued task without starting it; stop --all includes queued tasks, drain --all leaves them queued', async () => {
    const dir = makeStateDir()
    const j = jobs()
    const running = await startOk(dir, ['--queue', 'c', ...j.argv('run')])
    await waitFor(() => j.started('run'))
    const one = await startOk(dir, ['--queue', 'c', ...j.argv('one')])
    const two = await startOk(dir, ['--queue', 'c', ...j.argv('two')])
    const three = await startOk(dir, ['--queue', 'c', ...j.argv('three')])

    const cancelled = await drover(dir, ['cancel', String(one), '--json'])
    expect(cancelled.exitCode).toBe(0)
    expect(readTask(dir, one)).toMatchObject({status: 'cancelled', reason: 'cancelled before it started', desired: 'stopped', startedAt: null})

    // Nothing of a queued task runs, so a drain has nothing to checkpoint: it stays queued.
    const draining = await drover(dir, ['drain', String(two)])
    expect(draining.stderr + draining.stdout).toContain('is queued: nothing runs to drain')
    expect(statusOf(dir, two)).toBe('queued')

    const drained = await drover(dir, ['drain', '--all', '--grace', '0', '--kill-after', '1s', '--json'])
    expect(drained.exitCode, drained.stdout).toBe(0)
    expect(json(drained).results.map((r: any) => r.id)).toEqual([running])
    // The drained task's runner does not hand its slot on (a drain empties the machine).
    expect(statusOf(dir, running)).toBe('drained')
    expect([statusOf(dir, two), statusOf(dir, three)]).toEqual(['queued', 'queued'])

    // stop --all takes queued tasks too: they end without ever starting.
    const stopped = await drover(dir, ['stop', '--all', '--time', '1', '--json'])
    expect(stopped.exitCode, stopped.stdout).toBe(0)
    expect(isFinal(statusOf(dir, two)) && isFinal(statusOf(dir, three))).toBe(true)
    expect(readTask(dir, three)).toMatchObject({status: 'stopped', reason: 'stopped before it started', desired: 'stopped'})
    expect(j.started('one') || j.started('three')).toBe(false)
  })

  it('a SIGKILLed runner and worker: the queue moves on at the next drover command of any kind', async () => {
    const dir = makeStateDir()
    const j = jobs()
    const first = await startOk(dir, ['--queue', 'k', ...j.argv('first')])
    const second = await startOk(dir, ['--queue', 'k', ...j.argv('second')])
    await waitFor(() => j.started('first'))
    const runner = JSON.parse(await import('node:fs').then((fs) => fs.readFileSync(path.join(dir, 'tasks', String(first), 'runner.json'), 'utf8')))
    const worker = readTask(dir, first).worker.pid
    process.kill(runner.pid, 'SIGKILL')
    process.kill(-worker, 'SIGKILL')
    await waitFor(() => !isAlive(runner.pid) && !isAlive(worker), {timeout: 20_000, message: 'runner and worker dead'})
    expect(statusOf(dir, second)).toBe('queued')
    await drover(dir, ['logs', String(first)])
    await waitFor(() => j.started('second'), {message: 'second started after the next command'})
    expect(statusOf(dir, first)).toBe('lost')
    j.release('second')
    await waitFor(() => statusOf(dir, second) === 'succeeded')
  })

  it('start --name N --if-absent prints the id of the queued or running task named N and exits 0; without it, 4', async () => {
    const dir = makeStateDir()
    const j = jobs()
    const running = await startOk(dir, ['--name', 'nightly', '--queue', 'n', ...j.argv('nightly')])
    const queued = await startOk(dir, ['--name', 'second', '--queue', 'n', ...j.argv('second')])
    expect(statusOf(dir, queued)).toBe('queued')
    expect(await startOk(dir, ['--name', 'nightly', '--if-absent', '--queue', 'n', ...j.argv('again')])).toBe(running)
    expect(await startOk(dir, ['--name', 'second', '--if-absent', ...j.argv('again')])).toBe(queued)
    expect((await drover(dir, ['start', '--name', 'nightly', ...j.argv('again')])).exitCode).toBe(4)
    expect((await drover(dir, ['start', '--if-absent', ...j.argv('again')])).exitCode).toBe(2)
    // reuse is said: a stderr line, `reused` in JSON (false for a task really started)
    const reused = await drover(dir, ['start', '--name', 'nightly', '--if-absent', ...j.argv('again')])
    expect(reused.stderr.trim()).toBe(`drover: task ${running} (nightly) is running already: not started again (--if-absent)`)
    expect(json(await drover(dir, ['start', '--json', '--name', 'nightly', '--if-absent', ...j.argv('again')]))).toMatchObject({id: running, reused: true})
    // -q: the cron line prints nothing at all, reused or started
    const quiet = await drover(dir, ['start', '-q', '--name', 'nightly', '--if-absent', ...j.argv('again')])
    expect(quiet).toMatchObject({exitCode: 0, stdout: '', stderr: ''})
    const fresh = await drover(dir, ['start', '-q', '--queue', 'n', '--name', 'third', ...j.argv('third')])
    expect(fresh).toMatchObject({exitCode: 0, stdout: '', stderr: ''})
    expect(json(await drover(dir, ['status', '--json', 'third']))).toMatchObject({status: 'queued'})
    expect(json(await drover(dir, ['start', '--json', '--name', 'fourth', '--', 'true']))).toMatchObject({reused: false})
    // a start that fails is still said under -q
    const failing = await drover(dir, ['start', '-q', '--', 'no-such-program-xyz'])
    expect(failing.exitCode).not.toBe(0)
    expect(failing.stderr).not.toBe('')
    expect((await drover(dir, ['cancel', 'third'])).exitCode).toBe(0)
    j.release('nightly')
    j.release('second')
    await waitFor(() => statusOf(dir, queued) === 'succeeded')
    // Ended: a new task is started.
    const next = await startOk(dir, ['--name', 'nightly', '--if-absent', ...j.argv('third')])
    expect(next).toBeGreaterThan(queued)
    j.release('third')
    expect(j.started('again')).toBe(false)
  })

  it('usage errors exit 2 and create nothing', async () => {
    const dir = makeStateDir()
    for (const args of [
      ['queue', 'set', 'q', '--parallel', '0'],
      ['queue', 'set', 'q'],
      ['queue', 'pause'],
      ['queue', 'set', '9x', '--parallel', '2'],
      ['queue', '--parallel', '3'],
      ['start', '--queue', 'q', '--priority', '1000', '--', 'true'],
      ['start', '--queue', '-bad', '--', 'true'],
      ['start', '--retry-delay', '1s', '--', 'true'],
      ['start', '--if-absent', '--', 'true'],
    ]) {
      const r = await drover(dir, args)
      expect(r.exitCode, `${args.join(' ')}: ${r.stderr}`).toBe(2)
      expect(r.stderr.trim().split('\n'), args.join(' ')).toHaveLength(1)
    }
    expect(existsSync(path.join(dir, 'tasks')) && readdirSync(path.join(dir, 'tasks')).some((n) => /^\d+$/.test(n))).toBe(false)
    expect(existsSync(path.join(dir, 'queues'))).toBe(false)
  })

  it('queue-name typos are refused with the name meant: pause, resume, wait, show, rm, and start of a near miss; queue set makes one', async () => {
    const dir = makeStateDir()
    expect((await drover(dir, ['queue', 'set', 'agents', '--parallel', '2'])).exitCode).toBe(0)
    for (const [args, message] of [
      [['queue', 'pause', 'agnets'], "no queue 'agnets' (did you mean agents?); make it with: drover queue set agnets --parallel N"],
      [['queue', 'resume', 'agnets'], "no queue 'agnets' (did you mean agents?)"],
      [['queue', 'rm', 'agnets'], "no queue 'agnets' (did you mean agents?)"],
      [['queue', 'agnets'], "no queue 'agnets' (did you mean agents?)"],
      [['wait', '--queue', 'nonexist'], "no queue 'nonexist' (queues: agents); nothing to wait for"],
      [['start', '--queue', 'agnets', '--', 'true'], "no queue 'agnets' (did you mean agents?); to make a new queue of that name: drover queue set agnets --parallel N, then start"],
    ] as const) {
      const r = await drover(dir, [...args])
      expect(r.exitCode, `${args.join(' ')}: ${r.stderr}`).toBe(2)
      expect(r.stderr).toContain(message)
    }
    expect(json(await drover(dir, ['queue', '--json'])).map((q: any) => q.name)).toEqual(['agents'])
    expect(existsSync(path.join(dir, 'tasks')) && readdirSync(path.join(dir, 'tasks')).some((n) => /^\d+$/.test(n))).toBe(false)
    // a name near no queue makes a new one, as always; queue set makes a near miss on purpose
    expect((await drover(dir, ['start', '--queue', 'builds', '--', 'true'])).exitCode).toBe(0)
    expect((await drover(dir, ['queue', 'set', 'agent', '--parallel', '1'])).exitCode).toBe(0)
    expect((await drover(dir, ['start', '--queue', 'agent', '--', 'true'])).exitCode).toBe(0)
  })

  it('list --queue, queue move (--first, --priority, --to; a started task is refused), cancel --queue clears the backlog', async () => {
    const dir = makeStateDir()
    const j = jobs()
    const running = await startOk(dir, ['--queue', 'q', '--name', 'running', ...j.argv('running')])
    const [a, b, c] = [await startOk(dir, ['--queue', 'q', '--name', 'a', ...j.argv('a')]), await startOk(dir, ['--queue', 'q', '--name', 'b', ...j.argv('b')]), await startOk(dir, ['--queue', 'q', '--name', 'c', ...j.argv('c')])]
    const other = await startOk(dir, ['--name', 'other', ...j.argv('other')])
    expect(json(await drover(dir, ['list', '--queue', 'q', '--json'])).map((t: any) => t.id)).toEqual([running, a, b, c])
    expect((await drover(dir, ['list', '--queue', 'nope'])).exitCode).toBe(2)

    const moved = await drover(dir, ['queue', 'move', 'c', '--first'])
    expect(moved.exitCode, moved.stderr).toBe(0)
    expect(moved.stdout).toBe(`task ${c} (c): #1 in q, priority 1`)
    expect((await drover(dir, ['queue', 'move', String(a), '--priority', '-5'])).exitCode).toBe(0)
    expect(json(await drover(dir, ['queue', 'q', '--json'])).queuedTasks.map((t: any) => t.id)).toEqual([c, b, a])
    const refused = await drover(dir, ['queue', 'move', 'running', '--first'])
    expect(refused.exitCode).toBe(4)
    expect(refused.stderr).toContain(`task ${running} is running: only a task waiting in a drover queue can be moved`)
    // to a new queue with a free slot: it starts there at once
    const away = json(await drover(dir, ['queue', 'move', 'b', '--to', 'fast', '--json']))
    expect(away).toMatchObject({id: b, queue: 'fast'})
    await waitFor(() => j.started('b'), {message: 'b started in its new queue'})
    expect(taskEvents(dir, b).some((e) => e.event === 'moved' && e.queue === 'fast')).toBe(true)

    // cancel --queue q: the running task and the backlog of q, nothing of another queue or none
    const cleared = await drover(dir, ['cancel', '--queue', 'q'])
    expect(cleared.exitCode, cleared.stderr).toBe(0)
    expect([running, a, c].map((id) => statusOf(dir, id))).toEqual(['cancelled', 'cancelled', 'cancelled'])
    expect(statusOf(dir, other)).toBe('running')
    expect(statusOf(dir, b)).toBe('running')
    expect((await drover(dir, ['stop', '--queue', 'q', '--all'])).exitCode).toBe(2)
    expect((await drover(dir, ['stop', '--queue', 'fast'])).exitCode).toBe(0)
    expect(statusOf(dir, b)).toBe('stopped')
    j.release('other')
  })

  it('queue NAME lists its tasks in start order (--json too); queue rm forgets an empty queue and refuses one with tasks (4)', async () => {
    const dir = makeStateDir()
    const j = jobs()
    const first = await startOk(dir, ['--queue', 'q', '--name', 'first', ...j.argv('first')])
    const low = await startOk(dir, ['--queue', 'q', '--name', 'low', ...j.argv('low')])
    const high = await startOk(dir, ['--queue', 'q', '--name', 'high', '--priority', '5', ...j.argv('high')])
    const shown = await drover(dir, ['queue', 'q'])
    expect(shown.exitCode, shown.stderr).toBe(0)
    const lines = shown.stdout.trim().split('\n')
    expect(lines[0]).toBe('queue q: 1 of 1 running, 2 waiting')
    expect(lines.slice(2).map((l) => l.split(/\s+/).slice(0, 4))).toEqual([
      [String(first), 'first', 'running', '0'],
      [String(high), 'high', 'queued', '#1'],
      [String(low), 'low', 'queued', '#2'],
    ])
    const detail = json(await drover(dir, ['queue', 'q', '--json']))
    expect(detail).toMatchObject({name: 'q', parallel: 1, running: 1, waiting: 2, runningTasks: [{id: first, status: 'running'}]})
    expect(detail.queuedTasks.map((t: any) => [t.id, t.position])).toEqual([[high, 1], [low, 2]])
    expect(json(await drover(dir, ['queue', '--json']))[0].queuedTasks).toHaveLength(2)

    const busy = await drover(dir, ['queue', 'rm', 'q'])
    expect(busy.exitCode).toBe(4)
    expect(busy.stderr).toContain(`queue q is not empty: tasks ${first}, ${low}, ${high}`)
    for (const name of ['first', 'high', 'low']) {
      await waitFor(() => j.started(name), {message: `${name} started`})
      j.release(name)
    }
    await waitFor(() => [first, low, high].every((id) => isFinal(statusOf(dir, id))), {message: 'all ended'})
    const removed = await drover(dir, ['queue', 'rm', 'q'])
    expect(removed.exitCode, removed.stderr).toBe(0)
    expect(removed.stdout).toBe('removed queue q')
    expect(existsSync(path.join(dir, 'queues', 'q'))).toBe(false)
    expect(json(await drover(dir, ['queue', '--json']))).toEqual([])
  })
})

const isFinal = (status: string) => !['queued', 'starting', 'running', 'stopping'].includes(status)
