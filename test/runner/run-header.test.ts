// The line output.log gets where a later run begins: what began it (a resume,
// a restart, a follow-up by its number, an attached session), the local time
// with its offset, and the prompt on a line of its own, flattened and cut.

import {describe, expect, it} from 'vitest'
import {runHeader} from '../../src/runner/run-header.js'
import type {RunEntry} from '../../src/state/record.js'

const run = (fields: Partial<RunEntry>): RunEntry =>
  ({run: 2, startedAt: null, endedAt: null, status: 'starting', exitCode: null, signal: null, reason: null, cause: null, resumed: true, command: null, outputOffset: null, ...fields}) as RunEntry

const at = new Date(2026, 11, 5, 7, 39, 46)
const TIME = /started 2026-12-05 07:39:46 [+-]\d\d:\d\d ──$/

describe('the run header', () => {
  it('names what began the run, in local time', () => {
    const line = (r: RunEntry) => runHeader(r, at).split('\n')[1]
    expect(line(run({}))).toMatch(/^── drover: run 2 \(resume\) /)
    expect(line(run({resumed: false}))).toMatch(/^── drover: run 2 \(restart\) /)
    expect(line(run({followup: 3}))).toMatch(/^── drover: run 2 \(follow-up 3\) /)
    expect(line(run({attached: true}))).toMatch(/^── drover: run 2 \(attached\) /)
    expect(line(run({}))).toMatch(TIME)
  })

  it('gives the prompt a line of its own, one line whatever it holds, cut when long', () => {
    expect(runHeader(run({prompt: 'add tests\n\nthen  lint'}), at).split('\n').slice(1)).toEqual([expect.stringMatching(TIME), '── drover: prompt: add tests then lint', ''])
    const long = runHeader(run({prompt: 'x'.repeat(1000)}), at).split('\n')[2]
    expect(long).toHaveLength('── drover: prompt: '.length + 400)
    expect(long.endsWith('…')).toBe(true)
    expect(runHeader(run({prompt: null}), at).split('\n')).toHaveLength(3)
  })
})
