// Plumbing for the completion tests: drover on PATH as people have it (a
// `drover` in a directory of PATH, here a link to the built CLI), a state dir
// with real tasks, and single quotes for the shells' command lines.

import {execFileSync} from 'node:child_process'
import {symlinkSync} from 'node:fs'
import path from 'node:path'
import {BIN, cleanupStateDirs, drover, makeStateDir, makeTempDir, startOk} from '../../helpers/cli.js'
import {expect} from 'vitest'
import {openPane, type Pane} from '../../helpers/tmux.js'

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

/** A state dir with one running named task and two ended ones (the newest failed). */
export async function stateWithTasks(): Promise<Tasks> {
  const stateDir = makeStateDir()
  // node for the programs, so the Windows suite runs these too
  const sleeper = await startOk(stateDir, ['--name', 'sleeper', '--', process.execPath, '-e', 'setTimeout(() => {}, 60000)'])
  const build = await startOk(stateDir, ['--name', 'build.v2', '--', process.execPath, '-e', '0'])
  const last = await startOk(stateDir, ['--', process.execPath, '-e', 'process.exit(1)'])
  const waited = await drover(stateDir, ['wait', String(build), String(last)])
  expect([0, 1]).toContain(waited.exitCode)
  return {stateDir, sleeper, build, last}
}

/** Ends the running task (on Windows a live worker keeps its folder from being removed), then removes the state dirs. */
export async function endTasks(tasks: Tasks | undefined): Promise<void> {
  if (tasks !== undefined) await drover(tasks.stateDir, ['cancel', '--all'])
  cleanupStateDirs()
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

export type Terminal = Pane

/** A shell in a real terminal (tmux on a private socket), with only `env` in its environment. */
export function openTerminal(argv: string[], env: Record<string, string>): Terminal {
  const exports = Object.entries({TERM: 'xterm', ...env}).map(([k, v]) => `${k}=${sq(v)}`)
  return openPane('sh', [`env -i ${exports.join(' ')} ${argv.map(sq).join(' ')}`], {width: 160, height: 40})
}
