// Property-based tests on the parsers that read what is on disk — task records, request
// files, the events journal — and on task refs through the real CLI: whatever the input,
// only drover's own error types come out, and whatever is accepted can be shown and acted on.

import fc from 'fast-check'
import {mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync} from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import {afterAll, describe, expect, it} from 'vitest'

import {newRecord} from '../../src/tasks/launch.js'
import {DroverError} from '../../src/base/errors.js'
import {formatDuration, parseDuration, parseEnvAssignment, parseSize, parseTaskName, parseTaskRef} from '../../src/base/parse.js'
import {parsePruneStatuses} from '../../src/tasks/prune.js'
import {beginRun, isFinalStatus, type TaskRecord} from '../../src/state/record.js'
import {decodeRecord, encodeRecord, RecordError} from '../../src/state/record-codec.js'
import {readRequests} from '../../src/state/requests.js'
import {planFor} from '../../src/process/stop-plan.js'
import {readEvents, taskPaths} from '../../src/state/store.js'
import {renderStatus} from '../../src/cli/render/status-view.js'
import {commandLine, runtimeMs, taskDetailJson, taskJson} from '../../src/api/task-json.js'
import {shortTime} from '../../src/cli/render/time.js'
import {cleanupStateDirs, drover, makeStateDir} from '../helpers/cli.js'
import {fabricateTask} from '../fixtures/rel-state.js'
import {moveTo} from '../helpers/record-moves.js'

const scratch = mkdtempSync(path.join(os.tmpdir(), 'drover-rel-fuzz-'))
afterAll(() => {
  rmSync(scratch, {recursive: true, force: true})
  cleanupStateDirs()
})

/** A record with every optional part filled in, so mutations reach every field. */
function richRecord(): TaskRecord {
  let record = newRecord(
    3,
    {
      command: ['claude', '-p', 'fix it'],
      shell: null,
      name: 'fix',
      cwd: '/work',
      env: {API_KEY: 'secret', PLAIN: 'v'},
      agent: 'claude',
      policies: {timeoutMs: 60_000, idleTimeoutMs: 5000, maxOutputBytes: 1024},
    },
    '2024-01-01T00:00:00.000Z',
  )
  record = moveTo(record, {status: 'running', at: '2024-01-01T00:00:01.000Z'})
  record = moveTo(record, {status: 'drained', at: '2024-01-01T00:10:00.000Z', reason: 'drained'})
  record = beginRun(record, true, ['claude', '--resume', 'abc'], '2024-01-01T01:00:00.000Z')
  record = moveTo(record, {status: 'running', at: '2024-01-01T01:00:01.000Z'})
  return {
    ...record,
    worker: {pid: 4242, startTime: '123456'},
    agentInfo: {sessionId: 'abc', turns: 4, lastEvent: 'result', costUsd: 0.25, inputTokens: 10, outputTokens: 20},
    checkpoint: {profile: 'claude', sessionId: 'abc', sessionDir: '/s', forced: false, at: '2024-01-01T00:10:00.000Z'},
  }
}

type Json = null | boolean | number | string | Json[] | {[key: string]: Json}

/** Every path to a value inside a JSON tree, the root excluded. */
function paths(value: Json, prefix: (string | number)[] = []): (string | number)[][] {
  if (value === null || typeof value !== 'object') return []
  const keys: (string | number)[] = Array.isArray(value) ? value.map((_, i) => i) : Object.keys(value)
  return keys.flatMap((key) => {
    const here = [...prefix, key]
    return [here, ...paths((value as any)[key] as Json, here)]
  })
}

const BASE = JSON.parse(encodeRecord(richRecord())) as Json
const BASE_TEXT = JSON.stringify(BASE)
const BASE_PATHS = paths(BASE)

// Values of the wrong type and awkward values of the right one.
const oddValue: fc.Arbitrary<Json> = fc.oneof(
  fc.constantFrom<Json>(null, true, false, 0, -1, 1.5, 1e308, -0, '', 'x', '\u0000', [], {}, [null], {a: null}),
  fc.jsonValue() as fc.Arbitrary<Json>,
)

const mutation = fc.record({
  at: fc.nat({max: BASE_PATHS.length - 1}),
  action: fc.constantFrom('delete', 'replace', 'add'),
  value: oddValue,
  key: fc.constantFrom('extra', '__proto__', 'constructor', 'toString', 'status'),
})

type Mutation = {at: number; action: string; value: Json; key: string}

/**
 * BASE with the mutations applied, on a copy. Each inserted value is a copy of its own:
 * generated values are shared (fc.constantFrom hands out the same `{}` to every run), so
 * inserting one by reference let a later mutation write into it, and a later run inherit
 * the change, until a value held itself (CI: seed -1540550678, "Converting circular
 * structure to JSON").
 */
function mutate(base: Json, mutations: Mutation[]): Json {
  const copy = structuredClone(base) as any
  for (const m of mutations) {
    const where = BASE_PATHS[m.at]
    let parent = copy
    for (const key of where.slice(0, -1)) {
      parent = parent?.[key]
      if (parent === null || typeof parent !== 'object') break
    }
    if (parent === null || typeof parent !== 'object') continue
    const last = where.at(-1)!
    if (m.action === 'delete') {
      if (Array.isArray(parent)) parent.splice(Number(last), 1)
      else delete parent[last]
    } else if (m.action === 'replace') parent[last] = structuredClone(m.value)
    else if (!Array.isArray(parent)) Object.defineProperty(parent, m.key, {value: structuredClone(m.value), enumerable: true, writable: true, configurable: true})
  }
  return copy
}

/** Everything list, status and the lifecycle do with a record that decoded. */
function useRecord(record: TaskRecord): void {
  const stateDir = '/nonexistent-state-dir'
  const json = taskJson(record)
  taskJson(record, {showEnv: true})
  commandLine(record)
  const runtime = runtimeMs(record)
  if (runtime !== null) formatDuration(runtime)
  if (json.startedAt) shortTime(json.startedAt)
  const detail = taskDetailJson(stateDir, record, {runnerAlive: false, workerAlive: false})
  renderStatus(detail, {paint: (_style, text) => text, tailLines: 5})
  JSON.stringify(json)
  if (!isFinalStatus(record.status)) moveTo(record, {status: 'lost', reason: 'fuzz'})
  else if (record.status !== 'cancelled') beginRun(record, false)
}

/** Checks the mutants property; returns how many mutants decoded (it says nothing if none did). */
function checkMutants(parameters: fc.Parameters<[Mutation[]]>): number {
  let accepted = 0
  fc.assert(
    fc.property(fc.array(mutation, {minLength: 1, maxLength: 4}), (mutations) => {
      const text = JSON.stringify(mutate(BASE, mutations))
      const record = decodesOrRecordError(text)
      if (!record) return
      accepted++
      useRecord(record)
    }),
    parameters,
  )
  return accepted
}

function decodesOrRecordError(text: string): TaskRecord | null {
  try {
    return decodeRecord(text)
  } catch (error) {
    if (error instanceof RecordError) return null
    throw error
  }
}

describe('record decoding', () => {
  it('any text: a record or a RecordError, never anything else', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.json(), fc.string({unit: 'binary'})), (text) => {
        const record = decodesOrRecordError(text)
        if (record) useRecord(record)
      }),
      {numRuns: 2000},
    )
  })

  it('mutations of a valid record at any depth: refused with a RecordError, or usable by list, status and the lifecycle', () => {
    expect(checkMutants({numRuns: 3000})).toBeGreaterThan(100)
  })

  it('regression: the seed that made a cyclic mutant in CI runs clean, and leaves the generator as it was', () => {
    const before = JSON.stringify(fc.sample(fc.array(mutation, {minLength: 1, maxLength: 3}), {numRuns: 400, seed: 8}))
    checkMutants({numRuns: 3000, seed: -1540550678})
    expect(JSON.stringify(fc.sample(fc.array(mutation, {minLength: 1, maxLength: 3}), {numRuns: 400, seed: 8}))).toBe(before)
  })

  it('regression: a mutation that writes into an inserted value changes neither the generated value nor the base', () => {
    const value: Json = {}
    const objectAt = BASE_PATHS.findIndex((p) => p.length === 1 && p[0] === 'agentInfo')
    const mutations: Mutation[] = [
      {at: objectAt, action: 'replace', value, key: 'extra'},
      {at: BASE_PATHS.findIndex((p) => p.length === 2 && p[0] === 'agentInfo'), action: 'add', value, key: 'status'},
    ]
    expect(() => JSON.stringify(mutate(BASE, mutations))).not.toThrow()
    expect(value).toEqual({})
    expect(JSON.stringify(BASE)).toBe(BASE_TEXT)
  })

  it('list and status through the CLI never crash on records that decode', {timeout: 60_000}, async () => {
    const dir = makeStateDir()
    const mutants = fc
      .sample(fc.array(mutation, {minLength: 1, maxLength: 3}), {numRuns: 400, seed: 8})
      .map((m) => mutate(BASE, m) as object)
      .filter((m) => decodesOrRecordError(JSON.stringify({...m, id: 1})) !== null)
      .slice(0, 4)
    expect(mutants).toHaveLength(4)
    const ids = mutants.map((m) => {
      const id = fabricateTask(dir, {status: 'succeeded'})
      writeFileSync(taskPaths(dir, id).record, JSON.stringify({...m, id}), {mode: 0o600})
      return id
    })
    for (const args of [['list'], ...ids.map((id) => ['status', String(id)])]) {
      const result = await drover(dir, args)
      expect(result.exitCode, `${args.join(' ')}\n${result.stderr}`).toBe(0)
    }
  })
})

describe('command-line parsers', () => {
  // parse.test.ts checks each parser's grammar in depth; this is the suite-wide promise:
  // for any string at all, every parser a command uses answers a value or a usage error.
  it('durations, sizes, ids, names, -e and prune statuses: a value or a DroverError (exit 2), nothing else', () => {
    const parsers: [string, (s: string) => unknown][] = [
      ['parseDuration', (s) => parseDuration(s, '--timeout')],
      ['parseDuration allowZero', (s) => parseDuration(s, '--time', {allowZero: true})],
      ['parseSize', (s) => parseSize(s, '--max-output', {allowZero: true})],
      ['parseTaskRef', parseTaskRef],
      ['parseTaskName', parseTaskName],
      ['parseEnvAssignment', parseEnvAssignment],
      ['parsePruneStatuses', (s) => parsePruneStatuses([s])],
    ]
    const input = fc.oneof(
      fc.string(),
      fc.string({unit: 'binary', maxLength: 40}),
      fc.stringMatching(/^[-+ .0-9eE]{0,12}(ms|s|m|h|d|w|k|kb|KiB|M|g|T|x)?[0-9a-z]{0,3}$/),
      fc.constantFrom('', ' ', '-5s', '5x', '1e309s', '0', '99999999999999999999T', '../x', '..', '-1', '0x1', '1e9', 'NaN', 'Infinity', 'A=B=C', '\u0000'),
    )
    fc.assert(
      fc.property(input, (text) => {
        for (const [name, parse] of parsers) {
          try {
            parse(text)
          } catch (error) {
            if (!(error instanceof DroverError) || error.exitCode !== 2) throw new Error(`${name}(${JSON.stringify(text)}) threw ${String(error)}`)
          }
        }
      }),
      {numRuns: 3000},
    )
  })
})

describe('request files', () => {
  const requestBody = fc.oneof(
    fc.string(),
    fc.jsonValue().map((v) => JSON.stringify(v)),
    fc
      .record(
        {
          kind: fc.oneof(fc.constantFrom('stop', 'cancel', 'drain'), fc.jsonValue()),
          requestId: fc.oneof(fc.string(), fc.jsonValue()),
          graceMs: fc.oneof(fc.integer(), fc.double(), fc.jsonValue(), fc.constantFrom('1e400', 'Infinity', '-5')),
          killAfterMs: fc.oneof(fc.integer(), fc.double(), fc.jsonValue()),
          wrapUp: fc.jsonValue(),
        },
        {requiredKeys: ['kind']},
      )
      .map((v) => JSON.stringify(v)),
  )

  it('whatever a request file holds, the runner gets a well-formed request with a bounded schedule, or nothing', () => {
    let n = 0
    fc.assert(
      fc.property(fc.array(requestBody, {minLength: 1, maxLength: 4}), (bodies) => {
        const dir = path.join(scratch, `t${n++}`)
        const requests = path.join(dir, 'requests')
        mkdirSync(requests, {recursive: true})
        bodies.forEach((body, i) => writeFileSync(path.join(requests, `${i}.stop.json`), body))
        const read = readRequests({...taskPaths(scratch, 1), requests})
        for (const {request} of read) {
          expect(['stop', 'cancel', 'drain']).toContain(request.kind)
          expect(typeof request.requestId).toBe('string')
          expect(request.requestId).not.toBe('')
          const plan = planFor(request.kind, {graceMs: request.graceMs, wrapUp: request.wrapUp, killAfterMs: request.killAfterMs})
          for (const step of plan.steps) {
            expect(Number.isSafeInteger(step.waitMs) && step.waitMs >= 0, JSON.stringify(request)).toBe(true)
          }
        }
        // What could not be read is gone, so it is never looked at again.
        expect(readdirSync(requests)).toHaveLength(read.length)
        rmSync(dir, {recursive: true, force: true})
      }),
      {numRuns: 300},
    )
  })
})

describe('events journal', () => {
  it('any content: readEvents returns only event objects', () => {
    let n = 0
    fc.assert(
      fc.property(fc.array(fc.oneof(fc.string(), fc.jsonValue().map((v) => JSON.stringify(v))), {maxLength: 6}), (lines) => {
        const dir = path.join(scratch, `e${n++}`)
        mkdirSync(dir, {recursive: true})
        const events = path.join(dir, 'events.ndjson')
        writeFileSync(events, lines.join('\n'))
        for (const event of readEvents({...taskPaths(scratch, 1), events})) {
          expect(event !== null && typeof event === 'object' && !Array.isArray(event), JSON.stringify(event)).toBe(true)
          expect(typeof event.event).toBe('string')
        }
        rmSync(dir, {recursive: true, force: true})
      }),
      {numRuns: 300},
    )
  })
})

describe('task refs through the CLI', () => {
  it('any ref: exit 2 or 3 with one line, never a crash', {timeout: 90_000}, async () => {
    const dir = makeStateDir()
    fabricateTask(dir, {status: 'succeeded', name: 'alpha'})
    // CLI calls are slow, so a fixed sample of 20 (seeded: a failure reproduces).
    const refs = fc.sample(
      fc.oneof(
        fc.string({minLength: 1, maxLength: 80}),
        fc.string({unit: 'grapheme', minLength: 1, maxLength: 20}),
        fc.stringMatching(/^[0-9a-zA-Z._\-/]{1,70}$/),
        fc.bigInt({min: 2n, max: 10n ** 30n}).map(String),
      ),
      {numRuns: 20, seed: 42},
    ).filter((ref) => !ref.startsWith('-') && !ref.includes('\0') && ref !== 'alpha' && ref !== '1')
    for (const ref of refs) {
      const result = await drover(dir, ['status', ref], {env: {NODE_ENV: 'production'}})
      const context = `ref ${JSON.stringify(ref)}: exit ${result.exitCode}\n${result.stderr}`
      expect([2, 3], context).toContain(result.exitCode)
      expect(result.stderr.trim().split('\n'), context).toHaveLength(1)
      expect(result.stderr, context).toMatch(/^drover: (invalid task|no such task)/)
    }
  })
})
