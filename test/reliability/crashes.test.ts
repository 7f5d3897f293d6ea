// Crashes and reboots: the runner SIGKILLed at each stage of a run, every runner and
// worker killed at once (a reboot), and a state dir on a disk that fills up. Whatever
// happens, every task ends valid (lost or final), no worker runs unreported, stop works.

import {execFileSync, spawn} from 'node:child_process'
import {appendFileSync, existsSync, readdirSync, readFileSync, rmSync, utimesSync, writeFileSync} from 'node:fs'
import path from 'node:path'
import {afterAll, afterEach, describe, expect, it} from 'vitest'
import {newRecord} from '../../src/tasks/launch.js'
import {decodeRecord} from '../../src/state/record-codec.js'
import {allocateTaskId, createTaskLayout, taskPaths, writeRecord} from '../../src/state/store.js'
import {ensureStateDir} from '../../src/state/statedir.js'
import {cleanupStateDirs, drover, fixture, isAlive, json, makeStateDir, readTask, ROOT, waitFor, startOk} from '../helpers/cli.js'
import {canMountTmpfs, deadIdentity, fabricateTask, freshDir, mountTmpfs, snapshot, unmountAll, waitDead, workerPids} from '../fixtures/rel-state.js'

const node = process.execPath
const FINAL = ['succeeded', 'failed', 'stopped', 'cancelled', 'drained', 'lost']
const leftovers: number[] = []

afterEach(() => {
  for (const pid of leftovers.splice(0)) {
    try {
      process.kill(pid, 'SIGKILL')
    } catch {
      // gone already
    }
  }
  cleanupStateDirs()
})
afterAll(() => unmountAll())


const runnerPid = (dir: string, id: number): number => JSON.parse(readFileSync(taskPaths(dir, id).runner, 'utf8')).pid

async function killRunner(dir: string, id: number): Promise<number> {
  const pid = runnerPid(dir, id)
  process.kill(pid, 'SIGKILL')
  await waitDead(pid, 'runner')
  return pid
}

const waitFinal = (dir: string, id: number, timeout = 30_000) =>
  waitFor(() => FINAL.includes(readTask(dir, id).status) && readTask(dir, id), {timeout, message: `task ${id} to end`})

describe('the runner SIGKILLed at each stage', () => {
  it('before the worker starts: lost, no worker ever ran, and the task can be started again', {timeout: 60_000}, async () => {
    const dir = makeStateDir()
    ensureStateDir(dir)
    const id = allocateTaskId(dir)
    const paths = taskPaths(dir, id)
    createTaskLayout(paths)
    writeRecord(dir, newRecord(id, {command: [node, fixture('sleeper.mjs')], shell: null, name: null, cwd: '/', env: {}, agent: 'generic', policies: {timeoutMs: null, idleTimeoutMs: null, maxOutputBytes: null}}))
    // Deterministic stage: the runner writes runner.json, then opens output.log for
    // appending. With a FIFO in its place that open blocks until a reader comes (none
    // does), so once runner.json names it the runner is parked before the worker spawn.
    rmSync(paths.output)
    execFileSync('mkfifo', ['-m', '600', paths.output])
    const runner = spawn(node, [path.join(ROOT, 'dist', 'runner.cjs'), dir, String(id)], {detached: true, stdio: 'ignore'})
    runner.unref()
    leftovers.push(runner.pid!)
    await waitFor(() => existsSync(paths.runner) && runnerPid(dir, id) === runner.pid, {message: 'runner.json'})
    process.kill(runner.pid!, 'SIGKILL')
    await waitDead(runner.pid!, 'runner')
    expect(readTask(dir, id).status).toBe('starting')

    const listed = json(await drover(dir, ['list', '--json']))
    expect(listed).toMatchObject([{id, status: 'lost', pid: null}])
    expect(workerPids(dir, id)).toEqual([])
    // Nothing to signal, but the intent is recorded: stopped, and startable again.
    const stop = await drover(dir, ['stop', String(id)])
    expect([stop.exitCode, stop.stdout]).toEqual([0, `task ${id} stopped (was lost; nothing was running)`])
    expect(readTask(dir, id).status).toBe('stopped')

    rmSync(paths.output)
    const again = await drover(dir, ['start', String(id), '--json'])
    expect(again.exitCode, again.stderr).toBe(0)
    expect(json(again)).toMatchObject({status: 'running', run: 2})
    expect((await drover(dir, ['cancel', String(id)])).exitCode).toBe(0)
  })

  it('before it even wrote its identity: lost once the start-up grace has passed', async () => {
    const dir = makeStateDir()
    // A `starting` record made a minute ago whose runner never wrote runner.json.
    const id = fabricateTask(dir, {status: 'starting'})
    const minuteAgo = new Date(Date.now() - 60_000)
    utimesSync(taskPaths(dir, id).record, minuteAgo, minuteAgo)
    expect(readTask(dir, id).status).toBe('starting')
    expect(json(await drover(dir, ['status', String(id), '--json']))).toMatchObject({status: 'lost', reason: 'runner never started', workerAlive: false})
    expect(readTask(dir, id).status).toBe('lost')
  })

  it('while the worker runs: a new runner adopts it, list shows it running, and stop ends it', {timeout: 60_000}, async () => {
    const dir = makeStateDir()
    const id = await startOk(dir, ['--', node, fixture('sleeper.mjs')])
    const worker = readTask(dir, id).worker.pid as number
    await killRunner(dir, id)
    expect(isAlive(worker)).toBe(true)
    // Not unsupervised: the next command (list) starts a runner that adopts the worker.
    expect(json(await drover(dir, ['list', '--json']))).toMatchObject([{id, status: 'running', pid: worker}])
    expect(json(await drover(dir, ['status', String(id), '--json']))).toMatchObject({status: 'running', workerAlive: true, runnerAlive: true})
    const stop = await drover(dir, ['stop', '-t', '2', String(id)])
    expect(stop.exitCode, stop.stderr).toBe(0)
    expect(readTask(dir, id)).toMatchObject({status: 'stopped', desired: 'stopped', reason: 'stopped by request'})
    await waitDead(worker, 'worker')
  })

  it('while a stop is in progress: a second stop finishes the job, and a restart is not stopped by the old request', {timeout: 90_000}, async () => {
    const dir = makeStateDir()
    const id = await startOk(dir, ['--', node, fixture('rel-stubborn.mjs')])
    const worker = readTask(dir, id).worker.pid as number
    const first = await drover(dir, ['stop', '-t', '30', '--no-wait', String(id)])
    expect(first.exitCode, first.stderr).toBe(0)
    // The runner has taken the request (SIGTERM sent, ignored) and waits out the grace.
    await waitFor(() => readTask(dir, id).status === 'stopping', {message: 'stopping'})
    await waitFor(() => readFileSync(taskPaths(dir, id).output, 'utf8').includes('SIGTERM ignored'), {message: 'SIGTERM to arrive'})
    await killRunner(dir, id)
    expect(isAlive(worker)).toBe(true)

    const second = await drover(dir, ['stop', '-t', '1', String(id)])
    expect(second.exitCode, second.stdout + second.stderr).toBe(0)
    // The runner adopting the worker picks up both requests: the quicker stop wins.
    expect(readTask(dir, id)).toMatchObject({status: 'stopped', reason: expect.stringMatching(/^killed after [0-9.]+ s$/)})
    await waitDead(worker, 'worker')

    const again = await drover(dir, ['start', String(id), '--json'])
    expect(again.exitCode, again.stderr).toBe(0)
    expect(json(again)).toMatchObject({status: 'running', run: 2})
    expect(readdirSync(taskPaths(dir, id).requests)).toEqual([])
    expect((await drover(dir, ['cancel', String(id)])).exitCode).toBe(0)
    expect(readTask(dir, id).status).toBe('cancelled')
  })

  it('while it writes the final record: a leftover temp file and a torn event line are ignored', {timeout: 60_000}, async () => {
    const dir = makeStateDir()
    // The crash can come before the rename (the record still says running) or after it
    // (the record is final but runner.json and the temp are left): both must read right.
    const before = fabricateTask(dir, {status: 'running', runner: deadIdentity(), worker: deadIdentity()})
    const after = fabricateTask(dir, {status: 'succeeded', runner: deadIdentity()})
    for (const id of [before, after]) {
      const paths = taskPaths(dir, id)
      const torn = readFileSync(paths.record, 'utf8').replace('"succeeded"', '"failed"').replace('"running"', '"succeeded"')
      writeFileSync(path.join(paths.dir, `.task.json.99999-x-1.tmp`), torn.slice(0, torn.length / 2), {mode: 0o600})
      writeFileSync(paths.events, readFileSync(paths.events, 'utf8') + '{"ts":"2024', {mode: 0o600})
    }
    const finalRecord = readFileSync(taskPaths(dir, after).record, 'utf8')

    const listed = json(await drover(dir, ['list', '--json']))
    expect(listed.map((t: any) => [t.id, t.status])).toEqual([[before, 'lost'], [after, 'succeeded']])
    for (const id of [before, after]) expect(() => decodeRecord(readFileSync(taskPaths(dir, id).record, 'utf8'))).not.toThrow()
    const stopBefore = await drover(dir, ['stop', String(before)])
    expect([stopBefore.exitCode, stopBefore.stdout]).toEqual([0, `task ${before} stopped (was lost; nothing was running)`])
    const stopAfter = await drover(dir, ['stop', String(after)])
    expect([stopAfter.exitCode, stopAfter.stdout]).toEqual([0, `task ${after} already ended: succeeded (fabricated)`])
    expect(readFileSync(taskPaths(dir, after).record, 'utf8')).toBe(finalRecord)
    const prune = await drover(dir, ['prune', '--older-than', '0s', '--json'])
    expect(prune.exitCode, prune.stderr).toBe(0)
    expect(json(prune).removed.map((t: any) => t.id).sort()).toEqual([before, after])
    expect(readdirSync(path.join(dir, 'tasks'))).toEqual([])
  })
})

describe('reboot', () => {
  it('every runner and worker SIGKILLed: running tasks lost, nothing else changed, resume --interrupted brings them back', {timeout: 120_000}, async () => {
    const dir = makeStateDir()
    const done = fabricateTask(dir, {status: 'succeeded'})
    const stopped = fabricateTask(dir, {status: 'stopped'})
    const live = [
      await startOk(dir, ['--', node, fixture('sleeper.mjs')]),
      await startOk(dir, ['--name', 'agent', '--', node, fixture('sleeper.mjs')]),
      await startOk(dir, ['--', node, fixture('rel-stubborn.mjs')]),
    ]
    const finals = Object.fromEntries([done, stopped].map((id) => [id, snapshot(taskPaths(dir, id).dir)]))
    const workers = live.map((id) => readTask(dir, id).worker.pid as number)
    const runners = live.map((id) => runnerPid(dir, id))
    for (const pid of runners) process.kill(pid, 'SIGKILL')
    for (const pid of workers) process.kill(-pid, 'SIGKILL')
    for (const pid of [...runners, ...workers]) await waitDead(pid, 'runner or worker')

    const listed = json(await drover(dir, ['list', '--json']))
    expect(listed.map((t: any) => [t.id, t.status])).toEqual([
      [done, 'succeeded'],
      [stopped, 'stopped'],
      ...live.map((id) => [id, 'lost']),
    ])
    for (const id of [done, stopped]) expect(snapshot(taskPaths(dir, id).dir)).toEqual(finals[id])
    for (const id of live) expect(readTask(dir, id)).toMatchObject({status: 'lost', desired: 'running'})

    const resumed = await drover(dir, ['resume', '--interrupted', '--json'])
    expect(resumed.exitCode, resumed.stderr).toBe(0)
    expect(json(resumed).resumed.map((t: any) => [t.id, t.status, t.run])).toEqual(live.map((id) => [id, 'running', 2]))
    for (const id of [done, stopped]) expect(snapshot(taskPaths(dir, id).dir)).toEqual(finals[id])
    for (const id of live) {
      const worker = readTask(dir, id).worker.pid as number
      expect(isAlive(worker)).toBe(true)
      expect(workers).not.toContain(worker)
    }
    const stop = await drover(dir, ['stop', '--all', '-t', '1'])
    expect(stop.exitCode, stop.stderr).toBe(0)
  })
})

describe('disk full', () => {
  const mountable = canMountTmpfs()
  // Says why in the test's own name when it cannot run (not root, or no right to mount).
  const needsMount = mountable ? '' : ' [skipped: needs root and permission to mount a tmpfs]'
  it.skipIf(!mountable)('a worker fills the state dir\'s disk: failed with the reason, records valid, everything works once space is freed' + needsMount, {timeout: 90_000}, async () => {
    const mount = mountTmpfs('2m')
    const dir = freshDir(mount, 'state')
    // Space someone else holds on the same disk, freed at the end.
    writeFileSync(path.join(mount, 'filler'), Buffer.alloc(256 * 1024))
    const id = await startOk(dir, ['--', node, fixture('rel-flood.mjs'), String(4 * 1024 * 1024), '--after-running'])
    const ended = await waitFinal(dir, id)
    expect(ended).toMatchObject({status: 'failed', exitCode: 1, reason: 'exit 1 (no space left on device)'})
    expect(existsSync(path.join(taskPaths(dir, id).dir, '.reserve'))).toBe(false)

    // The runner gave its ballast back at the end; fill the disk to the brim again.
    const topUp = path.join(mount, 'top-up')
    try {
      for (;;) appendFileSync(topUp, Buffer.alloc(4096))
    } catch (error) {
      expect((error as NodeJS.ErrnoException).code).toBe('ENOSPC')
    }
    // Still full: reads work, a start fails cleanly and leaves nothing half-made.
    const list = await drover(dir, ['list', '--json'])
    expect(list.exitCode, list.stderr).toBe(0)
    expect(json(list)).toMatchObject([{id, status: 'failed'}])
    const status = await drover(dir, ['status', String(id)])
    expect(status.exitCode, status.stderr).toBe(0)
    expect(status.stdout).toMatch(/no space left on device/)
    const start = await drover(dir, ['start', '--', 'true'])
    expect(start.exitCode).toBe(5)
    expect(start.stderr.trim()).toMatch(/^drover: state dir unusable: no space left on device/)
    expect(start.stderr.trim().split('\n')).toHaveLength(1)
    expect(readdirSync(path.join(dir, 'tasks'))).toEqual([String(id)])
    // prune cannot even take its lock on a disk full to the brim: it says so and changes nothing.
    const fullPrune = await drover(dir, ['prune', '--older-than', '0s'])
    expect(fullPrune.exitCode).toBe(5)
    expect(fullPrune.stderr.trim()).toMatch(/^drover: state dir unusable: no space left on device/)
    expect(readdirSync(path.join(dir, 'tasks'))).toEqual([String(id)])
    const records = readdirSync(path.join(dir, 'tasks')).map((t) => readFileSync(path.join(dir, 'tasks', t, 'task.json'), 'utf8'))
    for (const text of records) expect(() => decodeRecord(text)).not.toThrow()
    expect(readdirSync(taskPaths(dir, id).dir).filter((f) => f.endsWith('.tmp'))).toEqual([])
    expect(readdirSync(path.join(dir, 'locks'))).toEqual([])

    rmSync(path.join(mount, 'filler'))
    rmSync(topUp)
    expect((await drover(dir, ['list'])).exitCode).toBe(0)
    expect((await drover(dir, ['status', String(id)])).exitCode).toBe(0)
    const prune = await drover(dir, ['prune', '--older-than', '0s', '--json'])
    expect(prune.exitCode, prune.stderr).toBe(0)
    expect(json(prune).removed).toMatchObject([{id}])
    const next = await startOk(dir, ['--', 'true'])
    expect(await waitFinal(dir, next)).toMatchObject({status: 'succeeded'})
  })

  it.skipIf(!mountable)('a runner that comes to adopt a worker on a full disk takes it over: its dead runner\'s ballast makes room for runner.json' + needsMount, {timeout: 60_000}, async () => {
    const mount = mountTmpfs('2m')
    const dir = freshDir(mount, 'state')
    const id = await startOk(dir, ['--', 'sleep', '300'])
    const {worker} = await waitFor(() => (readTask(dir, id).status === 'running' ? readTask(dir, id) : null), {message: 'running'})
    leftovers.push(worker.pid)
    await killRunner(dir, id)
    const topUp = path.join(mount, 'top-up')
    try {
      for (;;) appendFileSync(topUp, Buffer.alloc(4096))
    } catch (error) {
      expect((error as NodeJS.ErrnoException).code).toBe('ENOSPC')
    }
    // the runner reconcile starts for a live worker whose runner died (found by chaos, seed 855709318)
    const adopting = spawn(node, [path.join(ROOT, 'dist', 'runner.cjs'), dir, String(id), '--adopt'], {stdio: 'ignore', detached: true})
    leftovers.push(adopting.pid!)
    await waitFor(() => {
      try {
        return runnerPid(dir, id) === adopting.pid
      } catch {
        return false
      }
    }, {message: 'runner.json naming the adopting runner'})
    await new Promise((resolve) => setTimeout(resolve, 1000))
    expect(isAlive(adopting.pid!)).toBe(true)
    expect(isAlive(worker.pid)).toBe(true)
    expect(readTask(dir, id).status).toBe('running')
    rmSync(topUp)
    expect((await drover(dir, ['stop', String(id), '--time', '1s'])).exitCode).toBe(0)
    expect(await waitFinal(dir, id)).toMatchObject({status: 'stopped'})
    expect(isAlive(worker.pid)).toBe(false)
  })

  it.skipIf(!mountable)('exit hooks run while the state dir\'s disk is full: the record reaches them through a pipe' + needsMount, {timeout: 60_000}, async () => {
    const mount = mountTmpfs('1m')
    const dir = freshDir(mount, 'state')
    const outside = makeStateDir()
    const id = fabricateTask(dir, {status: 'failed'})
    const hookOut = path.join(outside, 'hook.out')
    const record = readTask(dir, id)
    writeRecord(dir, {...record, onExit: `echo "$DROVER_TASK_ID $DROVER_STATUS" > '${hookOut}'; cat > '${hookOut}.stdin'`})
    const topUp = path.join(mount, 'top-up')
    try {
      for (;;) appendFileSync(topUp, Buffer.alloc(4096))
    } catch (error) {
      expect((error as NodeJS.ErrnoException).code).toBe('ENOSPC')
    }
    // the supervisor a final status starts, as the runner starts it
    const supervisor = spawn(node, [path.join(ROOT, 'dist', 'runner.cjs'), '--hook', dir, String(id), '1'], {stdio: 'ignore'})
    const code = await new Promise<number | null>((resolve) => supervisor.once('exit', resolve))
    expect(code).toBe(0)
    expect(readFileSync(hookOut, 'utf8')).toBe(`${id} failed\n`)
    expect(JSON.parse(readFileSync(`${hookOut}.stdin`, 'utf8'))).toMatchObject({id, status: 'failed', reason: 'fabricated'})
    rmSync(topUp)
  })
})
