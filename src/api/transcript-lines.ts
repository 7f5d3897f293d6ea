// An agent's transcript as lines for a person (`logs --pretty`, `top`): the
// text it writes, `→ Tool args` for each call, results indented and cut to
// their head, tail and error-looking lines unless `full` (agents/excerpt.ts),
// errors in red, and a closing line with cost, turns and time. Worded here
// once, so every terminal front-end shows an agent alike; the caller's
// `paint` decides whether (and how) the styles become colour.

import {excerpt, looksLikeError} from '../agents/excerpt.js'
import type {TranscriptItem} from '../agents/transcript.js'

/** The styles a transcript line asks for. */
export type TranscriptStyle = 'red' | 'green' | 'cyan' | 'dim'
export type TranscriptPaint = (style: TranscriptStyle, text: string) => string

/** A tool result without --full: its first and last lines, up to RESULT_ERRORS error lines between, each cut at RESULT_CHARS. */
const RESULT_HEAD = 3
const RESULT_TAIL = 3
const RESULT_ERRORS = 20
const RESULT_CHARS = 600
const THINKING_LINES = 2

// Whatever the agent or its tools printed must not drive the terminal: control
// characters other than newline and tab are shown escaped.
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f]/g
const clean = (text: string) => text.replace(CONTROL, (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`)

function clip(text: string, lines: number, chars: number, full: boolean): {lines: string[]; hidden: number} {
  const all = clean(text).replace(/\n+$/, '').split('\n')
  if (full) return {lines: all, hidden: 0}
  let shown = all.slice(0, lines)
  let total = 0
  shown = shown.filter((line) => (total += line.length + 1) <= chars || line === shown[0])
  shown = shown.map((line) => (line.length > chars ? `${line.slice(0, chars)}…` : line))
  return {lines: shown, hidden: all.length - shown.length}
}

const seconds = (ms: number) => (ms < 60_000 ? `${(ms / 1000).toFixed(1)} s` : `${Math.floor(ms / 60_000)} min ${Math.round((ms % 60_000) / 1000)} s`)

export function transcriptLines(item: TranscriptItem, opts: {paint: TranscriptPaint; full: boolean}): string[] {
  const {paint, full} = opts
  switch (item.kind) {
    case 'session':
      return [paint('dim', `● ${clean(item.text)}`)]
    case 'text':
      return clean(item.text).split('\n')
    case 'thinking': {
      const {lines, hidden} = clip(item.text, THINKING_LINES, RESULT_CHARS, full)
      return [...lines.map((line) => paint('dim', `∴ ${line}`)), ...(hidden > 0 ? [paint('dim', `  … ${hidden} more lines`)] : [])]
    }
    case 'tool':
      return [`${paint('cyan', `→ ${clean(item.name)}`)}${item.args ? ` ${clean(item.args)}` : ''}`]
    case 'result': {
      const style = item.isError ? 'red' : 'dim'
      const parts = full
        ? clean(item.text).replace(/\n+$/, '').split('\n').map((line) => ({line}))
        : excerpt(clean(item.text), {head: RESULT_HEAD, tail: RESULT_TAIL, errors: RESULT_ERRORS, lineChars: RESULT_CHARS})
      if (parts.length === 1 && 'line' in parts[0] && parts[0].line === '') return [paint(style, '  ⎿ (no output)')]
      return parts.map((part, i) => {
        if ('skipped' in part) return paint('dim', `    … ${part.skipped} more line${part.skipped === 1 ? '' : 's'} (--full shows them)`)
        // a line that looks like an error is red even in a result the tool did not flag: it is what the reader looks for
        return paint(looksLikeError(part.line) ? 'red' : style, `${i === 0 ? '  ⎿ ' : '    '}${part.line}`)
      })
    }
    case 'error':
      return [paint('red', `✖ ${clean(item.text)}`)]
    case 'final': {
      const facts = [
        item.costUsd !== null ? `$${item.costUsd.toFixed(4)}` : '',
        item.turns !== null ? `${item.turns} turn${item.turns === 1 ? '' : 's'}` : '',
        item.tokens !== null ? `${item.tokens} tokens` : '',
        item.durationMs !== null ? seconds(item.durationMs) : '',
      ].filter(Boolean)
      const tail = facts.length > 0 ? ` · ${facts.join(' · ')}` : ''
      if (item.ok) return [paint('green', `✔ ${item.text === 'turn completed' ? 'turn completed' : 'done'}${tail}`)]
      return [paint('red', `✖ failed${item.text ? `: ${clean(item.text).split('\n')[0]}` : ''}${tail}`)]
    }
    case 'plain':
      return [item.text.startsWith('── drover:') ? paint('dim', clean(item.text)) : clean(item.text)]
  }
}
