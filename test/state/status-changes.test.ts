// The journal of status changes the status hooks are to hear of: a line only
// for a change someone listens to, with the record as it left it; read from
// an offset, whole lines only; "pending" only while no supervisor holds it.

import {appendFileSync, chmodSync, existsSync, mkdirSync, writeFileSync} from 'node:fs'
import path from 'node:path'
import {afterEach, describe, expect, it} from 'vitest'
import {newRecord} from '../../src/tasks/launch.js'
import {transition, type TaskRecord} from '../../src/state/record.js'
import {createTaskLayout, taskPaths} from '../../src/state/store.js'
import {markTold, noteStatusChange, statusHookFiles, statusHooksPending, toldUpTo, untoldChanges} from '../../src/state/status-changes.js'
import {cleanupStateDirs, makeStateDir} from '../helpers/cli.js'

afterEach(() => cleanupStateDirs())

const spec = {command: ['true'], shell: null, name: null, cwd: '/', env: {}, agent: 'generic' as const, policies: {timeoutMs: null, idleTimeoutMs: null, maxOutputBytes: null}}

function task(dir: string, extra: Partial<TaskRecord> = {}): TaskRecord {
  const record = {...newRecord(1, spec), ...extra}
  createTaskLayout(taskPaths(dir, 1))
  return record
}

describe('status changes', () => {
  it('notes nothing for a task nobody listens to, nor a write that changes no status', () => {
    const dir = makeStateDir()
    const record = task(dir)
    expect(noteStatusChange(dir, null, record)).toBe(false)
    expect(existsSync(statusHookFiles(dir, 1).changes)).toBe(false)
    const hooked = {...record, onStatus: 'true'}
    expect(noteStatusChange(dir, 'starting', hooked)).toBe(false)
  })

  it('notes each change with the record as it left it, for --on-status, --notify or hooks/on-status', () => {
    const dir = makeStateDir()
    const record = task(dir, {notify: ['desktop']})
    expect(noteStatusChange(dir, null, record)).toBe(true)
    const running = transition(record, {status: 'running'})
    expect(noteStatusChange(dir, 'starting', running)).toBe(true)
    const changes = untoldChanges(dir, 1, 0)
    expect(changes.map((c) => [c.change?.previous, c.change?.status, c.change?.record.status])).toEqual([
      [null, 'starting', 'starting'],
      ['starting', 'running', 'running'],
    ])
    // the state dir's hook is enough
    const plain = task(dir)
    mkdirSync(path.join(dir, 'hooks'))
    writeFileSync(path.join(dir, 'hooks', 'on-status'), '#!/bin/sh\n')
    chmodSync(path.join(dir, 'hooks', 'on-status'), 0o700)
    expect(noteStatusChange(dir, 'starting', transition(plain, {status: 'running'}))).toBe(true)
  })

  it('reads on from the told offset, whole lines only; a torn line is skipped, never told', () => {
    const dir = makeStateDir()
    const record = task(dir, {onStatus: 'true'})
    noteStatusChange(dir, null, record)
    const [first] = untoldChanges(dir, 1, 0)
    markTold(dir, 1, first.end)
    expect(toldUpTo(dir, 1)).toBe(first.end)
    appendFileSync(statusHookFiles(dir, 1).changes, '{"torn\n{"status":"runn')
    const rest = untoldChanges(dir, 1, toldUpTo(dir, 1))
    expect(rest).toHaveLength(1)
    expect(rest[0].change).toBeNull()
  })

  it('is pending while lines are untold and no supervisor holds the lock', () => {
    const dir = makeStateDir()
    const record = task(dir, {onStatus: 'true'})
    expect(statusHooksPending(dir, 1)).toBe(false)
    noteStatusChange(dir, null, record)
    expect(statusHooksPending(dir, 1)).toBe(true)
    mkdirSync(statusHookFiles(dir, 1).lock)
    expect(statusHooksPending(dir, 1)).toBe(false)
  })
})
