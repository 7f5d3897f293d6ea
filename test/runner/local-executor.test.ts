// The local executor behind the executor seam: it observes a runner through
// runner.json (pid + start time, never a bare pid), and signals or ends it only
// while that identity still holds — a recycled pid is never touched.

import {spawn, type ChildProcess} from 'node:child_process'
import {mkdirSync, utimesSync, writeFileSync} from 'node:fs'
import {afterEach, describe, expect, it} from 'vitest'
import {processStartTime} from '../../src/platform/platform.js'
import {localExecutor} from '../../src/runner/local-executor.js'
import type {TaskRecord} from '../../src/state/record.js'
import {taskPaths} from '../../src/state/store.js'
import {cleanupStateDirs, isAlive, makeStateDir, waitFor} from '../helpers/cli.js'
import {posixOnly} from '../helpers/skips.js'

const children: ChildProcess[] = []
afterEach(() => {
  for (const child of children) child.kill('SIGKILL')
  children.length = 0
  cleanupStateDirs()
})

function sleeper(): ChildProcess {
  const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], {stdio: 'ignore'})
  children.push(child)
  return child
}

/** A task folder whose runner.json names `identity` (or none). */
function taskWithRunner(identity: {pid: number; startTime: string} | null): {stateDir: string; record: TaskRecord} {
  const stateDir = makeStateDir()
  const paths = taskPaths(stateDir, 1)
  mkdirSync(paths.dir, {recursive: true})
  writeFileSync(paths.record, '{}')
  if (identity) writeFileSync(paths.runner, JSON.stringify(identity))
  const record = {id: 1, status: 'running', createdAt: new Date().toISOString()} as TaskRecord
  return {stateDir, record}
}

const exited = (child: ChildProcess) => new Promise<NodeJS.Signals | null>((resolve) => child.once('exit', (_code, signal) => resolve(signal)))

describe('the local executor', () => {
  it('says what it can do: adopt, control directly, boot a runner on standby', () => {
    expect(localExecutor.name).toBe('local')
    expect(localExecutor.capabilities).toEqual({adopt: true, directControl: true, standby: true})
  })

  it('observes a runner alive by its identity, gone when the pid was recycled or it died', async () => {
    const child = sleeper()
    const startTime = await waitFor(() => processStartTime(child.pid!))
    const own = taskWithRunner({pid: child.pid!, startTime})
    expect(localExecutor.observe(own.stateDir, own.record)).toBe('alive')
    const stranger = taskWithRunner({pid: child.pid!, startTime: `${startTime}1`})
    expect(localExecutor.observe(stranger.stateDir, stranger.record)).toBe('gone')
    child.kill('SIGKILL')
    await exited(child)
    const dead = taskWithRunner({pid: child.pid!, startTime})
    expect(localExecutor.observe(dead.stateDir, dead.record)).toBe('gone')
  })

  it('gives a run without runner.json its start-up grace, counted from when the run was opened', () => {
    const fresh = taskWithRunner(null)
    expect(localExecutor.observe(fresh.stateDir, {...fresh.record, status: 'starting'})).toBe('starting')
    // a running task without runner.json has no runner
    expect(localExecutor.observe(fresh.stateDir, fresh.record)).toBe('gone')
    const old = taskWithRunner(null)
    const longAgo = new Date(Date.now() - 60_000)
    utimesSync(taskPaths(old.stateDir, 1).record, longAgo, longAgo)
    expect(localExecutor.observe(old.stateDir, {...old.record, status: 'starting', createdAt: longAgo.toISOString()})).toBe('gone')
  })

  it('counts the grace by the record file\'s time, not by createdAt from a writer whose clock was off', () => {
    // written a minute ago by a process whose clock ran an hour ahead
    const ahead = taskWithRunner(null)
    const minuteAgo = new Date(Date.now() - 60_000)
    utimesSync(taskPaths(ahead.stateDir, 1).record, minuteAgo, minuteAgo)
    const hourAhead = new Date(Date.now() + 3_600_000).toISOString()
    expect(localExecutor.observe(ahead.stateDir, {...ahead.record, status: 'starting', createdAt: hourAhead})).toBe('gone')
    // just written by a process whose clock ran an hour behind: still starting
    const behind = taskWithRunner(null)
    const hourBehind = new Date(Date.now() - 3_600_000).toISOString()
    expect(localExecutor.observe(behind.stateDir, {...behind.record, status: 'starting', createdAt: hourBehind})).toBe('starting')
    // the clock stepped back an hour after the record was written: its age is unknown, so not kept waiting
    const stepped = taskWithRunner(null)
    const hourLater = new Date(Date.now() + 3_600_000)
    utimesSync(taskPaths(stepped.stateDir, 1).record, hourLater, hourLater)
    expect(localExecutor.observe(stepped.stateDir, {...stepped.record, status: 'starting'})).toBe('gone')
  })

  it('neither signals nor cancels a runner whose identity no longer holds', async () => {
    const child = sleeper()
    const startTime = await waitFor(() => processStartTime(child.pid!))
    const stranger = taskWithRunner({pid: child.pid!, startTime: `${startTime}1`})
    expect(localExecutor.signal(stranger.stateDir, 1, 'SIGTERM')).toBe(false)
    expect(localExecutor.cancel(stranger.stateDir, 1)).toBe(false)
    await new Promise((resolve) => setTimeout(resolve, 200))
    expect(processStartTime(child.pid!)).toBe(startTime)
    expect(localExecutor.signal(taskWithRunner(null).stateDir, 1, 'SIGTERM')).toBe(false)
  })

  posixOnly('SIGSTOP and SIGCONT').it('signals and cancels the runner while its identity holds, a frozen one too', async () => {
    const child = sleeper()
    const startTime = await waitFor(() => processStartTime(child.pid!))
    expect(isAlive(child.pid!)).toBe(true)
    const own = taskWithRunner({pid: child.pid!, startTime})
    child.kill('SIGSTOP')
    expect(localExecutor.signal(own.stateDir, 1, 'SIGCONT')).toBe(true)
    const ending = exited(child)
    expect(localExecutor.cancel(own.stateDir, 1)).toBe(true)
    expect(await ending).toBe('SIGKILL')
    expect(localExecutor.cancel(own.stateDir, 1)).toBe(false)
    expect(localExecutor.signal(taskWithRunner(null).stateDir, 1, 'SIGCONT')).toBe(false)
  })
})
