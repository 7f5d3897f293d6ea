// The table of `drover list`: one row per task, the outcome in the status
// column, fitted to the terminal (names and commands cut first, then the
// columns that matter least), whole values when piped.

import {formatDuration, isFinalStatus, outcomeLabel} from '../../api/values.js'
import {painter, statusStyle} from './color.js'
import {renderTable, type Column} from './table.js'
import {commandLine, type CorruptTaskJson} from '../../api/task-json.js'
import type {TaskRow} from '../../api/task-row.js'
import {TimeCells} from './time.js'

/**
 * The columns of `drover list`: which give way first on a narrow terminal.
 * COMMAND keeps at least 16 characters (a program and its first argument)
 * before whole columns go — PID first, then STARTED; at 60 columns a command
 * cut to 8 characters told nothing. QUEUE, TURNS and COST show only when a
 * task listed has one.
 */
export const LIST_COLUMNS: Column[] = [
  {header: 'ID'},
  {header: 'NAME', shrink: true},
  {header: 'STATUS'},
  {header: 'QUEUE', dropOrder: 6, shrink: true, minWidth: 6},
  {header: 'PID', dropOrder: 1},
  {header: 'STARTED', dropOrder: 2},
  {header: 'RUNTIME', dropOrder: 5},
  {header: 'TURNS', dropOrder: 3},
  {header: 'COST', dropOrder: 4},
  {header: 'COMMAND', shrink: true, minWidth: 16},
]

const OPTIONAL = new Set(['QUEUE', 'TURNS', 'COST'])

/** The session's turns and cost so far (across resumes), or this run's before any total. */
function usage(t: TaskRow): {turns: string; cost: string} {
  const u = t.agentInfo?.session ?? t.agentInfo
  return {turns: u && u.turns > 0 ? String(u.turns) : '', cost: u?.costUsd != null ? `$${u.costUsd.toFixed(2)}` : ''}
}

const NO_USAGE = {turns: '', cost: ''}

/** Takes TaskJson objects, or the rows `listRows` gives (the fields shown). */
export function renderTaskTable(tasks: (TaskRow | CorruptTaskJson)[], opts: {color: boolean; width: number | undefined}): string {
  const paint = painter(opts.color)
  const now = new Date()
  // A status cell as drawn, by its label: 100,000 rows have a few dozen.
  const painted = new Map<string, string>()
  const statusCell = (status: string, label: string) => {
    let cell = painted.get(label)
    if (cell === undefined) {
      const style = statusStyle(status)
      cell = style ? paint(style, label) : label
      painted.set(label, cell)
    }
    return cell
  }
  const times = new TimeCells(now)
  // an optional column shows only when some task has a value in it
  let queues = false
  let turnsSeen = false
  let costs = false
  const rows = new Array<string[]>(tasks.length)
  for (let k = 0; k < tasks.length; k++) {
    const task = tasks[k]
    if (task.status === 'corrupt') {
      rows[k] = [String(task.id), '', statusCell('corrupt', 'corrupt'), '', '', '', '', '', '', (task as CorruptTaskJson).error]
      continue
    }
    const t = task as TaskRow
    const label = outcomeLabel({status: t.status, reason: t.reason, exitCode: t.exitCode, signal: t.signal, forced: t.checkpoint?.forced, queue: t.queue, position: t.position, queuePaused: t.queuePaused, attempt: t.attempt, retryMax: t.retryMax, retryAt: t.retryAt})
    const {turns, cost} = t.agentInfo ? usage(t) : NO_USAGE
    const queue = t.queue ?? ''
    if (queue !== '') queues = true
    if (turns !== '') turnsSeen = true
    if (cost !== '') costs = true
    rows[k] = [
      String(t.id),
      t.name ?? '',
      statusCell(t.status, label),
      queue,
      pidCell(t),
      t.startedAt ? times.short(t.startedAt) : '',
      t.runtimeMs === null ? '' : formatDuration(t.runtimeMs),
      turns,
      cost,
      commandLine(t),
    ]
  }
  const keep = LIST_COLUMNS.map((c) => !OPTIONAL.has(c.header) || (c.header === 'QUEUE' ? queues : c.header === 'TURNS' ? turnsSeen : costs))
  if (keep.every(Boolean)) return renderTable(LIST_COLUMNS, rows, opts.width)
  const kept = keep.flatMap((k, i) => (k ? [i] : []))
  const pick = <T>(list: T[]) => kept.map((i) => list[i])
  return renderTable(pick(LIST_COLUMNS), rows.map(pick), opts.width)
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
