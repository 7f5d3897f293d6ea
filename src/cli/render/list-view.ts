// The table of `drover list`: one row per task, the outcome in the status
// column, fitted to the terminal (names and commands cut first, then the
// columns that matter least), whole values when piped.

import {painter, statusStyle} from './color.js'
import {isPlain, TableCells, type Column} from './table.js'
import type {CorruptTaskJson} from '../../api/task-json.js'
import type {TaskRow} from '../../api/task-row.js'
import {CELL, CELL_COUNT, cellsOf} from '../../api/row-cells.js'
import {TimeCells} from './time.js'

/**
 * The columns of `drover list`: which give way first on a narrow terminal.
 * COMMAND keeps at least 16 characters (a program and its first argument)
 * before whole columns go — PID first, then STARTED; at 60 columns a command
 * cut to 8 characters told nothing. GROUP, QUEUE, TURNS and COST show only
 * when a task listed has one; GROUP beside NAME, so a fan-out's attempts
 * read as one block (their ids follow each other).
 */
export const LIST_COLUMNS: Column[] = [
  {header: 'ID'},
  {header: 'NAME', shrink: true},
  {header: 'GROUP', dropOrder: 7, shrink: true, minWidth: 6},
  {header: 'STATUS'},
  {header: 'QUEUE', dropOrder: 6, shrink: true, minWidth: 6},
  {header: 'PID', dropOrder: 1},
  {header: 'STARTED', dropOrder: 2},
  {header: 'RUNTIME', dropOrder: 5},
  {header: 'TURNS', dropOrder: 3},
  {header: 'COST', dropOrder: 4},
  {header: 'COMMAND', shrink: true, minWidth: 16},
]

const OPTIONAL = new Set(['GROUP', 'QUEUE', 'TURNS', 'COST'])

/** Between a kept row's cells: no cell holds it (a command's controls are written as escapes). */
const JOIN = '\u0000'

/** Whether a cell holds JOIN: a plain loop, not some() and a closure, run 100,000 times cold. */
function hasJoin(cells: readonly string[]): boolean {
  for (let i = 0; i < cells.length; i++) if (cells[i].includes(JOIN)) return true
  return false
}

/** Which of a row's cells each of LIST_COLUMNS shows (STATUS: the label, painted). */
const COLUMN_CELLS = [CELL.id, CELL.name, CELL.group, CELL.label, CELL.queue, CELL.pid, CELL.startedAt, CELL.runtime, CELL.turns, CELL.cost, CELL.command]

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
  // Each row as one string, its cells joined by JOIN (a row with JOIN in a cell: its cells): 100,000 rows of
  // ten strings each kept to the end cost more in garbage collection than in drawing.
  private readonly rows: (string | string[])[] = []
  private readonly cells = new TableCells(CELL_COUNT)
  private readonly paint: ReturnType<typeof painter>
  // A status cell as drawn, by its label: 100,000 rows have a few dozen.
  private readonly painted = new Map<string, string>()
  private readonly times = new TimeCells(new Date())
  // an optional column shows only when some task has a value in it
  private groups = false
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
    this.addCells(cellsOf(task))
  }

  /** A row from its cells (row-cells.ts): the label painted, the start written in local time. */
  addCells(cells: string[]): void {
    if (cells[CELL.group] !== '') this.groups = true
    if (cells[CELL.queue] !== '') this.queues = true
    if (cells[CELL.turns] !== '') this.turns = true
    if (cells[CELL.cost] !== '') this.costs = true
    // uncoloured, a label is drawn as it is
    if (this.opts.color) cells[CELL.label] = this.statusCell(cells[CELL.status], cells[CELL.label])
    const started = cells[CELL.startedAt]
    if (started !== '') cells[CELL.startedAt] = this.times.short(started)
    // the status kept raw in a row's cells is no column: its painted label is
    cells[CELL.status] = ''
    const joined = cells.join(JOIN)
    // one look at the whole row instead of one per cell
    this.cells.add(cells, isPlain(joined))
    // a cell with JOIN in it (a record written by hand) keeps its row as cells
    this.rows.push(hasJoin(cells) ? cells : joined)
  }

  render(): string {
    const shown: Record<string, boolean> = {GROUP: this.groups, QUEUE: this.queues, TURNS: this.turns, COST: this.costs}
    const keep = LIST_COLUMNS.map((c) => !OPTIONAL.has(c.header) || shown[c.header])
    const kept = keep.flatMap((k, i) => (k ? [i] : []))
    const {rows} = this
    return this.cells.render(
      kept.map((i) => LIST_COLUMNS[i]),
      this.opts.width,
      (r) => {
        const row = rows[r]
        return typeof row === 'string' ? row.split(JOIN) : row
      },
      kept.map((i) => COLUMN_CELLS[i]),
    )
  }
}

