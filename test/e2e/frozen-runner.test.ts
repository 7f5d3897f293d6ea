// A runner that is alive but does not act — frozen by SIGSTOP, or wedged —
// must not make a stop wait forever. drover wakes it through its executor
// (SIGCONT); one that still does not take the request is ended (identity
// checked) and the live worker adopted by a new runner, which carries the
// request out. Nothing is left behind either way.

import {readFileSync} from 'node:fs'
import path from 'node:path'
import {afterEach, describe, expect, it} from 'vitest'
import {cleanupStateDirs, drover, fixture, isAlive, json, killLeftovers, leftoverList, makeStateDir, readTask, waitFor} from '../helpers/cli.js'

const strays = leftoverList()
afterEach(() => {
  // a test that failed half-way must not leave a stopped runner behind
  for (const pid of strays) {
    try {
      process.kill(pid, 'SIGCONT')
    } catch {
      // gone
    }
  }
  killLeftovers(strays)
  strays.length = 0
  cleanupStateDirs()
})

const runnerPid = (stateDir: string, id: number): number | null => {
  try {
    return JSON.parse(readFileSync(path.join(stateDir, 'tasks', String(id), 'runner.json'), 'utf8')).pid
  } catch {
    return null
  }
}

const eventNames = (stateDir: string, id: number): string[] =>
  readFileSync(path.join(stateDir, 'tasks', String(id), 'events.ndjson'), 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line).event)

async function startRunning(stateDir: string, env: Record<string, string> = {}): Promise<{id: number; worker: number; runner: number}> {
  const r = await drover(stateDir, ['start', '--', 'sleep', '300'], {env})
  expect(r.exitCode, r.stderr).toBe(0)
  const id = Number(r.stdout.trim())
  const task = await waitFor(() => (readTask(stateDir, id).status === 'running' && runnerPid(stateDir, id) ? readTask(stateDir, id) : null))
  const runner = runnerPid(stateDir, id)!
  strays.push(task.worker.pid, runner)
  return {id, worker: task.worker.pid, runner}
}

describe('a stop reaches a task whose runner does not act', () => {
  it('wakes a runner frozen by SIGSTOP, which then stops its task itself', async () => {
    const stateDir = makeStateDir()
    const {id, worker, runner} = await startRunning(stateDir)
    process.kill(runner, 'SIGSTOP')

    const stopped = await drover(stateDir, ['stop', '--time', '2', '--json', String(id)])
    expect(stopped.exitCode, stopped.stderr).toBe(0)
    expect(json(stopped).results).toMatchObject([{id, status: 'stopped', via: 'runner', final: true}])
    const names = eventNames(stateDir, id)
    expect(names).toContain('runner-woken')
    expect(names).not.toContain('runner-replaced')
    expect(isAlive(worker)).toBe(false)
    await waitFor(() => !isAlive(runner), {timeout: 10_000, message: 'the woken runner to end'})
  })

  it('replaces a wedged runner: the new one adopts the worker and carries the stop out', async () => {
    const stateDir = makeStateDir()
    // Only this start's runner is wedged: the runner that adopts comes from the stop, without the preload.
    const {id, worker, runner} = await startRunning(stateDir, {NODE_OPTIONS: `--require ${fixture('wedged-runner.cjs')}`, WEDGE_AFTER_MS: '300'})
    await new Promise((resolve) => setTimeout(resolve, 600))

    const stopped = await drover(stateDir, ['stop', '--time', '2', '--json', String(id)])
    expect(stopped.exitCode, stopped.stderr).toBe(0)
    expect(json(stopped).results).toMatchObject([{id, status: 'stopped', final: true}])
    const names = eventNames(stateDir, id)
    expect(names).toEqual(expect.arrayContaining(['runner-woken', 'runner-replaced', 'adopted']))
    expect(names.indexOf('runner-replaced')).toBeLessThan(names.indexOf('adopted'))
    expect(isAlive(runner)).toBe(false)
    expect(isAlive(worker)).toBe(false)
    expect(readTask(stateDir, id)).toMatchObject({status: 'stopped', desired: 'stopped'})
  })

  it('leaves a runner that took the request alone, however long the stop takes', async () => {
    const stateDir = makeStateDir()
    const {id, runner} = await startRunning(stateDir)
    const stopped = await drover(stateDir, ['stop', '--time', '1', String(id)])
    expect(stopped.exitCode, stopped.stderr).toBe(0)
    const names = eventNames(stateDir, id)
    expect(names).not.toContain('runner-woken')
    expect(names).not.toContain('runner-replaced')
    await waitFor(() => !isAlive(runner), {timeout: 10_000, message: 'runner to end'})
  })
})
