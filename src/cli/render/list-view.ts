// The table of `drover list`: one row per task, the outcome in the status
// column, fitted to the terminal (names and commands cut first, then the
// columns that matter least), whole values when piped.

import {formatDuration, isFinalStatus, outcomeLabel} from '../../api/values.js'
import {painter, statusStyle} from './color.js'
import {renderTable, type Column} from './table.js'
import {commandLine, type CorruptTaskJson, type TaskJson} from '../../api/task-json.js'
import {shortTime} from './time.js'

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
function usage(t: TaskJson): {turns: string; cost: string} {
  const u = t.agentInfo?.session ?? t.agentInfo
  return {turns: u && u.turns > 0 ? String(u.turns) : '', cost: u?.costUsd != null ? `$${u.costUsd.toFixed(2)}` : ''}
}

export function renderTaskTable(tasks: (TaskJson | CorruptTaskJson)[], opts: {color: boolean; width: number | undefined}): string {
  const paint = painter(opts.color)
  const now = new Date()
  const rows = tasks.map((task) => {
    if (task.status === 'corrupt') {
      return [String(task.id), '', paint('red', 'corrupt'), '', '', '', '', '', '', (task as CorruptTaskJson).error]
    }
    const t = task as TaskJson
    const label = outcomeLabel({status: t.status, reason: t.reason, exitCode: t.exitCode, signal: t.signal, forced: t.checkpoint?.forced, queue: t.queue, position: t.position, queuePaused: t.queuePaused, attempt: t.attempt, retryMax: t.retryMax, retryAt: t.retryAt})
    const style = statusStyle(t.status)
    const {turns, cost} = usage(t)
    return [
      String(t.id),
      t.name ?? '',
      style ? paint(style, label) : label,
      t.queue ?? '',
      pidCell(t),
      t.startedAt ? shortTime(t.startedAt, now) : '',
      t.runtimeMs === null ? '' : formatDuration(t.runtimeMs),
      turns,
      cost,
      commandLine(t),
    ]
  })
  // an optional column shows only when some task has a value in it
  const keep = LIST_COLUMNS.map((c, i) => !OPTIONAL.has(c.header) || rows.some((row) => row[i] !== ''))
  const pick = <T>(list: T[]) => list.filter((_, i) => keep[i])
  return renderTable(pick(LIST_COLUMNS), rows.map(pick), opts.width)
}

/**
 * The worker's pid while it matters. A Slurm task is never blank here, so it
 * is known at a glance without another column: `pid@node` while it runs, else
 * its job (`job 4242`, also once ended: the id sacct knows it by), else
 * `slurm` (waiting in drover's own queue, no job yet).
 */
export function pidCell(t: TaskJson): string {
  if (t.executor === 'local') return t.pid !== null && (t.status === 'lost' || !isFinalStatus(t.status)) ? String(t.pid) : ''
  if (t.pid !== null && !isFinalStatus(t.status) && t.status !== 'starting' && t.status !== 'queued') return `${t.pid}@${t.node ?? '?'}`
  return t.jobId ? `job ${t.jobId}` : t.executor
}
