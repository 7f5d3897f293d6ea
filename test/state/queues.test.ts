import {mkdirSync, mkdtempSync, writeFileSync} from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import {describe, expect, it} from 'vitest'
import {
  addWaiting,
  AFTER_QUEUE,
  effectiveQueue,
  idOfKey,
  listQueueNames,
  readQueueConfig,
  waitingKey,
  waitingKeys,
  writeQueueConfig,
} from '../../src/state/queues.js'

const at = (ms: number) => new Date(ms).toISOString()

describe('waiting keys', () => {
  it('sort into start order: higher priority, then earlier in line, then lower id', () => {
    const keys = [
      waitingKey({id: 9, priority: 0, queuedAt: at(2000)}),
      waitingKey({id: 3, priority: 0, queuedAt: at(1000)}),
      waitingKey({id: 12, priority: 5, queuedAt: at(9000)}),
      waitingKey({id: 4, priority: 0, queuedAt: at(1000)}),
      waitingKey({id: 1, priority: -999, queuedAt: at(0)}),
      waitingKey({id: 2, priority: 999, queuedAt: at(99_999)}),
    ]
    expect(keys.sort().map(idOfKey)).toEqual([2, 12, 3, 4, 9, 1])
  })

  it('are what waitingKeys lists, in order; stray names are ignored', () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'drover-queues-'))
    addWaiting(dir, 'q', waitingKey({id: 2, priority: 0, queuedAt: at(5)}))
    addWaiting(dir, 'q', waitingKey({id: 1, priority: 1, queuedAt: at(9)}))
    writeFileSync(path.join(dir, 'queues', 'q', 'waiting', 'junk'), '')
    expect(waitingKeys(dir, 'q').map(idOfKey)).toEqual([1, 2])
  })
})

describe('queue settings and names', () => {
  it('a queue never set runs one at a time; settings round-trip; names keep a .json of their own', () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'drover-queues-'))
    expect(readQueueConfig(dir, 'q')).toEqual({name: 'q', parallel: 1, paused: false})
    writeQueueConfig(dir, {name: 'q', parallel: 4, paused: true})
    expect(readQueueConfig(dir, 'q')).toEqual({name: 'q', parallel: 4, paused: true})
    writeQueueConfig(dir, {name: 'a.json', parallel: 2, paused: false})
    mkdirSync(path.join(dir, 'queues', AFTER_QUEUE, 'waiting'), {recursive: true})
    expect(listQueueNames(dir)).toEqual([AFTER_QUEUE, 'a.json', 'q'].sort())
    expect(readQueueConfig(dir, AFTER_QUEUE).parallel).toBe(Number.POSITIVE_INFINITY)
  })

  it('a task waits in its queue, else the unlimited one when it has dependencies or a retry pending, else none', () => {
    expect(effectiveQueue({queue: 'q', after: [1], afterEnded: []})).toBe('q')
    expect(effectiveQueue({queue: null, after: [1], afterEnded: []})).toBe(AFTER_QUEUE)
    expect(effectiveQueue({queue: null, after: [], afterEnded: [], retryAt: at(0)})).toBe(AFTER_QUEUE)
    expect(effectiveQueue({queue: null, after: [], afterEnded: []})).toBeNull()
  })
})
