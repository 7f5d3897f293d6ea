// The local executor: a task's runner is a detached Node process on this
// machine, found again through runner.json (pid + start time). Its start-up is
// most of what `start` waits for; so `bin/run.js` boots one on standby while
// oclif loads (the two overlap on a second core), and the first launch hands
// it its task through a pipe instead of spawning a new one.

import {spawn, type ChildProcess} from 'node:child_process'
import {closeSync, statSync} from 'node:fs'
import type {Readable} from 'node:stream'
import {signalIdentity, type ProcessSignal} from '../platform/platform.js'
import {localRunnerAlive} from './heartbeat.js'
import {ageByFileSystem, clockDir} from '../state/fs-clock.js'
import type {TaskRecord} from '../state/record.js'
import {openAppend, readRunnerIdentity, taskPaths} from '../state/store.js'
import {EXECUTOR_CAPABILITIES, type Executor, type RunnerPresence} from './executor.js'
import {fireExitHooks} from './exit-hooks.js'
import {fireStatusHooks} from './status-hooks.js'
import {statusHooksPending} from '../state/status-changes.js'
import {runnerEnv} from '../process/boot-env.js'
import {runnerEntry, takeStandby} from './standby.js'

// A runner is given this long to write runner.json after `start` created the
// record; past it, a `starting` task without a runner was never launched.
const STARTUP_GRACE_MS = 15_000

/** After `<state dir> <id>`: take over the live worker of a runner that died. */
export const ADOPT_FLAG = '--adopt'

export {prespawnRunner, runnerEntry, STANDBY_FLAG} from './standby.js'

export interface RunnerHandle {
  child: ChildProcess
  /** closed by the runner once it has recorded `running` or the failure. */
  ready: Readable
}

/**
 * Lets the standby runner go unused (the task went to another executor): its
 * pipe closed, it exits having done nothing, as it would when this process exits.
 */
export function dropStandby(): void {
  takeStandby()?.assign.destroy()
}

/**
 * A runner for this task: the standby one when it is still there, else a new
 * one. With `adopt`, a new one that takes over the live worker of a dead runner.
 */
export function spawnRunner(stateDir: string, id: number, opts: {adopt?: boolean} = {}): RunnerHandle {
  const waiting = opts.adopt ? null : takeStandby()
  if (waiting) {
    // Now this process does wait for it: hold the event loop until it is ready.
    ;(waiting.ready as Readable & {ref?: () => void}).ref?.()
    waiting.child.ref()
    waiting.assign.end(`${stateDir}\n${id}\n`)
    return {child: waiting.child, ready: waiting.ready}
  }
  const logFd = openAppend(taskPaths(stateDir, id).runnerLog)
  const {script, execArgv} = runnerEntry()
  try {
    const child = spawn(process.execPath, [...execArgv, script, stateDir, String(id), ...(opts.adopt ? [ADOPT_FLAG] : [])], {
      detached: true,
      env: runnerEnv(),
      stdio: ['ignore', 'ignore', logFd, 'pipe'],
      windowsHide: true,
    })
    return {child, ready: child.stdio[3] as Readable}
  } finally {
    closeSync(logFd)
  }
}

/** Fires a final record's exit hooks, and its status hooks' untold changes, from a command (not a runner). */
export function fireHooks(stateDir: string, record: TaskRecord): void {
  fireExitHooks(stateDir, record, runnerEntry())
  if (statusHooksPending(stateDir, record.id)) fireStatusHooks(stateDir, record.id, runnerEntry())
}

/**
 * A runner for a task a queue just moved to `starting`, not waited for: the
 * command that advanced the queue has its own work, and the new runner records
 * its own start. Never the standby runner, which belongs to `start`'s own task.
 */
export function launchDetached(stateDir: string, id: number): void {
  const logFd = openAppend(taskPaths(stateDir, id).runnerLog)
  const {script, execArgv} = runnerEntry()
  try {
    const child = spawn(process.execPath, [...execArgv, script, stateDir, String(id)], {
      detached: true,
      env: runnerEnv(),
      stdio: ['ignore', 'ignore', logFd],
      windowsHide: true,
    })
    child.on('error', () => {})
    child.unref()
  } finally {
    closeSync(logFd)
  }
}

/**
 * Spawns a runner and resolves once it is ready: it closes fd 3 right after
 * recording `running` or the failure (or, adopting, right after taking over).
 * The pipe also closes when the runner dies, so a crash is noticed at once.
 */
export async function startRunner(stateDir: string, id: number, opts: {adopt?: boolean} = {}): Promise<void> {
  const {child, ready} = spawnRunner(stateDir, id, opts)
  await new Promise<void>((resolve) => {
    let done = false
    const finish = () => {
      if (done) return
      done = true
      resolve()
    }
    ready.on('data', () => {})
    ready.once('close', finish)
    ready.once('error', finish)
    child.once('error', finish)
    child.once('exit', finish)
  })
  ready.destroy()
  child.unref()
}

function recordWrittenAt(stateDir: string, id: number): number {
  try {
    return statSync(taskPaths(stateDir, id).record).mtimeMs
  } catch {
    return 0
  }
}

export const localExecutor: Executor = {
  name: 'local',
  capabilities: EXECUTOR_CAPABILITIES.local,

  submit(stateDir: string, id: number, opts: {adopt?: boolean; detach?: boolean} = {}): Promise<void> {
    if (opts.detach) {
      launchDetached(stateDir, id)
      return Promise.resolve()
    }
    return startRunner(stateDir, id, opts)
  },

  observe(stateDir: string, record: TaskRecord): RunnerPresence {
    const runner = readRunnerIdentity(stateDir, record.id)
    if (runner) return localRunnerAlive(taskPaths(stateDir, record.id).dir, runner) ? 'alive' : 'gone'
    if (record.status === 'starting') {
      // A resumed or restarted run has no time of its own until its runner
      // records `running`, and createdAt may be days old. Nothing rewrites a
      // `starting` record after the run was opened, so the file's mtime is when
      // this run began: without it a second `resume` racing the first would take
      // the run still starting for abandoned and start another. The mtime, not
      // createdAt, and its age by the clock that stamped it (fs-clock.ts), not
      // this process's: createdAt is whatever clock its writer had — one a step
      // ahead kept a dead run `starting` for as long as the step (found by
      // chaos, clock steps) — and an observer a step ahead would take a run
      // still starting for abandoned.
      const written = recordWrittenAt(stateDir, record.id)
      const age = written ? ageByFileSystem(written, clockDir(stateDir)) : Date.now() - (Date.parse(record.createdAt) || 0)
      // in the future beyond the grace: the clock stepped back since, and the
      // age is unknown; a runner still starting finds its run taken and stops
      if (age < STARTUP_GRACE_MS && age > -STARTUP_GRACE_MS) return 'starting'
    }
    return 'gone'
  },

  signal(stateDir: string, id: number, signal: ProcessSignal): boolean {
    const runner = readRunnerIdentity(stateDir, id)
    return runner !== null && signalIdentity(runner, signal)
  },

  cancel(stateDir: string, id: number): boolean {
    const runner = readRunnerIdentity(stateDir, id)
    return runner !== null && signalIdentity(runner, 'SIGKILL')
  },
}
