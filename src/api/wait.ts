// `wait` in the API: choosing the tasks to wait for (refs, every live task, a
// queue's, or those in given statuses) and waiting for them together, with
// the exit code `drover wait` documents.

import {DroverError, ExitCode, usageError} from '../base/errors.js'
import type {TaskRecord, TaskStatus} from '../state/record.js'
import {taskJson, type TaskJson} from './task-json.js'

export {describeOutcome} from '../tasks/outcome.js'

export interface WaitSelection {
  /** ids or names (the same key as MCP's wait_tasks takes). */
  tasks?: (number | string)[]
  /** every task not ended yet. */
  all?: boolean
  /** the tasks of this queue not ended yet. */
  queue?: string
  /** every task of this group, ended ones too (a fan-out's attempts: one that failed first still counts); its name, or a task of it. */
  group?: string
  /** the tasks in these statuses now (with `queue`: of that queue). */
  status?: TaskStatus[]
}

export interface WaitOptions {
  /** return when the first task ends. */
  any?: boolean
  timeoutMs?: number
  signal?: AbortSignal
  /** each task as it ends. */
  onEnd?: (task: TaskJson) => void
}

export interface WaitResult {
  /** every task waited for, as last seen, in selection order. */
  tasks: TaskJson[]
  /** ids in the order they ended. */
  endedOrder: number[]
  outcome: 'ended' | 'timeout' | 'interrupted'
  /** 0 all succeeded; else the first (in end order) failing task's code; 124 timeout; 130 interrupted. */
  exitCode: number
}

/** The ids a selection names, checked before waiting: unknown refs exit 3. */
export async function selectForWait(stateDir: string, sel: WaitSelection): Promise<number[]> {
  const {checkShape} = await import('./option-shapes.js')
  checkShape(sel, {tasks: 'ref[]', all: 'boolean', queue: 'string', group: 'string', status: 'string[]'}, 'waitFor option', '', {refs: 'tasks'})
  const refs = sel.tasks ?? []
  const filters = sel.all || sel.queue !== undefined || sel.group !== undefined || sel.status !== undefined
  if (refs.length > 0 && filters) throw usageError('give tasks, or --all/--queue/--group/--status, not both')
  if (refs.length === 0 && !filters) throw usageError('no task given: name the tasks to wait for, or use --all, --queue NAME, --group NAME or --status S')
  if (sel.group !== undefined && (sel.all || sel.queue !== undefined)) throw usageError('give --group, or --all/--queue, not both')
  if (refs.length > 0) {
    const {findTask} = await import('../tasks/lookup.js')
    const ids: number[] = []
    const missing: string[] = []
    for (const ref of refs) {
      try {
        const id = findTask(stateDir, String(ref)).id
        if (!ids.includes(id)) ids.push(id)
      } catch (error) {
        if (!(error instanceof DroverError) || error.exitCode !== ExitCode.notFound) throw error
        missing.push(String(ref))
      }
    }
    if (missing.length > 0) throw new DroverError(`no such task: ${missing.join(', ')}`, ExitCode.notFound, {missing})
    return ids
  }
  if (sel.queue !== undefined) (await import('../tasks/queues.js')).requireQueue(stateDir, sel.queue, 'nothing to wait for')
  const {isFinalStatus} = await import('../state/record.js')
  if (sel.group !== undefined) {
    // the whole group, as a queue's batch: an attempt that ended before wait began counts too
    const {groupTasks, resolveGroup} = await import('../tasks/groups.js')
    const members = await groupTasks(stateDir, resolveGroup(stateDir, sel.group))
    return members.filter((r) => sel.status === undefined || sel.status.includes(r.status)).map((r) => r.id)
  }
  // --queue alone takes its batch, ended tasks too; --all and live statuses take live tasks only, found without reading the ended ones.
  const batch = sel.queue !== undefined && sel.status === undefined
  const {loadLiveTasks, onlyLiveStatuses} = await import('../tasks/live-tasks.js')
  const liveOnly = !batch && (sel.status === undefined || onlyLiveStatuses(sel.status))
  const reads = liveOnly ? await loadLiveTasks(stateDir) : await (await import('../tasks/read.js')).loadTasks(stateDir)
  const records = reads.flatMap((read) => (read.ok ? [read.record] : []))
  if (batch) return queueBatch(records.filter((r) => r.queue === sel.queue), isFinalStatus)
  const ids: number[] = []
  for (const r of records) {
    if (sel.queue !== undefined && r.queue !== sel.queue) continue
    if (sel.status !== undefined ? !sel.status.includes(r.status) : isFinalStatus(r.status)) continue
    ids.push(r.id)
  }
  return ids
}

/**
 * `wait --queue Q`: the queue's current batch — its live tasks and those
 * that ran alongside them since the queue was last empty — so a task that
 * failed a moment before `wait` began still counts (`start --queue q …;
 * wait --queue q` must not exit 0 because the failure came first). When no
 * task is live, the last batch, already ended, gives the exit code at once.
 * A task spans its current run: from its creation (a later run: from the end
 * of the run before, as a resume keeps its old place in line) to its end.
 */
export function queueBatch(
  records: Pick<TaskRecord, 'id' | 'status' | 'createdAt' | 'endedAt' | 'runs'>[],
  isFinal: (status: TaskStatus) => boolean,
): number[] {
  const spans = records
    .map((r) => {
      const from = Date.parse((r.runs.length > 1 ? r.runs[r.runs.length - 2].endedAt : null) ?? r.createdAt)
      return {id: r.id, from, to: isFinal(r.status) ? Date.parse(r.endedAt ?? r.createdAt) : Number.POSITIVE_INFINITY}
    })
    .sort((a, b) => a.from - b.from || a.id - b.id)
  let batch: typeof spans = []
  let reach = Number.NEGATIVE_INFINITY
  for (const span of spans) {
    // a span that begins after every earlier one ended starts a new batch
    if (span.from > reach) batch = []
    batch.push(span)
    reach = Math.max(reach, span.to)
  }
  return batch.map((span) => span.id).sort((a, b) => a - b)
}

export async function waitTasks(stateDir: string, ids: number[], opts: WaitOptions = {}): Promise<WaitResult> {
  const {waitForMany, waitExitCode} = await import('../tasks/wait-many.js')
  const onEnd = opts.onEnd
  const result = await waitForMany(stateDir, ids, {
    any: opts.any,
    timeoutMs: opts.timeoutMs,
    signal: opts.signal,
    onEnd: onEnd ? (record) => onEnd(taskJson(record, {stateDir})) : undefined,
  })
  return {
    tasks: result.records.map((record) => taskJson(record, {stateDir})),
    endedOrder: result.ended.map((record) => record.id),
    outcome: result.outcome,
    exitCode: waitExitCode(result),
  }
}

export {parseDuration} from '../base/parse.js'
export {usageError}
export {TASK_STATUSES} from '../state/record.js'
