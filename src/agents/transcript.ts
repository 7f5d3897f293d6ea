// An agent's JSON event stream (claude stream-json, codex exec --json) as a
// transcript a person or a supervising model reads: what the agent said, the
// tools it called and what came back, how the run ended — one event per line,
// long payloads cut. Lines that are not events pass through as they are.

import type {AgentProfileName} from '../state/record.js'

const MAX_PAYLOAD = 300

const clip = (text: string, max = MAX_PAYLOAD) => {
  const flat = text.replace(/\s+/g, ' ').trim()
  return flat.length > max ? `${flat.slice(0, max)}… (${flat.length - max} more characters)` : flat
}
const str = (v: unknown): string => (typeof v === 'string' ? v : v === undefined || v === null ? '' : JSON.stringify(v))
const obj = (v: unknown): Record<string, any> | null => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, any>) : null)

function blockText(content: unknown): string {
  if (typeof content === 'string') return content
  if (Array.isArray(content)) return content.map((b) => (obj(b)?.type === 'text' ? str(obj(b)!.text) : '')).join(' ')
  return str(content)
}

/** claude -p --output-format stream-json: system, assistant, user (tool results), result. */
function claudeLines(event: Record<string, any>): string[] | null {
  switch (event.type) {
    case 'system':
      return event.subtype === 'init' ? [`[session ${str(event.session_id)} started${event.model ? `, model ${str(event.model)}` : ''}]`] : []
    case 'assistant':
    case 'user': {
      const content: unknown[] = Array.isArray(event.message?.content) ? event.message.content : []
      return content.flatMap((raw) => {
        const block = obj(raw)
        if (!block) return []
        if (block.type === 'text') return event.type === 'assistant' ? [str(block.text)] : []
        if (block.type === 'tool_use') return [`→ ${str(block.name)} ${clip(str(block.input))}`]
        if (block.type === 'tool_result') return [`← ${block.is_error ? 'error: ' : ''}${clip(blockText(block.content))}`]
        return []
      })
    }
    case 'result': {
      const facts = [str(event.subtype), event.num_turns !== undefined ? `${event.num_turns} turns` : '', typeof event.total_cost_usd === 'number' ? `$${event.total_cost_usd.toFixed(4)}` : '']
      const head = `[result: ${facts.filter(Boolean).join(', ')}]`
      const errors = Array.isArray(event.errors) ? event.errors.map(str).join('; ') : ''
      return [event.result ? `${head} ${clip(str(event.result), 2000)}` : errors ? `${head} ${errors}` : head]
    }
    default:
      return null
  }
}

/** codex exec --json: thread.started, item.*, turn.*, error. */
function codexLines(event: Record<string, any>): string[] | null {
  const item = obj(event.item)
  switch (event.type) {
    case 'thread.started':
      return [`[thread ${str(event.thread_id)} started]`]
    case 'turn.started':
    case 'item.updated':
      return []
    case 'item.started':
      return item?.type === 'command_execution' ? [`→ $ ${clip(str(item.command))}`] : []
    case 'item.completed':
      if (!item || item.type === 'reasoning') return []
      if (item.type === 'agent_message') return [str(item.text)]
      if (item.type === 'command_execution') {
        const output = str(item.aggregated_output)
        return [`← exit ${str(item.exit_code ?? '?')}${output ? `: ${clip(output)}` : ''}`]
      }
      return [`[${str(item.type)}${item.text ? `: ${clip(str(item.text))}` : ''}]`]
    case 'turn.completed': {
      const usage = obj(event.usage)
      return [`[turn completed${usage ? `: ${str(usage.input_tokens)} tokens in, ${str(usage.output_tokens)} out` : ''}]`]
    }
    case 'turn.failed':
    case 'error':
      return [`[error: ${clip(str(event.error?.message ?? event.message))}]`]
    default:
      return null
  }
}

/**
 * Renders whole lines of output. An event the profile does not know, and any
 * line that is not JSON, stays as it was; a generic task's output is returned
 * untouched.
 */
export function renderTranscript(text: string, profile: AgentProfileName): string {
  if (profile === 'generic' || text === '') return text
  const render = profile === 'claude' ? claudeLines : codexLines
  const lines = text.split('\n')
  const last = lines.pop()!
  const out: string[] = []
  for (const line of lines) {
    let event: Record<string, any> | null = null
    if (line.startsWith('{')) {
      try {
        event = obj(JSON.parse(line))
      } catch {
        event = null
      }
    }
    const rendered = event ? render(event) : null
    if (rendered === null) out.push(line)
    else out.push(...rendered)
  }
  // A line still being written stays as it is; the next page renders it whole.
  return out.map((line) => `${line}\n`).join('') + last
}
