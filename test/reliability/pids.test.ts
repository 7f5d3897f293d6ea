// Pids that are not ours: a record naming a live process with the same pid but another
// start time (a pid recycled after our worker ended). stop, cancel, drain and prune —
// by id and with --all — must never signal it, nor the process group it leads.
// A Slurm record's pids are a node's: never checked here at all, even when a
// local process has the very pid and start time.

import {existsSync, mkdirSync, rmSync, writeFileSync} from 'node:fs'
import path from 'node:path'
import {afterEach, describe, expect, it} from 'vitest'
import {processStartTime, type ProcessIdentity} from '../../src/platform/platform.js'
import {cleanupStateDirs, drover, isAlive, json, makeStateDir, readTask} from '../helpers/cli.js'
import {deadIdentity, fabricateTask, impostor, killStrangers, spawnStranger} from '../fixtures/rel-state.js'

afterEach(() => {
  killStrangers()
  cleanupStateDirs()
})

function expectUntouched(stranger: ProcessIdentity, after: string): void {
  expect(isAlive(stranger.pid), `stranger killed by ${after}`).toBe(true)
  expect(processStartTime(stranger.pid), `stranger replaced after ${after}`).toBe(stranger.startTime)
}

describe('a live stranger behind a recorded pid', () => {
  it('stop, cancel, drain and prune leave it alive, whatever state the record is in', {timeout: 120_000}, async () => {
    // The stranger leads its own process group, so a kill(-pgid) would reach it as surely as a kill(pid).
    const stranger = await spawnStranger()
    const recycled = impostor(stranger)
    const dir = makeStateDir()
    // Each command gets tasks of its own, so each meets the stranger in every state:
    // running with its runner gone (reconciled to lost first), already lost, stopping
    // with a runner.json that also names the stranger, and starting long ago.
    const make = () => [
      fabricateTask(dir, {status: 'running', worker: recycled, runner: deadIdentity()}),
      fabricateTask(dir, {status: 'lost', worker: recycled}),
      fabricateTask(dir, {status: 'stopping', worker: recycled, runner: recycled}),
    ]
    const forStop = make()
    const forCancel = make()
    const forDrain = make()
    const forPrune = make()

    const stop = await drover(dir, ['stop', '-t', '1', ...forStop.map(String)])
    expect(stop.exitCode, stop.stderr).toBe(0)
    expectUntouched(stranger, 'stop')
    // What was found is said plainly: the pid is someone else's and was left alone.
    expect(stop.stdout).toContain(`pid ${stranger.pid} now belongs to another process (different start time), not signalled`)

    const cancel = await drover(dir, ['cancel', ...forCancel.map(String)])
    expect(cancel.exitCode, cancel.stderr).toBe(0)
    expectUntouched(stranger, 'cancel')

    const drain = await drover(dir, ['drain', '--grace', '1s', '--kill-after', '1s', ...forDrain.map(String)])
    expect(drain.exitCode, drain.stderr).toBe(0)
    expectUntouched(stranger, 'drain')

    // stop and cancel record the user's intent on a task whose own worker is gone; drain
    // has no checkpoint to take, so those stay lost. The stranger's pid stays on record.
    for (const [ids, status] of [[forStop, 'stopped'], [forCancel, 'cancelled'], [forDrain, 'lost']] as const) {
      for (const id of ids) expect(readTask(dir, id)).toMatchObject({status, worker: recycled})
    }

    // --all reaches tasks through listing and reconciling rather than by id.
    const more = make()
    for (const args of [['stop', '--all', '-t', '1'], ['cancel', '--all'], ['drain', '--all', '--grace', '1s', '--kill-after', '1s']]) {
      const result = await drover(dir, args)
      expect(result.exitCode, `${args.join(' ')}: ${result.stderr}`).toBe(0)
      expectUntouched(stranger, args.join(' '))
    }
    // --all picks live tasks after reconciling: these are all found lost, and left so.
    expect(more.map((id) => readTask(dir, id).status)).toEqual(['lost', 'lost', 'lost'])

    // The stranger does not make its tasks look live: prune removes them, signalling nothing.
    const prune = await drover(dir, ['prune', '--older-than', '0s', '--json'])
    expect(prune.exitCode, prune.stderr).toBe(0)
    expect(json(prune).removed.map((t: any) => t.id).sort((a: number, b: number) => a - b)).toEqual(
      [...forStop, ...forCancel, ...forDrain, ...forPrune, ...more].sort((a, b) => a - b),
    )
    expectUntouched(stranger, 'prune')
  })

  it('a restart of a task whose recorded worker pid was recycled starts a new worker and leaves the stranger be', {timeout: 60_000}, async () => {
    const stranger = await spawnStranger()
    const dir = makeStateDir()
    const id = fabricateTask(dir, {status: 'lost', worker: impostor(stranger), command: ['sleep', '300']})
    const start = await drover(dir, ['start', String(id), '--json'])
    expect(start.exitCode, start.stderr).toBe(0)
    const worker = json(start).pid as number
    expect(worker).not.toBe(stranger.pid)
    const cancel = await drover(dir, ['cancel', String(id)])
    expect(cancel.exitCode, cancel.stderr).toBe(0)
    expect(readTask(dir, id).status).toBe('cancelled')
    expectUntouched(stranger, 'restart and cancel')
  })
})

describe("the tests' own cleanup of a state dir", () => {
  it('signals no process, nor process group, that a record names with another start time', async () => {
    // A made-up record (the benchmarks' task maker numbers pids from 20000) could
    // name the group of the test run itself: cleanup must check identity as drover does.
    const stranger = await spawnStranger()
    const dir = makeStateDir()
    fabricateTask(dir, {status: 'lost', worker: impostor(stranger), runner: impostor(stranger)})
    cleanupStateDirs()
    expectUntouched(stranger, 'the cleanup of a made-up record')
    expect(existsSync(dir)).toBe(false)
  })
})

describe("a Slurm task's recorded pids, matched by a live local process (pid and start time alike)", () => {
  it('make no runner or worker alive: prune and rm remove it, stop says nothing of the pid, list drops its live hint — a local task with them is kept', {timeout: 60_000}, async () => {
    const stranger = await spawnStranger()
    const dir = makeStateDir()
    const onNode = {...stranger, host: 'node7'}
    // ended, its runner.json left behind (a runner killed between its final record and its last unlink)
    const ended = fabricateTask(dir, {status: 'succeeded', slurm: true, runner: onNode})
    const lost = fabricateTask(dir, {status: 'lost', slurm: true, worker: stranger})
    const localEnded = fabricateTask(dir, {status: 'succeeded', runner: stranger})
    const localLost = fabricateTask(dir, {status: 'lost', worker: stranger})

    // hints as a start leaves them (the fabricated records' writes made one each); list folds those of tasks done with
    rmSync(path.join(dir, 'live'), {recursive: true, force: true})
    mkdirSync(path.join(dir, 'live'), {mode: 0o700})
    for (const id of [ended, localEnded]) writeFileSync(path.join(dir, 'live', String(id)), '')
    expect((await drover(dir, ['list'])).exitCode).toBe(0)
    expect(existsSync(path.join(dir, 'live', String(ended))), 'the Slurm hint').toBe(false)
    expect(existsSync(path.join(dir, 'live', String(localEnded))), 'the local hint').toBe(true)

    // and a pid matched without the start time: a local task's would be news ("now belongs to another process"), a node's is not
    const lostRecycled = fabricateTask(dir, {status: 'lost', slurm: true, worker: impostor(stranger)})
    const stopped = await drover(dir, ['stop', String(lost), String(lostRecycled), '--json'])
    expect(stopped.exitCode, stopped.stderr).toBe(0)
    for (const result of json(stopped).results) {
      expect(result).toMatchObject({status: 'stopped', final: true})
      expect(result.message).not.toMatch(/belongs to another process|pid/)
    }
    expectUntouched(stranger, 'stop')

    const dry = json(await drover(dir, ['prune', '--older-than', '0s', '--include-checkpoints', '--dry-run', '--json']))
    const kept = Object.fromEntries(dry.skipped.map((t: any) => [t.id, t.reason]))
    expect(kept[localEnded]).toBe('its runner is still alive')
    expect(kept[localLost]).toBe('its worker is still running')
    expect(kept[ended]).toBeUndefined()
    const removed = await drover(dir, ['rm', String(ended), String(lost), '--json'])
    expect(removed.exitCode, removed.stderr).toBe(0)
    expect(json(removed).removed.map((t: any) => t.id).sort()).toEqual([ended, lost].sort())
    expectUntouched(stranger, 'rm')
  })

  it('a fresh heartbeat keeps an ended Slurm task whose runner is still finishing; a corrupt record is judged by it too', {timeout: 60_000}, async () => {
    const dir = makeStateDir()
    const gone = {pid: 999_999, startTime: '1', host: 'node7'}
    const finishing = fabricateTask(dir, {status: 'succeeded', slurm: true, runner: gone})
    const corrupt = fabricateTask(dir, {status: 'succeeded', slurm: true, runner: gone})
    writeFileSync(path.join(dir, 'tasks', String(corrupt), 'task.json'), '{not json')
    for (const id of [finishing, corrupt]) {
      writeFileSync(path.join(dir, 'tasks', String(id), 'heartbeat'), JSON.stringify({host: 'node7', pid: 999_999, everyMs: 60_000, at: new Date().toISOString()}))
    }
    const dry = json(await drover(dir, ['prune', '--older-than', '0s', '--include-corrupt', '--dry-run', '--json']))
    const kept = Object.fromEntries([...dry.skipped, ...dry.corrupt].map((t: any) => [t.id, t.reason ?? t.protectedBy]))
    expect(kept[finishing]).toBe('its runner is still alive')
    expect(kept[corrupt]).toBe('its runner is still alive')
  })
})
