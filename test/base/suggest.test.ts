// One "did you mean" rule for commands and flags: close typos and prefixes, nothing far.

import {expect, it} from 'vitest'
import {suggest} from '../../src/base/suggest.js'

const COMMANDS = ['start', 'list', 'status', 'logs', 'stop', 'cancel', 'drain', 'resume', 'prune']

it.each([
  ['log', 'logs'],
  ['lsit', 'list'],
  ['staus', 'status'],
  ['resme', 'resume'],
  ['pr', 'prune'],
])('%s → %s', (typed, expected) => {
  expect(suggest(typed, COMMANDS)).toBe(expected)
})

it('suggests nothing for a word far from every candidate', () => {
  expect(suggest('nosuch', COMMANDS)).toBeNull()
  expect(suggest('x', [])).toBeNull()
})

it('works for flags as typed', () => {
  expect(suggest('--staus', ['--status', '--quiet', '--json'])).toBe('--status')
  expect(suggest('--no-wiat', ['--wait', '--no-wait'])).toBe('--no-wait')
})
