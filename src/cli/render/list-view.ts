// The table of `drover list`: one row per task, the outcome in the status
// column, fitted to the terminal (names and commands cut first, then the
// columns that matter least), whole values when piped.

import {formatDuration, isFinalStatus, outcomeLabel} from '../../api/values.js'
import {painter, statusStyle} from './color.js'
import {renderTable, type Column} from './table.js'
import {commandLine, type CorruptTaskJson, type TaskJson} from '../../api/task-json.js'
import {shortTime} from './time.js'

/** The columns of `drover list`: which give way first on a narrow terminal. */
export const LIST_COLUMNS: Column[] = [
  {header: 'ID'},
  {header: 'NAME', shrink: true},
  {header: 'STATUS'},
  {header: 'PID', dropOrder: 1},
  {header: 'STARTED', dropOrder: 3},
  {header: 'RUNTIME', dropOrder: 2},
  {header: 'COMMAND', shrink: true},
]

export function renderTaskTable(tasks: (TaskJson | CorruptTaskJson)[], opts: {color: boolean; width: number | undefined}): string {
  const paint = painter(opts.color)
  const now = new Date()
  const rows = tasks.map((task) => {
    if (task.status === 'corrupt') {
      return [String(task.id), '', paint('red', 'corrupt'), '', '', '', (task as CorruptTaskJson).error]
    }
    const t = task as TaskJson
    const label = outcomeLabel({status: t.status, reason: t.reason, exitCode: t.exitCode, signal: t.signal, forced: t.checkpoint?.forced, queue: t.queue, position: t.position, queuePaused: t.queuePaused, attempt: t.attempt, retryMax: t.retryMax, retryAt: t.retryAt})
    const style = statusStyle(t.status)
    return [
      String(t.id),
      t.name ?? '',
      style ? paint(style, label) : label,
      pidCell(t),
      t.startedAt ? shortTime(t.startedAt, now) : '',
      t.runtimeMs === null ? '' : formatDuration(t.runtimeMs),
      commandLine(t),
    ]
  })
  return renderTable(LIST_COLUMNS, rows, opts.width)
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
