// A fan-out's attempts as `--agent claude:2,codex` (or the API's list) asks
// for them, and the whole fan-out checked before anything is written: each
// attempt's command written as `start --agent NAME --prompt P` writes it, the
// options of one task only (a name, a branch, a command) refused.

import {chmodSync, mkdtempSync, writeFileSync} from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {isFanOut, MAX_ATTEMPTS, parseAttempts, prepareFanOut} from '../../src/api/fanout.js'
import {posixOnly} from '../helpers/skips.js'
import {refusal} from '../helpers/refusal.js'

describe('parseAttempts', () => {
  it('reads AGENT[:N] items in the order given, 1 by default', () => {
    expect(parseAttempts('claude:2,codex,gemini')).toEqual([
      {agent: 'claude', count: 2},
      {agent: 'codex', count: 1},
      {agent: 'gemini', count: 1},
    ])
    expect(parseAttempts(' claude : 3 ')).toEqual([{agent: 'claude', count: 3}])
    expect(parseAttempts([{agent: 'codex', count: 2}, {agent: 'claude'}])).toEqual([
      {agent: 'codex', count: 2},
      {agent: 'claude', count: 1},
    ])
  })

  it('adds up an agent named twice', () => {
    expect(parseAttempts('claude,codex,claude:2')).toEqual([
      {agent: 'claude', count: 3},
      {agent: 'codex', count: 1},
    ])
  })

  it.each([
    ['claude:0', "--agent: claude's attempts must be a whole number from 1, got 0"],
    ['claude:x', "--agent: 'claude:x' is not AGENT or AGENT:N (e.g. claude:2,codex)"],
    ['claude:1:2', "--agent: 'claude:1:2' is not AGENT or AGENT:N (e.g. claude:2,codex)"],
    ['claude:-1', "--agent: 'claude:-1' is not AGENT or AGENT:N (e.g. claude:2,codex)"],
    ['claude,,codex', '--agent: an empty agent in the list (e.g. claude:2,codex)'],
    ['cluade:2,codex', "--agent: unknown value 'cluade' (did you mean claude?); use one of: claude, codex, gemini, qwen, copilot, opencode"],
    ['generic:2', '--agent: generic has no command drover can write; use one of: claude, codex, gemini, qwen, copilot, opencode'],
    [`claude:${MAX_ATTEMPTS},codex`, `--agent: ${MAX_ATTEMPTS + 1} attempts; a fan-out starts at most ${MAX_ATTEMPTS}`],
  ])('refuses %s (exit 2)', (input, message) => {
    expect(refusal(() => parseAttempts(input))).toEqual({message, exitCode: 2})
  })

  it('tells a fan-out from one agent by its syntax', () => {
    expect(['claude:2', 'claude,codex', 'claude:1'].map(isFanOut)).toEqual([true, true, true])
    expect(['claude', 'generic'].map(isFanOut)).toEqual([false, false])
  })
})

// The agents' programs must be there to be started: a fake claude and codex on PATH.
posixOnly('fake agents are shell scripts').describe('prepareFanOut', () => {
  let savedPath: string | undefined
  beforeAll(() => {
    const bin = mkdtempSync(path.join(os.tmpdir(), 'drover-fanout-bin-'))
    for (const name of ['claude', 'codex']) {
      writeFileSync(path.join(bin, name), '#!/bin/sh\nexit 0\n')
      chmodSync(path.join(bin, name), 0o755)
    }
    savedPath = process.env.PATH
    process.env.PATH = `${bin}${path.delimiter}${process.env.PATH}`
  })
  afterAll(() => {
    process.env.PATH = savedPath
  })

  it("writes each agent's command once, with the options every attempt shares, in a worktree of its own from a pinned base", () => {
    const {plan, queue} = prepareFanOut({attempts: 'claude:2,codex', prompt: 'fix the tests', worktree: true, maxTurns: 30, onLimit: 'wait', queue: 'agents', group: 'fix'})
    expect(plan.group).toBe('fix')
    expect(queue).toMatchObject({queue: 'agents'})
    expect(plan.attempts.map((a) => [a.agent, a.count, a.spec.command])).toEqual([
      ['claude', 2, ['claude', '-p', 'fix the tests', '--output-format', 'stream-json', '--verbose']],
      ['codex', 1, ['codex', 'exec', '--json', 'fix the tests']],
    ])
    for (const {spec} of plan.attempts) {
      expect(spec.policies).toMatchObject({maxTurns: 30, onLimit: 'wait'})
      expect(spec.worktree).toEqual({branch: null, base: null, existingBranch: false, pinBase: true})
      expect(spec.name).toBeNull()
    }
  })

  it("gives one agent's flags to each of its attempts, and refuses them for several agents", () => {
    const {plan} = prepareFanOut({attempts: 'claude:2', prompt: 'p q', worktree: true, extraArgs: ['--model', 'opus']})
    expect(plan.attempts[0].spec.command.slice(-2)).toEqual(['--model', 'opus'])
    expect(refusal(() => prepareFanOut({attempts: 'claude,codex', prompt: 'p q', worktree: true, extraArgs: ['--model', 'opus']})).message).toMatch(
      /^the flags after -- are one agent's own, and this fan-out has several \(claude, codex\)/,
    )
  })

  it.each([
    [{worktree: false}, /^a fan-out runs each attempt in a worktree of its own/],
    [{name: 'x'}, /^a fan-out names each attempt GROUP-AGENT-N/],
    [{command: ['claude']}, /^a fan-out writes each attempt's command from the prompt/],
    [{ifAbsent: true}, /^--if-absent is for one named task/],
    [{group: '1abc'}, /^--group: invalid group name '1abc'/],
    [{group: 'g'.repeat(60)}, /^--group g{60} is too long for its attempts' names: g{60}-claude-2 has 69 characters, a name at most 64$/],
    [{prompt: ' '}, /^the prompt is empty/],
    [{pinBase: true}, /^a fan-out fixes the base commit of every attempt/],
  ])('refuses %j (exit 2)', (change, message) => {
    const options = {attempts: 'claude:2', prompt: 'fix it', worktree: true as const, ...change}
    const refused = refusal(() => prepareFanOut(options as Parameters<typeof prepareFanOut>[0]))
    expect(refused.exitCode).toBe(2)
    expect(refused.message).toMatch(message)
  })
})
