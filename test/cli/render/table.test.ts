// Tables for people: aligned borderless columns that fit a terminal — shrinkable
// columns cut with …, then droppable columns gone, never a wrapped row — and
// whole values when piped; widths counted in characters, never ANSI.

import {LIST_COLUMNS} from '../../../src/cli/render/list-view.js'
import {describe, expect, it} from 'vitest'

import {renderTable, terminalWidth, truncate, visibleLength, type Column} from '../../../src/cli/render/table.js'

const columns: Column[] = [{header: 'ID'}, {header: 'STATUS'}, {header: 'COMMAND', shrink: true}]
const ESC = '\u001B'

describe('truncate', () => {
  it('keeps text that fits and cuts the rest to exactly the width, ending in …', () => {
    expect(truncate('hello', 5)).toBe('hello')
    expect(truncate('hello world', 5)).toBe('hell…')
    expect([...truncate('hello world', 5)].length).toBe(5)
    expect(truncate('hello', 1)).toBe('…')
    expect(truncate('hello', 0)).toBe('')
  })

  it('counts characters, not UTF-16 units, so it never splits a surrogate pair', () => {
    expect(truncate('😀😀😀😀', 3)).toBe('😀😀…')
    expect(truncate('ääää', 4)).toBe('ääää')
  })

  it('carries colour through uncounted and closes it after the cut', () => {
    const cut = truncate(`${ESC}[31mfailed (3)${ESC}[39m`, 4)
    expect(cut).toBe(`${ESC}[31mfai…${ESC}[0m`)
    expect(visibleLength(cut)).toBe(4)
  })
})

describe('renderTable', () => {
  const rows = [
    ['1', 'running', 'sleep 60'],
    ['12', 'failed', 'npm test -- --grep "a very long pattern that will not fit on a narrow terminal"'],
  ]

  it('aligns columns under their headers, with no borders or trailing spaces', async () => {
    const text = await renderTable(columns, rows, undefined)
    const lines = text.split('\n')
    expect(lines).toHaveLength(3)
    expect(lines[0]).toMatch(/^ID {2}STATUS {3}COMMAND$/)
    const at = lines[0].indexOf('COMMAND')
    expect(lines[1].indexOf('sleep 60')).toBe(at)
    expect(lines[2].indexOf('npm test')).toBe(at)
    expect(lines[1].indexOf('running')).toBe(lines[0].indexOf('STATUS'))
    for (const line of lines) expect(line).toBe(line.trimEnd())
    expect(text).not.toContain(ESC)
    expect(text).not.toMatch(/[│─┌┐└┘]/)
  })

  it('leaves values whole when there is no terminal width (piped)', async () => {
    const text = await renderTable(columns, rows, undefined)
    expect(text).toContain(rows[1][2])
    expect(text).not.toContain('…')
  })

  it('cuts the flexible column with … so every line fits the terminal', async () => {
    const width = 40
    const text = await renderTable(columns, rows, width)
    const lines = text.split('\n')
    for (const line of lines) expect([...line].length).toBeLessThan(width)
    expect(lines[2]).toMatch(/…$/)
    expect(lines[2]).toContain('npm test')
    expect(lines[1]).toContain('sleep 60') // short values are not cut
  })

  it('leaves a wide enough terminal alone, and cuts whole lines on one too tiny for any layout', async () => {
    expect(await renderTable(columns, rows, 500)).toBe(await renderTable(columns, rows, undefined))
    const tiny = (await renderTable(columns, rows, 10)).split('\n')
    expect(tiny[2]).toBe('12  fail…')
    for (const line of tiny) expect(visibleLength(line)).toBeLessThan(10)
  })

  it('measures coloured cells by what shows, so colour does not shift the columns', async () => {
    const painted = [['1', `${ESC}[36mrunning${ESC}[39m`, 'a'], ['2', 'failed', 'b']]
    const lines = (await renderTable(columns, painted, undefined)).split('\n')
    const strip = (s: string) => s.replace(/\u001B\[[0-9;]*m/g, '')
    expect(strip(lines[1]).indexOf('a')).toBe(strip(lines[2]).indexOf('b'))
    expect(strip(lines[1]).indexOf('a')).toBe(lines[0].indexOf('COMMAND'))
  })

  // What `drover list` draws: a 64-character name and a long command beside fixed columns.
  // (GROUP, QUEUE, TURNS and COST show only when a task has them: these rows have none)
  const listColumns = LIST_COLUMNS.filter((c) => !['GROUP', 'QUEUE', 'TURNS', 'COST'].includes(c.header))
  const name = 'n' + 'a'.repeat(63)
  const listRows = [
    ['1', name, 'failed (3)', '', '2025-01-01 10:00', '1m59s', 'claude -p "make every failing test in the repository pass" --verbose'],
    ['10000', 'short', 'running', '123456', '10:00:01', '3h05m', 'sleep 60'],
  ]

  it.each([160, 80, 50, 30])('never lets a row reach the last column of a %i-column terminal', (width) => {
    const lines = renderTable(listColumns, listRows, width).split('\n')
    expect(lines).toHaveLength(3)
    for (const line of lines) expect(visibleLength(line)).toBeLessThan(width)
  })

  it('at 120 columns cuts name and command, keeps every column, the widest giving way first', () => {
    const [head, first, second] = renderTable(listColumns, listRows, 120).split('\n')
    expect(head.split(/\s+/)).toEqual(['ID', 'NAME', 'STATUS', 'PID', 'STARTED', 'RUNTIME', 'COMMAND'])
    expect(first).toMatch(/^1 +naa+… +failed \(3\) +2025-01-01 10:00 +1m59s +claude -p .*…$/)
    expect(second).toMatch(/^10000 +short +running +123456 +10:00:01 +3h05m +sleep 60$/)
  })

  it('at 80 and 60 columns drops PID, then STARTED, before the command gets shorter than 16 characters', () => {
    const [head80, first80] = renderTable(listColumns, listRows, 80).split('\n')
    expect(head80.split(/\s+/)).toEqual(['ID', 'NAME', 'STATUS', 'STARTED', 'RUNTIME', 'COMMAND'])
    expect(first80).toMatch(/ claude -p "make…$/)
    const [head60, first60] = renderTable(listColumns, listRows, 60).split('\n')
    expect(head60.split(/\s+/)).toEqual(['ID', 'NAME', 'STATUS', 'RUNTIME', 'COMMAND'])
    expect(first60).toMatch(/ claude -p "make…$/)
  })

  it('at 50 columns drops PID, STARTED and RUNTIME, keeping id, name, status and command readable', () => {
    const [head, first] = renderTable(listColumns, listRows, 50).split('\n')
    expect(head.split(/\s+/)).toEqual(['ID', 'NAME', 'STATUS', 'COMMAND'])
    expect(first).toMatch(/^1 +naa+… +failed \(3\) +claude -p "make…$/)
  })


  it('piped, keeps a 64-character name and the whole command', () => {
    const text = renderTable(listColumns, listRows, undefined)
    expect(text).toContain(name)
    expect(text).toContain(listRows[0][6])
    expect(text).not.toContain('…')
  })

  it('draws 20,000 rows in one pass', () => {
    const many = Array.from({length: 20_000}, (_, i) => [String(i), '', 'succeeded', '', '10:00:00', '1s', 'npm test'])
    expect(renderTable(listColumns, many, undefined).split('\n')).toHaveLength(20_001)
  })
})

describe('terminalWidth', () => {
  it("a terminal's columns; none for a pipe, and none for a pty that reports 0 (no size set)", () => {
    expect(terminalWidth({isTTY: true, columns: 120})).toBe(120)
    expect(terminalWidth({isTTY: false, columns: 120})).toBeUndefined()
    expect(terminalWidth({isTTY: true, columns: 0})).toBeUndefined()
    expect(terminalWidth({isTTY: true})).toBeUndefined()
  })
})
