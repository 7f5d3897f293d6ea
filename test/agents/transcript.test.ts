// An agent's stream read as a transcript: claude stream-json and codex JSONL
// lines (shaped as the real binaries write them; the last test reads what the
// real ones wrote) turned into text, tool calls, results, errors and the final
// result; and `drover logs --pretty` over the real claude and codex.

import {describe, expect, it} from 'vitest'
import {renderTranscript, shortArgs, transcriptItems} from '../../src/agents/transcript.js'

const line = (event: unknown) => JSON.stringify(event)

describe('claude stream-json', () => {
  it('init, text, a tool call, its result, the final result', () => {
    expect(transcriptItems('claude', line({type: 'system', subtype: 'init', session_id: 's1', model: 'claude-x', cwd: '/w'}))).toEqual([
      {kind: 'session', text: 'session s1 (model claude-x, cwd /w)'},
    ])
    const assistant = {type: 'assistant', message: {id: 'm1', content: [{type: 'text', text: 'I will look.'}, {type: 'tool_use', id: 't1', name: 'Bash', input: {command: 'ls  -la\n/tmp', description: 'list'}}]}}
    expect(transcriptItems('claude', line(assistant))).toEqual([
      {kind: 'text', text: 'I will look.'},
      {kind: 'tool', name: 'Bash', args: 'ls -la /tmp'},
    ])
    const result = {type: 'user', message: {content: [{type: 'tool_result', tool_use_id: 't1', content: [{type: 'text', text: 'a\nb'}], is_error: false}]}}
    expect(transcriptItems('claude', line(result))).toEqual([{kind: 'result', text: 'a\nb', isError: false}])
    const blocked = {type: 'user', message: {content: [{type: 'tool_result', tool_use_id: 't2', content: 'Exit code 137', is_error: true}]}}
    expect(transcriptItems('claude', line(blocked))).toEqual([{kind: 'result', text: 'Exit code 137', isError: true}])
    const end = {type: 'result', subtype: 'success', is_error: false, result: 'Done.', total_cost_usd: 0.0123, num_turns: 2, duration_ms: 4200, usage: {input_tokens: 10, output_tokens: 5}}
    expect(transcriptItems('claude', line(end))).toEqual([{kind: 'final', ok: true, text: 'Done.', costUsd: 0.0123, turns: 2, tokens: 15, durationMs: 4200}])
    const failed = {type: 'result', subtype: 'error_during_execution', is_error: true, errors: ['No conversation found with session ID: x']}
    expect(transcriptItems('claude', line(failed))).toMatchObject([{kind: 'final', ok: false, text: 'No conversation found with session ID: x'}])
  })

  it('lines that are not its events stay as they are; bookkeeping events show nothing', () => {
    expect(transcriptItems('claude', 'Error: something on stderr')).toEqual([{kind: 'plain', text: 'Error: something on stderr'}])
    expect(transcriptItems('claude', '{not json')).toEqual([{kind: 'plain', text: '{not json'}])
    expect(transcriptItems('claude', line({type: 'stream_event', event: {}}))).toEqual([])
    expect(transcriptItems('generic', line({type: 'assistant'}))).toEqual([{kind: 'plain', text: line({type: 'assistant'})}])
  })
})

describe('codex JSONL', () => {
  it('thread, reasoning, a command and its output, a message, the turn', () => {
    expect(transcriptItems('codex', line({type: 'thread.started', thread_id: 'th1'}))).toEqual([{kind: 'session', text: 'thread th1'}])
    expect(transcriptItems('codex', line({type: 'turn.started'}))).toEqual([])
    expect(transcriptItems('codex', line({type: 'item.completed', item: {id: 'i0', type: 'reasoning', text: '**Plan**'}}))).toEqual([{kind: 'thinking', text: '**Plan**'}])
    expect(transcriptItems('codex', line({type: 'item.started', item: {id: 'i1', type: 'command_execution', command: "bash -lc 'ls'", status: 'in_progress'}}))).toEqual([
      {kind: 'tool', name: 'shell', args: "bash -lc 'ls'"},
    ])
    expect(transcriptItems('codex', line({type: 'item.completed', item: {id: 'i1', type: 'command_execution', command: 'x', aggregated_output: 'a.txt\n', exit_code: 0, status: 'completed'}}))).toEqual([
      {kind: 'result', text: 'a.txt\n', isError: false},
    ])
    expect(transcriptItems('codex', line({type: 'item.completed', item: {id: 'i2', type: 'command_execution', command: 'x', aggregated_output: 'no', exit_code: 2, status: 'failed'}}))).toEqual([
      {kind: 'result', text: 'no\nexit 2', isError: true},
    ])
    expect(transcriptItems('codex', line({type: 'item.completed', item: {id: 'i3', type: 'file_change', changes: [{path: 'a.ts', kind: 'update'}], status: 'completed'}}))).toEqual([
      {kind: 'tool', name: 'edit', args: 'update a.ts'},
    ])
    expect(transcriptItems('codex', line({type: 'item.completed', item: {id: 'i4', type: 'agent_message', text: 'All done.'}}))).toEqual([{kind: 'text', text: 'All done.'}])
    expect(transcriptItems('codex', line({type: 'turn.completed', usage: {input_tokens: 100, cached_input_tokens: 50, output_tokens: 20}}))).toEqual([
      {kind: 'final', ok: true, text: 'turn completed', costUsd: null, turns: null, tokens: 120, durationMs: null},
    ])
    expect(transcriptItems('codex', line({type: 'turn.failed', error: {message: 'stream disconnected'}}))).toEqual([{kind: 'error', text: 'stream disconnected'}])
    expect(transcriptItems('codex', line({type: 'error', message: 'Reconnecting... 1/5'}))).toEqual([{kind: 'error', text: 'Reconnecting... 1/5'}])
  })

  it('short arguments: the telling one, else compact JSON, cut at the width', () => {
    expect(shortArgs({file_path: '/a/b.ts', limit: 3})).toBe('/a/b.ts')
    expect(shortArgs({x: 1})).toBe('{"x":1}')
    expect(shortArgs({command: 'y'.repeat(300)}, 20)).toBe(`${'y'.repeat(19)}…`)
  })
})

describe('renderTranscript (plain lines, for a supervising model)', () => {
  const lines = (...events: unknown[]) => events.map((e) => (typeof e === 'string' ? e : JSON.stringify(e)) + '\n').join('')

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
      '[session s-1 (model claude-x)]\nI will run the tests.\n→ Bash npm test\n← ok\n  3 passed\n← error: denied\n[result: success, 2 turns, $0.0123] All green.\n',
    )
  })

  it('renders a codex run: thread, command and its exit, message, usage, errors', () => {
    const text = lines(
      {type: 'thread.started', thread_id: 'th-1'},
      {type: 'turn.started'},
      {type: 'item.started', item: {type: 'command_execution', command: "bash -lc 'ls'"}},
      {type: 'item.completed', item: {type: 'command_execution', command: "bash -lc 'ls'", exit_code: 0, aggregated_output: 'a\nb\n'}},
      {type: 'item.completed', item: {type: 'agent_message', text: 'Done.'}},
      {type: 'turn.completed', usage: {input_tokens: 10, output_tokens: 3}},
      {type: 'error', message: 'stream disconnected'},
    )
    expect(renderTranscript(text, 'codex')).toBe("[thread th-1]\n→ shell bash -lc 'ls'\n← a\n  b\nDone.\n[turn completed: success, 13 tokens]\n[error: stream disconnected]\n")
  })

  it('keeps lines that are not events and a partial last line; drops bookkeeping events; leaves generic output untouched', () => {
    const text = lines('── drover: run 2', {type: 'something_new', x: 1}, 'plain') + '{"type":"assis'
    expect(renderTranscript(text, 'claude')).toBe('── drover: run 2\nplain\n{"type":"assis')
    const generic = lines({type: 'result', result: 'x'})
    expect(renderTranscript(generic, 'generic')).toBe(generic)
    // an agent this drover does not know (a newer drover's task): untouched too, blank lines and all
    expect(renderTranscript(`${generic}\n${generic}`, 'some-future-agent')).toBe(`${generic}\n${generic}`)
  })

  it('cuts a long line at 300 characters', () => {
    const rendered = renderTranscript(lines({type: 'user', message: {content: [{type: 'tool_result', content: 'x'.repeat(1000)}]}}), 'claude')
    expect(rendered).toBe(`← ${'x'.repeat(300)}…\n`)
  })

  it('a 40-line result with FAIL on line 20 keeps its head, its tail and the failure, line by line', () => {
    const output = Array.from({length: 40}, (_, i) => (i === 19 ? 'FAIL test/math.test.ts > adds' : `line ${i + 1}`)).join('\n')
    const rendered = renderTranscript(lines({type: 'user', message: {content: [{type: 'tool_result', content: output}]}}), 'claude')
    expect(rendered).toBe(
      ['← line 1', '  line 2', '  line 3', '  … 16 more lines', '  FAIL test/math.test.ts > adds', '  … 17 more lines', '  line 38', '  line 39', '  line 40', ''].join('\n'),
    )
  })
})
