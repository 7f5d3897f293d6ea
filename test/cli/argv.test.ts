// Global flags typed before the command move behind it; nothing after `--` moves.

import {describe, expect, it} from 'vitest'
import {asksForHelp, goesHot, hoistGlobalFlags} from '../../src/cli/argv.js'

describe('hoistGlobalFlags', () => {
  it.each([
    [['--json', 'list'], ['list', '--json']],
    [['--state-dir', '/x', 'list', '-q'], ['list', '--state-dir', '/x', '-q']],
    [['--state-dir=/x', '--no-color', 'status', '3'], ['status', '--state-dir=/x', '--no-color', '3']],
    [['--color', 'start', '--', 'cmd', '--json'], ['start', '--color', '--', 'cmd', '--json']],
    // what the flags would change does not exist for these: they answer as if alone
    [['--state-dir', '/x', '--version'], ['--version']],
    [['--json', '--state-dir=/x', '--help'], ['--help']],
    [['--no-color', '-h'], ['-h']],
  ])('%j → %j', (argv, expected) => {
    expect(hoistGlobalFlags(argv)).toEqual(expected)
  })

  it.each([
    [['list', '--json']],
    [['start', '--', '--json', 'x']],
    [['--json']],
    [['--state-dir']],
    [['--json', '--bogus', 'list']],
    [['--json', 'help', 'list']],
    [['--version']],
    [[]],
  ])('leaves %j as it is', (argv) => {
    expect(hoistGlobalFlags(argv)).toEqual(argv)
  })
})

describe('asksForHelp', () => {
  it('sees -h and --help only before --', () => {
    expect(asksForHelp(['start', '-h'])).toBe(true)
    expect(asksForHelp(['start', '--help', '--', 'x'])).toBe(true)
    expect(asksForHelp(['start', '--', 'ls', '-h'])).toBe(false)
    expect(asksForHelp(['start', '--', 'x', '--help'])).toBe(false)
  })
})

describe('goesHot', () => {
  it('takes list, status, start, logs and wait past oclif\'s Config.load, unless help or DEBUG is asked for', () => {
    for (const command of ['list', 'status', 'start', 'logs', 'wait']) expect(goesHot([command, '--json'], {})).toBe(true)
    expect(goesHot(['start', '--', 'ls', '-h'], {})).toBe(true)
    expect(goesHot(['list', '--help'], {})).toBe(false)
    expect(goesHot(['status', '-h', '3'], {})).toBe(false)
    expect(goesHot(['list'], {DEBUG: '*'})).toBe(false)
    for (const argv of [['stop', '3'], ['queue', 'ls'], ['help', 'list'], ['--version'], []]) expect(goesHot(argv, {})).toBe(false)
  })
})
