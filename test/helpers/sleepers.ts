// Real processes standing in for a task's runner: one alive (a sleeper whose
// start time can be read, so identity checks pass) and a pid that names no
// process (a child that has exited).

import {spawn, type ChildProcess} from 'node:child_process'
import {afterEach} from 'vitest'
import {processStartTime} from '../../src/platform/platform.js'
import {fixture, waitFor} from './cli.js'

/** The processes a test file starts (sleepers, stand-ins): each SIGKILLed after every test. */
export function childrenKilledAfterEach(): ChildProcess[] {
  const children: ChildProcess[] = []
  afterEach(() => {
    for (const child of children.splice(0)) child.kill('SIGKILL')
  })
  return children
}

/** Starts a sleeper and keeps it in `children` (the caller kills them after each test); its pid. */
export async function liveProcess(children: ChildProcess[]): Promise<number> {
  const child = spawn(process.execPath, [fixture('sleeper.mjs'), '120'], {stdio: 'ignore'})
  children.push(child)
  await waitFor(() => processStartTime(child.pid!) !== null, {message: 'sleeper up'})
  return child.pid!
}

/** A pid that no process has now: a child that has exited. */
export async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', '0'], {stdio: 'ignore'})
  await new Promise((resolve) => child.once('exit', resolve))
  return child.pid!
}
