// How outcomes are worded for people: the status word once, the reason for
// what it adds, and the table's short form with the one telling fact.

import {describe, expect, it} from 'vitest'
import {describeOutcome, outcomeLabel, reasonDetail} from '../../src/tasks/outcome.js'
import type {EndCause} from '../../src/state/record.js'

describe('describeOutcome', () => {
  it.each([
    ['stopped', 'stopped by request', 'stopped (by request)'],
    ['stopped', 'killed after 10 s', 'stopped (killed after 10 s)'],
    ['cancelled', 'cancelled by request, killed after 2 s', 'cancelled (by request, killed after 2 s)'],
    ['drained', 'drained', 'drained'],
    ['drained', 'drained, killed after 10 s', 'drained (killed after 10 s)'],
    ['stopped', 'stopped by request (runner was gone)', 'stopped (by request, runner was gone)'],
    ['failed', 'exit 3', 'failed (exit 3)'],
    ['failed', 'timeout, killed after 10 s', 'failed (timeout, killed after 10 s)'],
    ['succeeded', null, 'succeeded'],
  ] as const)('%s + %j → %s', (status, reason, expected) => {
    const text = describeOutcome(status, reason)
    expect(text).toBe(expected)
    expect(text.split(/\W+/).filter((w) => w === status)).toHaveLength(1)
  })

  it('keeps a reason that does not start with the status word', () => {
    expect(reasonDetail('lost', 'runner vanished without recording an end')).toBe('runner vanished without recording an end')
    expect(reasonDetail('stopped', 'stoppedness')).toBe('stoppedness')
  })
})

describe('outcomeLabel', () => {
  const t = (status: any, cause: EndCause | null, _reason: string | null, exitCode: number | null = null, signal: string | null = null, forced?: boolean) =>
    outcomeLabel({status, cause, exitCode, signal, forced})
  it.each([
    [t('failed', 'exit', 'exit 3', 3), 'failed (3)'],
    [t('failed', 'signal', 'killed by SIGSEGV', null, 'SIGSEGV'), 'failed (SIGSEGV)'],
    [t('failed', 'timeout', 'timeout, killed after 10 s', null, 'SIGKILL'), 'failed (timeout)'],
    [t('failed', 'idle', 'idle', 143), 'failed (idle)'],
    [t('failed', 'output-limit', 'output limit', null, 'SIGTERM'), 'failed (output limit)'],
    [t('failed', 'not-found', 'command not found: nosuch'), 'failed (not found)'],
    [t('stopped', 'stop', 'stopped by request'), 'stopped'],
    [t('stopped', 'stop-killed', 'killed after 10 s', null, 'SIGKILL'), 'stopped (killed)'],
    [t('drained', 'drain', 'drained', null, null, true), 'drained (forced)'],
    [t('drained', 'budget', 'budget: max-turns 12 reached', null, null), 'drained (budget)'],
    [t('succeeded', 'exit', 'exit 0', 0), 'succeeded'],
    [t('running', null, null), 'running'],
    // the cause decides, never the words of the reason
    [t('failed', 'exit', 'timeout reached in the test suite (exit 1)', 1), 'failed (1)'],
    [t('stopped', 'stop', 'killed after 10 s by its own retry loop'), 'stopped'],
    // a cause this drover does not know (a newer one's) reads as none: the status and exit speak
    [t('failed', null, 'timeout', 2), 'failed (2)'],
  ])('%s', (label, expected) => {
    expect(label).toBe(expected)
  })
})
