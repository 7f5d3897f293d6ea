// Plumbing for the completion tests: drover on PATH as people have it (a
// `drover` in a directory of PATH, here a link to the built CLI), a state dir
// with real tasks, and single quotes for the shells' command lines.

import {execFileSync} from 'node:child_process'
import {symlinkSync} from 'node:fs'
import path from 'node:path'
import {BIN, drover, makeStateDir, makeTempDir, startOk} from '../../helpers/cli.js'
import {expect} from 'vitest'

/** A PATH with `drover` (the built CLI) and node first, then the system's. */
export function pathWithDrover(): string {
  const bin = makeTempDir('drover-completion-bin-')
  symlinkSync(BIN, path.join(bin, 'drover'))
  return [bin, path.dirname(process.execPath), '/usr/local/bin', '/usr/bin', '/bin'].join(path.delimiter)
}

export interface Tasks {
  stateDir: string
  /** a running task named sleeper */
  sleeper: number
  /** an ended task named build.v2 */
  build: number
  /** an ended task without a name: the newest */
  last: number
}

/** A state dir with one running named task and two ended ones. */
export async function stateWithTasks(): Promise<Tasks> {
  const stateDir = makeStateDir()
  const sleeper = await startOk(stateDir, ['--name', 'sleeper', '--', 'sleep', '60'])
  const build = await startOk(stateDir, ['--name', 'build.v2', '--', 'true'])
  const last = await startOk(stateDir, ['--', 'false'])
  const waited = await drover(stateDir, ['wait', String(build), String(last)])
  expect([0, 1]).toContain(waited.exitCode)
  return {stateDir, sleeper, build, last}
}

export const sq = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`

/** Whether a program is installed (zsh, fish): the tests that need one say so when it is not. */
export function installed(program: string): boolean {
  try {
    execFileSync(program, ['-c', 'exit 0'], {stdio: 'ignore'})
    return true
  } catch {
    return false
  }
}
