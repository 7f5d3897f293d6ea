// Where drover keeps things for a given state dir, and why that dir: what
// `drover doctor --paths` prints and a script or a recipe reads instead of
// building "$DROVER_STATE_DIR/hooks" by hand (which is /hooks when the
// variable is unset). Creates nothing.

import path from 'node:path'
import {stateHookPath} from '../runner/exit-hooks.js'
import {configPath} from '../state/config.js'
import {sharedStatusHookPath} from '../state/status-changes.js'
import {resolveStateDir, STATE_DIR_ENV} from '../state/statedir.js'

/** Where a state dir's path came from: the option (--state-dir), $DROVER_STATE_DIR, or the per-OS default. */
export type StateDirSource = 'option' | 'environment' | 'default'

export function stateDirSource(option: string | undefined, env: NodeJS.ProcessEnv = process.env): StateDirSource {
  return option ? 'option' : env[STATE_DIR_ENV] ? 'environment' : 'default'
}

/** How a person is told where the state dir came from, after its path (worded as doctor's report words it). */
export function stateDirSourceText(source: StateDirSource): string {
  if (source === 'option') return 'from --state-dir'
  if (source === 'environment') return `from ${STATE_DIR_ENV}`
  return `the per-OS default; ${STATE_DIR_ENV} is not set`
}

/** Whether nothing is at the state dir's path: a look reads it as empty and makes none (openStateDir's `look`). */
export {stateDirMissing} from '../state/statedir.js'

export interface DroverPaths {
  stateDir: string
  source: StateDirSource
  /** where the state dir's hooks live (`on-exit`): made by hand, read at every task's end. */
  hooksDir: string
  /** the on-exit hook itself, there or not. */
  onExitHook: string
  /** the on-status hook, run at every status change of every task, there or not. */
  onStatusHook: string
  /** the state dir's optional settings, written by hand. */
  configFile: string
}

export async function droverPaths(options: {stateDir?: string; env?: NodeJS.ProcessEnv} = {}): Promise<DroverPaths> {
  const env = options.env ?? process.env
  const stateDir = await resolveStateDir(options.stateDir, env)
  const onExitHook = stateHookPath(stateDir)
  return {stateDir, source: stateDirSource(options.stateDir, env), hooksDir: path.dirname(onExitHook), onExitHook, onStatusHook: sharedStatusHookPath(stateDir), configFile: configPath(stateDir)}
}
