// The excerpt of a long tool result: head, tail and every error-looking line
// between, the rest counted; short results whole.

import {describe, expect, it} from 'vitest'
import {excerpt, looksLikeError, skippedLines} from '../../src/agents/excerpt.js'

const opts = {head: 2, tail: 2, errors: 3, lineChars: 20}

describe('excerpt', () => {
  it('keeps a short text whole (head + tail + 1 lines)', () => {
    expect(excerpt('a\nb\nc\nd\ne\n', opts)).toEqual(['a', 'b', 'c', 'd', 'e'].map((line) => ({line})))
  })

  it('keeps head, tail and error lines, counting the gaps, at most `errors` error lines', () => {
    const lines = Array.from({length: 30}, (_, i) => `l${i}`)
    for (const i of [5, 10, 15, 20]) lines[i] = `Error in ${i}`
    const parts = excerpt(lines.join('\n'), opts)
    expect(parts).toEqual([{line: 'l0'}, {line: 'l1'}, {skipped: 3}, {line: 'Error in 5'}, {skipped: 4}, {line: 'Error in 10'}, {skipped: 4}, {line: 'Error in 15'}, {skipped: 12}, {line: 'l28'}, {line: 'l29'}])
    expect(skippedLines(parts)).toBe(23)
  })

  it('cuts long lines', () => {
    expect(excerpt('x'.repeat(30), opts)).toEqual([{line: `${'x'.repeat(20)}…`}])
  })
})

describe('looksLikeError', () => {
  it.each([
    'FAIL src/a.test.ts',
    ' ✗ adds numbers',
    'TypeError: x is not a function',
    'AssertionError [ERR_ASSERTION]',
    'Traceback (most recent call last):',
    'npm ERR! code 1',
    'ERROR: build failed',
    'error: could not compile',
    'error[E0308]: mismatched types',
    'Process exited with exit code 2',
    'Exit code 137',
    "thread 'main' panicked at src/main.rs",
    'make: *** [all] Error 2',
    '1 failed, 3 passed',
  ])('%s is an error line', (line) => expect(looksLikeError(line)).toBe(true))

  it.each(['0 errors', 'ok 12 adds', 'error-free run? no: errorless', 'exit 0', 'Tests: 3 passed'])('%s is not', (line) => expect(looksLikeError(line)).toBe(false))
})
