// Widths as a terminal counts them, cutting to a width, and what a task prints
// cleaned so it can only draw text.

import {describe, expect, it} from 'vitest'
import {cleanLine, cut, displayWidth, fit, fitRight} from '../../src/tui/text.js'

describe('text for the screen', () => {
  it('counts cells: wide characters two, combining marks none, our colour codes none', () => {
    expect(displayWidth('abc')).toBe(3)
    expect(displayWidth('日本語')).toBe(6)
    expect(displayWidth('e\u0301')).toBe(1)
    expect(displayWidth('🚀 go')).toBe(5)
    expect(displayWidth('\u001B[36mrunning\u001B[39m')).toBe(7)
  })

  it('cuts to a width with …, never splitting a wide character past it, closing a colour it cut', () => {
    expect(cut('abcdef', 4)).toBe('abc…')
    expect(cut('abc', 4)).toBe('abc')
    expect(displayWidth(cut('日本語テキスト', 5))).toBeLessThanOrEqual(5)
    expect(cut('日本語テキスト', 5)).toBe('日本…')
    expect(cut('\u001B[31mredredred\u001B[39m', 4)).toBe('\u001B[31mred…\u001B[0m')
    expect(cut('anything', 0)).toBe('')
  })

  it('fits to exactly a width, left or right', () => {
    expect(fit('ab', 4)).toBe('ab  ')
    expect(fitRight('ab', 4)).toBe('  ab')
    expect(fit('abcdef', 4)).toBe('abc…')
    expect(displayWidth(fit('日本語', 5))).toBe(5)
  })

  it("cleans a task's line: no escapes, the last state of a carriage-returned line, tabs expanded, controls gone", () => {
    expect(cleanLine('\u001B[1;31merror\u001B[0m: x')).toBe('error: x')
    expect(cleanLine('\u001B]0;title\u0007text')).toBe('text')
    expect(cleanLine('\u001B[2J\u001B[Hclear')).toBe('clear')
    expect(cleanLine('10%\r50%\r100%')).toBe('100%')
    expect(cleanLine('a\tb')).toBe('a       b')
    expect(cleanLine('bell\u0007 and \u0008back')).toBe('bell and back')
    expect(cleanLine('\u009B31mC1 CSI')).toBe('C1 CSI')
  })
})
