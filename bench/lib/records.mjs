// Big state dirs, fast: writes final task records straight to disk in the
// shape src/state/record.ts declares (schemaVersion 1), with the empty files
// a real task has, so `list` and `status` see ordinary finished tasks.

import {mkdirSync, writeFileSync} from 'node:fs'
import path from 'node:path'

const FINAL = ['succeeded', 'succeeded', 'succeeded', 'failed', 'stopped', 'cancelled', 'drained', 'lost']
const COMMANDS = [
  ['claude', '-p', 'make the tests pass', '--output-format', 'stream-json', '--verbose'],
  ['codex', 'exec', 'refactor the parser'],
  ['npm', 'test'],
  ['sleep', '60'],
]

function outcome(status, i) {
  switch (status) {
    case 'succeeded':
      return {exitCode: 0, signal: null, reason: 'exit 0'}
    case 'failed':
      return {exitCode: 1 + (i % 3), signal: null, reason: `exit ${1 + (i % 3)}`}
    case 'stopped':
      return {exitCode: null, signal: 'SIGTERM', reason: 'stopped by request'}
    case 'cancelled':
      return {exitCode: null, signal: 'SIGTERM', reason: 'cancelled by request'}
    case 'drained':
      return {exitCode: 0, signal: null, reason: 'drained'}
    default:
      return {exitCode: null, signal: null, reason: 'runner vanished without recording an end'}
  }
}

/** One final record, varied by `id` so the set looks like a real history. */
export function finalRecord(id, base = Date.parse('2025-01-01T00:00:00Z')) {
  const status = FINAL[id % FINAL.length]
  const command = COMMANDS[id % COMMANDS.length]
  const agent = command[0] === 'claude' ? 'claude' : command[0] === 'codex' ? 'codex' : 'generic'
  const created = base + id * 60_000
  const startedAt = new Date(created + 150).toISOString()
  const endedAt = new Date(created + 150 + 1000 * (1 + (id % 600))).toISOString()
  const {exitCode, signal, reason} = outcome(status, id)
  return {
    schemaVersion: 1,
    id,
    name: id % 5 === 0 ? `job-${id}` : null,
    command,
    shell: null,
    cwd: '/home/user/project',
    env: id % 7 === 0 ? {MODEL: 'fast', API_TOKEN: 'secret'} : {},
    agent,
    policies: {timeoutMs: null, idleTimeoutMs: null, maxOutputBytes: 1073741824},
    status,
    desired: status === 'stopped' || status === 'cancelled' ? 'stopped' : 'running',
    reason,
    exitCode,
    signal,
    createdAt: new Date(created).toISOString(),
    startedAt,
    endedAt,
    worker: {pid: 10_000 + (id % 50_000), startTime: String(1_000_000 + id)},
    runs: [{run: 1, startedAt, endedAt, status, exitCode, signal, reason, resumed: false, command: null}],
    agentInfo:
      agent === 'generic'
        ? null
        : {sessionId: `sess-${id}`, turns: id % 40, lastEvent: 'result', costUsd: null, inputTokens: null, outputTokens: null},
    checkpoint: null,
  }
}

/** Writes tasks `from` … `from + count - 1` into the state dir (which must exist, 0700). */
export function writeFinalTasks(stateDir, count, from = 1) {
  const tasks = path.join(stateDir, 'tasks')
  mkdirSync(tasks, {recursive: true, mode: 0o700})
  mkdirSync(path.join(stateDir, 'locks'), {recursive: true, mode: 0o700})
  // The live index drover keeps (src/state/live-index.ts): empty, as every task here has ended.
  mkdirSync(path.join(stateDir, 'live'), {recursive: true, mode: 0o700})
  for (let id = from; id < from + count; id++) {
    const dir = path.join(tasks, String(id))
    mkdirSync(dir, {mode: 0o700})
    writeFileSync(path.join(dir, 'task.json'), JSON.stringify(finalRecord(id), null, 2) + '\n', {mode: 0o600})
    writeFileSync(path.join(dir, 'output.log'), '', {mode: 0o600})
    writeFileSync(path.join(dir, 'events.ndjson'), '', {mode: 0o600})
  }
  // The high-water mark, one line per task as drover appends it (src/state/store.ts).
  const marks = Array.from({length: count}, (_, i) => `${from + i}\n`).join('')
  writeFileSync(path.join(stateDir, 'last-id'), marks, {mode: 0o600, flag: 'a'})
}
