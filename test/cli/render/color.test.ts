// When drover colours: only on a terminal, never under NO_COLOR (any non-empty value),
// --no-color or TERM=dumb; --color forces it on, over NO_COLOR too. And what colouring produces.

import {describe, expect, it} from 'vitest'

import {colorEnabled, painter, statusStyle} from '../../../src/cli/render/color.js'
import {TASK_STATUSES} from '../../../src/state/record.js'

const tty = {isTTY: true}
const pipe = {isTTY: false}

describe('colorEnabled', () => {
  it('colours a terminal by default, never a pipe', () => {
    expect(colorEnabled(tty, undefined, {})).toBe(true)
    expect(colorEnabled(pipe, undefined, {})).toBe(false)
    expect(colorEnabled({}, undefined, {})).toBe(false)
  })

  it('never colours under NO_COLOR with any non-empty value, even on a terminal', () => {
    for (const value of ['1', '0', 'false', 'yes']) expect(colorEnabled(tty, undefined, {NO_COLOR: value})).toBe(false)
  })

  it('an explicit --color wins over NO_COLOR (the user typed it for this command)', () => {
    for (const value of ['1', 'yes']) {
      expect(colorEnabled(pipe, true, {NO_COLOR: value})).toBe(true)
      expect(colorEnabled(tty, false, {NO_COLOR: value})).toBe(false)
    }
  })

  it('treats an empty NO_COLOR as unset', () => {
    expect(colorEnabled(tty, undefined, {NO_COLOR: ''})).toBe(true)
  })

  it('--no-color and TERM=dumb turn it off; --color turns it on for a pipe', () => {
    expect(colorEnabled(tty, false, {})).toBe(false)
    expect(colorEnabled(tty, undefined, {TERM: 'dumb'})).toBe(false)
    expect(colorEnabled(pipe, true, {})).toBe(true)
    expect(colorEnabled(pipe, true, {TERM: 'dumb'})).toBe(true)
  })
})

describe('painter', () => {
  it('wraps text in SGR codes when on, and returns it untouched when off', () => {
    expect(painter(true)('red', 'failed')).toBe('\u001B[31mfailed\u001B[39m')
    expect(painter(true)('dim', 'key')).toBe('\u001B[2mkey\u001B[22m')
    expect(painter(false)('red', 'failed')).toBe('failed')
  })
})

describe('statusStyle', () => {
  it('gives every status and corrupt a style, and nothing else one', () => {
    for (const status of [...TASK_STATUSES, 'corrupt']) expect(statusStyle(status)).not.toBeNull()
    expect(statusStyle('succeeded')).toBe('green')
    expect(statusStyle('failed')).toBe('red')
    expect(statusStyle('lost')).toBe('red')
    expect(statusStyle('whatever')).toBeNull()
  })
})
