// A run still starting that another command ended meanwhile stays ended: its
// runner holds the task lock from a re-read to its first write
// (runner/start-claim.ts), and leaves without writing when the run was taken —
// stopping a worker no record names. Found by chaos (seed 1355076861, round
// 93): a command whose clock was 90 min behind took a starting run's start-up
// for one in the future, recorded it lost, and the runner, which had not yet
// written runner.json, then recorded `running` and later its end over `lost`.

import {mkdirSync, readdirSync, readFileSync, rmSync, utimesSync, writeFileSync} from 'node:fs'
import path from 'node:path'
import {afterEach, describe, expect, it} from 'vitest'
import {cleanupStateDirs, drover, fixture, isAlive, json, makeStateDir, makeTempDir, readTask, taskEvents, waitFor, type CliResult} from '../helpers/cli.js'

afterEach(() => cleanupStateDirs())

/** `start` with its runner held before it does anything, until the gate file exists; the task as it waits. */
async function startHeld(dir: string, args: string[]): Promise<{id: number; gate: string; started: Promise<CliResult>}> {
  const gate = path.join(makeTempDir('drover-gate-'), 'open')
  const started = drover(dir, ['start', '--json', ...args], {env: {NODE_OPTIONS: `--require ${fixture('runner-waits-for-gate.cjs')}`, RUNNER_GATE: gate}})
  const id = await waitFor(() => {
    try {
      return readTask(dir, 1).status === 'starting' ? 1 : null
    } catch {
      return null
    }
  }, {message: 'the record, starting'})
  return {id, gate, started}
}

/** Live processes carrying the task's mark (every process of a worker's tree inherits it). */
function marked(dir: string, id: number): number[] {
  const mark = `DROVER_CONTROL_FILE=${path.join(dir, 'tasks', String(id), 'control')}\0`
  return readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .filter((pid) => {
      try {
        return (readFileSync(`/proc/${pid}/environ`, 'utf8') + '\0').includes(mark)
      } catch {
        return false
      }
    })
    .map(Number)
}

/** What a command whose clock is 90 min behind sees: the record written (the run opened) 90 min ahead of its now. */
function openedInTheFuture(dir: string, id: number): void {
  const ahead = new Date(Date.now() + 90 * 60_000)
  utimesSync(path.join(dir, 'tasks', String(id), 'task.json'), ahead, ahead)
}

describe('a run taken while its runner was starting', () => {
  it('stays lost: the runner spawns no worker and records nothing; the hook ran once', async () => {
    const dir = makeStateDir()
    const hookOut = path.join(dir, 'hook.out')
    const {id, gate, started} = await startHeld(dir, ['--on-exit', `echo "$DROVER_STATUS" >> ${hookOut}`, '--', 'sleep', '30'])
    openedInTheFuture(dir, id)
    const listed = await drover(dir, ['list', '--json', '--all'])
    expect(listed.exitCode, listed.stderr).toBe(0)
    expect(json(listed)[0]).toMatchObject({id, status: 'lost'})

    writeFileSync(gate, '')
    const r = await started
    expect(r.exitCode, r.stderr).toBe(0)
    expect(json(r)).toMatchObject({id, status: 'lost'})
    await waitFor(() => taskEvents(dir, id).some((e) => e.event === 'taken'), {message: 'the runner to find its run taken'})
    const taken = taskEvents(dir, id).find((e) => e.event === 'taken')
    expect(taken).toMatchObject({status: 'lost', runner: expect.any(Number)})
    await waitFor(() => !isAlive(taken.runner), {message: 'the runner to leave'})
    const task = readTask(dir, id)
    expect(task).toMatchObject({status: 'lost', reason: expect.stringMatching(/^runner never started/)})
    expect(task.worker).toBeNull()
    expect(taskEvents(dir, id).some((e) => e.event === 'started')).toBe(false)
    // it held the run after the lost was recorded, so it spawned no worker at all
    expect(marked(dir, id)).toEqual([])
    await waitFor(() => readFileSync(hookOut, 'utf8') === 'lost\n', {message: 'the lost hook'})
    await new Promise((resolve) => setTimeout(resolve, 1000))
    expect(readFileSync(hookOut, 'utf8')).toBe('lost\n')
  })

  it('stays lost when the runner would have failed it (its cwd gone) instead of starting a worker', async () => {
    const dir = makeStateDir()
    const cwd = makeTempDir('drover-cwd-')
    mkdirSync(path.join(cwd, 'work'))
    const {id, gate, started} = await startHeld(dir, ['--cwd', path.join(cwd, 'work'), '--', 'sleep', '30'])
    openedInTheFuture(dir, id)
    expect(json(await drover(dir, ['list', '--json', '--all']))[0]).toMatchObject({id, status: 'lost'})
    rmSync(path.join(cwd, 'work'), {recursive: true})

    writeFileSync(gate, '')
    expect((await started).exitCode).toBe(0)
    await waitFor(() => taskEvents(dir, id).some((e) => e.event === 'taken'), {message: 'the runner to find its run taken'})
    await new Promise((resolve) => setTimeout(resolve, 500))
    expect(readTask(dir, id)).toMatchObject({status: 'lost', reason: expect.stringMatching(/^runner never started/)})
    expect(taskEvents(dir, id).filter((e) => e.event === 'exit' || e.event === 'lost').map((e) => e.status ?? e.event)).toEqual(['lost'])
  })
})
