// What the views mask: every -e value (names stay), and credentials inside URLs
// wherever they appear in a command line — but nothing that only looks like one.

import {describe, expect, it} from 'vitest'
import {maskUrlCredentials, redactEnv, storableView, TASK_JSON_VERSION, taskJson} from '../../src/api/task-json.js'
import {checkRecord} from '../../src/state/record-codec.js'

describe('redactEnv', () => {
  it('masks every value whatever its name, and reveals them all when asked', () => {
    const env = {DB_PASS: 'a', AUTH: 'b', PRIVATE_KEY_PEM: 'c', MODEL: 'fast', EMPTY: ''}
    expect(redactEnv(env)).toEqual({DB_PASS: '***', AUTH: '***', PRIVATE_KEY_PEM: '***', MODEL: '***', EMPTY: '***'})
    expect(redactEnv(env, true)).toEqual(env)
  })
})

describe('maskUrlCredentials', () => {
  it.each([
    ['postgres://u:pw@h/db', 'postgres://u:***@h/db'],
    ['DATABASE_URL=mysql://root:s3cr3t@127.0.0.1:3306/x', 'DATABASE_URL=mysql://root:***@127.0.0.1:3306/x'],
    ['git clone https://ghp_abc123@github.com/o/r.git', 'git clone https://***@github.com/o/r.git'],
    ['https://x-access-token:tok@github.com/o/r', 'https://x-access-token:***@github.com/o/r'],
    ['a redis://:onlypw@cache:6379 b amqp://u:p@q/v', 'a redis://:***@cache:6379 b amqp://u:***@q/v'],
  ])('%s → %s', (text, expected) => {
    expect(maskUrlCredentials(text)).toBe(expected)
  })

  it.each([
    'ssh://git@github.com/o/r.git',
    'http://localhost:8080/path?mail=a@b.c',
    'git@github.com:o/r.git',
    'user@example.com',
    'no url at all',
  ])('leaves %s alone', (text) => {
    expect(maskUrlCredentials(text)).toBe(text)
  })
})

describe('the views stored in the ended-task summary', () => {
  // @ts-expect-error -- a plain ES module of the benchmarks, without types
  const made = async () => (await import('../../bench/lib/make-tasks.mjs')).endedRecord(7, '2026-01-02T03:04:05.000Z')

  it('TASK_JSON_VERSION names this shape: a change to its keys must bump it (stored views of the old shape are then rendered afresh)', async () => {
    const record = checkRecord(await made())
    expect({version: TASK_JSON_VERSION, keys: Object.keys(taskJson(record))}).toEqual({
      version: 8,
      keys: [
        'id', 'name', 'group', 'status', 'desired', 'reason', 'cause', 'exitCode', 'signal', 'pid', 'command', 'shell', 'cwd', 'env', 'agent', 'createdAt', 'startedAt',
        'endedAt', 'runtimeMs', 'run', 'runs', 'policies', 'agentInfo', 'checkpoint', 'executor', 'jobId', 'node', 'queue', 'priority', 'after',
        'afterEnded', 'position', 'queuePaused', 'attempt', 'retryMax', 'retryAt', 'retryDelayMs', 'retryOnTimeout', 'onExit', 'onStatus', 'notify', 'hookTimeoutMs', 'worktree',
        'engineWait', 'droppedFollowups', 'built', 'check',
      ],
    })
  })

  it('keeps every key in its place when the one sometimes present, waitUntil, is there: it comes last', async () => {
    const record = checkRecord(await made())
    const waiting = Object.keys(taskJson({...record, status: 'waiting', endedAt: null, waitUntil: '2026-01-02T04:00:00.000Z'}))
    expect(waiting.slice(0, -1)).toEqual(Object.keys(taskJson(record)))
    expect(waiting.slice(-3)).toEqual(['built', 'check', 'waitUntil'])
  })

  it('is stored only where it is a pure function of the record: ended, with an end time once started', async () => {
    const record = checkRecord(await made())
    expect(storableView(record)).toBe(JSON.stringify(taskJson(record)))
    expect(storableView({...record, status: 'running'})).toBeNull()
    expect(storableView({...record, status: 'queued', startedAt: null, endedAt: null})).toBeNull()
    expect(storableView({...record, endedAt: null})).toBeNull() // its runtime would count to now
    expect(storableView({...record, startedAt: null, endedAt: null})).toBe(JSON.stringify(taskJson({...record, startedAt: null, endedAt: null})))
  })
})
