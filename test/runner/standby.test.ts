// What bin/run.js decides before anything of drover loads: whether `start`
// gets a standby runner, from argv, the environment and a named state dir's
// config.json (a real file).

import {writeFileSync} from 'node:fs'
import path from 'node:path'
import {afterEach, describe, expect, it} from 'vitest'
import {flagValue, standbyVerdict} from '../../src/runner/standby.js'
import {cleanupStateDirs, makeStateDir} from '../helpers/cli.js'

afterEach(() => cleanupStateDirs())

describe('flagValue', () => {
  it("reads drover's own flags only, the last one given", () => {
    expect(flagValue(['--executor', 'slurm', '--', '--executor', 'local'], '--executor')).toBe('slurm')
    expect(flagValue(['--executor=local', '--executor', 'slurm'], '--executor')).toBe('slurm')
    expect(flagValue(['--', '--executor=slurm'], '--executor')).toBeUndefined()
    expect(flagValue(['--state-dir'], '--state-dir')).toBeUndefined()
  })
})

describe('standbyVerdict', () => {
  it('boots none for a task going to Slurm by flag, environment or a named state dir\'s config; checks later for the default state dir', () => {
    expect(standbyVerdict(['--executor', 'slurm', '--', 'true'], {})).toBe('none')
    expect(standbyVerdict(['--executor=local', '--', 'true'], {DROVER_EXECUTOR: 'slurm'})).toBe('boot')
    expect(standbyVerdict(['--', 'true'], {DROVER_EXECUTOR: 'slurm'})).toBe('none')
    const slurm = makeStateDir()
    writeFileSync(path.join(slurm, 'config.json'), '{"executor": "slurm"}')
    expect(standbyVerdict(['--state-dir', slurm, '--', 'true'], {})).toBe('none')
    expect(standbyVerdict(['--', 'true'], {DROVER_STATE_DIR: slurm})).toBe('none')
    const local = makeStateDir()
    expect(standbyVerdict(['--', 'true'], {DROVER_STATE_DIR: local})).toBe('boot')
    writeFileSync(path.join(local, 'config.json'), '{"executor": "local"}')
    expect(standbyVerdict(['--state-dir', local, '--', 'true'], {})).toBe('boot')
    // a bad config is start's to refuse; the guess boots
    writeFileSync(path.join(local, 'config.json'), '{not json')
    expect(standbyVerdict(['--state-dir', local, '--', 'true'], {})).toBe('boot')
    expect(standbyVerdict(['--', 'true'], {})).toBe('boot-then-check')
  })
})
