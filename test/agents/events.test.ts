// What drover reads from the agents' own streams, in the shapes the real
// claude 2.1.332 and codex 0.171.0 print: the session id, turns counted per
// message (claude sends one event per content block), this run's figures and
// the session's totals (claude's total_cost_usd and codex's usage are
// session/thread totals), the agent's own error, and tool calls in flight.

import fc from 'fast-check'
import {describe, expect, it} from 'vitest'

import {AgentEventReader, emptyAgentInfo, sessionBase} from '../../src/agents/events.js'
import type {AgentProfileName, AgentUsage} from '../../src/state/record.js'

function read(profile: AgentProfileName, lines: unknown[], base: AgentUsage | null = null): AgentEventReader {
  const reader = new AgentEventReader(profile, base, null)
  for (const line of lines) reader.fold(typeof line === 'string' ? line : JSON.stringify(line))
  return reader
}

const S = 'b1e3c2d0-0000-4000-8000-000000000001'
const init = {type: 'system', subtype: 'init', session_id: S, tools: ['Bash'], model: 'claude-x'}
// One reply with a text block and a tool call: two assistant events, one message.
const textBlock = {type: 'assistant', session_id: S, message: {id: 'msg_1', content: [{type: 'text', text: 'Running it.'}], usage: {input_tokens: 100, output_tokens: 5}}}
const toolBlock = {type: 'assistant', session_id: S, message: {id: 'msg_1', content: [{type: 'tool_use', id: 'toolu_1', name: 'Bash', input: {command: 'sleep 3'}}], usage: {input_tokens: 100, output_tokens: 30}}}
const toolResult = {type: 'user', session_id: S, message: {content: [{type: 'tool_result', tool_use_id: 'toolu_1', content: 'done'}]}}
const finalText = {type: 'assistant', session_id: S, message: {id: 'msg_2', content: [{type: 'text', text: 'Done.'}], usage: {input_tokens: 150, output_tokens: 4}}}
const result = (extra: Record<string, unknown> = {}) => ({
  type: 'result', subtype: 'success', is_error: false, session_id: S, num_turns: 2, result: 'Done.',
  total_cost_usd: 0.05, usage: {input_tokens: 250, output_tokens: 34}, ...extra,
})

describe('claude stream-json', () => {
  it('counts a message once however many content blocks it is sent in', () => {
    const info = read('claude', [init, textBlock, toolBlock, toolResult, finalText]).current()
    expect(info.sessionId).toBe(S)
    expect(info.turns).toBe(2)
    // usage repeated per block counts once per message: 100 + 150 in, 30 + 4 out
    expect([info.inputTokens, info.outputTokens]).toEqual([250, 34])
  })

  it('knows a tool call is in flight from its tool_use block until its tool_result', () => {
    const reader = read('claude', [init, textBlock])
    expect(reader.toolInFlight()).toBe(false)
    reader.fold(JSON.stringify(toolBlock))
    expect(reader.toolInFlight()).toBe(true)
    reader.fold(JSON.stringify(toolResult))
    expect(reader.toolInFlight()).toBe(false)
  })

  it('on a first run, this run and the session agree; the result sets cost and usage', () => {
    const info = read('claude', [init, textBlock, toolBlock, toolResult, finalText, result()]).current()
    expect(info).toMatchObject({turns: 2, costUsd: 0.05, inputTokens: 250, outputTokens: 34, lastEvent: 'result/success', error: null})
    expect(info.session).toEqual({turns: 2, costUsd: 0.05, inputTokens: 250, outputTokens: 34})
  })

  it('on a resumed run, total_cost_usd is the session total: this run costs the difference', () => {
    const before: AgentUsage = {turns: 2, costUsd: 0.05, inputTokens: 250, outputTokens: 34}
    const info = read('claude', [init, finalText, result({total_cost_usd: 0.08, usage: {input_tokens: 150, output_tokens: 4}})], before).current()
    expect(info).toMatchObject({turns: 1, inputTokens: 150, outputTokens: 4})
    expect(info.costUsd).toBeCloseTo(0.03)
    expect(info.session).toEqual({turns: 3, costUsd: 0.08, inputTokens: 400, outputTokens: 38})
  })

  it('keeps what the agent said went wrong', () => {
    const failed = result({subtype: 'error_during_execution', is_error: true, result: undefined, errors: ['No conversation found with session ID: x']})
    expect(read('claude', [init, failed]).current().error).toBe('No conversation found with session ID: x')
    expect(read('claude', [init, result({is_error: true, result: 'API Error: 529 overloaded'})]).current().error).toBe('API Error: 529 overloaded')
  })

  it('keeps the latest session id (a resume may fork a new one)', () => {
    const info = read('claude', [init, {...textBlock, session_id: 'forked'}]).current()
    expect(info.sessionId).toBe('forked')
  })
})

describe('codex exec --json', () => {
  const thread = {type: 'thread.started', thread_id: 'th-1'}
  const cmdStart = {type: 'item.started', item: {id: 'item_1', type: 'command_execution', command: 'bash -lc "sleep 3"', status: 'in_progress'}}
  const cmdDone = {type: 'item.completed', item: {id: 'item_1', type: 'command_execution', exit_code: 0, status: 'completed'}}
  const message = {type: 'item.completed', item: {id: 'item_2', type: 'agent_message', text: 'Done.'}}
  const completed = (input: number, output: number) => ({type: 'turn.completed', usage: {input_tokens: input, cached_input_tokens: 0, output_tokens: output}})

  it('takes the thread id, and knows a command is running from item.started to item.completed', () => {
    const reader = read('codex', [thread, {type: 'turn.started'}])
    expect(reader.current().sessionId).toBe('th-1')
    reader.fold(JSON.stringify(cmdStart))
    expect(reader.toolInFlight()).toBe(true)
    reader.fold(JSON.stringify(cmdDone))
    expect(reader.toolInFlight()).toBe(false)
    reader.fold(JSON.stringify({type: 'item.started', item: {id: 'item_3', type: 'reasoning'}}))
    expect(reader.toolInFlight()).toBe(false)
  })

  it('turn.completed usage is the thread total: this run counts from where the session stood', () => {
    const first = read('codex', [thread, cmdStart, cmdDone, message, completed(1000, 50)]).current()
    expect(first).toMatchObject({turns: 1, inputTokens: 1000, outputTokens: 50, costUsd: null})
    expect(first.session).toEqual({turns: 1, costUsd: null, inputTokens: 1000, outputTokens: 50})
    const resumed = read('codex', [thread, message, completed(1600, 70)], first.session).current()
    expect(resumed).toMatchObject({turns: 1, inputTokens: 600, outputTokens: 20})
    expect(resumed.session).toEqual({turns: 2, costUsd: null, inputTokens: 1600, outputTokens: 70})
  })

  it('keeps a failed turn\'s message as the agent error', () => {
    expect(read('codex', [thread, {type: 'turn.failed', error: {message: 'stream disconnected'}}]).current().error).toBe('stream disconnected')
  })
})

describe('sessionBase', () => {
  it('is the session total less what this run counted: what a runner that adopts a worker starts from', () => {
    const info = {...emptyAgentInfo(), turns: 2, costUsd: 0.01, inputTokens: 10, outputTokens: 1, session: {turns: 5, costUsd: 0.04, inputTokens: 40, outputTokens: 4}}
    expect(sessionBase(info)).toEqual({turns: 3, costUsd: 0.03, inputTokens: 30, outputTokens: 3})
    expect(sessionBase(emptyAgentInfo())).toBeNull()
  })
})

describe('noise', () => {
  it('never throws and ignores what is not an event, whatever a line holds', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.json()), (line) => {
        for (const profile of ['claude', 'codex', 'generic'] as const) read(profile, [line])
      }),
    )
    expect(read('claude', ['not json', '[1,2]', '{"no":"type"}', 'Reading additional input from stdin...']).current()).toEqual(emptyAgentInfo())
    expect(read('generic', [init]).current().sessionId).toBeNull()
  })
})
