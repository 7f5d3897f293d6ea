// Launching the worker: its environment, its own process group, output
// appended straight to output.log, and a plain reason when it cannot start.
// This is the local executor behind the runner; a cluster executor would
// replace this module (and platform.ts's signalling), nothing else.

import {spawn, type ChildProcess, type SpawnOptions} from 'node:child_process'
import {statSync} from 'node:fs'
import {currentPlatform, processStartTime, processTable, terminalSpawnOptions, workerSpawnOptions, type ProcessIdentity} from '../platform/platform.js'
import type {RunEntry, TaskRecord} from '../state/record.js'
import type {TaskPaths} from '../state/store.js'

/**
 * The launching environment with the task's -e variables, and the PATH the
 * task was started with: a resume from cron or @reboot (PATH=/usr/bin:/bin)
 * must still find what the agent itself runs (`#!/usr/bin/env node`, git, …).
 */
export function laterRunEnv(record: TaskRecord, base: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {...base, ...record.env}
  const pathKey = Object.keys(env).find((key) => key.toUpperCase() === 'PATH') ?? 'PATH'
  if (record.pathEnv !== null && !Object.keys(record.env).some((key) => key.toUpperCase() === 'PATH')) env[pathKey] = record.pathEnv
  return env
}

/** What marks a process as one of this task's: its control file, unique per state dir and task. */
export const taskMark = (paths: TaskPaths): Record<string, string> => ({DROVER_CONTROL_FILE: paths.control})

export function workerEnv(stateDir: string, record: TaskRecord, run: RunEntry, paths: TaskPaths): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {
    ...laterRunEnv(record),
    DROVER_TASK_ID: String(record.id),
    DROVER_STATE_DIR: stateDir,
    DROVER_CONTROL_FILE: paths.control,
    DROVER_SESSION_DIR: paths.session,
    DROVER_RUN: String(run.run),
    // The worker's cwd, as a shell's `cd` would say: a PWD inherited from the
    // starting shell names another directory, and programs that read it
    // (opencode works in $PWD) would work there.
    PWD: record.cwd,
  }
  if (run.resumed) env.DROVER_RESUME = '1'
  else delete env.DROVER_RESUME
  return env
}

export type Launch = {ok: true; child: ChildProcess; identity: ProcessIdentity} | {ok: false; reason: string; cause: 'not-found' | 'not-started'}

/**
 * Resolves once the OS has started the worker (or refused to). `out`: the
 * file its stdout and stderr go to, or `terminal` for one a person uses here
 * (`drover attach`): this process's own stdio, in its process group.
 */
export function launchWorker(argv: string[], cwd: string, env: NodeJS.ProcessEnv, out: number | 'terminal'): Promise<Launch> {
  const [file, ...args] = argv
  const io: SpawnOptions = out === 'terminal' ? {stdio: 'inherit', ...terminalSpawnOptions()} : {stdio: ['ignore', out, out], ...workerSpawnOptions()}
  return new Promise((resolve) => {
    let child: ChildProcess
    try {
      child = spawn(file, args, {cwd, env, ...io})
    } catch (error) {
      resolve({ok: false, ...spawnFailure(file, error)})
      return
    }
    child.once('error', (error) => resolve({ok: false, ...spawnFailure(file, error)}))
    child.once('spawn', () => {
      const pid = child.pid!
      resolve({ok: true, child, identity: {pid, startTime: spawnedStartTime(pid) ?? 'unknown'}})
    })
  })
}

/**
 * The new worker's start time. Windows: from one table of every process (one
 * PowerShell start), which also tells the runner its own start time and the
 * worker's first descendants; the worker's identity is what others compare
 * with later, the runner itself needs none while it holds the child's handle.
 */
function spawnedStartTime(pid: number): string | null {
  const ctx = currentPlatform()
  if (ctx.os !== 'win32') return processStartTime(pid, ctx)
  return processTable(ctx)?.get(pid)?.startTime ?? null
}

/**
 * Node reports a missing cwd as ENOENT of the command itself: check it before
 * launching so the reason names the real problem.
 */
export function checkCwd(cwd: string): string | null {
  try {
    if (!statSync(cwd).isDirectory()) return `working directory is not a directory: ${cwd}`
    return null
  } catch {
    return `working directory does not exist: ${cwd}`
  }
}

function spawnFailure(file: string, error: unknown): {reason: string; cause: 'not-found' | 'not-started'} {
  const code = (error as NodeJS.ErrnoException).code
  if (code === 'ENOENT') return {reason: `command not found: ${file}`, cause: 'not-found'}
  if (code === 'EACCES') return {reason: `permission denied (not executable?): ${file}`, cause: 'not-started'}
  return {reason: `cannot start ${file}: ${(error as Error).message}`, cause: 'not-started'}
}
