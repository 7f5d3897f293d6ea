// prepareStart: every front-end's start is checked whole before the state
// dir is touched, and resolved the same way (program on PATH, agent profile,
// defaults).

import {mkdtempSync} from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import {describe, expect, it} from 'vitest'
import {DEFAULT_MAX_OUTPUT_BYTES, prepareStart} from '../../src/api/start-options.js'
import {hasPosix} from '../helpers/skips.js'
import {refusal} from '../helpers/refusal.js'

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

  it("gives a task its check: the option's, else config.json's for a task with a worktree; null for none", () => {
    const config = {check: 'npm test'}
    expect(prepareStart({command: ['true'], check: 'make lint', checkTimeoutMs: 5000}, config).spec.check).toEqual({command: 'make lint', timeoutMs: 5000, result: null})
    // config.json's check is for work in a worktree; a task without one gets none
    expect(prepareStart({command: ['true']}, config).spec.check).toBeNull()
    expect(prepareStart({command: ['true'], worktree: true}, config).spec.check).toEqual({command: 'npm test', timeoutMs: null, result: null})
    expect(prepareStart({command: ['true'], worktree: true, check: null}, config).spec.check).toBeNull()
    expect(refusal(() => prepareStart({command: ['true'], check: ' '}))).toEqual({exitCode: 2, message: 'the --check command is empty'})
    expect(refusal(() => prepareStart({command: ['true'], checkTimeoutMs: 5000}))).toEqual({exitCode: 2, message: 'checkTimeoutMs goes with a check'})
    expect(refusal(() => prepareStart({command: ['true'], check: 'x', checkTimeoutMs: 0}))).toEqual({exitCode: 2, message: 'checkTimeoutMs must be a positive number'})
  })

  it('refuses unknown keys (with the name meant) and values of the wrong type, as a script without TypeScript passes them', () => {
    const cases: [unknown, string][] = [
      [{command: 'echo hi'}, 'start option command must be an array of strings, got a string'],
      [{command: ['echo', 3]}, 'start option command must be an array of strings, got an array whose item 1 is a number'],
      [{command: ['true'], timeout: '5m'}, "unknown start option 'timeout' (did you mean timeoutMs?)"],
      [{command: ['true'], tiemoutMs: 5000}, "unknown start option 'tiemoutMs' (did you mean timeoutMs?)"],
      [{command: ['true'], timeoutMs: '5m'}, 'start option timeoutMs must be a number, got a string'],
      [{command: ['true'], env: {A: 1}}, 'start option env must be an object of string values, got A: a number'],
      [{command: ['true'], agent: 'gpt'}, 'start option agent must be one of "claude", "codex", "gemini", "qwen", "copilot", "opencode", "generic", got a string'],
      [{command: ['true'], after: 'build'}, 'start option after must be an array of task ids or names, got a string'],
      [{command: ['true'], keepChildren: 'yes'}, 'start option keepChildren must be a boolean, got a string'],
      [{command: ['true'], worktree: 1}, 'start option worktree must be true or a branch name, got a number'],
      [{command: ['true'], slurm: {partiton: 'gpu'}}, "unknown start option 'slurm.partiton' (did you mean slurm.partition?)"],
      [{command: ['true'], after: [1, null]}, 'start option after must be an array of task ids or names, got an array whose item 1 is null'],
      [{command: ['true'], retry: 1.5}, 'retry must be a whole number from 0'],
      [{command: ['true'], hookTimeoutMs: -1}, 'hookTimeoutMs must be a positive number'],
      ['echo hi', 'start options must be an object'],
    ]
    for (const [options, message] of cases) {
      const refused = refusal(() => prepareStart(options as any))
      expect(refused, JSON.stringify(options)).toEqual({exitCode: 2, message})
    }
    // undefined stands for an option not given (the CLI passes its unset flags so)
    expect(prepareStart({command: ['true'], timeoutMs: undefined, slurm: undefined}).spec.policies.timeoutMs).toBeNull()
  })
})
