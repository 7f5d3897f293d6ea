// `--on-limit wait`: a run that ended on a provider's usage limit is not the
// end. The task's own runner records `waiting` with the time the limit lifts,
// sleeps (there is no daemon), answers stop/cancel/drain meanwhile, and at
// that time hands the task to `drover resume`, which continues the agent's
// own conversation exactly as a person's resume would.

import {spawn} from 'node:child_process'
import {closeSync, existsSync} from 'node:fs'
import path from 'node:path'
import {sessionRefusal} from '../agents/profiles.js'
import type {TaskRecord} from '../state/record.js'
import {openAppend, taskPaths} from '../state/store.js'

/** Past the reset time the provider names: our clock and theirs need not agree to the second. */
export const LIMIT_MARGIN_MS = 5_000
/** Without a reset time: 1 min, 2, 4 … up to an hour between tries. */
const BACKOFF_FIRST_MS = 60_000
const BACKOFF_CAP_MS = 3_600_000

/**
 * When the runner should resume a run that ended as `record` says (epoch ms),
 * or null when the run's end stands: not asked to wait, no limit seen, or no
 * session the agent could continue.
 */
export function limitWaitUntil(record: TaskRecord, now = Date.now()): number | null {
  const limit = record.agentInfo?.limit
  if (record.policies.onLimit !== 'wait' || !limit || record.agent === 'generic' || sessionRefusal(record) !== null) return null
  if (limit.resetAt !== null) return Math.max(Date.parse(limit.resetAt) + LIMIT_MARGIN_MS, now + 1000)
  return now + Math.min(BACKOFF_FIRST_MS * 2 ** (record.limitWaits ?? 0), BACKOFF_CAP_MS)
}

/** drover's own CLI beside this runner (dist/runner.cjs → bin/run.js), or null. */
function droverBin(): string | null {
  let dir = path.dirname(process.argv[1] ?? '')
  for (let i = 0; i < 4; i++) {
    const bin = path.join(dir, 'bin', 'run.js')
    if (existsSync(bin)) return bin
    dir = path.dirname(dir)
  }
  return null
}

/**
 * Runs `drover resume ID` and resolves when it is done (the new run is
 * running, or refused): it takes the task lock, learns the agent's flags and
 * starts the next runner. Its messages go to runner.log.
 */
export function resumeThroughCli(stateDir: string, id: number): Promise<string | null> {
  const bin = droverBin()
  if (!bin) return Promise.resolve('drover itself was not found beside its runner')
  const log = openAppend(taskPaths(stateDir, id).runnerLog)
  return new Promise((resolve) => {
    try {
      const child = spawn(process.execPath, [bin, 'resume', String(id), '--state-dir', stateDir, '-q'], {
        stdio: ['ignore', log, log],
        windowsHide: true,
      })
      child.once('error', (error) => resolve(error.message))
      child.once('exit', (code) => resolve(code === 0 ? null : `drover resume exited ${code}`))
    } catch (error) {
      resolve((error as Error).message)
    } finally {
      closeSync(log)
    }
  })
}
