// renderTranscript: claude's stream-json and codex's JSONL as lines a reader
// (a supervising model) takes in at a glance; anything else untouched.

import {describe, expect, it} from 'vitest'
import {renderTranscript} from '../../src/agents/transcript.js'

const lines = (...events: unknown[]) => events.map((e) => (typeof e === 'string' ? e : JSON.stringify(e)) + '\n').join('')

describe('renderTranscript', () => {
  it('renders a claude run: session, text, tool call and result, the final result', () => {
    const text = lines(
      {type: 'system', subtype: 'init', session_id: 's-1', model: 'claude-x', tools: ['Bash']},
      {type: 'assistant', message: {content: [{type: 'text', text: 'I will run the tests.'}]}},
      {type: 'assistant', message: {content: [{type: 'tool_use', id: 't1', name: 'Bash', input: {command: 'npm test'}}]}},
      {type: 'user', message: {content: [{type: 'tool_result', tool_use_id: 't1', content: 'ok\n3 passed', is_error: false}]}},
      {type: 'user', message: {content: [{type: 'tool_result', tool_use_id: 't2', content: [{type: 'text', text: 'denied'}], is_error: true}]}},
      {type: 'result', subtype: 'success', num_turns: 2, total_cost_usd: 0.01234, result: 'All green.'},
    )
    expect(renderTranscript(text, 'claude')).toBe(
      '[session s-1 started, model claude-x]\nI will run the tests.\n→ Bash {"command":"npm test"}\n← ok 3 passed\n← error: denied\n[result: success, 2 turns, $0.0123] All green.\n',
    )
  })

  it('renders a codex run: thread, command and its exit, message, usage, errors', () => {
    const text = lines(
      {type: 'thread.started', thread_id: 'th-1'},
      {type: 'turn.started'},
      {type: 'item.completed', item: {type: 'reasoning', text: 'thinking'}},
      {type: 'item.started', item: {type: 'command_execution', command: "bash -lc 'ls'"}},
      {type: 'item.completed', item: {type: 'command_execution', command: "bash -lc 'ls'", exit_code: 0, aggregated_output: 'a\nb\n'}},
      {type: 'item.completed', item: {type: 'agent_message', text: 'Done.'}},
      {type: 'turn.completed', usage: {input_tokens: 10, output_tokens: 3}},
      {type: 'error', message: 'stream disconnected'},
    )
    expect(renderTranscript(text, 'codex')).toBe(
      "[thread th-1 started]\n→ $ bash -lc 'ls'\n← exit 0: a b\nDone.\n[turn completed: 10 tokens in, 3 out]\n[error: stream disconnected]\n",
    )
  })

  it('leaves lines that are not events, unknown events, a partial last line and generic output as they are', () => {
    const text = lines('── drover: run 2', {type: 'something_new', x: 1}, 'plain') + '{"type":"assis'
    expect(renderTranscript(text, 'claude')).toBe('── drover: run 2\n{"type":"something_new","x":1}\nplain\n{"type":"assis')
    const generic = lines({type: 'result', result: 'x'})
    expect(renderTranscript(generic, 'generic')).toBe(generic)
  })

  it('cuts long payloads, saying how much', () => {
    const rendered = renderTranscript(lines({type: 'user', message: {content: [{type: 'tool_result', content: 'x'.repeat(1000)}]}}), 'claude')
    expect(rendered).toBe(`← ${'x'.repeat(300)}… (700 more characters)\n`)
  })
})
