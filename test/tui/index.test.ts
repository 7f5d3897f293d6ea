// When top refuses to start: no terminal on either side, or one that cannot
// draw a screen — a usage error (exit 2) naming what works instead.

import {describe, expect, it} from 'vitest'
import {requireTerminal} from '../../src/tui/index.js'

const tty = {isTTY: true}
const pipe = {isTTY: false}

describe('requireTerminal', () => {
  it('accepts a terminal on both sides', () => {
    expect(() => requireTerminal(tty, tty, {TERM: 'xterm-256color'})).not.toThrow()
    expect(() => requireTerminal(tty, tty, {})).not.toThrow()
  })

  it('refuses a pipe on either side, and TERM=dumb, with exit 2 and what to use instead', () => {
    for (const [input, output, env, says] of [
      [pipe, tty, {}, 'stdin is not one'],
      [tty, pipe, {}, 'stdout is not one'],
      [pipe, pipe, {}, 'stdin and stdout are not one'],
      [tty, tty, {TERM: 'dumb'}, 'TERM=dumb'],
    ] as const) {
      try {
        requireTerminal(input, output, env)
        expect.unreachable()
      } catch (error) {
        expect((error as {exitCode: number}).exitCode).toBe(2)
        expect((error as Error).message).toContain(says)
        expect((error as Error).message).toMatch(/drover list .*drover logs -f/)
      }
    }
  })
})
