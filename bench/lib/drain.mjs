// Drain: N cooperative workers (they exit 0–500 ms after reading STOP), then
// one `drain --all`. Its wall time is set beside the slowest worker's own
// exit, measured from the moment the drain began.

import {spawn, spawnSync} from 'node:child_process'
import {existsSync, readFileSync} from 'node:fs'
import path from 'node:path'
import {row, skipped} from './report.mjs'
import {stopAll} from './memory.mjs'
import {BIN, LIB, droverJson, envFor, timed, wallNow} from './util.mjs'

const GRACE = '10s'

function startAsync(stateDir, args) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, 'start', ...args], {env: envFor(stateDir), stdio: ['ignore', 'pipe', 'pipe']})
    let out = ''
    child.stdout.on('data', (d) => (out += d))
    child.stderr.on('data', (d) => (out += d))
    child.once('error', reject)
    child.once('exit', (code) => (code === 0 ? resolve(Number(out.trim())) : reject(new Error(`start exited ${code}: ${out}`))))
  })
}

/** Starts the workers a few at a time: the start-up cost is not what this case measures. */
async function startWorkers(stateDir, count, exitsFile) {
  const ids = []
  let next = 0
  let failure = null
  const lane = async () => {
    while (next < count && !failure) {
      next += 1
      try {
        ids.push(await startAsync(stateDir, ['--', process.execPath, path.join(LIB, 'coop-worker.mjs'), exitsFile]))
      } catch (error) {
        failure ??= error
      }
    }
  }
  // Every lane settles before a failure is reported, so cleanup sees every task that was started.
  await Promise.all([lane(), lane(), lane()])
  if (failure) throw failure
  return ids
}

export async function drain(ctx) {
  const count = ctx.sizes.drainTasks
  const name = `drain ${count} cooperative tasks`
  const help = spawnSync(process.execPath, [BIN, 'drain', '--help'], {stdio: 'ignore'})
  if (help.status !== 0) return [skipped(name, '`drover drain` is not available in this build')]

  const stateDir = ctx.dirs.fresh('drain')
  const exitsFile = path.join(stateDir, 'worker-exits')
  try {
    const ids = await startWorkers(stateDir, count, exitsFile)
    const begin = wallNow()
    const result = timed(process.execPath, [BIN, 'drain', '--all', '--grace', GRACE, '--json'], {env: envFor(stateDir), ok: [0, 1]})
    const wall = wallNow() - begin
    const exits = existsSync(exitsFile) ? readFileSync(exitsFile, 'utf8').trim().split('\n').filter(Boolean).map((l) => Number(l.split(' ')[0])) : []
    const slowest = exits.length ? Math.max(...exits) - begin : null
    const tasks = droverJson(stateDir, ['list'])
    const drained = tasks.filter((t) => ids.includes(t.id) && t.status === 'drained').length
    const problems = []
    if (result.status !== 0) problems.push(`drain exited ${result.status}`)
    if (drained !== count) problems.push(`${drained} of ${count} tasks ended drained`)
    if (exits.length !== count) problems.push(`${exits.length} of ${count} workers exited by themselves`)
    const note = `grace given: ${GRACE}${problems.length ? `; ${problems.join('; ')}` : ''}`
    return [row(name, wall, "slowest worker's own exit", slowest, 'ms', {maxExtra: 2000}, note)]
  } finally {
    stopAll(stateDir)
  }
}
