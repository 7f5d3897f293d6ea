// Tables for people: borderless aligned columns that never wrap a terminal
// row. Drawn here rather than with cli-table3, whose layout pass is quadratic
// in the rows (9 of the 13 s of a 10,000-task `list`); this is one pass.

export interface Column {
  header: string
  /** may be cut with … to fit the terminal; the widest such column gives way first. */
  shrink?: boolean
  /** the narrowest a shrinking column gets before whole columns are dropped (default 8). */
  minWidth?: number
  /** when even shrunk columns do not fit, columns with a dropOrder go, lowest first. */
  dropOrder?: number
}

const GAP = '  '
const ESC = '\u001B'
const ANSI = /\u001B\[[0-9;]*m/y
const DEFAULT_MIN_WIDTH = 8
const WHITE_END = /\s$/

// What makes a cell's shown length differ from its UTF-16 length: an escape or half of a surrogate pair.
const SPECIAL = /[\u001B\uD800-\uDFFF]/

/** Whether text (a row's cells joined, say) has nothing that makes a shown length differ from its length. */
export const isPlain = (text: string) => !SPECIAL.test(text)

/** Characters that show, not UTF-16 units and not ANSI escapes (the fast path: one test, then the length). */
export function visibleLength(text: string): number {
  if (!SPECIAL.test(text)) return text.length
  const plain = text.includes(ESC) ? text.replace(/\u001B\[[0-9;]*m/g, '') : text
  return /[\uD800-\uDFFF]/.test(plain) ? [...plain].length : plain.length
}

/**
 * The width a table must fit: the terminal's, when stdout is one that says.
 * A pty with no size set (script(1), some `docker exec -t`, CI runners)
 * reports 0 columns: that is no width, not a width of nothing.
 */
export function terminalWidth(out: {isTTY?: boolean; columns?: number} = process.stdout): number | undefined {
  return out.isTTY && out.columns !== undefined && out.columns > 0 ? out.columns : undefined
}

// A cell's padding and the gap after it, by the padding's count, made once: a 100,000-row table pads a million cells.
const PADS: string[] = []
const padAndGap = (n: number) => PADS[n] ?? (PADS[n] = ' '.repeat(n) + GAP)

/**
 * Cuts text to `width` visible characters, the last one `…`. ANSI escapes are
 * carried through uncounted, and a reset closes any colour the cut left open.
 */
export function truncate(text: string, width: number): string {
  if (visibleLength(text) <= width) return text
  if (width <= 0) return ''
  let out = ''
  let shown = 0
  let painted = false
  for (let i = 0; i < text.length && shown < width - 1; ) {
    ANSI.lastIndex = i
    const escape = ANSI.exec(text)
    if (escape) {
      out += escape[0]
      painted = true
      i += escape[0].length
      continue
    }
    const char = String.fromCodePoint(text.codePointAt(i)!)
    out += char
    shown++
    i += char.length
  }
  return out + '…' + (painted ? `${ESC}[0m` : '')
}

interface Layout {
  shown: number[]
  widths: number[]
}

const lineWidth = (widths: number[], shown: number[]) => shown.reduce((sum, i) => sum + widths[i], 0) + GAP.length * (shown.length - 1)

/** Which columns to show at what widths so a row stays within `limit` characters. */
function fit(columns: Column[], natural: number[], limit: number): Layout {
  let shown = columns.map((_, i) => i)
  const drops = columns
    .map((c, i) => ({order: c.dropOrder, i}))
    .filter((d): d is {order: number; i: number} => d.order !== undefined)
    .sort((a, b) => a.order - b.order)
  // A column's minWidth holds while others can still be dropped; once none can, it gives way down to the default floor.
  let floors = columns.map((c, i) => Math.min(natural[i], c.minWidth ?? DEFAULT_MIN_WIDTH))
  for (;;) {
    const widths = natural.slice()
    let excess = lineWidth(widths, shown) - limit
    while (excess > 0) {
      let widest = -1
      for (const i of shown) if (columns[i].shrink && widths[i] > floors[i] && (widest === -1 || widths[i] > widths[widest])) widest = i
      if (widest === -1) break
      widths[widest]--
      excess--
    }
    if (excess <= 0) return {shown, widths}
    if (drops.length === 0) {
      const last = columns.map((_, i) => Math.min(natural[i], DEFAULT_MIN_WIDTH, floors[i]))
      if (last.every((f, i) => f === floors[i])) return {shown, widths}
      floors = last
      continue
    }
    const drop = drops.shift()!.i
    shown = shown.filter((i) => i !== drop)
  }
}

/**
 * One line of the table: the cells of `shown` columns padded to `widths`
 * (the last one not), cut where longer. Column i shows cells[pick[i]], of
 * shown length lengths[at + pick[i]]. A plain loop rather than closures: a
 * 100,000-row table draws a million cells, mostly before V8 optimises.
 */
function drawLine(cells: readonly string[], lengths: ArrayLike<number>, at: number, shown: readonly number[], widths: readonly number[], pick: readonly number[], limit: number): string {
  let text = ''
  let tail = ''
  const last = shown.length - 1
  for (let k = 0; k <= last; k++) {
    const i = shown[k]
    let cell = cells[pick[i]] ?? ''
    let length = lengths[at + pick[i]]
    if (length > widths[i]) {
      cell = truncate(cell, widths[i])
      length = widths[i]
    }
    text += k === last ? cell : cell + padAndGap(widths[i] - length)
    tail = cell
  }
  // only a line whose last cell is blank or ends blank has padding to trim
  if (tail.length === 0 || WHITE_END.test(tail)) text = text.trimEnd()
  return limit !== Infinity && visibleLength(text) > limit ? truncate(text, limit) : text
}

/**
 * Draws rows as a borderless, aligned table. `width` is the terminal's, or
 * undefined when not on a terminal: then nothing is cut, so a script reading
 * the pipe gets whole values. On a terminal no line reaches the last column
 * (some terminals wrap there): shrinkable columns are cut first, then
 * droppable columns go, and as a last resort each line is cut.
 */
export function renderTable(columns: Column[], rows: string[][], width: number | undefined): string {
  const measured = new TableCells(columns.length)
  for (const row of rows) measured.add(row)
  return measured.render(columns, width, (r) => rows[r])
}

/**
 * The shown length of every cell of a table, kept as rows are added, so a
 * caller with 100,000 rows can keep each row in whatever form is smallest
 * (list-view.ts keeps one string) and give its cells back at render.
 */
export class TableCells {
  // row after row, one per cell: typed, so 100,000 rows are no garbage to collect
  private lengths = new Uint32Array(1024)
  private rows = 0
  private readonly natural: number[]

  constructor(private readonly count: number) {
    this.natural = new Array<number>(count).fill(0)
  }

  /** Measures a row's `count` cells; `plain`: the caller knows none holds an escape or a surrogate (its length is its shown length). */
  add(cells: readonly string[], plain = false): void {
    const at = this.rows * this.count
    if (at + this.count > this.lengths.length) {
      const grown = new Uint32Array(this.lengths.length * 2)
      grown.set(this.lengths)
      this.lengths = grown
    }
    for (let i = 0; i < this.count; i++) {
      const cell = cells[i] ?? ''
      const length = plain ? cell.length : visibleLength(cell)
      this.lengths[at + i] = length
      if (length > this.natural[i]) this.natural[i] = length
    }
    this.rows++
  }

  get size(): number {
    return this.rows
  }

  /**
   * The table of the rows added: row r's cells given by `cellsAt`, as they
   * were measured. `pick` says which measured cell each of `columns` shows
   * (default: the column's own index), so columns can go unshown without a
   * row being copied.
   */
  render(columns: Column[], width: number | undefined, cellsAt: (r: number) => readonly string[], pick: readonly number[] = columns.map((_, i) => i)): string {
    const {count, lengths} = this
    const natural = columns.map((c, i) => Math.max(visibleLength(c.header), this.natural[pick[i]]))
    const limit = width === undefined ? Infinity : Math.max(1, width - 1)
    const {shown, widths} = width === undefined ? {shown: columns.map((_, i) => i), widths: natural} : fit(columns, natural, limit)
    const header = columns.map((c) => c.header)
    // Lines joined a few hundred at a time: each line is a chain of a few dozen pieces until joined, and
    // 10,000 chains kept to the end were copied from one young space to the next by every collection.
    const chunks: string[] = []
    let out: string[] = [drawLine(header, header.map(visibleLength), 0, shown, widths, columns.map((_, i) => i), limit)]
    for (let r = 0; r < this.rows; r++) {
      out.push(drawLine(cellsAt(r), lengths, r * count, shown, widths, pick, limit))
      if (out.length === 256) {
        chunks.push(out.join('\n'))
        out = []
      }
    }
    if (out.length > 0) chunks.push(out.join('\n'))
    return chunks.join('\n')
  }
}
