// prepareStart: every front-end's start is checked whole before the state
// dir is touched, and resolved the same way (program on PATH, agent profile,
// defaults).

import {mkdtempSync} from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import {describe, expect, it} from 'vitest'
import {DEFAULT_MAX_OUTPUT_BYTES, prepareStart} from '../../src/api/start-options.js'
import {DroverError} from '../../src/base/errors.js'
import {hasPosix} from '../helpers/skips.js'

const refusal = (fn: () => unknown): {message: string; exitCode: number} => {
  try {
    fn()
  } catch (error) {
    if (error instanceof DroverError) return {message: error.message, exitCode: error.exitCode}
    throw error
  }
  throw new Error('not refused')
}

describe('prepareStart', () => {
  it('resolves the program on PATH, the agent from its name, and the defaults', () => {
    // A program every machine of its kind has on PATH: sleep, or cmd on Windows.
    const [program, found] = hasPosix ? ['sleep', /[\\/]sleep$/] : ['cmd', /[\\/]cmd\.exe$/i]
    const {spec} = prepareStart({command: [program, '1']})
    expect(spec.executable).toMatch(found)
    expect(spec).toMatchObject({
      command: [program, '1'],
      shell: null,
      name: null,
      cwd: process.cwd(),
      env: {},
      agent: 'generic',
      agentHooks: true,
      keepChildren: false,
      policies: {timeoutMs: null, idleTimeoutMs: null, maxOutputBytes: DEFAULT_MAX_OUTPUT_BYTES},
    })
  })

  it('runs a script through the shell and takes every option given', () => {
    const cwd = mkdtempSync(path.join(os.tmpdir(), 'drover-start-'))
    const {spec} = prepareStart({
      shell: 'echo hi',
      name: 'greet',
      cwd,
      env: {A: '1'},
      timeoutMs: 1000,
      idleTimeoutMs: 500,
      maxOutputBytes: null,
      agentHooks: false,
      keepChildren: true,
    })
    // $SHELL -c, or %ComSpec% /d /s /c on Windows
    expect(spec.command.slice(-2)).toEqual([hasPosix ? '-c' : '/c', 'echo hi'])
    expect(spec).toMatchObject({shell: 'echo hi', name: 'greet', cwd, env: {A: '1'}, agent: 'generic', agentHooks: false, keepChildren: true})
    expect(spec.policies).toEqual({timeoutMs: 1000, idleTimeoutMs: 500, maxOutputBytes: null})
  })

  it('refuses, with exit 2, whatever cannot start (a program that merely does not exist is the runner’s to record)', () => {
    const cases: [Parameters<typeof prepareStart>[0], RegExp][] = [
      [{}, /either a command .* or a shell script/],
      [{command: ['true'], shell: 'true'}, /not both or neither/],
      [{command: []}, /command name is empty/],
      [{command: ['']}, /command name is empty/],
      [{shell: '  '}, /shell script is empty/],
      [{shell: 'claude -p hi', agent: 'claude'}, /agent claude needs its command as argv/],
      [{command: [os.tmpdir()]}, /is a directory, not a command/],
      [{command: ['npm run build']}, /the whole line is one argument/],
      [{command: ['true'], name: '1abc'}, /name/],
      [{command: ['true'], timeoutMs: 0}, /timeoutMs must be a positive number/],
      [{command: ['true'], maxOutputBytes: -5}, /maxOutputBytes must be a positive number/],
    ]
    for (const [options, message] of cases) {
      const refused = refusal(() => prepareStart(options))
      expect(refused.exitCode, JSON.stringify(options)).toBe(2)
      expect(refused.message, JSON.stringify(options)).toMatch(message)
    }
  })
})
