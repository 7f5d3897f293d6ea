// A table row cut out of a stored view must hold exactly what the view parsed
// whole holds, for every kind of value a view carries; a view of any other
// shape is parsed whole.

import {describe, expect, it} from 'vitest'
import {newestEndedRows, rowOfView, VIEW_KEYS, viewRow, type TaskRow} from '../../src/api/task-row.js'
import {taskJson, type CorruptTaskJson} from '../../src/api/task-json.js'
import {checkRecord} from '../../src/state/record-codec.js'
import type {TaskRecord} from '../../src/state/record.js'
import type {IndexEntry} from '../../src/state/index.js'

// @ts-expect-error -- a plain ES module of the benchmarks, without types
const made = async (id: number): Promise<TaskRecord> => checkRecord((await import('../../bench/lib/make-tasks.mjs')).endedRecord(id, '2026-01-02T03:04:05.000Z'))

const ROW_KEYS = ['id', 'name', 'group', 'status', 'reason', 'cause', 'exitCode', 'signal', 'pid', 'command', 'shell', 'startedAt', 'runtimeMs', 'agentInfo', 'checkpoint', 'executor', 'jobId', 'node', 'queue', 'position', 'queuePaused', 'attempt', 'retryMax', 'retryAt', 'engineWait'] as const

const pick = (view: Record<string, unknown>) => Object.fromEntries(ROW_KEYS.map((key) => [key, view[key]]))

/** The view's bytes inside a larger buffer, as a segment holds them. */
function inSegment(view: string): {bytes: Buffer; start: number; end: number} {
  const head = Buffer.from('{"id":1,"record":{},"view":')
  const body = Buffer.from(view)
  return {bytes: Buffer.concat([head, body, Buffer.from('}\n')]), start: head.length, end: head.length + body.length}
}

async function variants(): Promise<TaskRecord[]> {
  const base = await made(7)
  const usage = {turns: 12, costUsd: 0.4567, inputTokens: 1, outputTokens: 2}
  return [
    base,
    {...base, name: '日本語 🚀 "quoted" \\ back', reason: 'exit 2 — ünïcode', status: 'failed', exitCode: 2},
    {...base, command: ['sh', '-c', 'echo "hi"\n\tthere', '\u0007bell', ''], name: 'tab\tname'},
    {...base, shell: 'for i in 1 2; do echo $i; done', command: ['/bin/sh', '-c', 'for i in 1 2; do echo $i; done']},
    {...base, env: {'a"queue': 'x', runs: 'y', status: 'z'}, cwd: '/p/"status":1'},
    {...base, agentInfo: {sessionId: 's', lastEvent: null, session: usage, error: null, ...usage, limit: {message: 'm', resetAt: null}}},
    {...base, status: 'drained', checkpoint: {profile: 'generic', sessionId: null, sessionDir: '/x', forced: true, mode: 'forced', tookMs: 5, at: base.endedAt!}},
    {...base, status: 'failed', exitCode: -1, worker: {pid: 0, startTime: '1'}},
    {...base, group: 'auth-fix.2'},
    {...base, queue: 'gpu', priority: -3, after: [1, 2], afterEnded: [3], attempt: 2, retryMax: 4, retryDelayMs: 1500},
    {...base, executor: 'slurm', host: 'node7', slurm: {jobId: '4242', partition: null, time: null, cpus: 2, mem: '1G', drainBeforeLimitS: null, opts: []}},
    {...base, runs: [...base.runs, {...base.runs[0], run: 2, command: ['x', 'y]"policies":{']}], startedAt: null, worker: null},
  ]
}

describe('rowOfView', () => {
  it('holds what the view parsed whole holds, for each kind of value', async () => {
    for (const record of await variants()) {
      const view = JSON.stringify(taskJson(record))
      const {bytes, start, end} = inSegment(view)
      const row = rowOfView(bytes, start, end)
      expect(row, view).not.toBeNull()
      expect(pick(row as unknown as Record<string, unknown>)).toEqual(pick(JSON.parse(view)))
      expect(Object.keys(row!).sort()).toEqual([...ROW_KEYS].sort())
    }
  })

  it('reads the keys in the order taskJson writes them', async () => {
    expect(Object.keys(taskJson(await made(3))).slice(0, VIEW_KEYS.length)).toEqual([...VIEW_KEYS])
  })

  it('gives way (null) to a view of another shape: keys reordered, whitespace, cut short', async () => {
    const view = taskJson(await made(5))
    const {name, id, ...rest} = view
    for (const other of [JSON.stringify({name, id, ...rest}), JSON.stringify(view, null, 1), JSON.stringify(view).slice(0, 200) + '}']) {
      const {bytes, start, end} = inSegment(other)
      expect(rowOfView(bytes, start, end)).toBeNull()
    }
  })

  it('viewRow parses such a view whole', async () => {
    const view = taskJson(await made(5))
    const {name, id, ...rest} = view
    const text = JSON.stringify({name, id, ...rest})
    // the second view of a segment's view column, after another task's
    const bytes = Buffer.from(`{"id":4},${text}`)
    const columns = {view: {bytes, ends: Float64Array.of(8, bytes.length), separator: 0x2c}}
    const entry: IndexEntry = {id: 5, segment: {seq: 1, ids: Float64Array.of(4, 5), render: '1', stamps: null, columns}, k: 1}
    expect(pick(viewRow(entry) as unknown as Record<string, unknown>)).toEqual(pick(view as unknown as Record<string, unknown>))
  })
})

describe('newestEndedRows', () => {
  it('keeps every live task and the newest ended ones, corrupt ones counting as ended', () => {
    const row = (id: number, status: string) => ({id, status}) as TaskRow | CorruptTaskJson
    const rows = [row(1, 'running'), row(2, 'failed'), row(3, 'corrupt'), row(4, 'succeeded'), row(5, 'queued'), row(6, 'stopped')]
    const {tasks, hidden} = newestEndedRows(rows, 2)
    expect(tasks.map((t) => t.id)).toEqual([1, 4, 5, 6])
    expect(hidden).toBe(2)
  })
})
