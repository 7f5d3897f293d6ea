// The stop a runner makes of the scheduler's TERM fits into Slurm's KillWait.

import {describe, expect, it} from 'vitest'
import {engineStopGraceMs, parseKillWait, UNKNOWN_KILL_WAIT_GRACE_MS} from '../../src/runner/slurm-kill-wait.js'
import {DEFAULT_STOP_GRACE_MS} from '../../src/process/stop-plan.js'

describe('KillWait', () => {
  it("is read from scontrol show config's line, in ms", () => {
    const config = ['Configuration data as of 2026-12-06T06:49:48', 'JobAcctGatherType       = (null)', 'KeepAliveTime           = (null)', 'KillOnBadExit           = 0', 'KillWait                = 5 sec', 'LaunchParameters        = (null)'].join('\n')
    expect(parseKillWait(config)).toBe(5000)
    expect(parseKillWait('KillWait = 30 sec\n')).toBe(30_000)
    expect(parseKillWait('KillOnBadExit = 0\n')).toBeNull()
    expect(parseKillWait('')).toBeNull()
  })

  it("gives the stop half of it, never more than a stop's usual grace", () => {
    expect(engineStopGraceMs(5000, DEFAULT_STOP_GRACE_MS)).toBe(2500)
    expect(engineStopGraceMs(30_000, DEFAULT_STOP_GRACE_MS)).toBe(DEFAULT_STOP_GRACE_MS)
    expect(engineStopGraceMs(0, DEFAULT_STOP_GRACE_MS)).toBe(0)
  })

  it('unknown, the stop is short: what would outlive the job is worse than a short grace', () => {
    expect(engineStopGraceMs(null, DEFAULT_STOP_GRACE_MS)).toBe(UNKNOWN_KILL_WAIT_GRACE_MS)
    expect(engineStopGraceMs(null, 500)).toBe(500)
  })
})
