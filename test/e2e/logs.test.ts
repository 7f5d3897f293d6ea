// `drover logs` end to end against real workers: -n N, and -f seeing every line once and
// in order, exiting with the task's code (128 + signal), holding back a partial line,
// surviving truncation, and leaving the task running on Ctrl-C.

import {execa, type ResultPromise} from 'execa'
import {existsSync, mkdirSync, truncateSync, writeFileSync} from 'node:fs'
import path from 'node:path'
import {afterEach, describe, expect, it, vi} from 'vitest'

import {BIN, cleanupStateDirs, fixture, isAlive, makeStateDir, readOutput, readTask, waitFor, type CliResult} from '../helpers/cli.js'

const node = process.execPath
const FINAL = ['succeeded', 'failed', 'stopped', 'cancelled', 'drained', 'lost']
vi.setConfig({testTimeout: 120_000})

const followers: ResultPromise[] = []
afterEach(() => {
  for (const follower of followers.splice(0)) follower.kill('SIGKILL')
  cleanupStateDirs()
})

/** Runs the CLI keeping stdout byte for byte (execa would strip a final newline). */
function spawnDrover(stateDir: string, args: string[]): ResultPromise {
  const child = execa(node, [BIN, ...args], {
    env: {DROVER_STATE_DIR: stateDir, NO_COLOR: '1'},
    reject: false,
    stripFinalNewline: false,
    timeout: 90_000,
    stdin: 'ignore',
    buffer: true,
  })
  followers.push(child)
  return child
}

async function drover(stateDir: string, args: string[]): Promise<CliResult> {
  const result = await spawnDrover(stateDir, args)
  return {stdout: String(result.stdout), stderr: String(result.stderr), exitCode: result.exitCode ?? -1}
}

/** A follower whose output so far can be read while it runs. */
function follow(stateDir: string, args: string[]) {
  const child = spawnDrover(stateDir, args)
  let stdout = ''
  let stderr = ''
  child.stdout!.on('data', (chunk) => (stdout += chunk))
  child.stderr!.on('data', (chunk) => (stderr += chunk))
  return {child, stdout: () => stdout, stderr: () => stderr}
}

async function startOk(stateDir: string, args: string[]): Promise<number> {
  const result = await drover(stateDir, ['start', ...args])
  expect(result.exitCode, result.stderr).toBe(0)
  return Number(result.stdout)
}

/** A worker driven step by step (see core-steps.mjs); each step returns once the worker has done it. */
function gated(stateDir: string) {
  const dir = path.join(stateDir, 'gate')
  mkdirSync(dir, {recursive: true})
  let step = 0
  return {
    command: ['--', node, fixture('core-steps.mjs'), dir],
    next: async (order: {write?: string; exit?: number; signal?: string}) => {
      const n = ++step
      writeFileSync(path.join(dir, String(n)), JSON.stringify(order))
      if (order.exit === undefined && !order.signal) {
        await waitFor(() => existsSync(path.join(dir, `${n}.done`)), {message: `worker step ${n}`})
      }
    },
  }
}

const waitFinal = (stateDir: string, id: number) =>
  waitFor(() => FINAL.includes(readTask(stateDir, id).status) && readTask(stateDir, id), {timeout: 20_000, message: `task ${id} to end`})

describe('logs -n', () => {
  it('prints the whole log, or only the last N lines', async () => {
    const dir = makeStateDir()
    const id = await startOk(dir, ['--', node, fixture('counter.mjs'), '10', '1', '0'])
    await waitFinal(dir, id)
    const all = Array.from({length: 10}, (_, i) => `line ${i + 1}\n`).join('')
    expect((await drover(dir, ['logs', String(id)])).stdout).toBe(all)
    expect((await drover(dir, ['logs', String(id), '-n', '3'])).stdout).toBe('line 8\nline 9\nline 10\n')
    expect((await drover(dir, ['logs', String(id), '--tail', '1'])).stdout).toBe('line 10\n')
    expect((await drover(dir, ['logs', String(id), '-n', '0'])).stdout).toBe('')
    expect((await drover(dir, ['logs', String(id), '-n', '50'])).stdout).toBe(all)
    const followEnded = await drover(dir, ['logs', String(id), '-f', '-n', '2'])
    expect(followEnded).toMatchObject({exitCode: 0, stdout: 'line 9\nline 10\n'})
    expect((await drover(dir, ['logs', String(id), '-n', '-1'])).exitCode).toBe(2)
  })
})

describe('logs -f', () => {
  it('started before the worker writes, sees every line once and in order, and exits with the task\'s code', async () => {
    const dir = makeStateDir()
    const worker = gated(dir)
    const id = await startOk(dir, worker.command)
    const f = follow(dir, ['logs', '-f', String(id)])
    let expected = ''
    for (let batch = 0; batch < 6; batch++) {
      let text = ''
      for (let i = 0; i < 40; i++) text += `batch ${batch} line ${i}\n`
      expected += text
      await worker.next({write: text})
      await waitFor(() => f.stdout().length >= expected.length, {timeout: 20_000, message: `batch ${batch} in logs -f`})
      expect(f.stdout()).toBe(expected)
    }
    await worker.next({write: 'last words\n', exit: 7})
    const result = await f.child
    expect(result.exitCode).toBe(7)
    expect(String(result.stdout)).toBe(`${expected}last words\n`)
  })

  it('exits with 128 + the signal number when a signal ended the task', async () => {
    const dir = makeStateDir()
    const worker = gated(dir)
    const id = await startOk(dir, worker.command)
    const f = follow(dir, ['logs', '-f', String(id)])
    await worker.next({write: 'about to die\n'})
    await waitFor(() => f.stdout().includes('about to die'), {message: 'output before the signal'})
    await worker.next({signal: 'SIGTERM'})
    const result = await f.child
    expect(result.exitCode).toBe(143)
    expect(readTask(dir, id)).toMatchObject({status: 'failed', signal: 'SIGTERM', exitCode: null})
  })

  it('holds back a partial last line until it is complete, and prints an unfinished one at the end', async () => {
    const dir = makeStateDir()
    const worker = gated(dir)
    const id = await startOk(dir, worker.command)
    const f = follow(dir, ['logs', '-f', String(id)])
    // One write: the read that finds "complete" also finds "part", so it must hold "part" back.
    await worker.next({write: 'complete\npart'})
    await waitFor(() => f.stdout().includes('complete'), {message: 'the complete line'})
    expect(f.stdout()).toBe('complete\n')
    await worker.next({write: 'ial\n'})
    await waitFor(() => f.stdout().includes('partial'), {message: 'the completed line'})
    expect(f.stdout()).toBe('complete\npartial\n')
    await worker.next({write: 'no newline at the end', exit: 3})
    const result = await f.child
    expect(result.exitCode).toBe(3)
    expect(String(result.stdout)).toBe('complete\npartial\nno newline at the end')
  })

  it('survives output.log being truncated while following', async () => {
    const dir = makeStateDir()
    const worker = gated(dir)
    const id = await startOk(dir, worker.command)
    const f = follow(dir, ['logs', '-f', String(id)])
    await worker.next({write: 'before 1\nbefore 2\n'})
    await waitFor(() => f.stdout() === 'before 1\nbefore 2\n', {message: 'output before truncation'})
    truncateSync(path.join(dir, 'tasks', String(id), 'output.log'), 0)
    await waitFor(() => f.stderr().includes('truncated'), {message: 'the truncation notice'})
    await worker.next({write: 'after\n'})
    await waitFor(() => f.stdout().endsWith('after\n'), {message: 'output after truncation'})
    await worker.next({write: 'done\n', exit: 0})
    const result = await f.child
    expect(result.exitCode).toBe(0)
    expect(String(result.stdout)).toBe('before 1\nbefore 2\nafter\ndone\n')
    expect(readOutput(dir, id)).toBe('after\ndone\n')
  })

  it('on Ctrl-C stops following, says the task is still running, and leaves it running', async () => {
    const dir = makeStateDir()
    const worker = gated(dir)
    const id = await startOk(dir, worker.command)
    const f = follow(dir, ['logs', '-f', String(id)])
    await worker.next({write: 'working\n'})
    await waitFor(() => f.stdout().includes('working'), {message: 'output in logs -f'})
    f.child.kill('SIGINT')
    const result = await f.child
    expect(result.exitCode).toBe(130)
    expect(String(result.stderr)).toMatch(new RegExp(`task ${id} is still running`))
    const record = readTask(dir, id)
    expect(record.status).toBe('running')
    expect(isAlive(record.worker.pid)).toBe(true)
    // and the task still finishes normally afterwards
    await worker.next({exit: 0})
    expect(await waitFinal(dir, id)).toMatchObject({status: 'succeeded'})
  })
})
