// Agent profiles: what drover reads from claude stream-json and codex JSONL (session id,
// turns, cost, tokens), that noise never breaks it, and how a resume command is rebuilt
// (flags kept, the old prompt and the old session flags dropped).

import fc from 'fast-check'
import {describe, expect, it} from 'vitest'

import {newRecord} from '../../src/core/launch.js'
import {detectProfile, emptyAgentInfo, readAgentLine, resumeCommand, ResumeRefused} from '../../src/core/profiles.js'
import type {AgentInfo, AgentProfileName, TaskRecord} from '../../src/core/record.js'

function fold(profile: AgentProfileName, lines: unknown[]): AgentInfo {
  let info = emptyAgentInfo()
  for (const line of lines) {
    const text = typeof line === 'string' ? line : JSON.stringify(line)
    info = readAgentLine(profile, text, info) ?? info
  }
  return info
}

function task(command: string[], agent: AgentProfileName, sessionId: string | null): TaskRecord {
  const record = newRecord(3, {
    command, shell: null, name: null, cwd: '/repo', env: {}, agent,
    policies: {timeoutMs: null, idleTimeoutMs: null, maxOutputBytes: null},
  })
  return {...record, status: 'drained', agentInfo: {...emptyAgentInfo(), sessionId}}
}

describe('detectProfile', () => {
  it('goes by the program name, ignoring its directory, case and a Windows extension', () => {
    expect(detectProfile(['claude', '-p', 'x'])).toBe('claude')
    expect(detectProfile(['/usr/local/bin/claude'])).toBe('claude')
    expect(detectProfile(['/opt/tools/Codex.CMD', 'exec'])).toBe('codex')
    expect(detectProfile(['codex.exe'])).toBe('codex')
    expect(detectProfile(['claude-helper'])).toBe('generic')
    expect(detectProfile(['node', 'claude'])).toBe('generic')
  })
})

describe('readAgentLine: claude stream-json', () => {
  const session = 'a1b2c3d4-0000-4000-8000-000000000001'
  const stream = [
    {type: 'system', subtype: 'init', session_id: session, tools: [], model: 'claude'},
    {type: 'assistant', message: {content: [{type: 'text', text: 'working'}]}, session_id: session},
    {type: 'user', message: {content: [{type: 'tool_result'}]}, session_id: session},
    {type: 'assistant', message: {content: [{type: 'text', text: 'done'}]}, session_id: session},
    {
      type: 'result', subtype: 'success', is_error: false, session_id: session, num_turns: 6,
      total_cost_usd: 0.0123, usage: {input_tokens: 1500, output_tokens: 320, cache_read_input_tokens: 9000},
    },
  ]

  it('takes the session id from system/init', () => {
    const info = fold('claude', stream.slice(0, 1))
    expect(info).toMatchObject({sessionId: session, lastEvent: 'system/init', turns: 0})
  })

  it('counts assistant messages as turns until the result says otherwise', () => {
    expect(fold('claude', stream.slice(0, 4))).toMatchObject({turns: 2, lastEvent: 'assistant'})
  })

  it('takes cost, turns and usage from the result', () => {
    expect(fold('claude', stream)).toEqual({
      sessionId: session, turns: 6, lastEvent: 'result/success', costUsd: 0.0123, inputTokens: 1500, outputTokens: 320,
    })
  })

  it('keeps the latest session id (a resume may fork a new one)', () => {
    const info = fold('claude', [...stream, {type: 'system', subtype: 'init', session_id: 'forked'}])
    expect(info.sessionId).toBe('forked')
  })

  it('accepts the older cost_usd field and keeps earlier values when a result lacks them', () => {
    const info = fold('claude', [stream[4], {type: 'result', subtype: 'error_max_turns', cost_usd: 0.5, session_id: session}])
    expect(info).toMatchObject({costUsd: 0.5, turns: 6, inputTokens: 1500, outputTokens: 320})
  })

  it('ignores lines that are not JSON objects with a type, returning null for them', () => {
    const info = emptyAgentInfo()
    for (const noise of ['', 'plain progress text', '[1,2]', '{"no": "type"}', '{"type": 5}', '{broken json', 'null', '"str"']) {
      expect(readAgentLine('claude', noise, info)).toBeNull()
    }
  })

  it('never throws, whatever a line holds', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.json(), fc.jsonValue().map((v) => JSON.stringify({type: 'result', usage: v, total_cost_usd: v}))), (line) => {
        for (const profile of ['claude', 'codex', 'generic'] as const) readAgentLine(profile, line, emptyAgentInfo())
      }),
    )
  })

  it('the generic profile reads nothing', () => {
    expect(readAgentLine('generic', JSON.stringify(stream[0]), emptyAgentInfo())).toBeNull()
  })
})

describe('readAgentLine: codex JSONL', () => {
  const stream = [
    {type: 'thread.started', thread_id: '0199a213-81c0-7800-8aa1-bbab2a035a53'},
    {type: 'turn.started'},
    {type: 'item.completed', item: {id: 'item_0', type: 'agent_message', text: 'hi'}},
    {type: 'turn.completed', usage: {input_tokens: 24763, cached_input_tokens: 24448, output_tokens: 122}},
    {type: 'turn.started'},
    {type: 'turn.completed', usage: {input_tokens: 1000, output_tokens: 10}},
  ]

  it('takes the thread id from thread.started', () => {
    expect(fold('codex', stream.slice(0, 1))).toMatchObject({sessionId: '0199a213-81c0-7800-8aa1-bbab2a035a53', lastEvent: 'thread.started'})
  })

  it('counts completed turns and adds up their token usage', () => {
    expect(fold('codex', stream)).toEqual({
      sessionId: '0199a213-81c0-7800-8aa1-bbab2a035a53', turns: 2, lastEvent: 'turn.completed', costUsd: null, inputTokens: 25763, outputTokens: 132,
    })
  })

  it('a turn without usage still counts, and leaves the totals alone', () => {
    expect(fold('codex', [{type: 'turn.completed'}])).toMatchObject({turns: 1, inputTokens: null, outputTokens: null})
  })
})

describe('resumeCommand', () => {
  it('claude: keeps flags and their values, drops the old prompt and --resume/--session-id/--continue', () => {
    const record = task(
      ['claude', '-p', 'fix the tests', '--output-format', 'stream-json', '--verbose', '--model', 'opus',
        '--session-id', 'old-uuid', '--resume', 'older', '--continue', '--allowedTools=Bash,Edit', '--max-turns', '5'],
      'claude', 'sess-1',
    )
    expect(resumeCommand(record, 'go on').command).toEqual([
      'claude', '-p', '--output-format', 'stream-json', '--verbose', '--model', 'opus', '--allowedTools=Bash,Edit',
      '--max-turns', '5', '--resume', 'sess-1', 'go on',
    ])
  })

  it('claude: a flag value that looks like a prompt stays with its flag', () => {
    const record = task(['claude', '--append-system-prompt', 'be brief', '-p', 'task text', '--session-id=abc'], 'claude', 's2')
    expect(resumeCommand(record, 'next').command).toEqual(['claude', '--append-system-prompt', 'be brief', '-p', '--resume', 's2', 'next'])
  })

  it('claude: adds -p when the original had none, and prefers the checkpoint session id', () => {
    const record = {...task(['claude', 'hello', '--output-format', 'stream-json'], 'claude', 'from-info'), checkpoint: {profile: 'claude' as const, sessionId: 'from-checkpoint', sessionDir: '/s', forced: false, at: 'now'}}
    expect(resumeCommand(record, 'p').command).toEqual(['claude', '-p', '--output-format', 'stream-json', '--resume', 'from-checkpoint', 'p'])
  })

  it('codex: rebuilds exec --json resume <thread>, keeping flags and dropping -C and the prompt', () => {
    const record = task(['codex', 'exec', '--json', '-m', 'gpt-5', '-C', '/repo', '--full-auto', 'write the docs'], 'codex', 'thread-9')
    expect(resumeCommand(record, 'continue').command).toEqual(['codex', 'exec', '--json', '-m', 'gpt-5', '--full-auto', 'resume', 'thread-9', 'continue'])
  })

  it('codex: adds --json when missing', () => {
    const record = task(['codex', 'exec', 'prompt'], 'codex', 't1')
    expect(resumeCommand(record, 'c').command).toEqual(['codex', 'exec', '--json', 'resume', 't1', 'c'])
  })

  it('refuses an agent resume without a recorded session id, saying why', () => {
    expect(() => resumeCommand(task(['claude', '-p', 'x'], 'claude', null), 'c')).toThrow(ResumeRefused)
    expect(() => resumeCommand(task(['claude', '-p', 'x'], 'claude', null), 'c')).toThrow(/stream-json/)
    expect(() => resumeCommand(task(['codex', 'exec', 'x'], 'codex', null), 'c')).toThrow(/thread id/)
  })

  it('generic: the same command with DROVER_RESUME=1', () => {
    const plan = resumeCommand(task(['./agent.sh', '--fast', 'job'], 'generic', null), 'ignored')
    expect(plan).toEqual({command: ['./agent.sh', '--fast', 'job'], env: {DROVER_RESUME: '1'}})
  })
})
