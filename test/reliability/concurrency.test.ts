// Concurrency torture: ten processes starting ten tasks each at once, and stop, cancel,
// drain, resume and prune fired at one task from five processes at once, twenty times.
// Every time: distinct ids, valid records, one consistent end, no orphan process, no crash.

import {execa} from 'execa'
import {existsSync, readdirSync, readFileSync} from 'node:fs'
import path from 'node:path'
import {afterEach, describe, expect, it} from 'vitest'
import {FINAL_STATUSES, type TaskRecord} from '../../src/state/record.js'
import {decodeRecord} from '../../src/state/record-codec.js'
import {ensureStateDir} from '../../src/state/statedir.js'
import {taskPaths} from '../../src/state/store.js'
import {cleanupStateDirs, drover, fixture, makeStateDir, readOutput, ROOT, waitFor, type CliResult} from '../helpers/cli.js'
import {fabricateTask, waitDead, workerPids} from '../fixtures/rel-state.js'

const node = process.execPath

afterEach(() => cleanupStateDirs())

function validRecord(dir: string, id: number): TaskRecord {
  const record = decodeRecord(readFileSync(taskPaths(dir, id).record, 'utf8'))
  expect(record.id).toBe(id)
  return record
}

/** No stack traces, no "set DEBUG": a crash is a failure whatever the exit code. */
function expectNoCrash(result: CliResult, what: string): void {
  expect(result.stderr, what).not.toMatch(/DEBUG|TypeError|ReferenceError|\n\s+at /)
  expect(result.stdout, what).not.toMatch(/DEBUG|TypeError|ReferenceError/)
}

describe('10 processes × 10 starts at once', () => {
  it('100 distinct ids, 100 valid records, 100 workers that ran; one name, one winner', {timeout: 150_000}, async () => {
    const dir = makeStateDir()
    const runs = await Promise.all(
      Array.from({length: 10}, () =>
        execa(node, [fixture('rel-starter.mjs'), dir, '10', 'contested'], {reject: false, timeout: 120_000}),
      ),
    )
    const reports = runs.map((run) => {
      expect(run.exitCode, String(run.stderr)).toBe(0)
      return JSON.parse(String(run.stdout)) as {ids: number[]; named: number | null}
    })
    const named = reports.map((r) => r.named).filter((id) => id !== null)
    expect(named, 'exactly one process wins the name').toHaveLength(1)
    const plain = reports.flatMap((r) => r.ids)
    expect(new Set(plain).size).toBe(100)
    const all = [...plain, ...named].sort((a, b) => a - b)
    expect(all).toEqual(Array.from({length: 101}, (_, i) => i + 1))

    for (const id of plain) {
      await waitFor(() => FINAL_STATUSES.includes(validRecord(dir, id).status), {timeout: 30_000, message: `task ${id} to end`})
      expect(validRecord(dir, id)).toMatchObject({status: 'succeeded', exitCode: 0, runs: [{status: 'succeeded'}]})
      // The worker ran, once, and it was this task's worker.
      expect(readOutput(dir, id)).toBe(`ran ${id}\n`)
      expect(workerPids(dir, id)).toHaveLength(1)
    }
    expect(validRecord(dir, named[0]!)).toMatchObject({status: 'running', name: 'contested'})
    expect(readdirSync(path.join(dir, 'locks'))).toEqual([])
    const cancel = await drover(dir, ['cancel', String(named[0])])
    expect(cancel.exitCode, cancel.stderr).toBe(0)
  })
})

describe('stop, cancel, drain, resume and prune on one task at once', () => {
  // What each command may answer when it races the others: resume is refused (4) while the
  // task runs or once it is cancelled; every other outcome is exit 0.
  const ALLOWED: Record<string, number[]> = {stop: [0], cancel: [0], drain: [0], resume: [0, 4], prune: [0]}

  async function round(dir: string, n: number): Promise<string> {
    // In-process start with the built core (so the bundled runner runs, as in production)
    // keeps the CLI budget for the racers.
    const {startTask} = (await import(path.join(ROOT, 'dist', 'tasks', 'launch.js'))) as typeof import('../../src/tasks/launch.js')
    const {record: task}: {record: TaskRecord} = await startTask(dir, {
      command: ['sleep', '300'], shell: null, name: null, cwd: '/', env: {}, agent: 'generic',
      policies: {timeoutMs: null, idleTimeoutMs: null, maxOutputBytes: null},
    })
    const id = String(task.id)
    // A succeeded task for prune to remove: prune is limited to succeeded, which the racing
    // task can never be (every way it ends here is a stop plan), so prune never takes it.
    const filler = fabricateTask(dir, {status: 'succeeded'})
    const commands: [string, string[]][] = [
      ['stop', ['stop', '-t', '1', id]],
      ['cancel', ['cancel', id]],
      ['drain', ['drain', '--grace', '2s', '--kill-after', '2s', id]],
      ['resume', ['resume', id]],
      ['prune', ['prune', '--older-than', '0s', '--status', 'succeeded']],
    ]
    // Each fires after a random 0-800 ms, so the interleavings differ from round to round:
    // sometimes the cancel lands first, sometimes a stop or drain ends the task before it
    // and the resume starts a new run (jitter to vary the order, not a wait for anything).
    const delays = commands.map(() => Math.floor(Math.random() * 800))
    const results = await Promise.all(
      commands.map(async ([, args], i) => {
        await new Promise((resolve) => setTimeout(resolve, delays[i]))
        return drover(dir, args, {env: {NODE_ENV: 'production'}})
      }),
    )
    const outcome: string[] = []
    commands.forEach(([name, args], i) => {
      const result = results[i]
      const what = `round ${n}: ${args.join(' ')} (after ${delays[i]} ms) → exit ${result.exitCode}\n${result.stdout}\n${result.stderr}`
      expect(ALLOWED[name], what).toContain(result.exitCode)
      expectNoCrash(result, what)
      outcome.push(`${name}=${result.exitCode}`)
    })
    expect(existsSync(taskPaths(dir, filler).dir), `round ${n}: prune left the filler`).toBe(false)

    // A resume that won the race leaves a live new run: consistent, and stopped here.
    let record = validRecord(dir, task.id)
    if (!FINAL_STATUSES.includes(record.status)) {
      const cancel = await drover(dir, ['cancel', id])
      expect(cancel.exitCode, `round ${n}: cancel of the resumed run\n${cancel.stderr}`).toBe(0)
      record = validRecord(dir, task.id)
    }
    expect(FINAL_STATUSES, `round ${n}: ${record.status}`).toContain(record.status)
    expect(record.status).not.toBe('lost')
    expect(record.runs.at(-1)).toMatchObject({status: record.status, reason: record.reason})
    expect(record.runs.every((run) => FINAL_STATUSES.includes(run.status)), `round ${n}: ${JSON.stringify(record.runs)}`).toBe(true)
    expect(record.endedAt).not.toBeNull()
    // No orphans: every worker any run started is gone, and so is every runner.
    for (const pid of workerPids(dir, task.id)) await waitDead(pid, `round ${n} worker`)
    // the runner records the end, then leaves (runner.json goes last): given the moment a loaded machine takes
    await waitFor(() => !existsSync(taskPaths(dir, task.id).runner), {timeout: 10_000, message: `round ${n}: runner.json left`})
    // A request dropped just as the runner ended may stay in requests/: the record answers
    // it, and a new run clears it first (crashes.test.ts checks that), so it is not asserted.
    return `${outcome.sort().join(' ')} → ${record.status} after ${record.runs.length} run(s)`
  }

  it('20 rounds: one consistent final record each time, no crash, no orphan', {timeout: 170_000}, async () => {
    const dir = makeStateDir()
    ensureStateDir(dir)
    const outcomes: string[] = []
    // Two rounds at a time on the same state dir: ten racing CLI processes on two cores.
    for (let n = 0; n < 20; n += 2) outcomes.push(...(await Promise.all([round(dir, n), round(dir, n + 1)])))
    expect(outcomes).toHaveLength(20)
    expect(readdirSync(path.join(dir, 'locks'))).toEqual([])
    // The record of what happened, for the report when a round fails.
    console.log(outcomes.join('\n'))
  })
})
