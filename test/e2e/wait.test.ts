// `drover wait` end to end: the selection (refs, --all, --queue, --status),
// --any, and the exit code rule — 0 all succeeded, else the first task in end
// order that did not, 124 on timeout, 130 on Ctrl-C (the tasks carry on), 3 for
// an unknown task — with plain lines piped and the final records under --json.

import {execa} from 'execa'
import {execFileSync} from 'node:child_process'
import {afterEach, describe, expect, it, vi} from 'vitest'
import {jobs} from '../helpers/queue-jobs.js'
import {BIN, startOk, cleanupStateDirs, drover, json, makeStateDir, readTask, waitFor} from '../helpers/cli.js'

vi.setConfig({testTimeout: 120_000})
afterEach(() => cleanupStateDirs())

/** A `drover wait` process, and a promise that resolves once it has chosen its tasks and waits. */
function waitIn(stateDir: string, args: string[]) {
  const child = execa(process.execPath, [BIN, 'wait', ...args], {env: {DROVER_STATE_DIR: stateDir, NO_COLOR: '1'}, reject: false, stdin: 'ignore'})
  let stderr = ''
  const ready = new Promise<void>((resolve) => {
    child.stderr?.on('data', (chunk: Buffer) => {
      stderr += chunk.toString()
      if (stderr.includes('waiting for')) resolve()
    })
    void child.then(() => resolve())
  })
  return Object.assign(child, {ready})
}

const isFinal = (status: string) => !['queued', 'starting', 'running', 'stopping', 'waiting'].includes(status)

describe('wait', () => {
  it('exits 0 when all succeeded, printing a line per task as it ends; --json gives the final records', async () => {
    const dir = makeStateDir()
    const j = jobs()
    const a = await startOk(dir, j.argv('a'))
    const b = await startOk(dir, ['--name', 'bee', ...j.argv('b')])
    const waiting = waitIn(dir, [String(a), 'bee'])
    const asJson = waitIn(dir, ['--all', '--json'])
    await Promise.all([waiting.ready, asJson.ready])
    j.release('b')
    await waitFor(() => readTask(dir, b).status === 'succeeded')
    j.release('a')
    const r = await waiting
    expect(r.exitCode).toBe(0)
    expect(String(r.stdout).split('\n')).toEqual([`task ${b} (bee) succeeded (exit 0)`, `task ${a} succeeded (exit 0)`])
    const records = json({stdout: String((await asJson).stdout), stderr: '', exitCode: 0})
    expect(records.map((t: any) => [t.id, t.status])).toEqual([
      [a, 'succeeded'],
      [b, 'succeeded'],
    ])
  })

  it('exits with the code of the first task, in end order, that did not succeed; skipped counts as 1', async () => {
    const dir = makeStateDir()
    const j = jobs()
    const early = await startOk(dir, j.argv('early', 5))
    const late = await startOk(dir, j.argv('late', 6))
    const ok = await startOk(dir, j.argv('ok'))
    const waiting = waitIn(dir, [String(late), String(ok), String(early)])
    await waiting.ready
    j.release('ok')
    j.release('early')
    await waitFor(() => readTask(dir, early).status === 'failed')
    j.release('late')
    expect((await waiting).exitCode).toBe(5)

    const skipped = await startOk(dir, ['--after', String(early), ...j.argv('never')])
    await waitFor(() => readTask(dir, skipped).status === 'skipped')
    expect((await waitIn(dir, [String(ok), String(skipped)])).exitCode).toBe(1)
  })

  it('--any returns when the first ends; --timeout exits 124; --queue and --status select; unknown tasks exit 3', async () => {
    const dir = makeStateDir()
    const j = jobs()
    const one = await startOk(dir, ['--queue', 'w', ...j.argv('one')])
    const two = await startOk(dir, ['--queue', 'w', ...j.argv('two')])
    const other = await startOk(dir, j.argv('other'))
    const timedOut = await waitIn(dir, ['--queue', 'w', '--timeout', '1s'])
    expect(timedOut.exitCode).toBe(124)
    expect(String(timedOut.stderr)).toContain(`timed out; still not ended: ${one}, ${two}`)

    const queuedOnly = waitIn(dir, ['--status', 'queued', '--json'])
    const any = waitIn(dir, ['--any', String(one), String(other)])
    await Promise.all([queuedOnly.ready, any.ready])
    j.release('one')
    const first = await any
    expect(first.exitCode).toBe(0)
    expect(String(first.stdout)).toBe(`task ${one} succeeded (exit 0)`)
    expect(readTask(dir, other).status).toBe('running')
    await waitFor(() => j.started('two'))
    j.release('two')
    const queued = await queuedOnly
    expect(json({stdout: String(queued.stdout), stderr: '', exitCode: 0}).map((t: any) => t.id)).toEqual([two])

    const unknown = await drover(dir, ['wait', String(one), '99'])
    expect(unknown.exitCode).toBe(3)
    j.release('other')
  })

  it('--queue counts the tasks of the queue\'s batch that ended before wait began: a failure that came first is not exit 0', async () => {
    const dir = makeStateDir()
    const failed = await startOk(dir, ['--queue', 'q1', '--', 'sh', '-c', 'exit 3'])
    await waitFor(() => isFinal(readTask(dir, failed).status), {message: 'the task failed'})
    const r = await drover(dir, ['wait', '--queue', 'q1'])
    expect(r.exitCode).toBe(3)
    expect(r.stdout).toContain(`task ${failed} failed (exit 3)`)
    // a later batch, after the queue was empty, is judged on its own
    const ok = await startOk(dir, ['--queue', 'q1', '--', 'true'])
    await waitFor(() => isFinal(readTask(dir, ok).status), {message: 'the second batch ended'})
    expect((await drover(dir, ['wait', '--queue', 'q1'])).exitCode).toBe(0)
  })

  it('Ctrl-C ends the wait with 130 and leaves the tasks running', async () => {
    const dir = makeStateDir()
    const j = jobs()
    const id = await startOk(dir, j.argv('long'))
    const waiting = waitIn(dir, [String(id)])
    await waiting.ready
    waiting.kill('SIGINT')
    const r = await waiting
    expect(r.exitCode).toBe(130)
    expect(String(r.stderr)).toContain('stopped waiting; the tasks carry on')
    expect(readTask(dir, id).status).toBe('running')
    j.release('long')
  })

  it.runIf(hasScript())('shows live progress on a terminal (listr2): each task by name, running or queued and for what, each as it ends', async () => {
    const dir = makeStateDir()
    const j = jobs()
    expect((await drover(dir, ['queue', 'set', 'one', '--parallel', '1'])).exitCode).toBe(0)
    const ok = await startOk(dir, ['--name', 'good', '--queue', 'one', ...j.argv('ok')])
    const bad = await startOk(dir, ['--name', 'broken', '--queue', 'one', ...j.argv('bad', 2)])
    const quote = (word: string) => `'${word.replace(/'/g, `'\\''`)}'`
    const command = `stty cols 120 rows 30; exec ${[process.execPath, BIN, 'wait', String(ok), String(bad)].map(quote).join(' ')}`
    const child = execa('script', ['-qefc', command, '/dev/null'], {env: {DROVER_STATE_DIR: dir, TERM: 'xterm'}, reject: false, timeout: 60_000, stdin: 'pipe'})
    let screen = ''
    child.stdout!.on('data', (chunk: Buffer) => (screen += chunk.toString()))
    await waitFor(() => screen.includes(`task ${ok} (good): running (pid `), {message: `progress on the terminal: ${JSON.stringify(screen)}`})
    await waitFor(() => screen.includes(`task ${bad} (broken): queued, waiting for a slot in queue one (#1 in line)`), {message: `the queued task: ${JSON.stringify(screen)}`})
    j.release('ok')
    await waitFor(() => screen.includes(`task ${ok} (good) succeeded`), {message: 'ok shown as it ended'})
    await waitFor(() => screen.includes(`task ${bad} (broken): running`), {message: 'the queued task started'})
    j.release('bad')
    const result = await child
    child.stdin!.end()
    expect(result.exitCode).toBe(2)
    expect(screen + String(result.stdout ?? '')).toContain(`task ${bad} (broken) failed (exit 2)`)
  })
})

function hasScript(): boolean {
  try {
    execFileSync('script', ['--version'], {stdio: 'ignore'})
    return true
  } catch {
    return false
  }
}
