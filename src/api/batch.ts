// Acting on many tasks at once — stop, cancel, drain, resume of ids, names or
// --all — for every front-end alike. Requests go out to every task together,
// not one after another: ten stops take one grace, not ten. The caller gets a
// promise per task, so a front-end can show progress however it likes.

import {DroverError, ExitCode, usageError, type MissingRef} from '../base/errors.js'
import {sessionRefusal} from '../agents/profiles.js'
import {resumeRefusal, wasInterrupted} from '../agents/resumable.js'
import type {Checkpoint, TaskRecord, TaskStatus} from '../state/record.js'
import type {RequestKind} from '../state/requests.js'
import {readRecord} from '../state/store.js'
import type {ControlResult} from '../tasks/control.js'
import {taskJson, type TaskJson} from './task-json.js'
import type {Budget} from './budget.js'
import {sendFollowup, type FollowupSent} from './followups.js'

export type {ControlResult}

/** Which tasks: ids and names, or every task in the statuses the verb acts on. */
export interface TaskSelection {
  /** ids or names (the same key as MCP's tools take). */
  tasks?: (number | string)[]
  all?: boolean
  /** what `all` takes, of this queue only (refused when there is no such queue). */
  queue?: string
  /** what `all` takes, of this group only: its name, or a task (id, `:latest`) of it (not found, exit 3, when no task is in it). */
  group?: string
}

/** TaskSelection's keys, checked at run time (a script's `refs` or a typo is refused, not taken for "nothing"). */
export const TASK_SELECTION_SHAPE = {tasks: 'ref[]', all: 'boolean', queue: 'string', group: 'string'} as const

/** What a stop, cancel or drain asks for. */
export interface ControlRequest {
  /** stop and cancel: time between SIGTERM and SIGKILL; drain: time to exit after STOP. */
  graceMs: number
  /** stop: WRAP_UP first, with graceMs to finish. */
  wrapUp?: boolean
  /** drain: after SIGTERM, how long until SIGKILL. */
  killAfterMs?: number
}

export interface ControlManyOptions {
  /** wait for each final status (default true); false returns once each request is accepted. */
  wait?: boolean
  /** the longest to wait for each task. */
  timeoutMs?: number
  /** told the moment a task's runner (or drover itself) has taken the request on. */
  onAccepted?: (id: number) => void
}

/** One task of a batch: its result arrives when its request has been carried out (or accepted, without wait). */
export interface ControlHandle {
  id: number
  name: string | null
  result: Promise<ControlResult>
}

export interface ControlBatch {
  tasks: ControlHandle[]
  /** refs that named no task (front-ends report them; the CLI exits 3). */
  missing: string[]
  /** for a ref in `missing`: the task name it is one typo away from, when there is one. */
  didYouMean: Record<string, string>
}

/** Sends `kind` to every selected task at once. Bad refs are refused (exit 2) before any request is made. */
export async function controlMany(
  stateDir: string,
  kind: RequestKind,
  selection: TaskSelection,
  request: ControlRequest,
  opts: ControlManyOptions = {},
): Promise<ControlBatch> {
  const [{selectTasks}, {requestControl}] = await Promise.all([import('../tasks/select.js'), import('../tasks/control.js')])
  const {checkShape} = await import('./option-shapes.js')
  checkShape(selection, TASK_SELECTION_SHAPE, 'controlMany option', '', {refs: 'tasks'})
  const chosen = await selectTasks(stateDir, (selection.tasks ?? []).map(String), {all: selection.all, queue: selection.queue, group: selection.group, what: kind})
  const tasks = chosen.tasks.map((task) => ({
    id: task.id,
    name: task.name,
    result: requestControl(stateDir, task, {kind, ...request}, {wait: opts.wait ?? true, timeoutMs: opts.timeoutMs, onAccepted: opts.onAccepted}),
  }))
  return {tasks, missing: chosen.missing.map((m) => m.id), didYouMean: Object.fromEntries(chosen.missing.flatMap((m) => (m.didYouMean ? [[m.id, m.didYouMean]] : [])))}
}

/**
 * A drained task's outcome with what it takes to continue it: `resume` is the
 * command that continues it, or null with `resumeRefused` saying why it cannot
 * be (no session yet, a run that saved none).
 */
export type DrainResult = ControlResult & {checkpoint: Checkpoint | null; resume: string | null; resumeRefused: string | null}

export function drainResult(stateDir: string, result: ControlResult): DrainResult {
  if (result.status !== 'drained') return {...result, checkpoint: null, resume: null, resumeRefused: null}
  const read = readRecord(stateDir, result.id)
  if (!read.ok) return {...result, checkpoint: null, resume: null, resumeRefused: read.error}
  // The same check `resume` makes: a hint given here is one that works.
  const refusal = sessionRefusal(read.record)
  return {...result, checkpoint: read.record.checkpoint, resume: refusal ? null : `drover resume ${result.id}`, resumeRefused: refusal}
}

/** The --json shape of `drover resume`. */
export interface ResumeResult {
  resumed: TaskJson[]
  /** prompts given to tasks at work: queued as follow-ups, delivered when the run ends well (or now). */
  queued: FollowupSent[]
  /** tasks that cannot be resumed, why, and the exit code that says it (4 conflict, or the error's own). */
  refused: {id: number; reason: string; exitCode: number}[]
  missing: MissingRef[]
}

export interface ResumeManyOptions extends TaskSelection {
  /** every lost task whose desired state is still running (after a crash or reboot); not with refs. */
  interrupted?: boolean
  /**
   * What the agent is told. Given, it is queued as a follow-up for a task at
   * work; not given, a task is told what it waits for (a follow-up still
   * queued), else "Continue from where you left off."
   */
  prompt?: string
  /** a follow-up for a task at work: delivered at its next safe point (drained for it), not when the run ends. */
  now?: boolean
  /** a follow-up for a task at work: kept queued if the run fails or is stopped. */
  keep?: boolean
  /** a new budget for the session's totals (a task drained by its budget is refused without a higher one). */
  budget?: Partial<Budget>
}

const RESUMABLE: readonly TaskStatus[] = ['drained', 'lost', 'failed']
const AT_WORK: readonly TaskStatus[] = ['queued', 'starting', 'running', 'stopping']

/**
 * Resumes the selected tasks concurrently (a machine back from a reboot
 * resumes all its agents at once). `all`: every drained task and every
 * interrupted one; a task that cannot come back is refused, never skipped
 * quietly — that is exactly what a cron job's mail is for.
 */
export async function resumeMany(stateDir: string, opts: ResumeManyOptions): Promise<ResumeResult> {
  const [{selectTasks}, {resumeTask}] = await Promise.all([import('../tasks/select.js'), import('../tasks/resume.js')])
  const {checkShape} = await import('./option-shapes.js')
  checkShape(
    opts,
    {...TASK_SELECTION_SHAPE, interrupted: 'boolean', prompt: 'string', now: 'boolean', keep: 'boolean', budget: {maxCostUsd: 'number|null', maxTurns: 'number|null', maxTokens: 'number|null'}},
    'resumeMany option',
    '',
    {refs: 'tasks'},
  )
  if ((opts.now || opts.keep) && opts.prompt === undefined) throw usageError(`${opts.now ? 'now' : 'keep'} is for a follow-up: give a prompt`)
  const selection = await selectTasks(stateDir, (opts.tasks ?? []).map(String), {all: opts.all || opts.interrupted, queue: opts.queue, group: opts.group, allStatuses: RESUMABLE, what: 'resume'})
  const chosen = selection.tasks.filter((task: TaskRecord) => {
    if (opts.interrupted) return wasInterrupted(task)
    // a group, as --all: its attempts drained (a budget, a drain) or interrupted; one that failed is its own to resume
    if (opts.all || opts.group !== undefined) return task.status === 'drained' || wasInterrupted(task)
    return true
  })
  const result: ResumeResult = {resumed: [], queued: [], refused: [], missing: selection.missing}
  await Promise.all(
    chosen.map(async (task) => {
      // A prompt for a task at work is a follow-up, queued for when its run ends (a task not at work takes it at once below).
      if (opts.prompt !== undefined && AT_WORK.includes(task.status)) {
        try {
          if (opts.budget && Object.values(opts.budget).some((v) => v !== undefined)) throw usageError(`task ${task.id} is ${task.status}: a new budget is given with a resume, not to a run at work`)
          const sent = await sendFollowup(stateDir, task, {prompt: opts.prompt, now: opts.now, keep: opts.keep})
          if (sent.queued) result.queued.push(sent)
          else result.resumed.push(sent.task)
        } catch (error) {
          if (!(error instanceof DroverError)) throw error
          result.refused.push({id: task.id, reason: error.message, exitCode: error.exitCode})
        }
        return
      }
      const refusal = resumeRefusal(task)
      if (refusal) {
        result.refused.push({id: task.id, reason: refusal, exitCode: ExitCode.conflict})
        return
      }
      try {
        result.resumed.push(taskJson(await resumeTask(stateDir, task, opts.prompt, {budget: opts.budget}), {stateDir}))
      } catch (error) {
        if (!(error instanceof DroverError)) throw error
        result.refused.push({id: task.id, reason: error.message, exitCode: error.exitCode})
      }
    }),
  )
  result.resumed.sort((a, b) => a.id - b.id)
  result.queued.sort((a, b) => a.id - b.id)
  result.refused.sort((a, b) => a.id - b.id)
  return result
}
