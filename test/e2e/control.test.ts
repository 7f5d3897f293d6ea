// Lifecycle control end to end, with real runners, workers and signals: stop and
// cancel through request files (from any shell, from a second installation),
// whole trees, graces, racing requesters, acting directly when the runner is
// gone, and never signalling a pid that now belongs to someone else.

import {execa} from 'execa'
import {cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, symlinkSync, writeFileSync} from 'node:fs'
import {spawn} from 'node:child_process'
import os from 'node:os'
import path from 'node:path'
import {afterAll, afterEach, beforeAll, describe, expect, it} from 'vitest'
import {newRecord} from '../../src/tasks/launch.js'
import {processStartTime} from '../../src/platform/platform.js'
import {ensureStateDir} from '../../src/state/statedir.js'
import {allocateTaskId, createTaskLayout, taskPaths, writeFileAtomic, writeRecord} from '../../src/state/store.js'
import {cleanupStateDirs, drover, fixture, isAlive, json, killLeftovers, leftoverList, makeStateDir, readOutput, readTask, ROOT, type CliResult, waitFor} from '../helpers/cli.js'
import {moveTo} from '../helpers/record-moves.js'

const node = process.execPath
const strays = leftoverList()

afterEach(() => {
  killLeftovers(strays)
  cleanupStateDirs()
})

async function startTask(dir: string, command: string[], flags: string[] = []): Promise<number> {
  const result = await drover(dir, ['start', '--json', ...flags, '--', ...command])
  expect(result.exitCode, result.stderr).toBe(0)
  const record = json(result)
  expect(record.status).toBe('running')
  return record.id
}

/** A worker that logs control words and SIGTERMs; exits 0 on `exitOn` (or never). */
async function startListener(dir: string, exitOn: 'STOP' | 'WRAP_UP' | 'never'): Promise<number> {
  const id = await startTask(dir, [node, fixture('control-word.mjs'), exitOn])
  await waitFor(() => readOutput(dir, id).includes('listening'), {timeout: 15_000, message: 'the listener to be up'})
  return id
}

async function startTree(dir: string): Promise<{id: number; pids: {worker: number; child: number; escapee: number}}> {
  const pidsFile = path.join(dir, 'pids.json')
  const id = await startTask(dir, [node, fixture('control-tree.mjs'), pidsFile])
  const pids = await waitFor(() => existsSync(pidsFile) && JSON.parse(readFileSync(pidsFile, 'utf8')), {timeout: 15_000, message: 'the tree'})
  strays.push(pids.child, pids.escapee)
  return {id, pids}
}

const result = (run: CliResult) => {
  const report = json<{results: any[]; missing: any[]}>(run)
  expect(report.results, run.stderr).toHaveLength(1)
  return report.results[0]
}
const events = (dir: string, id: number): any[] =>
  readFileSync(taskPaths(dir, id).events, 'utf8').split('\n').filter(Boolean).map((line) => JSON.parse(line))
const exits = (dir: string, id: number) => events(dir, id).filter((e) => e.event === 'exit')

/**
 * The exit events once the end is all written: a runner journals its exit just
 * after the final record that a command returns on (Node 24 under load read
 * between the two), and a second exit could only come from a writer still
 * there, so the runner must be gone too.
 */
async function exitsWhenWritten(dir: string, id: number): Promise<unknown[]> {
  const runnerGone = () => {
    try {
      return !isAlive(JSON.parse(readFileSync(taskPaths(dir, id).runner, 'utf8')).pid)
    } catch {
      return true // no runner.json: it ended (or never was)
    }
  }
  await waitFor(() => exits(dir, id).length > 0 && runnerGone(), {timeout: 10_000, message: 'the exit journalled and the runner gone'})
  return exits(dir, id)
}

async function killRunner(dir: string, id: number): Promise<void> {
  const runner = JSON.parse(readFileSync(taskPaths(dir, id).runner, 'utf8'))
  process.kill(runner.pid, 'SIGKILL')
  await waitFor(() => !isAlive(runner.pid), {timeout: 10_000, message: 'the runner to die'})
}

/**
 * A task recorded `lost` while its worker lives on: what an older drover's
 * reconcile left, or a runner that could not be started to adopt the worker.
 * Commands then act on the orphaned worker themselves.
 */
async function orphan(dir: string, id: number): Promise<void> {
  await killRunner(dir, id)
  writeRecord(dir, moveTo(readTask(dir, id), {status: 'lost', reason: 'runner vanished without recording an end'}))
}

describe('stop', () => {
  it('leaves nothing of the tree alive: a child ignoring SIGTERM, a grandchild gone setsid', async () => {
    const dir = makeStateDir()
    const {id, pids} = await startTree(dir)
    const run = await drover(dir, ['stop', String(id), '-t', '1', '--json'])
    expect(run.exitCode, run.stderr).toBe(0)
    expect(result(run)).toMatchObject({id, accepted: true, final: true, status: 'stopped'})
    // The runner waits until the whole tree is gone before it records the end.
    for (const pid of [pids.worker, pids.child, pids.escapee]) expect(isAlive(pid), `pid ${pid}`).toBe(false)
    const record = readTask(dir, id)
    expect(record).toMatchObject({status: 'stopped', desired: 'stopped'})
    expect(record.reason).toMatch(/^killed after 1(\.\d)? s$/)
    expect(events(dir, id).filter((e) => e.event === 'signal').map((e) => e.signal)).toEqual(['SIGTERM', 'SIGKILL'])
  })

  it('a worker that exits on STOP ends stopped with exit code 0, well before the grace', async () => {
    const dir = makeStateDir()
    const id = await startListener(dir, 'STOP')
    const began = Date.now()
    const run = await drover(dir, ['stop', String(id), '--json'])
    expect(Date.now() - began).toBeLessThan(10_000)
    expect(result(run)).toMatchObject({status: 'stopped', exitCode: 0, reason: 'stopped by request', final: true})
    expect(readTask(dir, id)).toMatchObject({status: 'stopped', exitCode: 0, signal: null, reason: 'stopped by request', desired: 'stopped'})
    expect(readOutput(dir, id)).toMatch(/control: STOP at \d+\nexiting cleanly/)
    // The control file is gone once the run ended.
    expect(existsSync(taskPaths(dir, id).control)).toBe(false)
  })

  it('a worker that ignores everything is killed after --time, and stop returns within --time + 2 s', async () => {
    const dir = makeStateDir()
    const id = await startListener(dir, 'never')
    const pid = readTask(dir, id).worker.pid
    const run = await drover(dir, ['stop', String(id), '--time', '2'])
    const returned = Date.now()
    expect(run.exitCode, run.stderr).toBe(0)
    // Measured from the moment stop dropped its request (the id starts with that time):
    // starting a Node CLI on a loaded machine is not what the bound is about.
    const request = events(dir, id).find((e) => e.event === 'request')
    const took = returned - Number(String(request.requestId).split('-')[0])
    expect(took).toBeGreaterThanOrEqual(2000)
    expect(took).toBeLessThan(4000)
    expect(run.stdout).toMatch(new RegExp(`^task ${id} stopped \\(killed after 2(\\.\\d)? s\\)$`, 'm'))
    expect(readTask(dir, id)).toMatchObject({status: 'stopped', signal: 'SIGKILL', desired: 'stopped'})
    expect(readOutput(dir, id)).toContain('got SIGTERM')
    expect(isAlive(pid)).toBe(false)
  })

  it('--wrap-up writes WRAP_UP and waits --time before STOP and SIGTERM', async () => {
    const dir = makeStateDir()
    const id = await startListener(dir, 'never')
    const run = await drover(dir, ['stop', String(id), '--wrap-up', '-t', '1', '--json'])
    expect(result(run)).toMatchObject({status: 'stopped'})
    const output = readOutput(dir, id)
    const at = (re: RegExp) => Number(re.exec(output)?.[1])
    const wrapUp = at(/control: WRAP_UP at (\d+)/)
    const term = at(/got SIGTERM at (\d+)/)
    const stop = at(/control: STOP at (\d+)/)
    expect(wrapUp).toBeGreaterThan(0)
    // The fixture polls every 25 ms, so it may see WRAP_UP a little after it was written.
    expect(term - wrapUp).toBeGreaterThanOrEqual(900)
    expect(stop - wrapUp).toBeGreaterThanOrEqual(900)
    expect(readTask(dir, id).reason).toMatch(/^killed after 2(\.\d)? s$/)
  })

  it('--wrap-up lets a cooperative agent finish on WRAP_UP with no signal at all', async () => {
    const dir = makeStateDir()
    const id = await startListener(dir, 'WRAP_UP')
    const run = await drover(dir, ['stop', String(id), '--wrap-up', '-t', '30', '--json'])
    expect(result(run)).toMatchObject({status: 'stopped', exitCode: 0, reason: 'stopped by request'})
    expect(readOutput(dir, id)).not.toContain('got SIGTERM')
    expect(events(dir, id).filter((e) => e.event === 'signal')).toEqual([])
  })

  it('--all and several ids stop every task at once', async () => {
    const dir = makeStateDir()
    const a = await startTask(dir, [node, fixture('sleeper.mjs')])
    const b = await startTask(dir, [node, fixture('sleeper.mjs')], ['--name', 'bee'])
    const c = await startTask(dir, [node, fixture('sleeper.mjs')])
    const two = json(await drover(dir, ['stop', String(a), 'bee', '-t', '1', '--json']))
    expect(two.results.map((r: any) => [r.id, r.status])).toEqual([
      [a, 'stopped'],
      [b, 'stopped'],
    ])
    expect(readTask(dir, c).status).toBe('running')
    const all = json(await drover(dir, ['stop', '--all', '-t', '1', '--json']))
    expect(all.results.map((r: any) => [r.id, r.status])).toEqual([[c, 'stopped']])
  })

  it('--no-wait returns once the request is accepted; --json says so', async () => {
    const dir = makeStateDir()
    const id = await startListener(dir, 'never')
    const run = await drover(dir, ['stop', String(id), '-t', '1', '--no-wait', '--json'])
    expect(run.exitCode, run.stderr).toBe(0)
    expect(result(run)).toMatchObject({id, accepted: true, final: false, via: 'runner'})
    await waitFor(() => readTask(dir, id).status === 'stopped', {timeout: 20_000, message: 'the stop to complete'})
  })

  it('an unknown id exits 3 and names it', async () => {
    const dir = makeStateDir()
    const run = await drover(dir, ['stop', '42', '--json'])
    expect(run.exitCode).toBe(3)
    expect(json(run).missing).toEqual([{id: '42', found: false}])
  })
})

describe('requests', () => {
  /** What a shell script would do: write a JSON file and move it into requests/. */
  function dropByHand(dir: string, id: number, name: string): number {
    const requests = taskPaths(dir, id).requests
    const body = {kind: 'stop', requestId: name, at: new Date().toISOString(), by: 1, graceMs: 1000}
    writeFileSync(path.join(dir, `${name}.tmp`), JSON.stringify(body))
    const at = Date.now()
    renameSync(path.join(dir, `${name}.tmp`), path.join(requests, `${name}.stop.json`))
    return at
  }
  const actedAt = (dir: string, id: number) => Date.parse(events(dir, id).find((e) => e.event === 'control')?.ts)

  it('a request file written by any program is acted on within 0.5 s (fs.watch)', async () => {
    const dir = makeStateDir()
    const id = await startTask(dir, [node, fixture('sleeper.mjs')])
    const dropped = dropByHand(dir, id, 'by-hand')
    await waitFor(() => readTask(dir, id).status === 'stopped', {timeout: 20_000, message: 'the stop'})
    expect(actedAt(dir, id) - dropped).toBeLessThan(500)
    expect(readTask(dir, id).reason).toBe('stopped by request')
    expect(readdirSync(taskPaths(dir, id).requests)).toEqual([])
  })

  it('the poll catches a request fs.watch cannot see (requests/ replaced under the runner)', async () => {
    const dir = makeStateDir()
    const id = await startTask(dir, [node, fixture('sleeper.mjs')])
    const requests = taskPaths(dir, id).requests
    // The watcher follows the old folder's inode; only polling by path finds the new one.
    renameSync(requests, `${requests}.old`)
    // The runner may have re-created it already (it keeps a private requests/ in place).
    mkdirSync(requests, {mode: 0o700, recursive: true})
    const dropped = dropByHand(dir, id, 'unseen')
    await waitFor(() => readTask(dir, id).status === 'stopped', {timeout: 20_000, message: 'the stop'})
    expect(actedAt(dir, id) - dropped).toBeLessThan(500)
  })

  describe('from a second drover installation sharing only the state dir', () => {
    let copy: string
    beforeAll(() => {
      copy = mkdtempSync(path.join(os.tmpdir(), 'drover-copy-'))
      for (const entry of ['bin', 'dist', 'package.json', 'oclif.manifest.json']) cpSync(path.join(ROOT, entry), path.join(copy, entry), {recursive: true})
      symlinkSync(path.join(ROOT, 'node_modules'), path.join(copy, 'node_modules'), 'dir')
    })
    afterAll(() => rmSync(copy, {recursive: true, force: true}))

    it('stops a task started by the first one', async () => {
      const dir = makeStateDir()
      const {id, pids} = await startTree(dir)
      const home = mkdtempSync(path.join(os.tmpdir(), 'drover-home-'))
      try {
        const run = await execa(node, [path.join(copy, 'bin', 'run.js'), 'stop', String(id), '-t', '1', '--json', '--state-dir', dir], {
          env: {PATH: process.env.PATH ?? '', HOME: home},
          extendEnv: false,
          cwd: home,
          reject: false,
          timeout: 60_000,
        })
        expect(run.exitCode, String(run.stderr)).toBe(0)
        expect(JSON.parse(String(run.stdout)).results[0]).toMatchObject({id, status: 'stopped', via: 'runner', final: true})
      } finally {
        rmSync(home, {recursive: true, force: true})
      }
      for (const pid of Object.values(pids)) expect(isAlive(pid)).toBe(false)
    })
  })
})

describe('racing requesters', () => {
  it('stop and cancel at once: one final status, reported by both', async () => {
    const dir = makeStateDir()
    const id = await startListener(dir, 'never')
    const [stop, cancel] = await Promise.all([
      drover(dir, ['stop', String(id), '-t', '5', '--json']),
      drover(dir, ['cancel', String(id), '--json']),
    ])
    const final = readTask(dir, id)
    expect(['stopped', 'cancelled']).toContain(final.status)
    for (const run of [stop, cancel]) {
      expect(run.exitCode, run.stderr).toBe(0)
      expect(result(run)).toMatchObject({status: final.status, reason: final.reason, final: true})
    }
    expect(await exitsWhenWritten(dir, id)).toHaveLength(1)
  })

  it('two stops at once: one final status, reported by both', async () => {
    const dir = makeStateDir()
    const id = await startListener(dir, 'never')
    const runs = await Promise.all([1, 2].map(() => drover(dir, ['stop', String(id), '-t', '1', '--json'])))
    for (const run of runs) expect(result(run)).toMatchObject({status: 'stopped', final: true})
    expect(await exitsWhenWritten(dir, id)).toHaveLength(1)
  })
})

describe('when the runner is gone', () => {
  it('a new runner adopts the worker and carries out the stop over the whole tree', async () => {
    const dir = makeStateDir()
    const {id, pids} = await startTree(dir)
    await killRunner(dir, id)
    expect(isAlive(pids.worker)).toBe(true)
    const run = await drover(dir, ['stop', String(id), '-t', '1', '--json'])
    expect(run.exitCode, run.stderr).toBe(0)
    expect(result(run)).toMatchObject({status: 'stopped', via: 'runner', accepted: true, final: true})
    for (const pid of Object.values(pids)) expect(isAlive(pid), `pid ${pid}`).toBe(false)
    expect(readTask(dir, id)).toMatchObject({status: 'stopped', desired: 'stopped'})
    expect(events(dir, id).some((e) => e.event === 'adopted')).toBe(true)
  })

  it('a lost task whose worker lives: stop checks the worker is still ours, stops its whole tree and finalises the record', async () => {
    const dir = makeStateDir()
    const {id, pids} = await startTree(dir)
    await orphan(dir, id)
    expect(isAlive(pids.worker)).toBe(true)
    const run = await drover(dir, ['stop', String(id), '-t', '1', '--json'])
    expect(run.exitCode, run.stderr).toBe(0)
    expect(result(run)).toMatchObject({status: 'stopped', via: 'direct', accepted: true, final: true})
    for (const pid of Object.values(pids)) expect(isAlive(pid), `pid ${pid}`).toBe(false)
    const record = readTask(dir, id)
    expect(record).toMatchObject({status: 'stopped', desired: 'stopped'})
    expect(record.reason).toMatch(/\(runner was gone\)$/)
    expect(events(dir, id).some((e) => e.event === 'request' && e.direct === true)).toBe(true)
  })

  it('cancel does the same, and two requesters racing still act only once', async () => {
    const dir = makeStateDir()
    const id = await startListener(dir, 'never')
    const pid = readTask(dir, id).worker.pid
    await orphan(dir, id)
    const runs = await Promise.all([drover(dir, ['cancel', String(id), '--json']), drover(dir, ['cancel', String(id), '--json'])])
    for (const run of runs) expect(result(run)).toMatchObject({status: 'cancelled', final: true})
    expect(runs.map((run) => result(run).via).sort()).toEqual(['direct', 'none'])
    expect(isAlive(pid)).toBe(false)
    expect(readTask(dir, id).reason).toMatch(/^cancelled by request, killed after 2(\.\d)? s \(runner was gone\)$/)
    expect(await exitsWhenWritten(dir, id)).toHaveLength(1)
  })

  it('a runner killed in the middle of a stop: a new runner adopts the worker and finishes the stop', async () => {
    const dir = makeStateDir()
    const id = await startListener(dir, 'never')
    const pid = readTask(dir, id).worker.pid
    const stopping = drover(dir, ['stop', String(id), '-t', '4', '--json'])
    await waitFor(() => readTask(dir, id).status === 'stopping', {timeout: 20_000, message: 'stopping'})
    await killRunner(dir, id)
    const run = await stopping
    expect(result(run)).toMatchObject({status: 'stopped', via: 'runner', final: true})
    expect(isAlive(pid)).toBe(false)
    expect(events(dir, id).some((e) => e.event === 'adopted')).toBe(true)
  })

  it('a record naming a live unrelated process (other start time): stop and cancel leave it alive and say why', async () => {
    const dir = makeStateDir()
    ensureStateDir(dir)
    const stranger = spawn(node, [fixture('sleeper.mjs'), '120'], {detached: true, stdio: 'ignore'})
    strays.push(stranger.pid!)
    const realStart = await waitFor(() => processStartTime(stranger.pid!), {message: 'the stranger'})
    const notItsStart = String(Number(realStart) - 1)
    // Two fabricated tasks, one for each command: the first one's stop settles it.
    const fabricate = () => {
      const id = allocateTaskId(dir)
      const spec = {command: [node, 'gone.mjs'], shell: null, name: null, cwd: dir, env: {}, agent: 'generic' as const}
      const created = newRecord(id, {...spec, policies: {timeoutMs: null, idleTimeoutMs: null, maxOutputBytes: null}})
      createTaskLayout(taskPaths(dir, id))
      writeRecord(dir, {...moveTo(created, {status: 'running'}), worker: {pid: stranger.pid!, startTime: notItsStart}})
      // Its runner's pid was recycled too.
      writeFileAtomic(taskPaths(dir, id).runner, JSON.stringify({pid: stranger.pid, startTime: notItsStart}))
      return id
    }
    const stopped = fabricate()
    const cancelled = fabricate()

    const stop = await drover(dir, ['stop', String(stopped), '-t', '1'])
    expect(stop.exitCode, stop.stderr).toBe(0)
    expect(stop.stdout).toContain(`pid ${stranger.pid} now belongs to another process (different start time), not signalled`)
    expect(isAlive(stranger.pid!)).toBe(true)
    const cancel = await drover(dir, ['cancel', String(cancelled), '--json'])
    expect(result(cancel)).toMatchObject({via: 'direct', status: 'cancelled'})
    expect(result(cancel).message).toContain('not signalled')
    expect(isAlive(stranger.pid!)).toBe(true)
    expect(processStartTime(stranger.pid!)).toBe(realStart)
    // Nothing ran, but the user's intent is recorded: neither comes back with resume --interrupted.
    expect(readTask(dir, stopped)).toMatchObject({status: 'stopped', desired: 'stopped'})
    expect(readTask(dir, cancelled)).toMatchObject({status: 'cancelled', desired: 'stopped'})
  })
})

describe('cancel', () => {
  it('SIGTERM to the tree, SIGKILL after 2 s; said without repeating itself; start ID runs it again', async () => {
    const dir = makeStateDir()
    const id = await startListener(dir, 'never')
    const pid = readTask(dir, id).worker.pid
    const began = Date.now()
    const run = await drover(dir, ['cancel', String(id)])
    expect(Date.now() - began).toBeGreaterThanOrEqual(2000)
    expect(run.exitCode, run.stderr).toBe(0)
    expect(run.stdout).toMatch(new RegExp(`^task ${id} cancelled \\(by request, killed after 2(\\.\\d)? s\\)$`, 'm'))
    expect(readTask(dir, id)).toMatchObject({status: 'cancelled', desired: 'stopped'})
    expect(isAlive(pid)).toBe(false)
    // A cancel ends the run for good (resume refuses it), not the task: start ID is a new run.
    expect((await drover(dir, ['resume', String(id)])).exitCode).toBe(4)
    const again = await drover(dir, ['start', String(id)])
    expect([again.exitCode, again.stderr]).toEqual([0, ''])
    expect(again.stdout.trim()).toBe(String(id))
    expect(readTask(dir, id)).toMatchObject({status: 'running', desired: 'running', runs: [{status: 'cancelled'}, {status: 'running', resumed: false}]})
  })

  it('a task still starting is cancelled before its command ever runs', async () => {
    const dir = makeStateDir()
    ensureStateDir(dir)
    // The built modules, so the runner launched is the built one the CLI uses.
    const launch = (await import(path.join(ROOT, 'dist/tasks/launch.js'))) as typeof import('../../src/tasks/launch.js')
    const marker = path.join(dir, 'ran')
    const id = allocateTaskId(dir)
    const paths = taskPaths(dir, id)
    createTaskLayout(paths)
    const policies = {timeoutMs: null, idleTimeoutMs: null, maxOutputBytes: null}
    writeRecord(dir, newRecord(id, {command: [node, fixture('control-run.mjs'), '300', marker], shell: null, name: null, cwd: dir, env: {}, agent: 'generic', policies}))
    // A requester waits on the starting task; its runner comes up only after the request is in.
    const cancelling = drover(dir, ['cancel', String(id), '--json'])
    await waitFor(() => readdirSync(paths.requests).some((name) => name.endsWith('.cancel.json')), {timeout: 20_000, message: 'the request'})
    const ended = await launch.launchRunner(dir, id)
    expect(ended).toMatchObject({status: 'cancelled', reason: 'cancelled before the worker started', worker: null})
    expect(result(await cancelling)).toMatchObject({id, status: 'cancelled', final: true})
    expect(existsSync(marker)).toBe(false)
    expect(readOutput(dir, id)).toBe('')
    expect(readdirSync(paths.requests)).toEqual([])
  })
})

describe('requests left from an earlier run', () => {
  it('do not stop the next run (a runner killed mid-stop left its request behind)', async () => {
    const dir = makeStateDir()
    const id = await startListener(dir, 'never')
    const stopping = drover(dir, ['stop', String(id), '-t', '3', '--json'])
    await waitFor(() => readTask(dir, id).status === 'stopping', {timeout: 20_000, message: 'stopping'})
    await killRunner(dir, id)
    expect(result(await stopping)).toMatchObject({status: 'stopped', via: 'runner'})

    const again = await drover(dir, ['start', String(id), '--json'])
    expect(again.exitCode, again.stderr).toBe(0)
    expect(json(again)).toMatchObject({status: 'running', run: 2})
    // Whatever removes the old request, the new run must not have acted on it.
    await waitFor(() => readdirSync(taskPaths(dir, id).requests).length === 0, {timeout: 20_000, message: 'requests/ to be empty'})
    await waitFor(() => readOutput(dir, id).includes('run 2 (restart)'), {message: 'the run separator'})
    expect(readTask(dir, id).status).toBe('running')
    expect(events(dir, id).filter((e) => e.run === 2 && e.event === 'request')).toEqual([])
  })
})
