import {describe, expect, it} from 'vitest'
import {headLines} from '../../src/ui/worktree.js'

describe('ui worktree: cutting a diff', () => {
  it('keeps the whole lines that fit', () => {
    expect(headLines('ab\ncd\nef\n', 7)).toBe('ab\ncd\n')
    expect(headLines('ab\ncd\nef\n', 6)).toBe('ab\ncd\n')
    expect(headLines('ab\ncd\nef\n', 5)).toBe('ab\n')
  })

  it('counts bytes, not characters, and never leaves half a character', () => {
    // "€" is three bytes: five of them are 15 bytes
    expect(headLines('€€€€€\n€\n', 16)).toBe('€€€€€\n')
    expect(headLines('€€€€€', 7)).toBe('€€')
  })
})
