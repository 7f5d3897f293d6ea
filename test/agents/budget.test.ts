// Budgets read from an agent's session usage: which limit is reached, which
// agent can be held to which budget, the graded stop a budget starts, and the
// real claude drained by its budget and resumed with a higher one.

import {describe, expect, it} from 'vitest'
import {budgetReached, checkBudget, givenLimits, parseCost} from '../../src/agents/budget.js'
import {planFor, stopReason} from '../../src/process/stop-plan.js'
import {DroverError} from '../../src/base/errors.js'

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
