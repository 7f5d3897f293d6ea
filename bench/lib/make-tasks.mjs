// Ended tasks for the prune benchmark, written straight to disk in the shape
// src/state/record.ts declares (schemaVersion 1): a task.json, a small
// output.log and events.ndjson, and the empty requests/ and session/ folders.

import {mkdirSync, writeFileSync} from 'node:fs'
import path from 'node:path'

const STATUSES = ['succeeded', 'succeeded', 'failed', 'stopped', 'cancelled', 'lost']

/** One ended record; `endedAt` an ISO time. */
export function endedRecord(id, endedAt) {
  const status = STATUSES[id % STATUSES.length]
  const ended = Date.parse(endedAt)
  const createdAt = new Date(ended - 120_000).toISOString()
  const startedAt = new Date(ended - 119_000).toISOString()
  const exitCode = status === 'succeeded' ? 0 : status === 'failed' ? 2 : null
  const signal = status === 'stopped' || status === 'cancelled' ? 'SIGTERM' : null
  const reason = exitCode !== null ? `exit ${exitCode}` : status === 'lost' ? 'runner vanished without recording an end' : `${status} by request`
  return {
    schemaVersion: 1,
    id,
    name: id % 4 === 0 ? `job-${id}` : null,
    command: ['npm', 'test'],
    shell: null,
    cwd: '/home/user/project',
    env: {},
    agent: 'generic',
    policies: {timeoutMs: null, idleTimeoutMs: null, maxOutputBytes: 1073741824},
    status,
    desired: signal ? 'stopped' : 'running',
    reason,
    exitCode,
    signal,
    createdAt,
    startedAt,
    endedAt,
    worker: {pid: 20_000 + (id % 40_000), startTime: String(5_000_000 + id)},
    runs: [{run: 1, startedAt, endedAt, status, exitCode, signal, reason, resumed: false, command: null}],
    agentInfo: null,
    checkpoint: null,
  }
}

/**
 * Writes `count` ended tasks with ids from `from`, oldest first, one minute
 * apart and all in the past, plus `last-id`. The state dir must exist (0700).
 */
export function makeEndedTasks(stateDir, count, {from = 1, outputBytes = 2048} = {}) {
  const tasks = path.join(stateDir, 'tasks')
  mkdirSync(tasks, {recursive: true, mode: 0o700})
  mkdirSync(path.join(stateDir, 'locks'), {recursive: true, mode: 0o700})
  // The live index drover keeps (src/state/live-index.ts): empty, as every task here has ended.
  mkdirSync(path.join(stateDir, 'live'), {recursive: true, mode: 0o700})
  const output = 'working on it\n'.repeat(Math.ceil(outputBytes / 14)).slice(0, outputBytes)
  const start = Date.now() - (count + 60) * 60_000
  for (let id = from; id < from + count; id++) {
    const dir = path.join(tasks, String(id))
    const record = endedRecord(id, new Date(start + (id - from) * 60_000).toISOString())
    mkdirSync(path.join(dir, 'requests'), {recursive: true, mode: 0o700})
    mkdirSync(path.join(dir, 'session'), {mode: 0o700})
    writeFileSync(path.join(dir, 'task.json'), JSON.stringify(record, null, 2) + '\n', {mode: 0o600})
    writeFileSync(path.join(dir, 'output.log'), output, {mode: 0o600})
    const events = [
      {ts: record.createdAt, event: 'created', run: 1},
      {ts: record.startedAt, event: 'started', run: 1},
      {ts: record.endedAt, event: 'exit', run: 1, status: record.status},
    ]
    writeFileSync(path.join(dir, 'events.ndjson'), events.map((e) => JSON.stringify(e)).join('\n') + '\n', {mode: 0o600})
  }
  writeFileSync(path.join(stateDir, 'last-id'), `${from + count - 1}\n`, {mode: 0o600})
}
