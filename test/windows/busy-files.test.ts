// Windows will not replace or remove a file another process holds open
// without sharing delete — a reader, the search indexer, an antivirus scan
// (Wine refuses it for any open handle). drover waits such a hold out
// (platform.busyRetryDelays) instead of losing a record update or failing a
// prune. Here a real process holds task.json open while drover's runner
// rewrites it and while prune and rm remove the task.

import {spawn, type ChildProcess} from 'node:child_process'
import {existsSync} from 'node:fs'
import path from 'node:path'
import {afterEach, describe, expect, it} from 'vitest'
import {cleanupStateDirs, drover, makeStateDir, readTask, startOk, taskEvents, waitFor} from '../helpers/cli.js'

const holders: ChildProcess[] = []
afterEach(() => {
  for (const holder of holders.splice(0)) holder.kill()
  cleanupStateDirs()
})

// Opens the file, says so, and closes it when told (a line on stdin) or after ms.
// libuv opens with every FILE_SHARE_* flag unless given UV_FS_O_EXLOCK
// (0x10000000 on Windows): then no sharing at all, as a scanner holds a file.
const HOLD_SCRIPT = `
const fs = require('node:fs')
const fd = fs.openSync(process.argv[1], fs.constants.O_RDONLY | 0x10000000)
const release = () => { fs.closeSync(fd); process.exit(0) }
process.stdout.write('held\\n')
process.stdin.on('data', release)
setTimeout(release, Number(process.argv[2]))
`

interface Hold {
  /** closes the file now; resolves once the holder has exited. */
  release: () => Promise<void>
  /** resolves when the holder has closed the file (and exited). */
  released: Promise<void>
}

/** Another process opens `file` and keeps it open until released, at most `ms`; resolves once it is open. */
async function hold(file: string, ms: number): Promise<Hold> {
  const child = spawn(process.execPath, ['-e', HOLD_SCRIPT, file, String(ms)], {stdio: ['pipe', 'pipe', 'inherit'], windowsHide: true})
  holders.push(child)
  let out = ''
  const released = new Promise<void>((resolve) => child.on('exit', () => resolve()))
  await new Promise<void>((resolve, reject) => {
    child.stdout!.on('data', (chunk) => {
      out += String(chunk)
      if (out.includes('held')) resolve()
    })
    child.on('exit', (code) => reject(new Error(`the holder exited (${code}) before opening ${file}`)))
  })
  return {
    released,
    release: () => {
      child.stdin!.end('release\n')
      return released
    },
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))
const hasEvent = (dir: string, id: number, name: string) => taskEvents(dir, id).some((e) => e.event === name)

const recordOf = (stateDir: string, id: number) => path.join(stateDir, 'tasks', String(id), 'task.json')
const LONG = ['--', process.execPath, '-e', 'setInterval(() => {}, 1000)']

describe('a file held open by another process (Windows sharing)', () => {
  it("the runner's record updates wait the hold out: a cancel is recorded, killed, with nothing lost", async () => {
    const dir = makeStateDir()
    const id = await startOk(dir, LONG)
    await waitFor(() => readTask(dir, id).status === 'running', {message: 'the task to run'})
    // Held from before the cancel until well after it began: its first read of
    // the record, the runner's reads and the `stopping` write all wait.
    const held = await hold(recordOf(dir, id), 60_000)
    const began = Date.now()
    const cancel = drover(dir, ['cancel', String(id)])
    await sleep(2500)
    expect(hasEvent(dir, id, 'stopping')).toBe(false)
    const releasedAt = Date.now()
    await held.release()
    const result = await cancel
    expect(result.exitCode, result.stderr).toBe(0)
    const request = taskEvents(dir, id).find((e) => e.event === 'request')
    expect(Date.parse(request.ts)).toBeGreaterThanOrEqual(releasedAt - 50)
    expect(Date.parse(request.ts) - began).toBeLessThan(2500 + 3300 + 5000)
    await waitFor(() => readTask(dir, id).status === 'cancelled', {message: 'the cancel to be recorded', timeout: 30_000})
    const task = readTask(dir, id)
    // A windowless console program ends only on taskkill /F: killed, not "exit 0".
    expect(task.signal).toBe('SIGKILL')
    expect(task.exitCode).toBeNull()
    expect(taskEvents(dir, id).some((e) => e.event === 'runner-error' || (e.event === 'exit' && e.status === 'lost'))).toBe(false)
  })

  it('prune and rm wait the hold out and remove the task', async () => {
    const dir = makeStateDir()
    const first = await startOk(dir, ['--', process.execPath, '-e', '0'])
    const second = await startOk(dir, ['--', process.execPath, '-e', '0'])
    await waitFor(() => readTask(dir, first).status === 'succeeded' && readTask(dir, second).status === 'succeeded', {message: 'both tasks to end'})

    // prune: under its lock, the task's folder cannot be moved aside while a file in it is held
    let held = await hold(recordOf(dir, first), 60_000)
    const prune = drover(dir, ['prune', '--keep', '1', '--json'])
    await waitFor(() => existsSync(path.join(dir, 'locks', 'prune.lock')), {message: 'prune to take its lock', interval: 20})
    await sleep(500)
    expect(existsSync(path.join(dir, 'tasks', String(first)))).toBe(true)
    await held.release()
    const pruned = await prune
    expect(pruned.exitCode, pruned.stderr).toBe(0)
    expect(JSON.parse(pruned.stdout).removed.map((t: {id: number}) => t.id)).toEqual([first])
    expect(existsSync(path.join(dir, 'tasks', String(first)))).toBe(false)

    // rm: the same removal, by name
    held = await hold(recordOf(dir, second), 60_000)
    const rm = drover(dir, ['rm', String(second)])
    await waitFor(() => existsSync(path.join(dir, 'locks', 'prune.lock')), {message: 'rm to take the removal lock', interval: 20})
    await sleep(500)
    expect(existsSync(path.join(dir, 'tasks', String(second)))).toBe(true)
    await held.release()
    const removed = await rm
    expect(removed.exitCode, removed.stderr).toBe(0)
    expect(existsSync(path.join(dir, 'tasks', String(second)))).toBe(false)
  })
})

describe('what has no Windows meaning', () => {
  it('--executor slurm is refused in one sentence, and nothing is written', async () => {
    const dir = makeStateDir()
    const result = await drover(dir, ['start', '--executor', 'slurm', '--', process.execPath, '-e', '0'])
    expect(result.exitCode).toBe(2)
    expect(result.stderr.trim().split('\n')).toHaveLength(1)
    expect(result.stderr).toMatch(/^drover: --executor slurm is not available on Windows/)
    expect(existsSync(path.join(dir, 'tasks'))).toBe(false)
  })
})
