// Follow latency: a ticker worker under drover stamps each line with the wall
// clock; `drover logs -f` and `tail -F` on the same output.log read it at the
// same time, and each line's latency is its receipt time minus its stamp.

import {spawn} from 'node:child_process'
import path from 'node:path'
import {row, skipped} from './report.mjs'
import {BIN, LIB, drover, envFor, kill, percentile, waitFor, wallNow} from './util.mjs'

// Lines written before both followers are surely reading are not counted.
const WARM_LINES = 20
const INTERVAL_MS = 50

/** Spawns a follower and records, per sequence number, how late its line arrived. */
function follower(file, args, env) {
  const child = spawn(file, args, {env, stdio: ['ignore', 'pipe', 'pipe']})
  const latency = new Map()
  let held = ''
  let stderr = ''
  child.stdout.setEncoding('utf8')
  child.stdout.on('data', (chunk) => {
    const now = wallNow()
    const lines = (held + chunk).split('\n')
    held = lines.pop()
    for (const line of lines) {
      const match = /^(\d+) (\d+(?:\.\d+)?)$/.exec(line)
      if (match) latency.set(Number(match[1]), now - Number(match[2]))
    }
  })
  child.stderr.on('data', (chunk) => (stderr += chunk))
  const exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve({code, signal})))
  return {child, latency, exited, stderr: () => stderr}
}

export async function follow(ctx) {
  const lines = ctx.sizes.followLines
  const stateDir = ctx.dirs.fresh('follow')
  const env = envFor(stateDir)
  const id = Number(
    drover(stateDir, ['start', '--', process.execPath, path.join(LIB, 'ticker.mjs'), String(lines + WARM_LINES), String(INTERVAL_MS)]).stdout.trim(),
  )
  const output = path.join(stateDir, 'tasks', String(id), 'output.log')
  const logs = follower(process.execPath, [BIN, 'logs', '-f', '-n', '0', String(id)], env)
  const tail = ctx.peers.tail.available ? follower('tail', ['-n', '0', '-F', output], env) : null
  try {
    // logs -f ends by itself when the task does; that is the end of the case.
    const timeout = (lines + WARM_LINES) * INTERVAL_MS + 30_000
    const end = await Promise.race([logs.exited, new Promise((resolve) => setTimeout(() => resolve(null), timeout))])
    if (end === null) throw new Error(`logs -f did not end within ${timeout} ms after the task should have`)
    if (end.code !== 0) throw new Error(`logs -f exited ${end.code ?? end.signal}: ${logs.stderr()}`)
    if (tail) await waitFor(() => tail.latency.has(lines + WARM_LINES - 1), {timeout: 5000, message: 'tail -F to print the last line'})
  } finally {
    kill(logs.child.pid)
    if (tail) kill(tail.child.pid)
  }

  const followers = tail ? [logs, tail] : [logs]
  const seen = Math.max(...followers.map((f) => Math.min(...f.latency.keys())))
  const counted = []
  for (let seq = Math.max(seen, WARM_LINES); seq < lines + WARM_LINES; seq++) {
    if (followers.every((f) => f.latency.has(seq))) counted.push(seq)
  }
  if (counted.length < lines / 2) throw new Error(`only ${counted.length} of ${lines} lines reached both followers`)
  const stats = (f) => {
    const sorted = counted.map((seq) => f.latency.get(seq)).sort((a, b) => a - b)
    return {p50: percentile(sorted, 50), p99: percentile(sorted, 99)}
  }
  const d = stats(logs)
  const t = tail ? stats(tail) : {p50: null, p99: null}
  const missed = lines - counted.length
  const note = `${counted.length} lines, one every ${INTERVAL_MS} ms${missed > 0 ? ` (${missed} missed by a follower)` : ''}`
  const rows = [
    row('follow latency p50: `logs -f`', d.p50, '`tail -F` on output.log', t.p50, 'ms', {maxValue: 50}, note),
    row('follow latency p99: `logs -f`', d.p99, '`tail -F` on output.log', t.p99, 'ms', {maxValue: 250}),
  ]
  if (!tail) rows.push(skipped('follow latency beside `tail -F`', ctx.peers.tail.note))
  return rows
}
