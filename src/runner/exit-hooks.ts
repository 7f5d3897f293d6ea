// Exit hooks: once per final status, the task's `--on-exit` command (through
// the user's shell) and the state dir's `hooks/on-exit` executable run with the
// final record as JSON on stdin and DROVER_TASK_ID, DROVER_STATUS and
// DROVER_EXIT_CODE set. They run under a small supervisor process of their own
// (this bundle with --hook), detached from the task's tree, so they never delay
// or change the final record: the record is written before they are fired.
//
// The supervisor claims the run's hooks itself (a marker file created
// exclusively) before it runs them: whoever fires them only starts a
// supervisor while none has claimed them. A claim made by the firer instead
// was lost with a firer killed between its claim and the spawn (a `list`
// killed a millisecond after its first change): claimed, never run. The task's
// live hint stays until the claim exists (hooksPending, taken by the fold in
// state/index.ts), so the next `list` fires hooks whose supervisor never came. The
// supervisor stops a hook at its timeout (default 60 s), appends its output to
// the task's hooks.log and records each outcome as an event (`hook`, or
// `hook-failed`, which status shows).
//
// The supervisor needs no disk to run a hook: the record reaches the hook
// through a pipe, and a hooks.log or an event that cannot be written (a full
// disk) is skipped, never the hook. A writer that dies between its final
// record and the spawn leaves the hooks unclaimed: `list` fires them
// (settleHooks in tasks/read.ts), since the task's live hint outlives that moment.
//
// A task's check (check.ts) runs first, under the same claim: the exit hooks
// then get the record with its result.

import {runnerEnv} from '../process/boot-env.js'
import {spawn, type ChildProcess} from 'node:child_process'
import {closeSync, existsSync, openSync, constants as fsc} from 'node:fs'
import path from 'node:path'
import {shellCommand} from '../platform/platform.js'
import {runHook} from './hook-run.js'
import {checkDue, runCheck} from './check.js'
import {isFinalStatus, type TaskRecord} from '../state/record.js'
import {appendEvent, readRecord, taskPaths} from '../state/store.js'

export const HOOK_FLAG = '--hook'
export const DEFAULT_HOOK_TIMEOUT_MS = 60_000

export const stateHookPath = (stateDir: string) => path.join(stateDir, 'hooks', 'on-exit')

/** How to start this bundle again: the runner script and its Node flags. */
export interface RunnerEntry {
  script: string
  execArgv: string[]
}

/** This bundle as this process was started: what a sibling runner or a hook supervisor is started with. */
export const selfEntry = (): RunnerEntry => ({script: process.argv[1], execArgv: process.execArgv})

/**
 * Starts this bundle detached as a supervisor of hooks (`args` say which), out
 * of the caller's process group and with no stdio of the caller's: it outlives
 * whoever started it. Throws when it cannot be started.
 */
export function spawnSupervisor(entry: RunnerEntry, args: string[]): ChildProcess {
  const child = spawn(process.execPath, [...entry.execArgv, entry.script, ...args], {detached: true, env: runnerEnv(), stdio: 'ignore', windowsHide: true})
  child.on('error', () => {})
  child.unref()
  return child
}

function hooksOf(stateDir: string, record: TaskRecord): {name: string; argv: string[]}[] {
  const hooks: {name: string; argv: string[]}[] = []
  if (record.onExit) hooks.push({name: 'on-exit', argv: shellCommand(record.onExit)})
  const shared = stateHookPath(stateDir)
  if (existsSync(shared)) hooks.push({name: 'hooks/on-exit', argv: [shared]})
  return hooks
}

const firedMarker = (stateDir: string, id: number, run: number) => path.join(taskPaths(stateDir, id).dir, `.hooks-fired-${run}`)

/** Whether a final record's exit hooks (or its check) are still to be claimed by a supervisor (a hint must not go before they are). */
export function hooksPending(stateDir: string, record: TaskRecord): boolean {
  return isFinalStatus(record.status) && (hooksOf(stateDir, record).length > 0 || checkDue(record)) && !existsSync(firedMarker(stateDir, record.id, record.runs.length))
}

/**
 * Starts a supervisor for this run's hooks, unless there is none or one has
 * claimed them already. Two firers at once may start two: the supervisor's
 * exclusive claim lets one run them, once.
 */
export function fireExitHooks(stateDir: string, record: TaskRecord, entry: RunnerEntry): ChildProcess | null {
  if (!hooksPending(stateDir, record)) return null
  const paths = taskPaths(stateDir, record.id)
  const run = record.runs.length
  try {
    return spawnSupervisor(entry, [HOOK_FLAG, stateDir, String(record.id), String(run)])
  } catch (error) {
    appendEvent(paths, {event: 'hook-failed', run, hook: 'all', reason: `could not start: ${(error as Error).message}`})
    return null
  }
}

/**
 * The record as this run's end left it. The task may have moved on by the
 * time a supervisor reads it (an attach, a follow-up or a resume starts the
 * next run at once): the hooks of run N are told run N's end, from its entry.
 */
export function asRunEnded(record: TaskRecord, run: number): TaskRecord {
  const entry = record.runs[run - 1]
  if (record.runs.length <= run || !entry || !isFinalStatus(entry.status)) return record
  return {...record, status: entry.status, exitCode: entry.exitCode, signal: entry.signal, reason: entry.reason, cause: entry.cause}
}

/** The supervisor: runs each hook of the run in turn, each with its timeout. */
export async function superviseExitHooks(stateDir: string, id: number, run: number): Promise<void> {
  try {
    closeSync(openSync(firedMarker(stateDir, id, run), fsc.O_WRONLY | fsc.O_CREAT | fsc.O_EXCL, 0o600))
  } catch {
    return // claimed by another supervisor, or the folder is gone
  }
  let read = readRecord(stateDir, id)
  if (!read.ok) return
  if (read.record.runs.length === run && checkDue(read.record)) {
    const {record} = read
    await runCheck(stateDir, record, {...process.env, ...record.env, ...(record.pathEnv ? {PATH: record.pathEnv} : {}), DROVER_TASK_ID: String(id), DROVER_STATUS: record.status, DROVER_STATE_DIR: stateDir, DROVER_RUN: String(run)})
    // the hooks get the record with the check's result
    read = readRecord(stateDir, id)
    if (!read.ok) return
  }
  const record = asRunEnded(read.record, run)
  const paths = taskPaths(stateDir, id)
  const input = JSON.stringify(record) + '\n'
  const timeoutMs = record.hookTimeoutMs ?? DEFAULT_HOOK_TIMEOUT_MS
  const env = {
    ...process.env,
    DROVER_TASK_ID: String(id),
    DROVER_STATUS: record.status,
    DROVER_EXIT_CODE: record.exitCode === null ? '' : String(record.exitCode),
    DROVER_STATE_DIR: stateDir,
    DROVER_RUN: String(run),
  }
  for (const hook of hooksOf(stateDir, record)) {
    const outcome = await runHook(hook.argv, {cwd: existsSync(record.cwd) ? record.cwd : stateDir, env, input, log: path.join(paths.dir, 'hooks.log'), timeoutMs})
    try {
      appendEvent(paths, {event: outcome.ok ? 'hook' : 'hook-failed', run, hook: hook.name, ...outcome.detail})
    } catch {
      // a full disk: the hook ran all the same, and the next one runs too
    }
  }
}
