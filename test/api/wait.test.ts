// wait --queue's batch: the queue's live tasks and those that ran alongside
// them since the queue was last empty (or, with none live, the last batch).

import {describe, expect, it} from 'vitest'
import {queueBatch} from '../../src/api/wait.js'
import {isFinalStatus, type TaskStatus} from '../../src/state/record.js'

const at = (s: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, s)).toISOString()
const task = (id: number, from: number, to: number | null, status: TaskStatus = to === null ? 'running' : 'failed', runs: {endedAt: string | null}[] = [{endedAt: null}]) =>
  ({id, status, createdAt: at(from), endedAt: to === null ? null : at(to), runs}) as any

describe('queueBatch', () => {
  it('takes the live tasks and the ended ones that overlapped them, not an earlier batch', () => {
    const tasks = [task(1, 0, 5), task(2, 10, 20), task(3, 12, null), task(4, 15, 16)]
    expect(queueBatch(tasks, isFinalStatus)).toEqual([2, 3, 4])
  })

  it('with none live, the last batch (ended already)', () => {
    expect(queueBatch([task(1, 0, 5), task(2, 6, 8), task(3, 7, 9)], isFinalStatus)).toEqual([2, 3])
    expect(queueBatch([task(1, 0, 5, 'failed')], isFinalStatus)).toEqual([1])
    expect(queueBatch([], isFinalStatus)).toEqual([])
  })

  it('a task on a later run spans from the end of its run before, not its creation', () => {
    const restarted = task(1, 0, null, 'running', [{endedAt: at(30)}, {endedAt: null}])
    expect(queueBatch([task(2, 10, 20), restarted], isFinalStatus)).toEqual([1])
  })
})
