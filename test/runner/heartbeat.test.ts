// A local runner's liveness on Windows, where reading a start time starts
// PowerShell: from its pid and a fresh heartbeat with nothing started, the
// start time asked only once the beat is stale, and a failing query never
// making a live runner gone. Real files and real pids; the platform injected.

import {spawn} from 'node:child_process'
import {mkdtempSync, rmSync, utimesSync, writeFileSync} from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import {afterEach, describe, expect, it} from 'vitest'
import {linuxOnly} from '../helpers/skips.js'
import {fakeWindows} from '../helpers/fake-windows.js'
import {processStartTime} from '../../src/platform/platform.js'
import {beat, heartbeatFile, localRunnerAlive, readHeartbeat, UNCONFIRMED_GRACE_MS} from '../../src/runner/heartbeat.js'
import {workerAliveShown} from '../../src/runner/executors.js'
import type {TaskRecord} from '../../src/state/record.js'

const dirs: string[] = []
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, {recursive: true, force: true})
})

function taskDir(): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'drover-beat-'))
  dirs.push(dir)
  return dir
}

const windows = fakeWindows

const START = '133000000000000000'
const me = {pid: process.pid, startTime: START}
const ageBeat = (dir: string, ms: number) => {
  const then = new Date(Date.now() - ms)
  utimesSync(heartbeatFile(dir), then, then)
}

describe('localRunnerAlive on win32', () => {
  it('a live pid with a fresh beat of its own is alive, with no program started', () => {
    const dir = taskDir()
    beat(dir, {host: os.hostname(), pid: process.pid, everyMs: 10_000})
    const {ctx, calls} = windows(() => '')
    expect(localRunnerAlive(dir, me, ctx)).toBe(true)
    expect(calls).toEqual([])
    expect(readHeartbeat(dir)).toMatchObject({pid: process.pid})
  })

  it('a pid that no longer exists is gone at once, beat or not, with no program started', async () => {
    const dir = taskDir()
    const child = spawn(process.execPath, ['-e', '0'])
    await new Promise((resolve) => child.on('exit', resolve))
    beat(dir, {host: os.hostname(), pid: child.pid!, everyMs: 10_000})
    const {ctx, calls} = windows(() => START)
    expect(localRunnerAlive(dir, {pid: child.pid!, startTime: START}, ctx)).toBe(false)
    expect(calls).toEqual([])
  })

  it('a stale beat makes the start time be asked: the same process is alive, another under its pid is not', () => {
    const dir = taskDir()
    beat(dir, {host: os.hostname(), pid: process.pid, everyMs: 10_000})
    ageBeat(dir, 60_000)
    const same = windows(() => `${START}\r\n`)
    expect(localRunnerAlive(dir, me, same.ctx)).toBe(true)
    expect(same.calls).toHaveLength(1)
    expect(localRunnerAlive(dir, me, windows(() => '133000000000000001\r\n').ctx)).toBe(false)
  })

  it('the query failing (Wine\'s empty PowerShell) does not make a runner that beat lately gone', () => {
    const dir = taskDir()
    beat(dir, {host: os.hostname(), pid: process.pid, everyMs: 10_000})
    ageBeat(dir, 60_000)
    const broken = windows(() => '')
    expect(localRunnerAlive(dir, me, broken.ctx)).toBe(true)
    // no beat for longer than any stall of a runner: the beat's own word is that it is gone
    ageBeat(dir, UNCONFIRMED_GRACE_MS + 1000)
    expect(localRunnerAlive(dir, me, broken.ctx)).toBe(false)
  })

  it('a beat of another pid (an earlier runner of the task) is not this runner\'s', () => {
    const dir = taskDir()
    writeFileSync(heartbeatFile(dir), JSON.stringify({host: os.hostname(), pid: process.pid + 1, everyMs: 10_000, at: new Date().toISOString()}))
    const broken = windows(() => '')
    expect(localRunnerAlive(dir, me, broken.ctx)).toBe(false)
    expect(broken.calls).toHaveLength(1)
  })
})

linuxOnly('/proc start times').describe('localRunnerAlive elsewhere', () => {
  it('reads the start time (cheap there): no beat needed, a wrong start time is gone', () => {
    const dir = taskDir()
    const real = {pid: process.pid, startTime: processStartTime(process.pid)!}
    expect(localRunnerAlive(dir, real)).toBe(true)
    expect(localRunnerAlive(dir, {...real, startTime: String(Number(real.startTime) + 1)})).toBe(false)
  })
})

describe('workerAliveShown on win32', () => {
  const record = (status: TaskRecord['status'], pid: number) => ({status, executor: 'local', worker: {pid, startTime: START}}) as unknown as TaskRecord

  it('a running task with a live runner: the worker pid existing is enough, with no program started', () => {
    const {ctx, calls} = windows(() => '')
    expect(workerAliveShown(record('running', process.pid), true, ctx)).toBe(true)
    expect(calls).toEqual([])
  })

  it('without a live runner (or once ended) the identity is confirmed: a failed query is not alive', () => {
    const {ctx, calls} = windows(() => '')
    expect(workerAliveShown(record('running', process.pid), false, ctx)).toBe(false)
    expect(workerAliveShown(record('lost', process.pid), true, ctx)).toBe(false)
    expect(calls).toHaveLength(2)
  })
})
