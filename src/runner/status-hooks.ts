// Status hooks: at every change of a task's status, its `--on-status` command
// (through the user's shell) and the state dir's `hooks/on-status` run with
// the record as the change left it on stdin and DROVER_STATUS,
// DROVER_PREV_STATUS, DROVER_TASK_ID, DROVER_REASON and DROVER_CAUSE set; an
// end or a need for attention is also sent to the task's `--notify` targets.
//
// The writer of a change only appends it to the task's status-changes.ndjson
// (state/status-changes.ts) and starts a supervisor (this bundle with
// --status-hooks), detached from the task, so nothing of it delays a record
// or a start. The supervisor takes the task's status-hook lock (one at a
// time per task, so hooks hear of changes in their order), tells every
// change past .status-hooks-done, one after the other, and moves that offset
// on after each. A supervisor that finds the lock held leaves: the holder
// looks for new lines once more after it let the lock go. Each hook has the
// task's hook timeout, as exit hooks do; outcomes are `hook`/`hook-failed`
// events with the status they were for, which `status` shows.
//
// A change is told at least once: a supervisor killed mid-change leaves it to
// the next, which tells it again. One that is never started (its writer died
// first) is started by the next command that reads the task (tasks/read.ts).

import type {ChildProcess} from 'node:child_process'
import {existsSync} from 'node:fs'
import path from 'node:path'
import {shellCommand} from '../platform/platform.js'
import {appendEvent, taskPaths} from '../state/store.js'
import {markTold, sharedStatusHookPath, statusHookFiles, toldUpTo, untoldChanges, type StatusChange} from '../state/status-changes.js'
import {DEFAULT_HOOK_TIMEOUT_MS, spawnSupervisor, type RunnerEntry} from './exit-hooks.js'
import {runHook, type HookOutcome} from './hook-run.js'
import {notifyLabel} from '../base/notify-target.js'

export const STATUS_HOOKS_FLAG = '--status-hooks'

/** Starts a supervisor for the task's untold changes; null when it could not be started (the next command starts one). */
export function fireStatusHooks(stateDir: string, id: number, entry: RunnerEntry): ChildProcess | null {
  try {
    return spawnSupervisor(entry, [STATUS_HOOKS_FLAG, stateDir, String(id)])
  } catch {
    return null
  }
}

/** The supervisor: tells every untold change in order, while it holds the task's status-hook lock. */
export async function superviseStatusHooks(stateDir: string, id: number): Promise<void> {
  const {acquireLock} = await import('../state/lock.js')
  const files = statusHookFiles(stateDir, id)
  for (;;) {
    let release
    try {
      release = await acquireLock(files.lock, {waitMs: 0})
    } catch {
      return // another supervisor tells them, and looks again once it is done
    }
    try {
      await tellUntold(stateDir, id)
    } finally {
      release()
    }
    // a change written after the last look, whose own supervisor found the lock held
    if (untoldChanges(stateDir, id, toldUpTo(stateDir, id)).length === 0) return
  }
}

async function tellUntold(stateDir: string, id: number): Promise<void> {
  for (;;) {
    const changes = untoldChanges(stateDir, id, toldUpTo(stateDir, id))
    if (changes.length === 0) return
    for (const {change, end} of changes) {
      if (change) await tell(stateDir, change)
      try {
        markTold(stateDir, id, end)
      } catch {
        return // the task folder is gone (rm), or the disk is full: the next supervisor goes on
      }
    }
  }
}

interface Listener {
  name: string
  run: () => Promise<HookOutcome>
}

/** Runs every listener of one change at once, and journals each outcome. */
async function tell(stateDir: string, change: StatusChange): Promise<void> {
  const record = change.record
  const paths = taskPaths(stateDir, record.id)
  const timeoutMs = record.hookTimeoutMs ?? DEFAULT_HOOK_TIMEOUT_MS
  const cwd = existsSync(record.cwd) ? record.cwd : stateDir
  const log = path.join(paths.dir, 'hooks.log')
  const env = {
    ...process.env,
    DROVER_TASK_ID: String(record.id),
    DROVER_TASK_NAME: record.name ?? '',
    DROVER_STATUS: change.status,
    DROVER_PREV_STATUS: change.previous ?? '',
    DROVER_REASON: change.reason ?? '',
    DROVER_CAUSE: change.cause ?? '',
    DROVER_EXIT_CODE: record.exitCode === null ? '' : String(record.exitCode),
    DROVER_RUN: String(change.run),
    DROVER_STATE_DIR: stateDir,
  }
  const input = JSON.stringify(record) + '\n'
  const listeners: Listener[] = []
  const hook = (name: string, argv: string[]) => listeners.push({name, run: () => runHook(argv, {cwd, env, input, log, timeoutMs})})
  if (record.onStatus) hook('on-status', shellCommand(record.onStatus))
  const shared = sharedStatusHookPath(stateDir)
  if (existsSync(shared)) hook('hooks/on-status', [shared])
  const targets = record.notify ?? []
  if (targets.length > 0) {
    // loaded only when a task asks: node:http and node:https are not every supervisor's
    const {notifies, sendNotification} = await import('./notify.js')
    if (notifies(change)) {
      for (const target of targets) listeners.push({name: notifyLabel(target), run: () => sendNotification(target, change, {timeoutMs, log, cwd, env})})
    }
  }
  await Promise.all(
    listeners.map(async ({name, run}) => {
      const outcome = await run()
      try {
        appendEvent(paths, {event: outcome.ok ? 'hook' : 'hook-failed', run: change.run, hook: name, status: change.status, ...outcome.detail})
      } catch {
        // a full disk, or the task removed: the hook ran all the same
      }
    }),
  )
}
