// How a resume command is rebuilt from the original: every token kept verbatim
// and in order except the prompt and the flags that pick a session, whatever
// flags the installed agent has (grammar from its real --help), the new prompt
// after `--`; and which tasks cannot be continued, said before anything runs.

import fc from 'fast-check'
import {describe, expect, it} from 'vitest'

import {classifyArgs, type FlagTable} from '../../src/agents/flags.js'
import {emptyAgentInfo} from '../../src/agents/events.js'
import {newRecord} from '../../src/tasks/launch.js'
import {detectProfile, flagHelpArgv, resumeCommand, sessionRefusal} from '../../src/agents/profiles.js'
import type {AgentProfileName, TaskRecord} from '../../src/state/record.js'
import {claudeFlags, codexFlags} from '../helpers/agent-help.js'

function task(command: string[], agent: AgentProfileName, sessionId: string | null, extra: Partial<TaskRecord> = {}): TaskRecord {
  const record = newRecord(3, {command, shell: null, name: null, cwd: '/repo', env: {}, agent, policies: {timeoutMs: null, idleTimeoutMs: null, maxOutputBytes: null}})
  return {...record, status: 'drained', agentInfo: {...emptyAgentInfo(), sessionId}, ...extra}
}

const claude = claudeFlags()
const codex = codexFlags()

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

describe('resumeCommand: claude', () => {
  it('keeps value and variadic flags whole: --effort high, --allowedTools Bash Read', () => {
    const record = task(['claude', '-p', 'task', '--effort', 'high', '--allowedTools', 'Bash', 'Read', '--output-format', 'stream-json', '--verbose'], 'claude', 'S')
    expect(resumeCommand(record, 'go on', claude).command).toEqual([
      'claude', '-p', '--effort', 'high', '--allowedTools', 'Bash', 'Read', '--output-format', 'stream-json', '--verbose', '--resume', 'S', '--', 'go on',
    ])
  })

  it('drops the old prompt and every session flag in any spelling, keeps the rest in order', () => {
    const record = task(
      ['claude', '-p', 'fix the tests', '--model', 'opus', '--session-id', 'old-uuid', '-r', 'older', '--continue', '-c', '--fork-session',
        '--allowedTools=Bash,Edit', '--add-dir', 'a', 'b', '--name', 'x', '--file', 'f1:a', 'f2:b'],
      'claude', 'sess-1',
    )
    expect(resumeCommand(record, 'next', claude).command).toEqual([
      'claude', '-p', '--model', 'opus', '--allowedTools=Bash,Edit', '--add-dir', 'a', 'b', '--name', 'x', '--file', 'f1:a', 'f2:b', '--resume', 'sess-1', '--', 'next',
    ])
  })

  it('a prompt after -- is the prompt; the new one goes there too, even if it starts with a dash', () => {
    const record = task(['claude', '-p', '--tools', 'Bash', '--', '--old prompt--'], 'claude', 'S')
    expect(resumeCommand(record, '- list the rest', claude).command).toEqual(['claude', '-p', '--tools', 'Bash', '--resume', 'S', '--', '- list the rest'])
  })

  it('adds -p when the original had none, and runs the program resolved at start', () => {
    const record = task(['claude', 'hello', '--output-format', 'stream-json'], 'claude', 'S', {executable: '/opt/agents/bin/claude'})
    expect(resumeCommand(record, 'p', claude).command).toEqual(['/opt/agents/bin/claude', '-p', '--output-format', 'stream-json', '--resume', 'S', '--', 'p'])
  })

  it('keeps a launcher before the agent: node script, npx package, node flags', () => {
    const record = task(['node', '--max-old-space-size=4096', 'cli.js', '-p', 'old prompt', '--model', 'opus'], 'claude', 's')
    expect(resumeCommand(record, 'next', claude).command).toEqual(['node', '--max-old-space-size=4096', 'cli.js', '-p', '--model', 'opus', '--resume', 's', '--', 'next'])
    expect(flagHelpArgv(record)).toEqual(['node', '--max-old-space-size=4096', 'cli.js', '--help'])
  })
})

describe('resumeCommand: codex', () => {
  it('keeps -C DIR before resume, and value flags it has that drover never listed (--thread-source user)', () => {
    const record = task(['codex', 'exec', '--json', '-C', '/work dir', '--thread-source', 'user', '-m', 'gpt-5', 'write the docs'], 'codex', 'th-9')
    expect(resumeCommand(record, 'continue', codex).command).toEqual([
      'codex', 'exec', '--json', '-C', '/work dir', '--thread-source', 'user', '-m', 'gpt-5', 'resume', 'th-9', '--', 'continue',
    ])
  })

  it('adds --json when missing; keeps a launcher and global flags before exec; drops an old `resume <id>`', () => {
    expect(resumeCommand(task(['codex', 'exec', 'prompt'], 'codex', 't1'), 'c', codex).command).toEqual(['codex', 'exec', '--json', 'resume', 't1', '--', 'c'])
    const record = task(['npx', '-y', '@openai/codex', 'exec', '--json', '-m', 'o3', 'resume', 'older', 'old prompt'], 'codex', 't')
    expect(resumeCommand(record, 'next', codex).command).toEqual(['npx', '-y', '@openai/codex', 'exec', '--json', '-m', 'o3', 'resume', 't', '--', 'next'])
    expect(flagHelpArgv(record)).toEqual(['npx', '-y', '@openai/codex', 'exec', '--help'])
  })
})

describe('resumeCommand keeps the command line whole (any flags, any order)', () => {
  function property(flags: FlagTable, agent: 'claude' | 'codex') {
    const specs = flags.specs.filter((s) => !['--resume', '--session-id', '--continue', '--fork-session', '--help', '--version', '--last', '--all'].some((n) => s.names.includes(n)))
    const value = fc.stringMatching(/^[A-Za-z0-9_.:/ ]{1,12}$/)
    const piece = fc.oneof(
      fc.tuple(fc.constantFrom(...specs), fc.array(value, {minLength: 1, maxLength: 3})).map(([spec, values]) => {
        const name = spec.names.at(-1)!
        if (spec.arity === 'switch') return [name]
        if (spec.arity === 'variadic') return [name, ...values]
        return [name, values[0]]
      }),
    )
    return fc.property(fc.array(piece, {maxLength: 8}), value, (pieces, prompt) => {
      const head = agent === 'claude' ? ['claude', '-p'] : ['codex', 'exec']
      const original = [...head, ...pieces.flat(), '--', 'OLD PROMPT']
      const resumed = resumeCommand(task(original, agent, 'NEW'), prompt, flags).command
      expect(resumed.slice(-2)).toEqual(['--', prompt])
      // The kept flags and values are the original's, token for token, in order.
      const kept = (argv: string[]) => classifyArgs(argv, flags).filter((t) => t.role === 'flag' || t.role === 'value').map((t) => t.text)
      const before = kept(original.slice(2))
      const after = kept(resumed.slice(2, agent === 'codex' ? resumed.indexOf('resume') : -4))
      expect(after.filter((t) => t !== '--json')).toEqual(before.filter((t) => t !== '--json'))
      expect(resumed).not.toContain('OLD PROMPT')
    })
  }

  it('claude', () => fc.assert(property(claude, 'claude'), {numRuns: 300}))
  it('codex', () => fc.assert(property(codex, 'codex'), {numRuns: 300}))
})

describe('sessionRefusal: resume is offered only when it can work', () => {
  it('no session id yet (drained before the first event) points at `drover start N`', () => {
    expect(sessionRefusal(task(['claude', '-p', 'x'], 'claude', null))).toMatch(/reported no session id.*`drover start 3` runs the original prompt again/)
    expect(sessionRefusal(task(['codex', 'exec', 'x'], 'codex', null))).toMatch(/codex exec --json/)
  })

  it('runs that saved nothing: claude --no-session-persistence, codex --ephemeral', () => {
    expect(sessionRefusal(task(['claude', '-p', 'x', '--no-session-persistence'], 'claude', 'S'))).toMatch(/--no-session-persistence, so claude saved no session/)
    expect(sessionRefusal(task(['codex', 'exec', '--ephemeral', 'x'], 'codex', 'T'))).toMatch(/--ephemeral/)
    // the same word inside the prompt is no flag
    expect(sessionRefusal(task(['claude', '-p', '--', '--no-session-persistence'], 'claude', 'S'))).toBeNull()
  })

  it('an agent run through --shell (records of an older drover) cannot be rewritten', () => {
    expect(sessionRefusal(task(['/bin/sh', '-c', 'claude -p x'], 'claude', 'S', {shell: 'claude -p x'}))).toMatch(/through --shell/)
  })

  it('generic tasks always can (the same command runs again)', () => {
    expect(sessionRefusal(task(['./job.sh'], 'generic', null))).toBeNull()
    expect(resumeCommand(task(['./job.sh', 'a'], 'generic', null), 'ignored', null).command).toEqual(['./job.sh', 'a'])
  })
})
