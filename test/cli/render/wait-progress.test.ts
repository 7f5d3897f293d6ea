// The row `wait` shows for a task not ended yet: who it is and what it does now.

import {describe, expect, it} from 'vitest'
import type {TaskJson} from '../../../src/api/task-json.js'
import {progressTitle} from '../../../src/cli/render/wait-progress.js'

const task = (over: Partial<TaskJson>) => ({id: 4, name: 'build', status: 'running', reason: null, pid: null, position: null, ...over}) as TaskJson

describe('progressTitle', () => {
  it('running with its pid, queued with what it waits for and its place, waiting with when it resumes', () => {
    expect(progressTitle(task({pid: 123}))).toBe('task 4 (build): running (pid 123)')
    expect(progressTitle(task({status: 'queued', reason: 'waiting for a slot in queue agents', position: 2}))).toBe('task 4 (build): queued, waiting for a slot in queue agents (#2 in line)')
    expect(progressTitle(task({status: 'queued', name: null, reason: 'waiting for task 3 to succeed'}))).toBe('task 4: queued, waiting for task 3 to succeed')
    const at = new Date(2026, 11, 2, 14, 5, 0)
    expect(progressTitle(task({status: 'waiting', waitUntil: at.toISOString()}), new Date(2026, 11, 2, 13, 0))).toBe('task 4 (build): waiting for its usage limit to lift; resumes 14:05:00')
  })
})
