// The runner as a process to start: its script and Node flags, the environment
// it boots with, and the one booted on standby for `start`. Builtins and
// process/boot-env.js only: bin/run.js imports this before anything else of
// drover loads, so the runner's boot overlaps as much of the CLI's as it can.

import {spawn, type ChildProcess} from 'node:child_process'
import {existsSync, readFileSync} from 'node:fs'
import path from 'node:path'
import type {Readable, Writable} from 'node:stream'
import {fileURLToPath} from 'node:url'
import {runnerEnv} from '../process/boot-env.js'
import type {RunnerEntry} from './exit-hooks.js'

export const STANDBY_FLAG = '--standby'

// V8's lite mode (no optimising compiler) saves ~0.8 MB of RSS per runner; a
// runner mostly sleeps, and the little it parses goes through JSON.parse. It
// costs at boot: with any V8 flag Node's own code cache no longer fits, and the
// builtins the runner loads (child_process and the stream and net modules
// under it) compile from source — ~20 ms of CPU, paid on standby while the CLI
// loads; without the flag an idle runner's RSS passes 1.1× a bare node's.
const RUNNER_NODE_FLAGS = ['--lite-mode']

export function runnerEntry(): RunnerEntry {
  const here = path.dirname(fileURLToPath(import.meta.url))
  // The bundled CommonJS runner (see src/runner/main.ts for why it is bundled).
  const built = path.join(here, '..', 'runner.cjs')
  if (existsSync(built)) return {script: built, execArgv: RUNNER_NODE_FLAGS}
  // Running from sources (bin/dev.mjs): the runner is TypeScript too.
  return {script: path.join(here, 'main.ts'), execArgv: [...RUNNER_NODE_FLAGS, '--import', 'tsx']}
}

export interface StandbyRunner {
  child: ChildProcess
  /** closed by the runner once it has recorded `running` or the failure. */
  ready: Readable
  /** where "<state dir>\n<id>\n" is written. */
  assign: Writable
}

// On globalThis rather than in this module: a process may hold more than one
// copy of the launcher (the CLI's bundle and the library as a package), and the
// runner booted for this process must be found by whichever launches the task.
const SLOT = Symbol.for('drover.standbyRunner')
const slot = globalThis as {[SLOT]?: StandbyRunner | null}

/**
 * Boots a runner that waits for its task on stdin. If nothing is ever handed to
 * it (bad flags, --help), the pipe closes when this process exits and the
 * runner exits too, having done nothing.
 */
export function prespawnRunner(): void {
  if (slot[SLOT]) return
  const {script, execArgv} = runnerEntry()
  try {
    const child = spawn(process.execPath, [...execArgv, script, STANDBY_FLAG], {
      detached: true,
      env: runnerEnv(),
      stdio: ['pipe', 'ignore', 'ignore', 'pipe'],
      windowsHide: true,
    })
    child.once('error', () => {
      slot[SLOT] = null
    })
    // Never keep this process alive for a runner it did not use.
    child.unref()
    const assign = child.stdio[0] as Writable & {unref?: () => void}
    const ready = child.stdio[3] as Readable & {unref?: () => void}
    assign.on('error', () => {})
    assign.unref?.()
    ready.unref?.()
    slot[SLOT] = {child, ready, assign}
  } catch {
    slot[SLOT] = null
  }
}

/** The standby runner if it is still there and waiting (it is handed out once), else null. */
export function takeStandby(): StandbyRunner | null {
  const waiting = slot[SLOT] ?? null
  slot[SLOT] = null
  if (!waiting || waiting.child.exitCode !== null || waiting.child.signalCode !== null || waiting.assign.destroyed) return null
  return waiting
}

/** `--flag VALUE` or `--flag=VALUE` among drover's own words (before `--`): the last one given. */
export function flagValue(words: readonly string[], flag: string): string | undefined {
  let value: string | undefined
  for (let i = 0; i < words.length; i++) {
    if (words[i] === '--') break
    if (words[i] === flag && i + 1 < words.length) value = words[++i]
    else if (words[i].startsWith(`${flag}=`)) value = words[i].slice(flag.length + 1)
  }
  return value
}

/**
 * Whether `start <args>` wants the standby runner, as far as argv, the
 * environment and a named state dir's config.json tell without loading more
 * than builtins (this runs before oclif): `none` for a task going to Slurm
 * (its runner is a batch job's), `boot`, or `boot-then-check` with the
 * default state dir, whose place takes env-paths to find — booted first, and
 * let go once its config turns out to say Slurm (api/standby.ts). Only a
 * guess to save a process: `start` decides for itself (a bad config.json is
 * its to refuse).
 */
export function standbyVerdict(args: readonly string[], env: NodeJS.ProcessEnv = process.env): 'none' | 'boot' | 'boot-then-check' {
  const asked = flagValue(args, '--executor') ?? (env.DROVER_EXECUTOR || undefined)
  if (asked !== undefined) return asked === 'slurm' ? 'none' : 'boot'
  const named = flagValue(args, '--state-dir') || env.DROVER_STATE_DIR
  if (!named) return 'boot-then-check'
  let executor: unknown
  try {
    executor = (JSON.parse(readFileSync(path.join(path.resolve(named), 'config.json'), 'utf8')) as {executor?: unknown}).executor
  } catch {
    return 'boot' // none, or unreadable: start says so
  }
  return executor === 'slurm' ? 'none' : 'boot'
}
