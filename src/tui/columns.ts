// The list's columns and how they fit a width: each column as wide as its
// widest value (capped), columns nobody fills left out (no AGENT column for
// plain jobs), then whole columns dropped in a fixed order until the rest
// fits, COMMAND taking what is left. Never a row wider than the terminal.

import {runtimeOf, type Row} from './tasks.js'
import {displayWidth, fit, fitRight} from './text.js'
import {reverse, statusStyle, type Paint} from './style.js'

type Key = 'id' | 'name' | 'group' | 'status' | 'queue' | 'agent' | 'turns' | 'usage' | 'runtime' | 'command'

interface Column {
  key: Key
  header: string
  /** the widest it gets (the rest of a longer value is cut with …). */
  max: number
  /** the narrowest it may be squeezed to when nothing else can go. */
  min: number
  right?: boolean
  /** columns go on a narrow terminal lowest first; those without stay. */
  drop?: number
}

const COLUMNS: Column[] = [
  {key: 'id', header: 'ID', max: 7, min: 2, right: true},
  {key: 'name', header: 'NAME', max: 20, min: 4},
  // beside NAME, so a fan-out's attempts read as one block; it stays longest of the optional ones
  {key: 'group', header: 'GROUP', max: 12, min: 5, drop: 6},
  {key: 'status', header: 'STATUS', max: 26, min: 7},
  {key: 'queue', header: 'QUEUE', max: 12, min: 5, drop: 2},
  // the command names the agent too: its column goes first
  {key: 'agent', header: 'AGENT', max: 6, min: 5, drop: 1},
  {key: 'turns', header: 'TURNS', max: 5, min: 5, right: true, drop: 3},
  {key: 'usage', header: 'TOKENS/COST', max: 14, min: 11, drop: 4},
  {key: 'runtime', header: 'RUNTIME', max: 8, min: 7, right: true, drop: 5},
  // what a row is about: it keeps room before the other columns do
  {key: 'command', header: 'COMMAND', max: Infinity, min: 16},
]

const GAP = 2
/** `> ` before the selected row. */
const MARKER = 2
/** Runtime's width is fixed: its value changes every second and must not shift the columns. */
const RUNTIME_WIDTH = 7

export interface Layout {
  columns: Column[]
  widths: number[]
}

function cell(row: Row, key: Key, now: number): string {
  return key === 'id' ? String(row.id) : key === 'runtime' ? runtimeOf(row, now) : row[key]
}

/** The widest value of each column over `rows` (0 for a column nobody fills). */
export function naturalWidths(rows: readonly Row[]): Map<Key, number> {
  const widths = new Map<Key, number>(COLUMNS.map((c) => [c.key, 0]))
  for (const row of rows) {
    for (const c of COLUMNS) {
      if (c.key === 'runtime' || c.key === 'id') continue
      const value = row[c.key as Exclude<Key, 'id' | 'runtime'>]
      if (value === '') continue
      const w = value.length < 40 ? displayWidth(value) : c.max
      if (w > widths.get(c.key)!) widths.set(c.key, w)
    }
    const id = String(row.id).length
    if (id > widths.get('id')!) widths.set('id', id)
    if (row.task.status !== 'corrupt' && (row.task as {startedAt: string | null}).startedAt) widths.set('runtime', RUNTIME_WIDTH)
  }
  return widths
}

/** Which columns, how wide, for `width` cells. */
export function layout(natural: Map<Key, number>, width: number): Layout {
  let columns = COLUMNS.filter((c) => c.key === 'id' || c.key === 'name' || c.key === 'status' || c.key === 'command' || natural.get(c.key)! > 0)
  const wanted = (c: Column) => Math.min(c.max, Math.max(displayWidth(c.header), natural.get(c.key)!))
  const drops = columns.filter((c) => c.drop !== undefined).sort((a, b) => a.drop! - b.drop!)
  const total = (cols: Column[], widths: number[]) => MARKER + widths.reduce((s, w) => s + w, 0) + GAP * (cols.length - 1)
  for (;;) {
    const widths = columns.map((c) => (c.key === 'command' ? c.min : wanted(c)))
    // squeeze NAME, then STATUS, before COMMAND falls under its minimum — only once nothing more can be dropped
    if (drops.length === 0) {
      for (const key of ['name', 'status'] as const) {
        const i = columns.findIndex((c) => c.key === key)
        const excess = total(columns, widths) - width
        if (excess > 0) widths[i] = Math.max(columns[i].min, widths[i] - excess)
      }
    }
    const spare = width - total(columns, widths)
    if (spare >= 0 || drops.length === 0) {
      const command = columns.length - 1
      widths[command] = Math.max(0, widths[command] + spare)
      return {columns, widths}
    }
    const drop = drops.shift()!
    columns = columns.filter((c) => c !== drop)
  }
}

export function headerLine(l: Layout, paint: Paint): string {
  return paint('bold', ' '.repeat(MARKER) + l.columns.map((c, i) => (c.right ? fitRight(c.header, l.widths[i]) : fit(c.header, l.widths[i]))).join(' '.repeat(GAP)).trimEnd())
}

export function rowLine(row: Row, l: Layout, opts: {selected: boolean; now: number; paint: Paint}): string {
  const parts = l.columns.map((c, i) => {
    const value = cell(row, c.key, opts.now)
    const text = c.right ? fitRight(value, l.widths[i]) : fit(value, l.widths[i])
    if (c.key === 'status') {
      const style = statusStyle(row.statusWord)
      return style && !opts.selected ? opts.paint(style, text) : text
    }
    return text
  })
  const line = (opts.selected ? '> ' : '  ') + parts.join(' '.repeat(GAP))
  return opts.selected ? reverse(line) : line.trimEnd()
}
