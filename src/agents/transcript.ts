// What an agent's event stream says, as a person reads it (the items are
// transcript-items.ts; each agent's profile turns its own events into them).
// One line of the agent's output in, zero or more items out; rendering is the
// front-end's. Lines that are not the agent's events come back as `plain`.

import type {AgentProfileName} from '../state/record.js'
import {excerpt} from './excerpt.js'
import {obj} from './json.js'
import {profileOf} from './registry.js'
import type {TranscriptItem} from './transcript-items.js'

export {shortArgs, type TranscriptItem} from './transcript-items.js'

/** The items one output line holds for a person (none for bookkeeping events). */
export function transcriptItems(name: AgentProfileName, line: string): TranscriptItem[] {
  const profile = profileOf(name)
  if (!profile || !line.startsWith('{')) return line === '' ? [] : [{kind: 'plain', text: line}]
  let event: Record<string, unknown> | null
  try {
    event = obj(JSON.parse(line))
  } catch {
    return [{kind: 'plain', text: line}]
  }
  const type = typeof event?.type === 'string' ? event.type : null
  if (!event || !type) return [{kind: 'plain', text: line}]
  return profile.transcript(type, event)
}

const PLAIN_MAX = 300

const plainClip = (text: string, max = PLAIN_MAX) => {
  const flat = text.replace(/\s+/g, ' ').trim()
  return flat.length > max ? `${flat.slice(0, max)}… (${flat.length - max} more characters)` : flat
}

/**
 * A tool result or an error as plain lines: the first line after `lead`, the
 * rest indented, cut to its head, tail and error-looking lines (the same rule
 * as `logs --pretty`), each line at most PLAIN_MAX characters.
 */
function plainBlock(lead: string, text: string): string {
  const parts = excerpt(text, {head: 3, tail: 3, errors: 20, lineChars: PLAIN_MAX})
  return parts
    .map((part, i) => `${i === 0 ? lead : '  '}${'skipped' in part ? `… ${part.skipped} more line${part.skipped === 1 ? '' : 's'}` : part.line}`)
    .join('\n')
}

/** One item as plain text, for readers without a terminal (a supervising model over MCP, the dashboard): no colour, long payloads cut. */
function plainLine(item: TranscriptItem): string {
  switch (item.kind) {
    case 'session':
      return `[${item.text}]`
    case 'text':
    case 'plain':
      return item.text
    case 'thinking':
      return `(thinking) ${plainClip(item.text)}`
    case 'tool':
      return `→ ${item.name}${item.args ? ` ${item.args}` : ''}`
    case 'result':
      return plainBlock(`← ${item.isError ? 'error: ' : ''}`, item.text)
    case 'error':
      return `[error: ${plainClip(item.text)}]`
    case 'final': {
      const facts = [
        item.ok ? 'success' : 'failed',
        item.turns !== null ? `${item.turns} turns` : '',
        item.costUsd !== null ? `$${item.costUsd.toFixed(4)}` : '',
        item.tokens !== null ? `${item.tokens} tokens` : '',
      ].filter(Boolean)
      const said = item.text && item.text !== 'turn completed' ? ` ${plainClip(item.text, 2000)}` : ''
      return `[${item.text === 'turn completed' ? 'turn completed' : 'result'}: ${facts.join(', ')}]${said}`
    }
  }
}

/**
 * Whole lines of an agent's output as plain transcript lines (the same items
 * `logs --pretty` shows); the agent's bookkeeping events say nothing and are
 * left out, a line still being written stays as it is (the next read renders
 * it whole), and a generic task's output (or one of an agent this drover
 * does not know) is returned untouched.
 */
export function renderTranscript(text: string, profile: AgentProfileName): string {
  if (!profileOf(profile) || text === '') return text
  const lines = text.split('\n')
  const last = lines.pop()!
  const out = lines.flatMap((line) => transcriptItems(profile, line).map(plainLine))
  return out.map((line) => `${line}\n`).join('') + last
}
