// Attach for every front-end: the checks a terminal needs, then tasks/attach.ts.

import {usageError} from '../base/errors.js'
import type {TaskRecord} from '../state/record.js'
import {taskJson, type TaskJson} from './task-json.js'

export interface AttachOptions {
  /** a run at work is drained first: the agent's time to end its turn after STOP (default 60 s), then after SIGTERM until SIGKILL (10 s). */
  graceMs?: number
  killAfterMs?: number
  /** told when a run at work is being drained, and when the interactive session opens (its argv). */
  onDraining?: (task: TaskJson) => void
  onOpening?: (task: TaskJson, argv: string[]) => void
}

/** Checked before the task is looked up: without a terminal nothing else matters (exit 2). */
export async function checkAttach(ref: string | number, opts: AttachOptions): Promise<void> {
  const {checkShape} = await import('./option-shapes.js')
  checkShape(opts, {graceMs: 'number', killAfterMs: 'number', onDraining: 'function', onOpening: 'function'}, 'attach option')
  if (!process.stdin.isTTY || !process.stdout.isTTY) {
    throw usageError(`attach needs a terminal (stdin and stdout are not one): the agent's interactive session runs on it; drover logs -f ${ref} follows a task without one`)
  }
}

export async function attach(stateDir: string, record: TaskRecord, opts: AttachOptions): Promise<TaskRecord> {
  const {attachTask} = await import('../tasks/attach.js')
  return attachTask(stateDir, record, {
    graceMs: opts.graceMs,
    killAfterMs: opts.killAfterMs,
    onDraining: opts.onDraining && ((r) => opts.onDraining!(taskJson(r, {stateDir}))),
    onOpening: opts.onOpening && ((r, argv) => opts.onOpening!(taskJson(r, {stateDir}), argv)),
  })
}
