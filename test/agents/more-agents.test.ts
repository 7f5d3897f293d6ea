// gemini, qwen, copilot and opencode as drover reads them: streams the real
// binaries printed (test/fixtures/streams/, one tool call and the answer after
// it, captured offline against the fake model servers) folded into session,
// turns and tokens; their transcripts; the resume command lines; budgets they
// cannot be held to; detection; the launchers' argv split.

import {readFileSync} from 'node:fs'
import {describe, expect, it} from 'vitest'
import {budgetReached, checkBudget} from '../../src/agents/budget.js'
import {AgentEventReader, sessionBase} from '../../src/agents/events.js'
import {classifyArgs, FlagTable, parseHelpFlags} from '../../src/agents/flags.js'
import {detectProfile, profileOf, usageLimitOf} from '../../src/agents/registry.js'
import {renderTranscript, transcriptItems} from '../../src/agents/transcript.js'
import type {AgentProfileName} from '../../src/state/record.js'
import {DroverError} from '../../src/base/errors.js'
import {fixture} from '../helpers/cli.js'

const stream = (agent: string) => readFileSync(fixture(`streams/${agent}-tool-call.ndjson`), 'utf8')

function fold(agent: AgentProfileName, text: string, base: Parameters<typeof sessionBase>[0] = null) {
  const reader = new AgentEventReader(agent, sessionBase(base), base?.sessionId ?? null)
  const seen: boolean[] = []
  for (const line of text.split('\n')) {
    reader.fold(line)
    seen.push(reader.toolInFlight())
  }
  return {info: reader.current(), toolSeen: seen.some(Boolean), toolAtEnd: reader.toolInFlight()}
}

describe('detection from the program name', () => {
  it.each([
    ['gemini', 'gemini'],
    ['/usr/local/bin/qwen', 'qwen'],
    ['C:/tools/copilot.cmd', 'copilot'],
    ['opencode.exe', 'opencode'],
    ['geminix', 'generic'],
  ])('%s is %s', (program, agent) => {
    expect(detectProfile([program, '-p', 'x'])).toBe(agent)
  })
})

describe('the real streams, folded', () => {
  it('gemini: the session from init; two model responses; this run\'s tokens from result.stats; a tool in flight between tool_use and tool_result', () => {
    const {info, toolSeen, toolAtEnd} = fold('gemini', stream('gemini'))
    expect(info).toMatchObject({sessionId: expect.stringMatching(/^[0-9a-f-]{36}$/), turns: 2, lastEvent: 'result/success', error: null, costUsd: null})
    const result = JSON.parse(stream('gemini').trim().split('\n').at(-1)!)
    expect(info).toMatchObject({inputTokens: result.stats.input_tokens, outputTokens: result.stats.output_tokens})
    expect([toolSeen, toolAtEnd]).toEqual([true, false])
    expect(profileOf('gemini')!.reportedSuccess(info)).toBe(true)
  })

  it('qwen: one turn per model response though its text and tool call come as two messages; result.usage is the session\'s, so a resume counts the difference', () => {
    const text = stream('qwen')
    const {info, toolSeen, toolAtEnd} = fold('qwen', text)
    const result = JSON.parse(text.trim().split('\n').at(-1)!)
    expect(info).toMatchObject({turns: 2, inputTokens: result.usage.input_tokens, outputTokens: result.usage.output_tokens, lastEvent: 'result/success'})
    expect(info.turns).toBe(result.num_turns)
    expect([toolSeen, toolAtEnd]).toEqual([true, false])
    // a resumed run whose result says the session's totals: this run is what came on top
    const base = {...info, session: {turns: 2, costUsd: null, inputTokens: 1000, outputTokens: 10}, turns: 0, inputTokens: 0, outputTokens: 0}
    const resumed = fold('qwen', text, base)
    expect(resumed.info.inputTokens).toBe(result.usage.input_tokens - 1000)
    expect(resumed.info.session).toMatchObject({turns: 4, inputTokens: result.usage.input_tokens, outputTokens: result.usage.output_tokens})
  })

  it('copilot: the session id only in its result, turns from turn starts, no tokens on stdout (they come from its session log)', () => {
    const {info, toolSeen, toolAtEnd} = fold('copilot', stream('copilot'))
    expect(info).toMatchObject({sessionId: expect.stringMatching(/^[0-9a-f-]{36}$/), turns: 2, inputTokens: null, outputTokens: null, costUsd: null, lastEvent: 'result/success'})
    expect([toolSeen, toolAtEnd]).toEqual([true, false])
  })

  it('copilot: a result after an abort is no success, whatever its exit code says', () => {
    const lines = [
      JSON.stringify({type: 'assistant.turn_start', data: {turnId: '0'}}),
      JSON.stringify({type: 'abort', data: {reason: 'user initiated'}}),
      JSON.stringify({type: 'result', sessionId: 'abc', exitCode: 0}),
    ]
    const {info} = fold('copilot', lines.join('\n'))
    expect(info).toMatchObject({sessionId: 'abc', lastEvent: 'result/aborted'})
    expect(profileOf('copilot')!.reportedSuccess(info)).toBe(false)
  })

  it('opencode: the session on every event, a turn per step, tokens and cost summed over the steps; a step in progress is work in flight', () => {
    const text = stream('opencode')
    const {info, toolSeen, toolAtEnd} = fold('opencode', text)
    const steps = text.trim().split('\n').map((l) => JSON.parse(l)).filter((e) => e.type === 'step_finish')
    expect(info).toMatchObject({
      sessionId: expect.stringMatching(/^ses_/),
      turns: 2,
      inputTokens: steps.reduce((n, e) => n + e.part.tokens.input, 0),
      outputTokens: steps.reduce((n, e) => n + e.part.tokens.output, 0),
      costUsd: 0,
      lastEvent: 'step_finish/stop',
    })
    expect([toolSeen, toolAtEnd]).toEqual([true, false])
    expect(profileOf('opencode')!.reportedSuccess(info)).toBe(true)
  })
})

describe('transcripts of the real streams', () => {
  it.each(['gemini', 'qwen', 'copilot', 'opencode'] as const)('%s: the tool call, its result and the answer, in order', (agent) => {
    const items = stream(agent).split('\n').flatMap((line) => transcriptItems(agent, line))
    const at = (pred: (i: (typeof items)[number]) => boolean) => items.findIndex(pred)
    const tool = at((i) => i.kind === 'tool' && /echo hi-there/.test(i.args))
    const result = at((i) => i.kind === 'result' && /hi-there/.test(i.text) && !i.isError)
    const answer = at((i) => i.kind === 'text' && /The command finished/.test(i.text))
    expect([tool, result, answer].every((i) => i >= 0), JSON.stringify(items)).toBe(true)
    expect(tool < result && result < answer).toBe(true)
    expect(renderTranscript(stream(agent), agent)).not.toContain('{"type"')
  })
})

describe('the resume command line: every flag kept, the prompt replaced, the session named', () => {
  const table = (help: string, array: 'value' | 'variadic') => new FlagTable(parseHelpFlags(help, {array}))
  const YARGS_HELP = `Options:
  -m, --model                     Model  [string]
  -p, --prompt                    Run in non-interactive (headless) mode with the given prompt.  [string]
  -y, --yolo                      Automatically accept all actions  [boolean] [default: false]
  -r, --resume                    Resume a previous session.  [string]
      --session-id                Start a new session with a manually provided UUID.  [string]
      --include-directories       Additional directories to include in the workspace
                                  (comma-separated or multiple --include-directories)  [array]
  -o, --output-format             The format of the CLI output.  [string] [choices: "text", "json", "stream-json"]
`
  const record = (agent: AgentProfileName, command: string[]) => ({agent, command, cwd: '/home/u/project'}) as any

  function resume(agent: AgentProfileName, command: string[], tableFor: FlagTable, prompt = 'next prompt') {
    const profile = profileOf(agent)!
    const {head, rest} = profile.splitArgs(command.slice(1), command[0])
    return profile.resumeArgv({program: '/bin/' + agent, head, tokens: classifyArgs(rest, tableFor), sessionId: 'S', prompt, cwd: record(agent, command).cwd})
  }

  it('gemini: -p and its value go, a repeated one-value array flag stays whole, the prompt as --prompt=', () => {
    const t = table(YARGS_HELP, 'value')
    expect(t.get('--include-directories')?.arity).toBe('value')
    expect(t.get('-o')?.arity).toBe('value')
    const argv = resume('gemini', ['gemini', '-m', 'm1', '-p', 'old', '--include-directories', 'a', '--include-directories', 'b', '-o', 'stream-json', '--session-id', 'X'], t, '-starts with a dash')
    expect(argv).toEqual(['/bin/gemini', '-m', 'm1', '--include-directories', 'a', '--include-directories', 'b', '-o', 'stream-json', '--resume', 'S', '--prompt=-starts with a dash'])
  })

  it('qwen: the positional prompt goes, a variadic flag keeps all its values, the new prompt last after --resume (never after --)', () => {
    const t = table(YARGS_HELP, 'variadic')
    const argv = resume('qwen', ['qwen', 'old prompt', '--include-directories', 'a', 'b', '--output-format', 'stream-json'], t)
    expect(argv).toEqual(['/bin/qwen', '--include-directories', 'a', 'b', '--output-format', 'stream-json', '--resume', 'S', 'next prompt'])
    expect(resume('qwen', ['qwen', 'old'], t, '-dash').at(-1)).toBe('--prompt=-dash')
  })

  it('copilot: commander grammar; --resume= and --prompt= so nothing is taken as a value', () => {
    const t = new FlagTable(
      parseHelpFlags(`  -p, --prompt <text>
  -r, --resume [<value>]
      --session-id <id>
      --allow-tool [<tools>...]
      --output-format <format>
      --allow-all-tools
`),
    )
    const argv = resume('copilot', ['copilot', '-p', 'old', '--allow-tool', 'shell(ls)', 'shell(pwd)', '--output-format', 'json', '--allow-all-tools', '--session-id=X'], t)
    expect(argv).toEqual(['/bin/copilot', '--allow-tool', 'shell(ls)', 'shell(pwd)', '--output-format', 'json', '--allow-all-tools', '--resume=S', '--prompt=next prompt'])
  })

  it('copilot: drover presets the session unless the command picks one', () => {
    const profile = profileOf('copilot')!
    expect(profile.presetSession!(['copilot', '-p', 'x'], 'ID')).toEqual(['copilot', '--session-id=ID', '-p', 'x'])
    expect(profile.presetSession!(['node', 'npm-loader.js', '-p', 'x'], 'ID')).toEqual(['node', 'npm-loader.js', '--session-id=ID', '-p', 'x'])
    expect(profile.presetSession!(['copilot', '-p', 'x', '--resume=OLD'], 'ID')).toBeNull()
    expect(profile.presetSession!(['copilot', '--session-id', 'MINE', '-p', 'x'], 'ID')).toBeNull()
  })

  it('opencode: `run` kept, --session named, the prompt after --; no --dir added (it hangs), a --dir of the user\'s kept', () => {
    const t = table(
      `Options:
  -s, --session      session id to continue                                                 [string]
      --format       format: default (formatted) or json (raw JSON events)
                                          [string] [choices: "default", "json"] [default: "default"]
  -f, --file         file(s) to attach to message                                            [array]
      --dir          directory to run in                                                    [string]
  -m, --model        model to use                                                            [string]
`,
      'variadic',
    )
    expect(t.get('--format')?.arity).toBe('value')
    expect(resume('opencode', ['opencode', 'run', '--format', 'json', '-f', 'a.txt', 'b.txt', '--', 'old'], t)).toEqual([
      '/bin/opencode', 'run', '--format', 'json', '-f', 'a.txt', 'b.txt', '--session', 'S', '--', 'next prompt',
    ])
    expect(resume('opencode', ['opencode', 'run', '--dir', '/else', 'old'], t)).toEqual(['/bin/opencode', 'run', '--dir', '/else', '--format', 'json', '--session', 'S', '--', 'next prompt'])
  })
})

describe('budgets only on what the agent reports', () => {
  const refused = (agent: AgentProfileName, budget: object) => {
    try {
      checkBudget(agent, budget)
      return null
    } catch (error) {
      expect(error).toBeInstanceOf(DroverError)
      return (error as Error).message
    }
  }

  it('gemini, qwen and copilot report tokens but no cost; opencode all three', () => {
    expect(refused('gemini', {maxCostUsd: 1})).toMatch(/gemini reports no cost: use --max-tokens/)
    expect(refused('qwen', {maxCostUsd: 1})).toMatch(/qwen reports no cost/)
    expect(refused('gemini', {maxTokens: 100})).toBeNull()
    expect(refused('copilot', {maxTokens: 100})).toBeNull()
    expect(refused('copilot', {maxCostUsd: 1})).toMatch(/copilot reports no cost: use --max-tokens \(or --max-turns\)/)
    expect(refused('copilot', {maxTurns: 5})).toBeNull()
    expect(refused('opencode', {maxCostUsd: 1, maxTokens: 10, maxTurns: 2})).toBeNull()
    expect(budgetReached({maxTurns: 2}, {turns: 2, costUsd: null, inputTokens: null, outputTokens: null})).toMatch(/max-turns 2 reached/)
  })
})

describe('usage limits in the agents\' own words', () => {
  const now = Date.parse('2026-12-02T07:00:00Z')

  it('gemini: a quota error result, with the wait it names', () => {
    const event = {
      type: 'result',
      status: 'error',
      error: {type: 'unknown', message: '[API Error: You exceeded your current quota, please check your plan and billing details. Please retry in 26s.\nSuggested retry after 26s.]\nPlease wait and try again later.'},
    }
    expect(usageLimitOf('gemini', 'result', event, now)).toEqual({message: expect.stringMatching(/^\[API Error: You exceeded your current quota/), resetAt: new Date(now + 26_000).toISOString()})
    expect(usageLimitOf('gemini', 'result', {type: 'result', status: 'error', error: {message: 'invalid argument'}}, now)).toBeNull()
  })

  it('qwen: its "Quota exhausted" error, reset at an ISO time', () => {
    const event = {type: 'result', subtype: 'error_during_execution', is_error: true, result: 'Quota exhausted: Quota exceeded. Your quota will reset at 2026-12-02T07:03:12Z.\n\nPlease retry after the reset time.'}
    expect(usageLimitOf('qwen', 'result', event, now)).toMatchObject({resetAt: '2026-12-02T07:03:12.000Z'})
  })

  it('copilot: session.error of type rate_limit; OpenAI\'s "try again in" names the wait', () => {
    const event = {type: 'session.error', data: {errorType: 'rate_limit', statusCode: 429, message: '429 Rate limit reached for gpt-4.1 on requests per day. Please try again in 600s.'}}
    expect(usageLimitOf('copilot', 'session.error', event, now)).toEqual({message: event.data.message, resetAt: new Date(now + 600_000).toISOString()})
    expect(usageLimitOf('copilot', 'session.error', {type: 'session.error', data: {errorType: 'authentication', message: 'bad key'}}, now)).toBeNull()
  })

  it('opencode: an error event whose API error is a 429', () => {
    const event = {type: 'error', error: {name: 'APIError', data: {message: 'Rate limit reached for fake-model. Please try again in 6s.', statusCode: 429}}}
    expect(usageLimitOf('opencode', 'error', event, now)).toMatchObject({resetAt: new Date(now + 6000).toISOString()})
  })
})
