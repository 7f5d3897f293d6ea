// runner.log is for crashes of drover itself: a run that ends in any of the
// ordinary ways must leave it empty, or real crashes drown in noise (and
// whatever the runner does after recording the end would silently not run).

import {readFileSync} from 'node:fs'
import path from 'node:path'
import {afterEach, describe, expect, it} from 'vitest'
import {cleanupStateDirs, drover, makeStateDir, readTask, waitFor} from '../helpers/cli.js'

afterEach(() => cleanupStateDirs())

const runnerLog = (stateDir: string, id: number) => readFileSync(path.join(stateDir, 'tasks', String(id), 'runner.log'), 'utf8')

async function endedQuietly(stateDir: string, id: number, status: string): Promise<void> {
  await waitFor(() => readTask(stateDir, id).status === status, {message: `task ${id} ${status}`})
  // The runner removes runner.json as its very last step: after that nothing more is written.
  await waitFor(() => {
    try {
      readFileSync(path.join(stateDir, 'tasks', String(id), 'runner.json'))
      return false
    } catch {
      return true
    }
  })
  expect(runnerLog(stateDir, id)).toBe('')
}

describe('runner.log', () => {
  it('stays empty for every ordinary end: succeeded, failed, stopped, cancelled, drained, timeout', async () => {
    const stateDir = makeStateDir()
    const start = async (...args: string[]) => Number((await drover(stateDir, ['start', ...args])).stdout.trim())
    const ok = await start('--', 'true')
    const bad = await start('--', 'sh', '-c', 'exit 3')
    const stopped = await start('--', 'sleep', '30')
    const cancelled = await start('--', 'sleep', '30')
    const drained = await start('--', 'sleep', '30')
    const timedOut = await start('--timeout', '1s', '--', 'sleep', '30')
    await drover(stateDir, ['stop', String(stopped)])
    await drover(stateDir, ['cancel', String(cancelled)])
    await drover(stateDir, ['drain', '--grace', '0s', String(drained)])
    await endedQuietly(stateDir, ok, 'succeeded')
    await endedQuietly(stateDir, bad, 'failed')
    await endedQuietly(stateDir, stopped, 'stopped')
    await endedQuietly(stateDir, cancelled, 'cancelled')
    await endedQuietly(stateDir, drained, 'drained')
    await endedQuietly(stateDir, timedOut, 'failed')
  })
})
