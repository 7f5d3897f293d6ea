// A task as the cells of a table row — the text of each column before it is
// painted, fitted or its start time written in the reader's zone — so every
// table of tasks (`list`) draws the same thing from a record, a stored view,
// or the rows the derived index keeps of its ended tasks (state/index.ts),
// which at 100,000 tasks spare `list --all` cutting a row out of each view.

import {isFinalStatus} from '../state/record.js'
import {isAscii} from 'node:buffer'
import {textAt, type IndexEntry, type IndexRenderer} from '../state/index.js'
import {formatDuration} from '../base/parse.js'
import {outcomeLabel} from '../tasks/outcome.js'
import {commandLine, sessionUsage, storableView, TASK_JSON_VERSION, type CorruptTaskJson, type TaskJson} from './task-json.js'
import {rowOfView, type TaskRow} from './task-row.js'

/** Which cell is where in a row's cells. */
export const CELL = {id: 0, name: 1, status: 2, label: 3, queue: 4, pid: 5, startedAt: 6, runtime: 7, turns: 8, cost: 9, command: 10, group: 11} as const
export const CELL_COUNT = 12

/** The session's turns and cost so far (across resumes), or this run's before any total. */
function usage(t: TaskRow): {turns: string; cost: string} {
  const u = t.agentInfo ? sessionUsage(t.agentInfo) : null
  return {turns: u && u.turns > 0 ? String(u.turns) : '', cost: u?.costUsd != null ? `$${u.costUsd.toFixed(2)}` : ''}
}

const NO_USAGE = {turns: '', cost: ''}

/** The row's cells, in CELL's order. STARTED is the record's ISO time: the table writes it in local time when drawn. */
export function cellsOf(task: TaskRow | CorruptTaskJson): string[] {
  if (task.status === 'corrupt') return [String(task.id), '', 'corrupt', 'corrupt', '', '', '', '', '', '', (task as CorruptTaskJson).error, '']
  const t = task as TaskRow
  const label = outcomeLabel({status: t.status, engineWait: t.engineWait, cause: t.cause, exitCode: t.exitCode, signal: t.signal, forced: t.checkpoint?.forced, queue: t.queue, position: t.position, queuePaused: t.queuePaused, attempt: t.attempt, retryMax: t.retryMax, retryAt: t.retryAt})
  const {turns, cost} = t.agentInfo ? usage(t) : NO_USAGE
  return [String(t.id), t.name ?? '', t.status, label, t.queue ?? '', pidCell(t), t.startedAt ?? '', t.runtimeMs === null ? '' : formatDuration(t.runtimeMs), turns, cost, commandLine(t), t.group ?? '']
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
 * What the derived index keeps of an ended task (state/index.ts): its
 * `list --json` view and, made from it, its row's cells — both depend on
 * the record alone (a queued task's label holds a position or a local time;
 * no indexed task is queued). Columns of another version are rendered
 * afresh from the records.
 */
export const indexRender: IndexRenderer = {
  version: `${TASK_JSON_VERSION}.${CELLS_VERSION}`,
  view: storableView,
  row(view: Buffer): string[] | null {
    const row = rowOfView(view, 0, view.length) ?? (JSON.parse(view.toString('utf8')) as TaskJson)
    return isFinalStatus(row.status) ? cellsOf(row) : null
  },
}

// A segment's row column decoded once, when it is ASCII (then its byte
// offsets are the text's): 100,000 decodings of a line each cost more. Rows
// are taken one after another, so the last column's text is the one kept.
let lastBytes: Buffer | null = null
let lastText: string | null = null

/** The cells the index keeps for an entry (of this renderer's version), or null: none there. The caller checks they are the task's. */
export function rowCells(entry: IndexEntry): string[] | null {
  const start = entry.segment.render === indexRender.version ? textAt(entry, 'row') : -1
  if (start < 0) return null
  const {bytes, ends} = entry.segment.columns.row!
  if (bytes !== lastBytes) {
    lastBytes = bytes
    lastText = isAscii(bytes) ? bytes.toString('latin1') : null
  }
  const end = ends[entry.k]
  return (lastText === null ? bytes.toString('utf8', start, end) : lastText.slice(start, end)).split('\t')
}
