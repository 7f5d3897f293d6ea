// usageSeries: an agent's turns, tokens and cost turn by turn, read back from
// its event stream, runs added up (a resumed session carries on), claude's
// session-wide cost not counted twice, nothing for a generic task.

import {mkdirSync, mkdtempSync, rmSync, writeFileSync} from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import {afterEach, beforeEach, describe, expect, it} from 'vitest'
import {newRecord} from '../../src/tasks/launch.js'
import {usageSeries} from '../../src/tasks/usage-series.js'
import {type TaskRecord} from '../../src/state/record.js'
import {taskPaths} from '../../src/state/store.js'
import {moveTo} from '../helpers/record-moves.js'

let stateDir: string

const spec = (agent: string) => ({
  command: ['claude'], shell: null, name: null, cwd: '/', env: {}, agent,
  policies: {timeoutMs: null, idleTimeoutMs: null, maxOutputBytes: null},
})

const assistant = (id: string, input: number, output: number) =>
  JSON.stringify({type: 'assistant', session_id: 's', message: {id, content: [{type: 'text', text: 'hi'}], usage: {input_tokens: input, output_tokens: output}}})
const result = (cost: number) => JSON.stringify({type: 'result', subtype: 'success', session_id: 's', total_cost_usd: cost})

function withLog(record: TaskRecord, text: string): TaskRecord {
  const paths = taskPaths(stateDir, record.id)
  mkdirSync(paths.dir, {recursive: true})
  writeFileSync(paths.output, text)
  return record
}

beforeEach(() => (stateDir = mkdtempSync(path.join(os.tmpdir(), 'drover-usage-'))))
afterEach(() => rmSync(stateDir, {recursive: true, force: true}))

describe('usageSeries', () => {
  it('gives one point per turn, with the tokens so far, and the cost once reported', async () => {
    const record = moveTo(newRecord(1, spec('claude')), {status: 'running'})
    record.runs[0].outputOffset = 0
    const log = [assistant('m1', 10, 5), assistant('m1', 10, 8), 'not an event', assistant('m2', 20, 4), result(0.5), ''].join('\n')
    expect(await usageSeries(stateDir, withLog(record, log))).toEqual([
      {run: 1, turns: 1, inputTokens: 10, outputTokens: 8, costUsd: null},
      {run: 1, turns: 2, inputTokens: 30, outputTokens: 12, costUsd: 0.5},
    ])
  })

  it('adds a resumed run to the first, counting the session-wide cost once', async () => {
    const first = [assistant('m1', 10, 5), result(0.5), ''].join('\n')
    const second = [assistant('m2', 7, 3), result(0.75), ''].join('\n')
    const record = moveTo(newRecord(1, spec('claude')), {status: 'running'})
    record.runs = [
      {...record.runs[0], outputOffset: 0},
      {...record.runs[0], run: 2, resumed: true, outputOffset: Buffer.byteLength(first)},
    ]
    const points = await usageSeries(stateDir, withLog(record, first + second))
    expect(points.at(-1)).toEqual({run: 2, turns: 2, inputTokens: 17, outputTokens: 8, costUsd: 0.75})
  })

  it('is empty for a task that is no agent, or has no output yet', async () => {
    expect(await usageSeries(stateDir, withLog(newRecord(1, spec('generic')), assistant('m1', 1, 1) + '\n'))).toEqual([])
    // an agent this drover does not know (a newer drover's task) is read as generic
    expect(await usageSeries(stateDir, withLog(newRecord(3, spec('some-future-agent')), assistant('m1', 1, 1) + '\n'))).toEqual([])
    expect(await usageSeries(stateDir, newRecord(2, spec('claude')))).toEqual([])
  })
})
