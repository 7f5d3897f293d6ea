// Tables for people: aligned borderless columns, the one flexible column cut with …
// to fit a terminal (never when piped), widths counted in characters, never ANSI.

import {describe, expect, it} from 'vitest'

import {renderTable, truncate} from '../../src/render/table.js'

const columns = [{header: 'ID'}, {header: 'STATUS'}, {header: 'COMMAND', flexible: true}]
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

  it('leaves a wide enough terminal alone, and keeps at least a few characters on a tiny one', async () => {
    expect(await renderTable(columns, rows, 500)).toBe(await renderTable(columns, rows, undefined))
    const tiny = (await renderTable(columns, rows, 10)).split('\n')[2]
    expect(tiny).toMatch(/npm tes…$/)
  })

  it('measures coloured cells by what shows, so colour does not shift the columns', async () => {
    const painted = [['1', `${ESC}[36mrunning${ESC}[39m`, 'a'], ['2', 'failed', 'b']]
    const lines = (await renderTable(columns, painted, undefined)).split('\n')
    const strip = (s: string) => s.replace(/\u001B\[[0-9;]*m/g, '')
    expect(strip(lines[1]).indexOf('a')).toBe(strip(lines[2]).indexOf('b'))
    expect(strip(lines[1]).indexOf('a')).toBe(lines[0].indexOf('COMMAND'))
  })
})
