// The fast deletion of a claimed task tree (removal.ts removeClaimedTree): it
// must be as thorough as fs.rm and, like it, never follow a symlink — not a
// link inside the tree, not a link planted as the tree itself. And the sweep
// of folders a killed start left: never one whose record came meanwhile.

import {existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, utimesSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterEach, describe, expect, it} from 'vitest'
import {clearDebris, defaultIo, finalRunnersGone, findDebris, removeClaimedTree} from '../../src/tasks/removal.js'
import {currentPlatform, processStartTime} from '../../src/platform/platform.js'
import {spawn} from 'node:child_process'
import {prepareStart} from '../../src/api/start-options.js'
import {newRecord} from '../../src/tasks/launch.js'
import {cleanupStateDirs, isAlive, makeStateDir, waitFor} from '../helpers/cli.js'
import {moveTo} from '../helpers/record-moves.js'
import {ensureStateDir} from '../../src/state/statedir.js'
import {readAllRecords, taskPaths, writeRecord} from '../../src/state/store.js'
import {linuxOnly, posixOnly} from '../helpers/skips.js'

const dirs: string[] = []
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, {recursive: true, force: true})
  cleanupStateDirs()
})
const tmp = () => {
  const d = mkdtempSync(join(tmpdir(), 'drover-removal-'))
  dirs.push(d)
  return d
}

describe('removeClaimedTree', () => {
  it('removes a task-shaped tree with nested folders, empty and not', async () => {
    const tree = join(tmp(), '.trash-7-abcd')
    mkdirSync(join(tree, 'requests'), {recursive: true})
    mkdirSync(join(tree, 'session', 'deep', 'er'), {recursive: true})
    writeFileSync(join(tree, 'task.json'), '{}')
    writeFileSync(join(tree, 'output.log'), '')
    writeFileSync(join(tree, 'session', 'deep', 'er', 'f'), 'x')
    await removeClaimedTree(tree)
    expect(existsSync(tree)).toBe(false)
  })

  it('ignores a missing path and removes a plain file', async () => {
    const base = tmp()
    await expect(removeClaimedTree(join(base, 'missing'))).resolves.toBeUndefined()
    writeFileSync(join(base, 'file'), 'x')
    await removeClaimedTree(join(base, 'file'))
    expect(existsSync(join(base, 'file'))).toBe(false)
  })

  posixOnly('symlinks').it('unlinks symlinks inside the tree and in its place, never what they point to', async () => {
    const base = tmp()
    const outside = join(base, 'outside')
    mkdirSync(join(outside, 'sub'), {recursive: true})
    writeFileSync(join(outside, 'keep.txt'), 'keep')
    writeFileSync(join(outside, 'sub', 'keep.txt'), 'keep')
    const tree = join(base, 'tree')
    mkdirSync(join(tree, 'session'), {recursive: true})
    symlinkSync(outside, join(tree, 'session', 'dirlink'))
    symlinkSync(join(outside, 'keep.txt'), join(tree, 'filelink'))
    await removeClaimedTree(tree)
    expect(existsSync(tree)).toBe(false)
    const planted = join(base, 'planted')
    symlinkSync(outside, planted)
    await removeClaimedTree(planted)
    expect(existsSync(planted)).toBe(false)
    expect(readFileSync(join(outside, 'keep.txt'), 'utf8')).toBe('keep')
    expect(readFileSync(join(outside, 'sub', 'keep.txt'), 'utf8')).toBe('keep')
  })
})

describe('clearDebris', () => {
  /** A state dir with tasks/3 as a start killed before its record leaves it, ten minutes ago. */
  function leftEmpty(): string {
    const stateDir = tmp()
    ensureStateDir(stateDir)
    const task = join(stateDir, 'tasks', '3')
    for (const sub of ['requests', 'session']) mkdirSync(join(task, sub), {recursive: true})
    for (const file of ['output.log', 'events.ndjson']) writeFileSync(join(task, file), '')
    const tenMinutesAgo = new Date(Date.now() - 600_000)
    utimesSync(task, tenMinutesAgo, tenMinutesAgo)
    return stateDir
  }

  it('clears a folder a killed start left, and says so', async () => {
    const stateDir = leftEmpty()
    const debris = findDebris(stateDir, readAllRecords(stateDir))
    expect(debris).toEqual(['3'])
    const errors: {id: number | null; error: string}[] = []
    expect(await clearDebris(stateDir, debris, defaultIo(), currentPlatform(), errors)).toEqual(['3'])
    expect(errors).toEqual([])
    expect(existsSync(join(stateDir, 'tasks', '3'))).toBe(false)
  })

  it('keeps a folder whose start wrote its record after the folder was found, and does not report it', async () => {
    const stateDir = leftEmpty()
    const debris = findDebris(stateDir, readAllRecords(stateDir))
    expect(debris).toEqual(['3'])
    // the start was only stalled: its record comes between the look and the sweep
    writeFileSync(join(stateDir, 'tasks', '3', 'task.json'), '{"id":3}')
    const errors: {id: number | null; error: string}[] = []
    expect(await clearDebris(stateDir, debris, defaultIo(), currentPlatform(), errors)).toEqual([])
    expect(errors).toEqual([])
    expect(readFileSync(join(stateDir, 'tasks', '3', 'task.json'), 'utf8')).toBe('{"id":3}')
  })
})

linuxOnly('/proc, which tells a live stand-in runner').describe('finalRunnersGone', () => {
  it("waits for the runner of a task whose record is final to exit (stop, then rm at once), and no longer than it is told", async () => {
    const stateDir = makeStateDir()
    mkdirSync(taskPaths(stateDir, 1).dir, {recursive: true})
    const base = newRecord(1, prepareStart({command: ['true']}).spec)
    writeRecord(stateDir, moveTo({...moveTo(base, {status: 'running'}), worker: {pid: 4321, startTime: '1'}}, {status: 'stopped', cause: 'stop', reason: 'stopped by request'}))
    // a live process stands in for the runner on its way out
    const runner = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)'], {stdio: 'ignore'})
    const gone = new Promise((resolve) => runner.once('exit', resolve))
    try {
      await waitFor(() => processStartTime(runner.pid!) !== null, {message: 'the stand-in to start'})
      writeFileSync(taskPaths(stateDir, 1).runner, JSON.stringify({pid: runner.pid, startTime: processStartTime(runner.pid!)}))
      // told 100 ms: back while it still lives
      await finalRunnersGone(stateDir, [1], currentPlatform(), 100)
      expect(isAlive(runner.pid!)).toBe(true)
      let killed = false
      setTimeout(() => {
        killed = true
        runner.kill('SIGKILL')
      }, 300)
      await finalRunnersGone(stateDir, [1], currentPlatform(), 20_000)
      expect(killed).toBe(true)
      expect(isAlive(runner.pid!)).toBe(false)
    } finally {
      runner.kill('SIGKILL')
      await gone
    }
  })
})
