import {describe, expect, it} from 'vitest'
import {retryable, retryDelayMs} from '../../src/runner/retry.js'
import type {TaskRecord} from '../../src/state/record.js'

const ended = (fields: Partial<TaskRecord>): TaskRecord =>
  ({status: 'failed', attempt: 1, retryMax: 2, retryOnTimeout: false, reason: 'exit 3', cause: 'exit', worker: {pid: 5, startTime: '1'}, retryDelayMs: 1000, runs: [{run: 1}], ...fields}) as TaskRecord

describe('retryable', () => {
  it('retries failed exits while attempts remain', () => {
    expect(retryable(ended({}))).toBe(true)
    expect(retryable(ended({reason: 'killed by SIGKILL', cause: 'signal'}))).toBe(true)
    // what the agent said went wrong, an adopted worker's unknown exit, a usage limit that will lift
    for (const cause of ['agent-error', 'exit-unknown', 'usage-limit'] as const) expect(retryable(ended({cause})), cause).toBe(true)
    expect(retryable(ended({attempt: 3}))).toBe(false)
    expect(retryable(ended({retryMax: 0}))).toBe(false)
  })

  it('never retries other ends, a command that never ran, or a limit; a timeout only when asked', () => {
    for (const status of ['succeeded', 'stopped', 'cancelled', 'drained', 'lost'] as const) expect(retryable(ended({status}))).toBe(false)
    expect(retryable(ended({worker: null, reason: 'command not found: x', cause: 'not-found'}))).toBe(false)
    expect(retryable(ended({reason: 'idle (killed after 10 s)', cause: 'idle'}))).toBe(false)
    expect(retryable(ended({reason: 'output limit', cause: 'output-limit'}))).toBe(false)
    expect(retryable(ended({reason: 'runner error: x', cause: 'runner-error'}))).toBe(false)
    expect(retryable(ended({reason: 'timeout', cause: 'timeout'}))).toBe(false)
    expect(retryable(ended({reason: 'timeout', cause: 'timeout', retryOnTimeout: true}))).toBe(true)
    // the cause decides, never the words: a reason that reads like a policy is still an exit
    expect(retryable(ended({reason: 'timeout while fetching (exit 3)', cause: 'exit'}))).toBe(true)
    // a cause a newer drover wrote reads as none: not retried
    expect(retryable(ended({cause: null}))).toBe(false)
    // a person's session on a terminal (drover attach) ended as they ended it
    expect(retryable(ended({runs: [{run: 1}, {run: 2, attached: true}] as TaskRecord['runs']}))).toBe(false)
  })
})

describe('retryDelayMs', () => {
  it('doubles with each attempt, within ±20 % jitter, capped at an hour', () => {
    expect(retryDelayMs(ended({attempt: 1}), () => 0)).toBe(800)
    expect(retryDelayMs(ended({attempt: 1}), () => 1)).toBe(1200)
    expect(retryDelayMs(ended({attempt: 3}), () => 0.5)).toBe(4000)
    expect(retryDelayMs(ended({attempt: 30}), () => 0.5)).toBe(3_600_000)
    expect(retryDelayMs(ended({retryDelayMs: null}), () => 0.5)).toBe(1000)
  })
})
