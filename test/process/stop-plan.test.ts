// The graded-stop plans per cause (stop, cancel, drain, timeout, idle, output),
// which cause outranks which, the reason recorded at the end, and how long a
// requester waits for a plan to run its course.

import fc from 'fast-check'
import {describe, expect, it} from 'vitest'
import {scheduleMs} from '../../src/tasks/control.js'
import {
  CANCEL_GRACE_MS,
  supersedes,
  DEFAULT_DRAIN_GRACE_MS,
  DEFAULT_DRAIN_KILL_AFTER_MS,
  DEFAULT_STOP_GRACE_MS,
  outranks,
  planFor,
  stopReason,
  type StopCause,
} from '../../src/process/stop-plan.js'

const CAUSES: StopCause[] = ['stop', 'cancel', 'drain', 'timeout', 'idle', 'output']

describe('planFor', () => {
  it('stop: STOP and SIGTERM to the group together, SIGKILL after the default 10 s', () => {
    expect(DEFAULT_STOP_GRACE_MS).toBe(10_000)
    const plan = planFor('stop')
    expect(plan.status).toBe('stopped')
    expect(plan.steps).toHaveLength(2)
    expect(plan.steps[0]).toEqual({control: 'STOP', signal: 'SIGTERM', waitMs: 10_000})
    expect(plan.steps[1].signal).toBe('SIGKILL')
    expect(plan.steps[1].control).toBeUndefined()
  })

  it('stop -t: the grace is the time between SIGTERM and SIGKILL', () => {
    const plan = planFor('stop', {graceMs: 1500})
    expect(plan.steps[0]).toEqual({control: 'STOP', signal: 'SIGTERM', waitMs: 1500})
    expect(plan.steps.at(-1)!.signal).toBe('SIGKILL')
  })

  it('stop --wrap-up: WRAP_UP alone first, for the grace, before the STOP/SIGTERM step', () => {
    const plan = planFor('stop', {graceMs: 3000, wrapUp: true})
    expect(plan.steps.map((s) => [s.control ?? null, s.signal ?? null])).toEqual([
      ['WRAP_UP', null],
      ['STOP', 'SIGTERM'],
      [null, 'SIGKILL'],
    ])
    expect(plan.steps[0].waitMs).toBe(3000)
    expect(plan.steps[1].waitMs).toBe(3000)
  })

  it('cancel: SIGTERM to the tree at once, SIGKILL after 2 s, whatever grace is passed', () => {
    expect(CANCEL_GRACE_MS).toBe(2000)
    for (const graceMs of [undefined, 0, 60_000]) {
      const plan = planFor('cancel', {graceMs})
      expect(plan.status).toBe('cancelled')
      expect(plan.steps[0]).toEqual({control: 'STOP', signal: 'SIGTERM', waitMs: 2000})
      expect(plan.steps.map((s) => s.signal)).toEqual(['SIGTERM', 'SIGKILL'])
    }
  })

  it('drain: the word alone first (the agent checkpoints), then SIGTERM, then SIGKILL', () => {
    const plan = planFor('drain')
    expect(plan.status).toBe('drained')
    expect(plan.steps.map((s) => [s.control ?? null, s.signal ?? null, s.waitMs])).toEqual([
      ['STOP', null, DEFAULT_DRAIN_GRACE_MS],
      [null, 'SIGTERM', DEFAULT_DRAIN_KILL_AFTER_MS],
      [null, 'SIGKILL', expect.any(Number)],
    ])
    const custom = planFor('drain', {graceMs: 5000, killAfterMs: 700})
    expect(custom.steps[0].waitMs).toBe(5000)
    expect(custom.steps[1].waitMs).toBe(700)
  })

  it('timeout, idle and output limit end the task failed, by the same graded stop', () => {
    for (const cause of ['timeout', 'idle', 'output'] as const) {
      const plan = planFor(cause)
      expect(plan.cause).toBe(cause)
      expect(plan.status).toBe('failed')
      expect(plan.steps.map((s) => s.signal)).toEqual(['SIGTERM', 'SIGKILL'])
      expect(plan.steps[0]).toMatchObject({control: 'STOP', waitMs: DEFAULT_STOP_GRACE_MS})
    }
  })

  it('carries the request id, and each call gets its own list (plans are merged by pushing)', () => {
    const a = planFor('stop', {requestId: 'r1'})
    const b = planFor('stop')
    expect(a.requestIds).toEqual(['r1'])
    expect(b.requestIds).toEqual([])
    a.requestIds.push('r2')
    expect(planFor('stop', {requestId: 'r1'}).requestIds).toEqual(['r1'])
  })

  it('for every cause and grace: the word comes no later than the first signal, SIGKILL last, once', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...CAUSES),
        fc.option(fc.integer({min: 0, max: 3_600_000}), {nil: undefined}),
        fc.boolean(),
        fc.option(fc.integer({min: 0, max: 3_600_000}), {nil: undefined}),
        (cause, graceMs, wrapUp, killAfterMs) => {
          const {steps} = planFor(cause, {graceMs, wrapUp, killAfterMs})
          const firstControl = steps.findIndex((s) => s.control !== undefined)
          const firstSignal = steps.findIndex((s) => s.signal !== undefined)
          expect(firstControl).toBe(0)
          expect(firstControl).toBeLessThanOrEqual(firstSignal)
          expect(steps.filter((s) => s.signal === 'SIGKILL')).toHaveLength(1)
          expect(steps.at(-1)!.signal).toBe('SIGKILL')
          const term = steps.findIndex((s) => s.signal === 'SIGTERM')
          expect(term).toBeGreaterThanOrEqual(0)
          expect(term).toBeLessThan(steps.length - 1)
          for (const step of steps) expect(step.waitMs).toBeGreaterThanOrEqual(0)
        },
      ),
    )
  })
})

describe('outranks', () => {
  it('cancel beats stop beats drain beats the runner\'s own policies', () => {
    expect(outranks('cancel', 'stop')).toBe(true)
    expect(outranks('stop', 'drain')).toBe(true)
    expect(outranks('drain', 'timeout')).toBe(true)
    expect(outranks('stop', 'idle')).toBe(true)
    expect(outranks('cancel', 'output')).toBe(true)
    expect(outranks('stop', 'cancel')).toBe(false)
    expect(outranks('drain', 'stop')).toBe(false)
    expect(outranks('timeout', 'idle')).toBe(false)
  })

  it('nothing outranks itself, and no two causes outrank each other (a strict order)', () => {
    for (const a of CAUSES) {
      expect(outranks(a, a)).toBe(false)
      for (const b of CAUSES) expect(outranks(a, b) && outranks(b, a)).toBe(false)
    }
  })
})

describe('stopReason', () => {
  it('a stop that needed no SIGKILL is "stopped by request"; one that did says after how long', () => {
    expect(stopReason(planFor('stop'), null)).toBe('stopped by request')
    expect(stopReason(planFor('stop'), 10_000)).toBe('killed after 10 s')
    expect(stopReason(planFor('stop', {graceMs: 1000}), 1040)).toBe('killed after 1 s')
    expect(stopReason(planFor('stop', {graceMs: 1000}), 1460)).toBe('killed after 1.5 s')
  })

  it('the other causes name themselves, with the kill when there was one', () => {
    expect(stopReason(planFor('cancel'), null)).toBe('cancelled by request')
    expect(stopReason(planFor('cancel'), 2000)).toBe('cancelled by request, killed after 2 s')
    expect(stopReason(planFor('drain'), null)).toBe('drained')
    expect(stopReason(planFor('timeout'), null)).toBe('timeout')
    expect(stopReason(planFor('timeout'), 10_000)).toBe('timeout, killed after 10 s')
    expect(stopReason(planFor('idle'), null)).toBe('idle')
    expect(stopReason(planFor('output'), null)).toBe('output limit')
    expect(stopReason(planFor('output'), 10_000)).toBe('output limit, killed after 10 s')
  })
})

describe('scheduleMs (how long a requester waits for the runner)', () => {
  it('is the sum of the plan\'s waits, so a stop -t N is covered up to its SIGKILL and beyond', () => {
    const stop = scheduleMs({kind: 'stop', graceMs: 1000})
    expect(stop).toBe(planFor('stop', {graceMs: 1000}).steps.reduce((sum, s) => sum + s.waitMs, 0))
    expect(stop).toBeGreaterThan(1000)
    expect(scheduleMs({kind: 'stop', graceMs: 1000, wrapUp: true})).toBe(stop + 1000)
    expect(scheduleMs({kind: 'cancel', graceMs: 0})).toBeGreaterThan(CANCEL_GRACE_MS)
    expect(scheduleMs({kind: 'drain', graceMs: 3000, killAfterMs: 500})).toBeGreaterThan(3500)
  })
})

describe('supersedes', () => {
  it('a stronger cause, or the same cause on a shorter schedule, replaces the plan under way', () => {
    expect(supersedes(planFor('cancel'), planFor('stop'))).toBe(true)
    expect(supersedes(planFor('stop', {graceMs: 1000}), planFor('stop', {graceMs: 30_000}))).toBe(true)
    expect(supersedes(planFor('stop', {graceMs: 30_000}), planFor('stop', {graceMs: 1000}))).toBe(false)
    expect(supersedes(planFor('stop'), planFor('stop'))).toBe(false)
    expect(supersedes(planFor('drain', {graceMs: 1000}), planFor('stop'))).toBe(false)
  })
})
