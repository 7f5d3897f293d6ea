// The state dir as doctor sees it, on real state dirs in temp folders: real
// corrupt records, locks whose holder really died, a task recorded running
// whose runner really exited, real processes outliving their ended task —
// and proof that looking changes nothing on disk.

import {spawn} from 'node:child_process'
import {chmodSync, mkdirSync, readFileSync, rmSync, unlinkSync, utimesSync, writeFileSync} from 'node:fs'
import {hostname} from 'node:os'
import path from 'node:path'
import {afterEach, describe, expect, it} from 'vitest'
import {posixOnly} from '../helpers/skips.js'
import {processStartTime, type ProcessIdentity} from '../../src/platform/platform.js'
import {taskPaths, writeFileAtomic} from '../../src/state/store.js'
import {inspectStateDir} from '../../src/tasks/health.js'
import {cleanupStateDirs, killLeftovers, leftoverList, isAlive, makeStateDir, waitFor} from '../helpers/cli.js'
import {snapshot} from '../helpers/snapshot.js'
import {deadIdentity, fabricateTask} from '../fixtures/rel-state.js'

const spawned = leftoverList()

afterEach(() => {
  killLeftovers(spawned)
  cleanupStateDirs()
})

/** A real live process with `env` added to its environment, in a group of its own. */
async function liveProcess(env: Record<string, string> = {}): Promise<ProcessIdentity> {
  const child = spawn('sleep', ['600'], {stdio: 'ignore', detached: true, env: {...process.env, ...env}})
  child.unref()
  spawned.push(child.pid!)
  const startTime = await waitFor(() => processStartTime(child.pid!), {message: 'sleep start time'})
  return {pid: child.pid!, startTime}
}

// POSIX: sh scripts, `sleep`, modes and uids (Windows: test/platform/inspect.test.ts with the platform injected)
posixOnly('sh scripts, sleep, modes and uids').describe('inspectStateDir', () => {
  it('a healthy state dir: owner, mode, free space, task count, nothing wrong', () => {
    const dir = makeStateDir()
    fabricateTask(dir, {status: 'succeeded'})
    fabricateTask(dir, {status: 'failed'})
    const health = inspectStateDir(dir)
    expect(health).toMatchObject({path: dir, exists: true, isDirectory: true, error: null, tasks: 2, corrupt: [], staleLocks: [], unwatched: [], leftovers: [], interrupted: []})
    expect(health.owner).toEqual({uid: process.getuid!(), mine: true, mode: '700', groupWritable: false, worldWritable: false})
    expect(health.space!.freeBytes).toBeGreaterThan(0)
    expect(health.space!.totalBytes).toBeGreaterThanOrEqual(health.space!.freeBytes)
  })

  it('a state dir that does not exist is reported, not created', () => {
    const parent = makeStateDir()
    const dir = path.join(parent, 'not-yet')
    const before = snapshot(parent)
    const health = inspectStateDir(dir)
    expect(health).toMatchObject({exists: false, isDirectory: false, error: null, tasks: 0})
    // free space where it would be created
    expect(health.space!.freeBytes).toBeGreaterThan(0)
    expect(snapshot(parent)).toEqual(before)
  })

  it('a file where the state dir should be, and a tasks/ that cannot be read, are said, not thrown', () => {
    const parent = makeStateDir()
    const file = path.join(parent, 'state')
    writeFileSync(file, 'not a dir')
    expect(inspectStateDir(file)).toMatchObject({exists: true, isDirectory: false, tasks: 0})
    const dir = makeStateDir()
    fabricateTask(dir, {status: 'succeeded'})
    // tasks/ replaced by a file: listing it fails with ENOTDIR, as an unreadable one fails with EACCES
    rmSync(path.join(dir, 'tasks'), {recursive: true})
    writeFileSync(path.join(dir, 'tasks'), '')
    expect(inspectStateDir(dir).error).toBe(`cannot read what it holds: a path component is not a directory (${path.join(dir, 'tasks')})`)
    unlinkSync(path.join(dir, 'tasks'))
  })

  it('group- and world-writable modes are reported', () => {
    const dir = makeStateDir()
    chmodSync(dir, 0o770)
    expect(inspectStateDir(dir).owner).toMatchObject({mode: '770', groupWritable: true, worldWritable: false})
    chmodSync(dir, 0o1777)
    expect(inspectStateDir(dir).owner).toMatchObject({mode: '1777', groupWritable: true, worldWritable: true})
    chmodSync(dir, 0o700)
  })

  it('names corrupt records by id: garbage, the wrong id, a record missing from a folder with output', () => {
    const dir = makeStateDir()
    const good = fabricateTask(dir, {status: 'succeeded'})
    const garbage = fabricateTask(dir, {status: 'succeeded'})
    writeFileSync(taskPaths(dir, garbage).record, '{"schemaVersion": 1, "id": ')
    const wrongId = fabricateTask(dir, {status: 'failed'})
    // a copy of another task's record in its folder
    writeFileSync(taskPaths(dir, wrongId).record, readFileSync(taskPaths(dir, good).record))
    const old = new Date(Date.now() - 60_000)
    // its record gone, its events still there (a folder younger than 5 s is one start is filling)
    const noRecord = fabricateTask(dir, {status: 'succeeded'})
    unlinkSync(taskPaths(dir, noRecord).record)
    utimesSync(taskPaths(dir, noRecord).dir, old, old)
    // killed by start between its folder and its record (empty layout, old): debris, not a task
    const debris = fabricateTask(dir, {status: 'succeeded'})
    unlinkSync(taskPaths(dir, debris).record)
    writeFileSync(taskPaths(dir, debris).output, '')
    writeFileSync(taskPaths(dir, debris).events, '')
    utimesSync(taskPaths(dir, debris).dir, old, old)
    const health = inspectStateDir(dir)
    expect(health.tasks).toBe(4)
    expect(health.corrupt.map((c) => c.id)).toEqual([garbage, wrongId, noRecord])
    expect(health.corrupt[0].error).toMatch(/corrupt/)
    expect(health.corrupt[1].error).toMatch(new RegExp(`names id ${good}`))
  })

  it('finds locks whose holder died (and not one whose holder lives)', async () => {
    const dir = makeStateDir()
    fabricateTask(dir, {status: 'succeeded'})
    const dead = deadIdentity()
    const staleLock = path.join(dir, 'locks', 'task-1.lock')
    mkdirSync(staleLock)
    writeFileSync(path.join(staleLock, 'owner.json'), JSON.stringify({...dead, host: hostname()}))
    const live = await liveProcess()
    const heldLock = path.join(dir, 'locks', 'prune.lock')
    mkdirSync(heldLock)
    writeFileSync(path.join(heldLock, 'owner.json'), JSON.stringify({...live, host: hostname()}))
    const health = inspectStateDir(dir)
    expect(health.staleLocks).toEqual([{name: 'task-1.lock', path: staleLock, holderPid: dead.pid, holderHost: hostname(), ageMs: expect.any(Number)}])
  })

  it('finds a task recorded running whose runner is dead, and says whether its worker lives', async () => {
    const dir = makeStateDir()
    const noWorker = fabricateTask(dir, {status: 'running', runner: deadIdentity(), worker: deadIdentity()})
    const worker = await liveProcess()
    const liveWorker = fabricateTask(dir, {status: 'stopping', runner: deadIdentity(), worker})
    const runner = await liveProcess()
    fabricateTask(dir, {status: 'running', runner, worker: await liveProcess()})
    const health = inspectStateDir(dir)
    expect(health.unwatched).toEqual([
      {id: noWorker, status: 'running', executor: 'local', runnerPid: expect.any(Number), workerPid: expect.any(Number), workerAlive: false},
      {id: liveWorker, status: 'stopping', executor: 'local', runnerPid: expect.any(Number), workerPid: worker.pid, workerAlive: true},
    ])
  })

  it('finds live processes of ended tasks: the recorded worker, tree.json, and a process carrying the task mark', async () => {
    const dir = makeStateDir()
    const worker = await liveProcess()
    const byWorker = fabricateTask(dir, {status: 'succeeded', worker})
    const treeChild = await liveProcess()
    const byTree = fabricateTask(dir, {status: 'failed', worker: deadIdentity()})
    writeFileAtomic(taskPaths(dir, byTree).tree, JSON.stringify([treeChild]))
    // not in any record: found only by its environment (what a setsid escapee of the task keeps)
    const byMark = fabricateTask(dir, {status: 'stopped', worker: deadIdentity()})
    const escapee = await liveProcess({DROVER_CONTROL_FILE: taskPaths(dir, byMark).control})
    // a live task's processes are not leftovers
    const running = fabricateTask(dir, {status: 'running', runner: await liveProcess()})
    await liveProcess({DROVER_CONTROL_FILE: taskPaths(dir, running).control})
    const health = inspectStateDir(dir)
    expect(health.leftoverScan).toBe('environment')
    expect(health.leftovers).toEqual([
      {id: byWorker, status: 'succeeded', pids: [worker.pid]},
      {id: byTree, status: 'failed', pids: [treeChild.pid]},
      {id: byMark, status: 'stopped', pids: [escapee.pid]},
    ])
    // looked at, never signalled
    for (const pid of [worker.pid, treeChild.pid, escapee.pid]) expect(isAlive(pid)).toBe(true)
  })

  it('lists the tasks resume --interrupted would take: lost while meant to run', () => {
    const dir = makeStateDir()
    const lost = fabricateTask(dir, {status: 'lost'})
    fabricateTask(dir, {status: 'succeeded'})
    // lost, but stopped by request since: put down, not interrupted
    const putDown = fabricateTask(dir, {status: 'lost'})
    const record = JSON.parse(readFileSync(taskPaths(dir, putDown).record, 'utf8'))
    writeFileSync(taskPaths(dir, putDown).record, JSON.stringify({...record, desired: 'stopped'}))
    expect(inspectStateDir(dir).interrupted).toEqual([lost])
  })

  it('changes nothing on disk, whatever it finds', async () => {
    const dir = makeStateDir()
    fabricateTask(dir, {status: 'running', runner: deadIdentity(), worker: await liveProcess()})
    const corrupt = fabricateTask(dir, {status: 'succeeded'})
    writeFileSync(taskPaths(dir, corrupt).record, 'not json')
    const lock = path.join(dir, 'locks', 'task-9.lock')
    mkdirSync(lock)
    writeFileSync(path.join(lock, 'owner.json'), JSON.stringify({...deadIdentity(), host: hostname()}))
    const ended = fabricateTask(dir, {status: 'succeeded'})
    await liveProcess({DROVER_CONTROL_FILE: taskPaths(dir, ended).control})
    const before = snapshot(dir)
    const health = inspectStateDir(dir)
    expect(health.unwatched).toHaveLength(1)
    expect(health.corrupt).toHaveLength(1)
    expect(health.staleLocks).toHaveLength(1)
    expect(health.leftovers).toHaveLength(1)
    expect(snapshot(dir)).toEqual(before)
  })
})
