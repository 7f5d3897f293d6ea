// Option objects from a script without TypeScript: unknown keys and values of
// the wrong type are usage errors (exit 2) naming the key, before anything is
// read or written; `tasks` is the one name for a selection's ids and names.

import {mkdtempSync} from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import {describe, expect, it} from 'vitest'
import {checkShape} from '../../src/api/option-shapes.js'
import {selectForWait} from '../../src/api/wait.js'
import {controlMany, resumeMany} from '../../src/api/batch.js'
import {DroverError} from '../../src/base/errors.js'

async function refusal(fn: () => unknown): Promise<{message: string; exitCode: number}> {
  try {
    await fn()
  } catch (error) {
    if (error instanceof DroverError) return {message: error.message, exitCode: error.exitCode}
    throw error
  }
  throw new Error('not refused')
}

describe('checkShape', () => {
  const shape = {name: 'string', count: 'number', nested: {inner: 'boolean'}, mode: ['a', 'b']} as const
  it('passes known keys of the right type, and undefined for any', () => {
    expect(() => checkShape({name: 'x', count: 1, nested: {inner: true}, mode: 'a'}, shape, 'test option')).not.toThrow()
    expect(() => checkShape({name: undefined, nested: undefined}, shape, 'test option')).not.toThrow()
  })

  it('refuses an unknown key with the name meant, a renamed one with its new name, a wrong type, a non-object', async () => {
    expect(await refusal(() => checkShape({nmae: 'x'}, shape, 'test option'))).toEqual({exitCode: 2, message: "unknown test option 'nmae' (did you mean name?)"})
    expect(await refusal(() => checkShape({old: 'x'}, shape, 'test option', '', {old: 'name'}))).toEqual({exitCode: 2, message: "unknown test option 'old' (did you mean name?)"})
    expect(await refusal(() => checkShape({zzzzzzzz: 1}, shape, 'test option'))).toEqual({exitCode: 2, message: "unknown test option 'zzzzzzzz'"})
    expect(await refusal(() => checkShape({nested: {inner: 1}}, shape, 'test option'))).toEqual({exitCode: 2, message: 'test option nested.inner must be a boolean, got a number'})
    expect(await refusal(() => checkShape({mode: 'c'}, shape, 'test option'))).toEqual({exitCode: 2, message: 'test option mode must be one of "a", "b", got a string'})
    expect(await refusal(() => checkShape(null, shape, 'test option'))).toEqual({exitCode: 2, message: 'test options must be an object'})
  })
})

describe('selections name their tasks `tasks`', () => {
  const stateDir = mkdtempSync(path.join(os.tmpdir(), 'drover-shapes-'))
  it('waitFor, controlMany and resumeMany refuse the old `refs` and typos (exit 2), before reading the state dir', async () => {
    expect(await refusal(() => selectForWait(path.join(stateDir, 'none'), {refs: ['a']} as any))).toEqual({
      exitCode: 2,
      message: "unknown waitFor option 'refs' (did you mean tasks?)",
    })
    expect(await refusal(() => selectForWait(stateDir, {tasks: 'a'} as any))).toEqual({
      exitCode: 2,
      message: 'waitFor option tasks must be an array of task ids or names, got a string',
    })
    expect(await refusal(() => controlMany(stateDir, 'stop', {refs: ['a']} as any, {graceMs: 1}))).toEqual({
      exitCode: 2,
      message: "unknown controlMany option 'refs' (did you mean tasks?)",
    })
    expect(await refusal(() => resumeMany(stateDir, {tasks: ['a'], prompt: 'go', budget: {maxTurn: 3}} as any))).toEqual({
      exitCode: 2,
      message: "unknown resumeMany option 'budget.maxTurn' (did you mean budget.maxTurns?)",
    })
  })

  it('waitFor takes ids and names under `tasks`', async () => {
    expect(await refusal(() => selectForWait(stateDir, {tasks: [7, 'build']}))).toMatchObject({exitCode: 3, message: 'no such task: 7, build'})
  })
})
