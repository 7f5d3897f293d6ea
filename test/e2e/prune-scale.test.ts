// A big prune through the built CLI, where the claimed trees are deleted on
// threads of their own (src/tasks/trash-threads.ts, from 64 removals): every
// guarantee of the small path holds there too — live work and a task another
// command holds stay, each removed task is reported with the bytes it held,
// no trash or task lock is left behind, and a tree that cannot be deleted is
// an error of its task (exit 1) that the next prune clears.

import {spawn, type ChildProcess, execFileSync} from 'node:child_process'
import {readdirSync, writeFileSync} from 'node:fs'
import path from 'node:path'
import {afterEach, describe, expect, it} from 'vitest'
import {acquireLock, taskLockPath} from '../../src/state/lock.js'
import {processStartTime} from '../../src/platform/platform.js'
import {ensureStateDir} from '../../src/state/statedir.js'
import {taskPaths} from '../../src/state/store.js'
import {treeBytes} from '../../src/tasks/tree-delete.js'
import {makeTask} from '../fixtures/prune-state.js'
import {canMountTmpfs} from '../fixtures/rel-state.js'
import {cleanupStateDirs, drover, fixture, json, makeStateDir, waitFor} from '../helpers/cli.js'

const children: ChildProcess[] = []
const mounted: string[] = []
afterEach(() => {
  for (const child of children.splice(0)) child.kill('SIGKILL')
  for (const m of mounted.splice(0)) execFileSync('umount', ['-l', m], {stdio: 'ignore'})
  cleanupStateDirs()
})

const COUNT = 150
const KEEP = 5

function endedTasks(dir: string, count: number): number[] {
  const base = Date.now() - 3_600_000
  return Array.from({length: count}, (_, i) => makeTask(dir, {status: i % 3 === 0 ? 'failed' : 'succeeded', endedAt: new Date(base + i * 1000).toISOString(), outputBytes: 100 + i}))
}

describe('prune at scale (deletion on threads)', () => {
  it('removes each picked task whole with the bytes it held; a live runner, a held lock and the newest stay; no trash or lock is left', {timeout: 120_000}, async () => {
    const dir = makeStateDir()
    ensureStateDir(dir)
    const made = endedTasks(dir, COUNT)
    // An ended task whose runner still lives (a stand-in process), and one another command holds the lock of.
    const runner = spawn(process.execPath, [fixture('sleeper.mjs'), '120'], {stdio: 'ignore'})
    children.push(runner)
    await waitFor(() => processStartTime(runner.pid!) !== null, {message: 'runner up'})
    const [withRunner, held] = [made[10], made[20]]
    const runnerTask = makeTask(dir, {status: 'succeeded', runnerPid: runner.pid, endedAt: new Date(Date.now() - 7_200_000).toISOString()})
    const release = await acquireLock(taskLockPath(dir, held))
    const kept = made.slice(-KEEP)
    // made[10] names the live runner too: a protected task in the middle of a batch.
    writeFileSync(taskPaths(dir, withRunner).runner, JSON.stringify({pid: runner.pid, startTime: processStartTime(runner.pid!)}))
    const sizes = new Map(made.map((id) => [id, treeBytes(taskPaths(dir, id).dir)]))

    const result = await drover(dir, ['prune', '--keep', String(KEEP), '--json'])
    release()
    expect([result.exitCode, result.stderr]).toEqual([0, ''])
    const out = json(result)
    const removedIds = out.removed.map((t: {id: number}) => t.id)
    // Oldest first, as planned.
    expect(removedIds).toEqual(made.slice(0, -KEEP).filter((id) => id !== withRunner && id !== held))
    expect([...out.skipped].sort((a: {id: number}, b: {id: number}) => a.id - b.id)).toEqual([
      {id: withRunner, reason: 'its runner is still alive'},
      {id: held, reason: 'another drover command is changing it'},
      {id: runnerTask, reason: 'its runner is still alive'},
    ])
    for (const task of out.removed) expect([task.id, task.bytes]).toEqual([task.id, sizes.get(task.id)])
    expect(out.bytesReclaimed).toBe(removedIds.reduce((sum: number, id: number) => sum + sizes.get(id)!, 0))
    expect(out.errors).toEqual([])
    expect(out.kept).toBe(KEEP + 3)
    // Nothing hidden left: no trash folder, no released lock, not a lock of a removed task.
    expect(readdirSync(path.join(dir, 'tasks')).map(Number).sort((a, b) => a - b)).toEqual([withRunner, held, ...kept, runnerTask].sort((a, b) => a - b))
    expect(readdirSync(path.join(dir, 'locks')).filter((name) => name.startsWith('task-'))).toEqual([])
  })

  it.skipIf(!canMountTmpfs())('a tree that cannot be deleted is its task\'s error (exit 1); the rest go, and the next prune clears what stayed', {timeout: 120_000}, async () => {
    const dir = makeStateDir()
    ensureStateDir(dir)
    const made = endedTasks(dir, COUNT)
    const stuck = made[40]
    // A mount inside the task folder: rmdir of it fails with EBUSY, as a busy folder would.
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=64k', 'tmpfs', taskPaths(dir, stuck).requests])

    const first = await drover(dir, ['prune', '--keep', String(KEEP), '--json'])
    expect(first.exitCode).toBe(1)
    const out = json(first)
    expect(out.removed.map((t: {id: number}) => t.id)).toEqual(made.slice(0, -KEEP))
    expect(out.errors).toEqual([{id: stuck, error: expect.stringMatching(new RegExp(`^task ${stuck} removed from the list, but some files could not be deleted yet: .*EBUSY`))}])
    expect(first.stderr).toMatch(new RegExp(`^drover: task ${stuck} removed from the list, but some files could not be deleted yet`))
    // Out of sight: only the kept tasks and one hidden trash folder holding what stayed.
    const left = readdirSync(path.join(dir, 'tasks'))
    const trash = left.filter((name) => name.startsWith('.trash-'))
    expect(trash).toHaveLength(1)
    expect(left.filter((name) => !name.startsWith('.')).map(Number)).toEqual(made.slice(-KEEP))
    const movedMount = path.join(dir, 'tasks', trash[0], String(stuck), 'requests')
    mounted.push(movedMount)
    const list = json(await drover(dir, ['list', '--json']))
    expect(list.map((t: {id: number}) => t.id)).toEqual(made.slice(-KEEP))

    execFileSync('umount', [movedMount])
    mounted.pop()
    const second = await drover(dir, ['prune', '--keep', String(KEEP), '--json'])
    expect([second.exitCode, second.stderr]).toEqual([0, ''])
    expect(json(second).debris).toEqual(trash)
    expect(readdirSync(path.join(dir, 'tasks')).map(Number)).toEqual(made.slice(-KEEP))
  })
})
