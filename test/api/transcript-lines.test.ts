// The transcript's lines: tool calls, results cut to a few lines unless
// --full, errors, the closing line, and no control character reaching the terminal.

import {describe, expect, it} from 'vitest'
import {transcriptLines as renderTranscriptItem} from '../../src/api/transcript-lines.js'
import {painter} from '../../src/cli/render/color.js'

const plain = {paint: painter(false), full: false}

describe('renderTranscriptItem', () => {
  it('a tool call, and its result cut to its first and last three lines unless --full', () => {
    expect(renderTranscriptItem({kind: 'tool', name: 'Bash', args: 'ls'}, plain)).toEqual(['→ Bash ls'])
    const text = Array.from({length: 10}, (_, i) => `line ${i + 1}`).join('\n')
    expect(renderTranscriptItem({kind: 'result', text, isError: false}, plain)).toEqual([
      '  ⎿ line 1', '    line 2', '    line 3', '    … 4 more lines (--full shows them)', '    line 8', '    line 9', '    line 10',
    ])
    expect(renderTranscriptItem({kind: 'result', text: 'a\nb\nc\nd\ne\nf\ng', isError: false}, plain)).toHaveLength(7)
    expect(renderTranscriptItem({kind: 'result', text, isError: false}, {...plain, full: true})).toHaveLength(10)
    expect(renderTranscriptItem({kind: 'result', text: '', isError: false}, plain)).toEqual(['  ⎿ (no output)'])
    expect(renderTranscriptItem({kind: 'result', text: 'x'.repeat(2000), isError: false}, plain)[0]).toHaveLength(4 + 600 + 1)
  })

  it('a 40-line result keeps the lines that look like errors (FAIL on line 20, a traceback, an exit code), in red', () => {
    const text = Array.from({length: 40}, (_, i) => (i === 19 ? 'FAIL src/a.test.ts > adds' : i === 24 ? 'Traceback (most recent call last):' : i === 29 ? 'make: *** [all] Error 2' : `ok ${i + 1}`)).join('\n')
    expect(renderTranscriptItem({kind: 'result', text, isError: false}, plain)).toEqual([
      '  ⎿ ok 1', '    ok 2', '    ok 3',
      '    … 16 more lines (--full shows them)', '    FAIL src/a.test.ts > adds',
      '    … 4 more lines (--full shows them)', '    Traceback (most recent call last):',
      '    … 4 more lines (--full shows them)', '    make: *** [all] Error 2',
      '    … 7 more lines (--full shows them)', '    ok 38', '    ok 39', '    ok 40',
    ])
    const colored = renderTranscriptItem({kind: 'result', text, isError: false}, {paint: painter(true), full: false})
    expect(colored[4]).toBe('\u001B[31m    FAIL src/a.test.ts > adds\u001B[39m')
  })

  it('the end with cost, turns, tokens and time; a failure in red with its reason', () => {
    expect(renderTranscriptItem({kind: 'final', ok: true, text: 'Done.', costUsd: 0.01234, turns: 3, tokens: 900, durationMs: 65_000}, plain)).toEqual([
      '✔ done · $0.0123 · 3 turns · 900 tokens · 1 min 5 s',
    ])
    const red = renderTranscriptItem({kind: 'final', ok: false, text: 'Claude AI usage limit reached|1767225600', costUsd: null, turns: 1, tokens: null, durationMs: null}, {paint: painter(true), full: false})
    expect(red).toEqual(['\u001B[31m✖ failed: Claude AI usage limit reached|1767225600 · 1 turn\u001B[39m'])
  })

  it('escapes control characters but keeps lines', () => {
    expect(renderTranscriptItem({kind: 'text', text: 'a\u001B[2Jb\nc'}, plain)).toEqual(['a\\x1b[2Jb', 'c'])
    expect(renderTranscriptItem({kind: 'plain', text: '── drover: run 2 (resume) started'}, plain)).toEqual(['── drover: run 2 (resume) started'])
  })
})
