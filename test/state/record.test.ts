// The task record: decoding names the field that is wrong, the status machine allows
// exactly the documented moves (illegal ones throw), runs stay in step, and the exit
// code a follower reports is the task's own (128 + signal number for a signal).

import fc from 'fast-check'
import {describe, expect, it} from 'vitest'

import {newRecord} from '../../src/tasks/launch.js'
import {
  beginRun,
  canTransition,
  FINAL_STATUSES,
  TASK_STATUSES,
  taskExitCode,
  type TaskRecord,
  type TaskStatus,
} from '../../src/state/record.js'
import {decodeRecord, encodeRecord, RecordError} from '../../src/state/record-codec.js'
import {signalNumber} from '../../src/platform/platform.js'
import {moveTo} from '../helpers/record-moves.js'

const spec = {
  command: ['claude', '-p', 'hello'], shell: null, name: 'fix', cwd: '/work', env: {A: 'b'}, agent: 'claude' as const,
  policies: {timeoutMs: 1000, idleTimeoutMs: null, maxOutputBytes: 1024},
}
const fresh = (): TaskRecord => newRecord(7, spec, '2024-01-01T00:00:00.000Z')
const asJson = (record: unknown) => JSON.stringify(record)

function decodeError(value: unknown): string {
  try {
    decodeRecord(typeof value === 'string' ? value : JSON.stringify(value))
  } catch (error) {
    expect(error).toBeInstanceOf(RecordError)
    return (error as Error).message
  }
  throw new Error('decodeRecord accepted it')
}

describe('decodeRecord', () => {
  it('round-trips what encodeRecord writes', () => {
    const record = moveTo(fresh(), {status: 'running'})
    expect(decodeRecord(encodeRecord(record))).toEqual(record)
  })

  it("never writes reconcile's in-memory word of an engine's queue (engineWait)", () => {
    const plain = fresh()
    const record = {...plain, engineWait: {engine: 'Slurm', reason: 'Resources'}}
    expect(encodeRecord(record)).not.toContain('engineWait')
    expect(decodeRecord(encodeRecord(record))).toEqual(plain)
  })

  it('explains text that is not JSON, or JSON that is not an object', () => {
    expect(decodeError('{"id": 1')).toMatch(/not valid JSON/)
    expect(decodeError('')).toMatch(/not valid JSON/)
    expect(decodeError([1, 2])).toMatch(/not a JSON object/)
    expect(decodeError('null')).toMatch(/not a JSON object/)
  })

  it('refuses another schema version, saying which it found: a newer one as a newer drover\'s, not as damage', () => {
    expect(decodeError({...fresh(), schemaVersion: 2})).toBe('written by a newer drover (schemaVersion 2; this drover reads up to 1): upgrade drover')
    expect(decodeError({...fresh(), schemaVersion: 0})).toMatch(/unsupported schemaVersion 0 \(expected 1\)/)
    expect(decodeError({...fresh(), schemaVersion: '2'})).toMatch(/unsupported schemaVersion "2" \(expected 1\)/)
    const {schemaVersion: _dropped, ...rest} = fresh()
    expect(decodeError(rest)).toMatch(/schemaVersion undefined/)
  })

  const broken: [string, Record<string, unknown>][] = [
    ['id', {id: 0}],
    ['id', {id: '7'}],
    ['name', {name: 5}],
    ['command', {command: []}],
    ['command', {command: ['ok', 3]}],
    ['command', {command: 'echo hi'}],
    ['shell', {shell: false}],
    ['cwd', {cwd: null}],
    ['env', {env: {A: 1}}],
    ['env', {env: []}],
    ['agent', {agent: 5}],
    ['agent', {agent: ''}],
    ['policies', {policies: null}],
    ['policies', {policies: {timeoutMs: 1.5, idleTimeoutMs: null, maxOutputBytes: null}}],
    ['status', {status: 'paused'}],
    ['desired', {desired: 'maybe'}],
    ['reason', {reason: 3}],
    ['exitCode', {exitCode: '1'}],
    ['signal', {signal: 9}],
    ['createdAt', {createdAt: null}],
    ['startedAt/endedAt', {startedAt: 12}],
    ['worker', {worker: {pid: -1, startTime: '1'}}],
    ['worker', {worker: {pid: 12}}],
    ['runs', {runs: [{run: 1, status: 'nope', exitCode: null, reason: null}]}],
    ['runs', {runs: 'none'}],
    ['agentInfo', {agentInfo: 'x'}],
    ['checkpoint', {checkpoint: []}],
  ]
  it.each(broken)("names the field '%s' when it is wrong", (field, patch) => {
    expect(decodeError({...fresh(), ...patch})).toBe(`field '${field}' is missing or has the wrong type`)
  })

  it("reads an agent it has no profile for (a newer drover's) as that name, in the record and its checkpoint", () => {
    const checkpoint = {profile: 'some-future-agent', sessionId: 's-1', sessionDir: '/s', forced: false, mode: 'safe-point', tookMs: 5, at: '2024-01-01T00:00:01.000Z'}
    const record = {...moveTo(fresh(), {status: 'running'}), agent: 'some-future-agent', checkpoint}
    expect(decodeRecord(encodeRecord(record as TaskRecord))).toEqual(record)
    expect(decodeError({...record, checkpoint: {...checkpoint, profile: 7}})).toBe("field 'checkpoint' is missing or has the wrong type")
  })

  it('names a missing field the same way', () => {
    for (const field of ['command', 'cwd', 'status', 'runs']) {
      const record = {...fresh()} as Record<string, unknown>
      delete record[field]
      expect(decodeError(record)).toContain(`'${field}'`)
    }
  })

  it('never throws anything but a RecordError, whatever the text', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.json(), fc.jsonValue().map((v) => asJson({...fresh(), status: v}))), (text) => {
        try {
          decodeRecord(text)
        } catch (error) {
          return error instanceof RecordError
        }
        return true
      }),
    )
  })
})

describe('transitions', () => {
  const legal: [TaskStatus, TaskStatus][] = [
    ['starting', 'running'],
    ['starting', 'failed'],
    ['running', 'stopping'],
    ['running', 'succeeded'],
    ['running', 'lost'],
    ['stopping', 'stopped'],
    ['stopping', 'drained'],
    ['lost', 'stopped'],
    ['failed', 'starting'],
    ['cancelled', 'starting'],
  ]
  const illegal: [TaskStatus, TaskStatus][] = [
    ['starting', 'succeeded'],
    ['starting', 'drained'],
    ['running', 'starting'],
    ['running', 'running'],
    ['stopping', 'running'],
    ['succeeded', 'failed'],
    ['succeeded', 'running'],
    ['failed', 'succeeded'],
    ['stopped', 'running'],
    ['cancelled', 'running'],
    ['drained', 'running'],
    ['lost', 'running'],
    ['lost', 'succeeded'],
  ]

  const at = (status: TaskStatus): TaskRecord => ({...fresh(), status})

  it.each(legal)('allows %s -> %s', (from, to) => {
    expect(canTransition(from, to)).toBe(true)
    expect(moveTo(at(from), {status: to}).status).toBe(to)
  })

  it.each(illegal)('refuses %s -> %s by throwing', (from, to) => {
    expect(canTransition(from, to)).toBe(false)
    expect(() => moveTo(at(from), {status: to})).toThrow(`illegal status change for task 7: ${from} -> ${to}`)
  })

  it('no final status can go anywhere but back to starting or queued (a new run), except lost being corrected', () => {
    for (const from of FINAL_STATUSES) {
      for (const to of TASK_STATUSES) {
        if (!canTransition(from, to)) continue
        expect(to === 'starting' || to === 'queued' || from === 'lost').toBe(true)
      }
    }
    // A cancelled task, too, may be started again as a new run (`start ID`).
    expect(canTransition('cancelled', 'starting')).toBe(true)
  })

  it('stamps start and end times and keeps the current run in step', () => {
    const running = moveTo(fresh(), {status: 'running', at: '2024-01-01T00:00:01.000Z'})
    expect(running.startedAt).toBe('2024-01-01T00:00:01.000Z')
    expect(running.endedAt).toBeNull()
    const failed = moveTo(running, {status: 'failed', reason: 'exit 3', exitCode: 3, at: '2024-01-01T00:00:05.000Z'})
    expect(failed).toMatchObject({status: 'failed', reason: 'exit 3', exitCode: 3, endedAt: '2024-01-01T00:00:05.000Z'})
    expect(failed.runs).toEqual([
      expect.objectContaining({run: 1, status: 'failed', reason: 'exit 3', exitCode: 3, startedAt: '2024-01-01T00:00:01.000Z', endedAt: '2024-01-01T00:00:05.000Z'}),
    ])
    // the input is never mutated
    expect(running.status).toBe('running')
    expect(running.runs[0].status).toBe('running')
  })

  it('beginRun opens a new run on a final task, clearing the last outcome but keeping history', () => {
    const ended = moveTo(moveTo(fresh(), {status: 'running'}), {status: 'failed', reason: 'exit 1', exitCode: 1})
    const again = beginRun(ended, true, ['claude', '--resume', 's1'])
    expect(again).toMatchObject({status: 'starting', desired: 'running', reason: null, exitCode: null, signal: null, worker: null, startedAt: null, endedAt: null})
    expect(again.runs.map((r) => [r.run, r.status, r.resumed])).toEqual([[1, 'failed', false], [2, 'starting', true]])
    expect(again.runs[1].command).toEqual(['claude', '--resume', 's1'])
    expect(() => beginRun(moveTo(fresh(), {status: 'running'}), false)).toThrow(/illegal status change/)
  })
})

describe('taskExitCode', () => {
  it('is the exit code, else 128 + the signal number, else 0 for success and 1 otherwise', () => {
    const base = fresh()
    expect(taskExitCode({...base, status: 'failed', exitCode: 3}, signalNumber)).toBe(3)
    expect(taskExitCode({...base, status: 'succeeded', exitCode: 0}, signalNumber)).toBe(0)
    expect(taskExitCode({...base, status: 'failed', exitCode: null, signal: 'SIGKILL'}, signalNumber)).toBe(137)
    expect(taskExitCode({...base, status: 'failed', exitCode: null, signal: 'SIGTERM'}, signalNumber)).toBe(143)
    expect(taskExitCode({...base, status: 'lost'}, signalNumber)).toBe(1)
  })
})

describe('queued and skipped', () => {
  it('a record written before queues existed decodes with no queue and no dependencies', () => {
    const old = JSON.parse(asJson(fresh()))
    for (const key of ['queue', 'priority', 'after', 'afterEnded', 'queuedAt']) delete old[key]
    expect(decodeRecord(JSON.stringify(old))).toMatchObject({queue: null, priority: 0, after: [], afterEnded: [], queuedAt: null})
  })

  it('a task with a queue or dependencies is created queued, with its place in line stamped', () => {
    const queued = newRecord(8, {...spec, queue: 'q', after: [3]}, '2024-01-01T00:00:00.000Z')
    expect(queued).toMatchObject({status: 'queued', queue: 'q', after: [3], queuedAt: '2024-01-01T00:00:00.000Z', runs: [{status: 'queued'}]})
    expect(decodeRecord(asJson(queued))).toEqual(queued)
    expect(fresh()).toMatchObject({status: 'starting', queuedAt: null})
  })

  it('a queued run starts or ends without ever running; skipped is final and may be queued again', () => {
    for (const to of ['starting', 'cancelled', 'stopped', 'drained', 'skipped'] as const) expect(canTransition('queued', to)).toBe(true)
    for (const to of ['running', 'stopping', 'succeeded', 'failed', 'lost'] as const) expect(canTransition('queued', to)).toBe(false)
    expect(FINAL_STATUSES).toContain('skipped')
    expect(canTransition('skipped', 'queued')).toBe(true)
    const skipped = moveTo(newRecord(8, {...spec, after: [3]}), {status: 'skipped', reason: 'dependency 3 failed (exit 1)'})
    expect(skipped.runs[0]).toMatchObject({status: 'skipped', reason: 'dependency 3 failed (exit 1)', startedAt: null})
    expect(beginRun(skipped, false, null, undefined, 'queued')).toMatchObject({status: 'queued', runs: [{}, {run: 2, status: 'queued'}]})
  })

  it('rejects malformed queue fields', () => {
    expect(decodeError({...fresh(), after: [0]})).toContain("'after'")
    expect(decodeError({...fresh(), priority: 1.5})).toContain("'priority'")
    expect(decodeError({...fresh(), queue: 3})).toContain("'queue'")
  })
})
