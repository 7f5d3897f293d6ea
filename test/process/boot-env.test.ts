// The environment drover's own Node processes boot with: no task's variables,
// NODE_EXTRA_CA_CERTS kept aside for the boot and put back after it.

import {describe, expect, it} from 'vitest'
import {restoreDeferredEnv, runnerEnv} from '../../src/process/boot-env.js'

describe('runnerEnv and restoreDeferredEnv', () => {
  it('drops the variables of the task it may be started from', () => {
    const env = runnerEnv({PATH: '/bin', DROVER_TASK_ID: '3', DROVER_CONTROL_FILE: '/x/control', DROVER_RUN: '1', DROVER_STATE_DIR: '/s'})
    expect(env).toEqual({PATH: '/bin', DROVER_STATE_DIR: '/s', DROVER_RUNNER: '1'})
  })

  it('marks a runner as one for its boot only: what it spawns does not carry the mark', () => {
    const env = runnerEnv({PATH: '/bin'})
    expect(env.DROVER_RUNNER).toBe('1')
    restoreDeferredEnv(env)
    expect(env).toEqual({PATH: '/bin'})
  })

  it('boots without NODE_EXTRA_CA_CERTS and gives it back, as it was, to what it spawns', () => {
    const env = runnerEnv({PATH: '/bin', NODE_EXTRA_CA_CERTS: '/etc/ca.pem'})
    expect(env.NODE_EXTRA_CA_CERTS).toBeUndefined()
    restoreDeferredEnv(env)
    expect(env).toEqual({PATH: '/bin', NODE_EXTRA_CA_CERTS: '/etc/ca.pem'})
  })

  it('changes nothing when it is not set, and never passes on a stale saved copy', () => {
    const env = runnerEnv({PATH: '/bin', DROVER_DEFERRED_NODE_EXTRA_CA_CERTS: '/old.pem'})
    expect(env).toEqual({PATH: '/bin', DROVER_RUNNER: '1'})
    restoreDeferredEnv(env)
    expect(env).toEqual({PATH: '/bin'})
  })
})
