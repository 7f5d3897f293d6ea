// `drover rm TASK…` end to end: named ended tasks go whole (by id or name, a
// checkpoint or a corrupt record included), live ones are refused with exit 4,
// unknown ones exit 3, a dry run changes nothing, a symlink is never followed,
// and it takes turns with prune through prune's lock.

import {existsSync, mkdirSync, readdirSync, symlinkSync, writeFileSync} from 'node:fs'
import path from 'node:path'
import {afterEach, describe, expect, it, vi} from 'vitest'
import {acquireLock, stateLockPath} from '../../src/state/lock.js'
import {ensureStateDir} from '../../src/state/statedir.js'
import {taskPaths} from '../../src/state/store.js'
import {makeTask, snapshot} from '../fixtures/prune-state.js'
import {cleanupStateDirs, drover, fixture, json, makeStateDir, readTask, waitFor} from '../helpers/cli.js'

vi.setConfig({testTimeout: 120_000})
afterEach(() => cleanupStateDirs())

const taskDirs = (stateDir: string) => readdirSync(path.join(stateDir, 'tasks')).filter((n) => !n.startsWith('.')).sort((a, b) => Number(a) - Number(b))

function state(): string {
  const dir = makeStateDir()
  ensureStateDir(dir)
  return dir
}

describe('rm', () => {
  it('removes named ended tasks by id or name; refuses a running one (exit 4) and says which; unknown refs exit 3', async () => {
    const dir = state()
    const failed = makeTask(dir, {status: 'failed'})
    const drained = makeTask(dir, {status: 'drained', checkpoint: true})
    const kept = makeTask(dir, {status: 'succeeded'})
    const started = await drover(dir, ['start', '--', process.execPath, fixture('sleeper.mjs')])
    const live = Number(started.stdout)
    await waitFor(() => readTask(dir, live).status === 'running', {message: 'running'})

    const r = await drover(dir, ['rm', String(failed), `job${drained}`, String(live), 'nosuch'])
    expect(r.exitCode).toBe(3)
    expect(r.stdout.split('\n')).toEqual([
      expect.stringMatching(new RegExp(`^removed task ${failed} \\(job${failed}\\): failed, ended .*, [\\d.]+ (B|KiB)$`)),
      expect.stringMatching(new RegExp(`^removed task ${drained} \\(job${drained}\\): drained, `)),
    ])
    expect(r.stderr.split('\n')).toEqual([`drover: cannot remove task ${live}: it is running (stop or cancel it first)`, 'drover: no such task: nosuch'])
    expect(taskDirs(dir)).toEqual([String(kept), String(live)])
    expect(readTask(dir, live).status).toBe('running')

    const refused = await drover(dir, ['rm', String(live), '--json'])
    expect(refused.exitCode).toBe(4)
    expect(json(refused)).toEqual({
      dryRun: false, removed: [], kept: 2, skipped: [{id: live, reason: 'it is running (stop or cancel it first)'}],
      errors: [], bytesReclaimed: 0, debris: [], corrupt: [], missing: [],
    })
    expect((await drover(dir, ['rm'])).exitCode).toBe(2)
    expect((await drover(dir, ['rm', '1x'])).exitCode).toBe(2)
  })

  it('a corrupt record goes when named; --dry-run changes no byte; --json is prune\'s shape', async () => {
    const dir = state()
    const corrupt = makeTask(dir, {status: 'succeeded'})
    writeFileSync(taskPaths(dir, corrupt).record, '{"torn')
    const ended = makeTask(dir, {status: 'stopped', endedAt: '2021-05-01T00:00:00.000Z'})
    const before = snapshot(dir)
    const dry = await drover(dir, ['rm', '--dry-run', String(corrupt), String(ended)])
    expect(dry.exitCode, dry.stderr).toBe(0)
    expect(dry.stdout).toMatch(new RegExp(`^would remove task ${corrupt}: corrupt, [\\d.]+ (B|KiB)$`, 'm'))
    expect(snapshot(dir)).toEqual(before)

    const real = await drover(dir, ['rm', '--json', String(corrupt), String(ended)])
    expect(real.exitCode, real.stderr).toBe(0)
    expect(json(real)).toEqual({
      dryRun: false,
      removed: [
        {id: ended, name: `job${ended}`, status: 'stopped', endedAt: '2021-05-01T00:00:00.000Z', bytes: expect.any(Number)},
        {id: corrupt, name: null, status: 'corrupt', endedAt: null, bytes: expect.any(Number)},
      ],
      kept: 0, skipped: [], errors: [], bytesReclaimed: expect.any(Number), debris: [], corrupt: [], missing: [],
    })
    expect(taskDirs(dir)).toEqual([])
  })

  it('never follows a symlink planted as a task folder', async () => {
    const dir = state()
    const outside = path.join(makeStateDir(), 'precious')
    mkdirSync(outside)
    writeFileSync(path.join(outside, 'task.json'), '{}')
    symlinkSync(outside, path.join(dir, 'tasks', '7'))
    const r = await drover(dir, ['rm', '7'])
    expect([r.exitCode, r.stderr]).toEqual([3, 'drover: no such task: 7'])
    expect(existsSync(path.join(outside, 'task.json'))).toBe(true)
  })

  it('waits for a prune holding the lock, then removes', async () => {
    const dir = state()
    const id = makeTask(dir, {status: 'failed'})
    const release = await acquireLock(stateLockPath(dir, 'prune'))
    const removing = drover(dir, ['rm', String(id)])
    let done = false
    void removing.then(() => (done = true))
    // Still held: rm must be waiting on it, with the task in place (a deadline, not a sleep).
    await expect(waitFor(() => done, {timeout: 2500})).rejects.toThrow()
    expect(taskDirs(dir)).toEqual([String(id)])
    release()
    expect((await removing).exitCode).toBe(0)
    expect(taskDirs(dir)).toEqual([])
  })
})
