// Exit hooks end to end: `start --on-exit` and the state dir's hooks/on-exit
// run once per final status with the final record on stdin and the DROVER_*
// variables, detached (a slow hook delays nothing), output in hooks.log,
// failures and timeouts recorded as events and shown by status; tasks that
// never ran (skipped, cancelled while queued) fire them too.

import {chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync} from 'node:fs'
import path from 'node:path'
import {afterEach, describe, expect, it, vi} from 'vitest'
import {startOk, taskEvents, cleanupStateDirs, drover, fixture, json, makeStateDir, readTask, waitFor} from '../helpers/cli.js'

vi.setConfig({testTimeout: 120_000})
afterEach(() => cleanupStateDirs())

const hooksLog = (dir: string, id: number) => {
  const file = path.join(dir, 'tasks', String(id), 'hooks.log')
  return existsSync(file) ? readFileSync(file, 'utf8') : ''
}
describe('exit hooks', () => {
  it('--on-exit and hooks/on-exit get the final record on stdin and DROVER_* in the environment, once per final status', async () => {
    const dir = makeStateDir()
    mkdirSync(path.join(dir, 'hooks'))
    const shared = path.join(dir, 'hooks', 'on-exit')
    writeFileSync(shared, '#!/bin/sh\necho "shared $DROVER_TASK_ID $DROVER_STATUS $DROVER_EXIT_CODE"\n')
    chmodSync(shared, 0o700)
    const id = await startOk(dir, ['--on-exit', 'echo "own $DROVER_TASK_ID $DROVER_STATUS $DROVER_EXIT_CODE"; cat > "$DROVER_STATE_DIR/stdin-$DROVER_RUN.json"', '--', 'sh', '-c', 'exit 3'])
    await waitFor(() => hooksLog(dir, id).includes('shared'), {message: 'both hooks ran'})
    expect(hooksLog(dir, id)).toBe(`own ${id} failed 3\nshared ${id} failed 3\n`)
    await waitFor(() => existsSync(path.join(dir, 'stdin-1.json')))
    await waitFor(() => taskEvents(dir, id).filter((e) => e.event === 'hook').length === 2)
    expect(JSON.parse(readFileSync(path.join(dir, 'stdin-1.json'), 'utf8'))).toMatchObject({id, status: 'failed', exitCode: 3, reason: 'exit 3'})

    // A new run ends again: its hooks run again, once.
    expect((await drover(dir, ['start', String(id)])).exitCode).toBe(0)
    await waitFor(() => taskEvents(dir, id).filter((e) => e.event === 'hook' && e.run === 2).length === 2)
    await drover(dir, ['list'])
    expect(taskEvents(dir, id).filter((e) => e.event === 'hook')).toHaveLength(4)
  })

  it('a slow hook delays nothing; a failing or timed-out one is an event that status shows', async () => {
    const dir = makeStateDir()
    const before = Date.now()
    const id = await startOk(dir, ['--on-exit', 'sleep 20', '--hook-timeout', '1s', '--', 'true'])
    const waited = await drover(dir, ['wait', String(id)])
    expect(waited.exitCode).toBe(0)
    expect(Date.now() - before).toBeLessThan(15_000)
    await waitFor(() => taskEvents(dir, id).some((e) => e.event === 'hook-failed'), {message: 'the hook timed out'})
    const failing = await startOk(dir, ['--on-exit', 'echo oops >&2; exit 4', '--', 'true'])
    await waitFor(() => taskEvents(dir, failing).some((e) => e.event === 'hook-failed'))
    expect(hooksLog(dir, failing)).toBe('oops\n')
    const status = json(await drover(dir, ['status', String(id), '--json']))
    expect(status.hookFailures).toEqual([{run: 1, hook: 'on-exit', status: null, reason: 'timed out after 1 s', exitCode: null, signal: 'SIGTERM'}])
    expect(readTask(dir, failing).status).toBe('succeeded')
    const shown = (await drover(dir, ['status', String(failing)])).stdout
    expect(shown).toMatch(/hook failed\s+on-exit \(run 1\): exit 4; output in hooks.log/)
  })

  it('tasks that never ran fire their hooks too: skipped, cancelled while queued', async () => {
    const dir = makeStateDir()
    const dep = await startOk(dir, ['--', 'sh', '-c', 'exit 1'])
    await waitFor(() => readTask(dir, dep).status === 'failed')
    const skipped = await startOk(dir, ['--after', String(dep), '--on-exit', 'echo "$DROVER_STATUS"', '--', 'true'])
    await waitFor(() => hooksLog(dir, skipped) === 'skipped\n', {message: 'skipped task hook'})
    const blocker = await startOk(dir, ['--queue', 'h', '--', 'sleep', '30'])
    const queued = await startOk(dir, ['--queue', 'h', '--on-exit', 'echo "$DROVER_STATUS"', '--', 'true'])
    expect((await drover(dir, ['cancel', String(queued)])).exitCode).toBe(0)
    await waitFor(() => hooksLog(dir, queued) === 'cancelled\n', {message: 'cancelled queued task hook'})
    await drover(dir, ['cancel', String(blocker)])
  })

  it('a runner told to stop (SIGTERM, a shutdown) records lost and fires the hooks of that end', async () => {
    const dir = makeStateDir()
    const id = await startOk(dir, ['--on-exit', 'echo "$DROVER_STATUS"', '--', 'sleep', '30'])
    const runner = JSON.parse(readFileSync(path.join(dir, 'tasks', String(id), 'runner.json'), 'utf8')).pid
    process.kill(runner, 'SIGTERM')
    await waitFor(() => hooksLog(dir, id) === 'lost\n', {message: 'the lost hook'})
    expect(readTask(dir, id)).toMatchObject({status: 'lost', desired: 'running'})
  })

  it('a runner killed between its final record and firing the hooks: the next list fires them, once', async () => {
    const dir = makeStateDir()
    const r = await drover(dir, ['start', '--json', '--on-exit', 'echo "$DROVER_STATUS"', '--', 'sh', '-c', 'exit 3'], {
      env: {NODE_OPTIONS: `--require ${fixture('runner-dies-after-final.cjs')}`},
    })
    expect(r.exitCode, r.stderr).toBe(0)
    const id = json(r).id as number
    await waitFor(() => readTask(dir, id).status === 'failed', {message: 'the final record'})
    const runner = path.join(dir, 'tasks', String(id), 'runner.json')
    await waitFor(() => !existsSync(runner) || !isAliveRunner(runner), {message: 'the runner died'})
    // nobody claimed them: no hook runs by itself
    await new Promise((resolve) => setTimeout(resolve, 1000))
    expect(hooksLog(dir, id)).toBe('')
    expect((await drover(dir, ['list', '--json', '--all'])).exitCode).toBe(0)
    await waitFor(() => taskEvents(dir, id).some((e) => e.event === 'hook'), {message: 'list fired the hook'})
    expect(hooksLog(dir, id)).toBe('failed\n')
    // the claim stands: later lists (the default view drops the live hint too) fire nothing more
    expect((await drover(dir, ['list'])).exitCode).toBe(0)
    expect((await drover(dir, ['list', '--json', '--all'])).exitCode).toBe(0)
    await new Promise((resolve) => setTimeout(resolve, 1000))
    expect(hooksLog(dir, id)).toBe('failed\n')
    expect(taskEvents(dir, id).filter((e) => e.event === 'hook')).toHaveLength(1)
  })
})

function isAliveRunner(file: string): boolean {
  try {
    process.kill(JSON.parse(readFileSync(file, 'utf8')).pid, 0)
    return true
  } catch {
    return false
  }
}
