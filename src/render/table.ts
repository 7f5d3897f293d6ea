// Tables for people. cli-table3 is imported only when a table is drawn, and
// never given colour styles unless colour is on: it would otherwise print ANSI
// escapes into pipes.

export interface Column {
  header: string
  /** the one column that shrinks (with …) to fit the terminal. */
  flexible?: boolean
}

export function truncate(text: string, width: number): string {
  if (width <= 0) return ''
  const chars = [...text]
  if (chars.length <= width) return text
  return chars.slice(0, Math.max(0, width - 1)).join('') + '…'
}

const visibleLength = (text: string) => [...text.replace(/\u001B\[[0-9;]*m/g, '')].length

/**
 * Draws rows as a borderless, aligned table. `width` is the terminal width, or
 * undefined when not on a terminal (then nothing is truncated: a script reading
 * the pipe gets whole values).
 */
export async function renderTable(columns: Column[], rows: string[][], width: number | undefined): Promise<string> {
  const {default: Table} = await import('cli-table3')
  const gap = 2
  const widths = columns.map((c, i) => Math.max(visibleLength(c.header), ...rows.map((r) => visibleLength(r[i] ?? ''))))
  const flex = columns.findIndex((c) => c.flexible)
  if (width !== undefined && flex !== -1) {
    const others = widths.reduce((sum, w, i) => (i === flex ? sum : sum + w + gap), 0)
    const room = Math.max(8, width - others - 1)
    if (widths[flex] > room) {
      widths[flex] = room
      rows = rows.map((r) => r.map((cell, i) => (i === flex ? truncate(cell, room) : cell)))
    }
  }
  const table = new Table({
    head: columns.map((c) => c.header),
    chars: {
      top: '', 'top-mid': '', 'top-left': '', 'top-right': '', bottom: '', 'bottom-mid': '', 'bottom-left': '',
      'bottom-right': '', left: '', 'left-mid': '', mid: '', 'mid-mid': '', right: '', 'right-mid': '', middle: '  ',
    },
    style: {head: [], border: [], 'padding-left': 0, 'padding-right': 0, compact: true},
    wordWrap: false,
  })
  for (const row of rows) table.push(row)
  return table
    .toString()
    .split('\n')
    .map((line: string) => line.replace(/\s+$/, ''))
    .join('\n')
}
