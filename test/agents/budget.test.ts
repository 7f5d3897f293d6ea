// Budgets read from an agent's session usage: which limit is reached, which
// agent can be held to which budget, the graded stop a budget starts, and the
// real claude drained by its budget and resumed with a higher one.

import {describe, expect, it} from 'vitest'
import {budgetReached, checkBudget, givenLimits, parseCost} from '../../src/agents/budget.js'
import {planFor, stopReason} from '../../src/process/stop-plan.js'
import {DroverError} from '../../src/base/errors.js'
import {drover} from '../helpers/cli.js'
import {agentTempDir} from './harness/env.js'
import {CLAUDE, CODEX} from './harness/real-agents.js'
import {settled, start, stateDir, useFakeServers} from './harness/tasks.js'

const usage = (turns: number, costUsd: number | null, inputTokens: number | null, outputTokens: number | null) => ({turns, costUsd, inputTokens, outputTokens})

describe('budgetReached', () => {
  it('compares the session totals with each limit given', () => {
    expect(budgetReached({maxTurns: 3}, usage(2, 0.1, 10, 10))).toBeNull()
    expect(budgetReached({maxTurns: 3}, usage(3, 0.1, 10, 10))).toBe('max-turns 3 reached (3 turns)')
    expect(budgetReached({maxCostUsd: 0.5}, usage(9, 0.49, 10, 10))).toBeNull()
    expect(budgetReached({maxCostUsd: 0.5}, usage(9, 0.5123, 10, 10))).toBe('max-cost $0.5 reached ($0.5123)')
    expect(budgetReached({maxTokens: 100}, usage(1, null, 60, 40))).toBe('max-tokens 100 reached (100 tokens)')
    expect(budgetReached({maxTokens: 100}, usage(1, null, null, null))).toBeNull()
    expect(budgetReached({maxCostUsd: 1, maxTurns: 1}, null)).toBeNull()
    expect(budgetReached({}, usage(100, 100, 1e9, 1e9))).toBeNull()
  })

  it('only claude and codex report usage; codex no cost', () => {
    const code = (fn: () => void) => {
      try {
        fn()
        return 0
      } catch (error) {
        return (error as DroverError).exitCode
      }
    }
    expect(code(() => checkBudget('generic', {maxTurns: 1}))).toBe(2)
    expect(code(() => checkBudget('codex', {maxCostUsd: 1}))).toBe(2)
    expect(code(() => checkBudget('codex', {maxTokens: 1, maxTurns: 2}))).toBe(0)
    expect(code(() => checkBudget('claude', {maxCostUsd: 1}))).toBe(0)
    expect(code(() => checkBudget('generic', {maxCostUsd: null}))).toBe(0)
    expect(givenLimits({maxCostUsd: null, maxTurns: 4, maxTokens: undefined})).toEqual({maxTurns: 4})
  })

  it('parses dollars', () => {
    expect(parseCost('2.50')).toBe(2.5)
    expect(parseCost('$3')).toBe(3)
    expect(parseCost('.5')).toBe(0.5)
    for (const bad of ['0', '-1', 'abc', '1e3', '']) expect(() => parseCost(bad)).toThrow(/--max-cost/)
  })
})

describe('the budget stop', () => {
  it('is a drain (checkpoint, ends drained) whose reason says which limit', () => {
    const plan = planFor('budget', {detail: 'max-turns 3 reached (3 turns)'})
    expect(plan).toMatchObject({cause: 'budget', status: 'drained'})
    expect(plan.steps).toEqual(planFor('drain').steps)
    expect(stopReason(plan, null)).toBe('budget: max-turns 3 reached (3 turns)')
    expect(stopReason(plan, 12_000)).toBe('budget: max-turns 3 reached (3 turns), killed after 12 s')
  })
})

describe('the real agents held to their budgets', () => {
  const serverOf = useFakeServers()

  it('codex reports tokens when its turn ends: the run keeps its status, the next resume is refused until the budget is raised', async () => {
    const server = serverOf(CODEX)
    const dir = stateDir()
    const env = CODEX.env(server)
    const id = await start(dir, env, CODEX.command('budget prompt for codex'), agentTempDir('drover-work-'), ['--max-tokens', '100'])
    const first = await settled(dir, id, env)
    expect(first, JSON.stringify(first)).toMatchObject({status: 'succeeded', policies: {maxTokens: 100}})
    expect(first.agentInfo.session.inputTokens + first.agentInfo.session.outputTokens).toBeGreaterThanOrEqual(100)
    const refused = await drover(dir, ['resume', String(id)], {env})
    expect(refused.exitCode).toBe(4)
    expect(refused.stderr).toMatch(/has used its budget \(max-tokens 100 reached \(\d+ tokens\)\)/)
    expect((await drover(dir, ['resume', String(id), '--max-tokens', '100000000'], {env})).exitCode).toBe(0)
    expect(await settled(dir, id, env)).toMatchObject({status: 'succeeded', run: 2})
  })

  it('drained by its budget through the hook (no signal), resumed with a higher one in the same session', async () => {
    const server = serverOf(CLAUDE)
    const dir = stateDir()
    const env = CLAUDE.env(server)
    const id = await start(dir, env, CLAUDE.command('budget loop [[loop: echo step]]'), agentTempDir('drover-work-'), ['--max-turns', '2'])
    const first = await settled(dir, id, env)
    expect(first, JSON.stringify(first)).toMatchObject({status: 'drained', checkpoint: {mode: 'cooperative'}})
    expect(first.reason).toMatch(/^budget: max-turns 2 reached/)
    expect(first.agentInfo.session.turns).toBeLessThan(10)

    const refused = await drover(dir, ['resume', String(id)], {env})
    expect(refused.exitCode).toBe(4)
    const raised = await drover(dir, ['resume', String(id), '--max-turns', '50', '--prompt', 'just say hello'], {env})
    expect(raised.exitCode, raised.stderr).toBe(0)
    const second = await settled(dir, id, env)
    expect(second, JSON.stringify(second)).toMatchObject({status: 'succeeded', run: 2, policies: {maxTurns: 50}})
    expect(second.agentInfo.sessionId).toBe(first.agentInfo.sessionId)
    expect(second.agentInfo.session.turns).toBe(first.agentInfo.session.turns + second.agentInfo.turns)
  })
})
