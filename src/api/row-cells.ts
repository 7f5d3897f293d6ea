// A task as the cells of a table row — the text of each column before it is
// painted, fitted or its start time written in the reader's zone — so every
// table of tasks (`list`) draws the same thing from a record, a stored view,
// or the rows the summary keeps of its ended tasks (state/row-index.ts),
// which at 100,000 tasks spare `list --all` cutting a row out of each view.

import {isFinalStatus} from '../state/record.js'
import type {RowRenderer} from '../state/row-index.js'
import {hasView, type SummaryEntry} from '../state/summary-codec.js'
import {formatDuration} from '../base/parse.js'
import {outcomeLabel} from '../tasks/outcome.js'
import {commandLine, sessionUsage, storedViews, type CorruptTaskJson} from './task-json.js'
import {viewRow, type TaskRow} from './task-row.js'

/** Which cell is where in a row's cells. */
export const CELL = {id: 0, name: 1, status: 2, label: 3, queue: 4, pid: 5, startedAt: 6, runtime: 7, turns: 8, cost: 9, command: 10} as const
export const CELL_COUNT = 11

/** The session's turns and cost so far (across resumes), or this run's before any total. */
function usage(t: TaskRow): {turns: string; cost: string} {
  const u = t.agentInfo ? sessionUsage(t.agentInfo) : null
  return {turns: u && u.turns > 0 ? String(u.turns) : '', cost: u?.costUsd != null ? `$${u.costUsd.toFixed(2)}` : ''}
}

const NO_USAGE = {turns: '', cost: ''}

/** The row's cells, in CELL's order. STARTED is the record's ISO time: the table writes it in local time when drawn. */
export function cellsOf(task: TaskRow | CorruptTaskJson): string[] {
  if (task.status === 'corrupt') return [String(task.id), '', 'corrupt', 'corrupt', '', '', '', '', '', '', (task as CorruptTaskJson).error]
  const t = task as TaskRow
  const label = outcomeLabel({status: t.status, reason: t.reason, cause: t.cause, exitCode: t.exitCode, signal: t.signal, forced: t.checkpoint?.forced, queue: t.queue, position: t.position, queuePaused: t.queuePaused, attempt: t.attempt, retryMax: t.retryMax, retryAt: t.retryAt})
  const {turns, cost} = t.agentInfo ? usage(t) : NO_USAGE
  return [String(t.id), t.name ?? '', t.status, label, t.queue ?? '', pidCell(t), t.startedAt ?? '', t.runtimeMs === null ? '' : formatDuration(t.runtimeMs), turns, cost, commandLine(t)]
}

/**
 * The worker's pid while it matters. A Slurm task is never blank here, so it
 * is known at a glance without another column: `pid@node` while it runs, else
 * its job (`job 4242`, also once ended: the id sacct knows it by), else
 * `slurm` (waiting in drover's own queue, no job yet).
 */
export function pidCell(t: Pick<TaskRow, 'executor' | 'pid' | 'status' | 'node' | 'jobId'>): string {
  if (t.executor === 'local') return t.pid !== null && (t.status === 'lost' || !isFinalStatus(t.status)) ? String(t.pid) : ''
  if (t.pid !== null && !isFinalStatus(t.status) && t.status !== 'starting' && t.status !== 'queued') return `${t.pid}@${t.node ?? '?'}`
  return t.jobId ? `job ${t.jobId}` : t.executor
}

/**
 * Bump when cellsOf (or anything it calls) writes a cell differently: rows
 * kept by another version are made again from the views.
 */
const CELLS_VERSION = 1

/**
 * The rows the summary keeps, from its stored views: an ended task's cells
 * depend on its record alone (a queued task's label holds a position or a
 * local time; no summarised task is queued).
 */
export const storedRows: RowRenderer = {
  version: CELLS_VERSION,
  views: storedViews,
  render(entry: SummaryEntry): string[] | null {
    if (!hasView(entry, storedViews.version)) return null
    const row = viewRow(entry)
    return isFinalStatus(row.status) ? cellsOf(row) : null
  },
}
