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
  const table = new TaskTable(opts)
  for (const task of tasks) table.add(task)
  return table.render()
}

/**
 * The table built a task at a time: each task becomes its cells at once, so
 * the task itself need not be kept (100,000 of them, by `list --all`).
 */
export class TaskTable {
  private readonly rows: string[][] = []
  private readonly paint: ReturnType<typeof painter>
  // A status cell as drawn, by its label: 100,000 rows have a few dozen.
  private readonly painted = new Map<string, string>()
  private readonly times = new TimeCells(new Date())
  // an optional column shows only when some task has a value in it
  private queues = false
  private turns = false
  private costs = false

  constructor(private readonly opts: {color: boolean; width: number | undefined}) {
    this.paint = painter(opts.color)
  }

  get size(): number {
    return this.rows.length
  }

  private statusCell(status: string, label: string): string {
    let cell = this.painted.get(label)
    if (cell === undefined) {
      const style = statusStyle(status)
      cell = style ? this.paint(style, label) : label
      this.painted.set(label, cell)
    }
    return cell
  }

  add(task: TaskRow | CorruptTaskJson): void {
    if (task.status === 'corrupt') {
      this.rows.push([String(task.id), '', this.statusCell('corrupt', 'corrupt'), '', '', '', '', '', '', (task as CorruptTaskJson).error])
      return
    }
    const t = task as TaskRow
    const label = outcomeLabel({status: t.status, reason: t.reason, exitCode: t.exitCode, signal: t.signal, forced: t.checkpoint?.forced, queue: t.queue, position: t.position, queuePaused: t.queuePaused, attempt: t.attempt, retryMax: t.retryMax, retryAt: t.retryAt})
    const {turns, cost} = t.agentInfo ? usage(t) : NO_USAGE
    const queue = t.queue ?? ''
    if (queue !== '') this.queues = true
    if (turns !== '') this.turns = true
    if (cost !== '') this.costs = true
    this.rows.push([
      String(t.id),
      t.name ?? '',
      this.statusCell(t.status, label),
      queue,
      pidCell(t),
      t.startedAt ? this.times.short(t.startedAt) : '',
      t.runtimeMs === null ? '' : formatDuration(t.runtimeMs),
      turns,
      cost,
      commandLine(t),
    ])
  }

  render(): string {
    const {rows} = this
    const keep = LIST_COLUMNS.map((c) => !OPTIONAL.has(c.header) || (c.header === 'QUEUE' ? this.queues : c.header === 'TURNS' ? this.turns : this.costs))
    if (keep.every(Boolean)) return renderTable(LIST_COLUMNS, rows, this.opts.width)
    const kept = keep.flatMap((k, i) => (k ? [i] : []))
    const pick = <T>(list: T[]) => kept.map((i) => list[i])
    return renderTable(pick(LIST_COLUMNS), rows.map(pick), this.opts.width)
  }
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
