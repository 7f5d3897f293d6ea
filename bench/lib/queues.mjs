// Queues: how fast a freed slot is handed on (runner → next runner, no daemon),
// what 1,000 waiting tasks cost `start --queue`, and what `wait` on 100 tasks
// costs in CPU while it waits.

import {spawn} from 'node:child_process'
import {readFileSync} from 'node:fs'
import path from 'node:path'
import {row} from './report.mjs'
import {BIN, LIB, drover, envFor, measure, percentile, run, sleep, summary, timeRun, waitFor} from './util.mjs'

const events = (stateDir, id) =>
  readFileSync(path.join(stateDir, 'tasks', String(id), 'events.ndjson'), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line))

/**
 * Slot freed → next task running, `count - 1` times: a queue of 1 in the state
 * dir runs `count` short tasks one after another; each gap is the previous
 * task's exit event → the next one's started event. Ascending.
 */
export async function queueHandOffs(stateDir, queue, count) {
  drover(stateDir, ['queue', 'set', queue, '--parallel', '1'])
  drover(stateDir, ['queue', 'pause', queue])
  const ids = []
  for (let i = 0; i < count; i++) ids.push(Number(drover(stateDir, ['start', '--queue', queue, '--', 'sleep', '0.05']).stdout.trim()))
  drover(stateDir, ['queue', 'resume', queue])
  const last = ids.at(-1)
  await waitFor(() => events(stateDir, last).some((e) => e.event === 'exit'), {timeout: count * 5000, message: 'the queue to run through'})
  const gaps = []
  for (let i = 1; i < ids.length; i++) {
    const exit = events(stateDir, ids[i - 1]).find((e) => e.event === 'exit')
    const started = events(stateDir, ids[i]).find((e) => e.event === 'started')
    gaps.push(Date.parse(started.ts) - Date.parse(exit.ts))
  }
  return gaps.sort((a, b) => a - b)
}

/** Slot freed → next task running, in a state dir of its own. */
async function handOff(ctx) {
  const gaps = await queueHandOffs(ctx.dirs.fresh('queue-handoff'), 'h', ctx.sizes.queueTasks)
  const note = `${gaps.length} hand-offs in a queue of 1 (previous task's exit → next task's worker started)`
  return [
    row('queue hand-off, slot freed → next running, p50', percentile(gaps, 50), '', null, 'ms', {maxValue: 300}, note),
    row('queue hand-off, slot freed → next running, p99', percentile(gaps, 99), '', null, 'ms', {maxValue: 1000}, note),
  ]
}

/** `start --queue` with 1,000 tasks waiting in the queue, beside the same with none (both queues paused). */
function startWithWaiting(ctx) {
  const waiting = ctx.sizes.queueWaiting
  const full = ctx.dirs.fresh('queue-full')
  const empty = ctx.dirs.fresh('queue-empty')
  run(process.execPath, [path.join(LIB, 'fill-queue.mjs'), full, 'q', String(waiting)])
  run(process.execPath, [path.join(LIB, 'fill-queue.mjs'), empty, 'q', '0'])
  const args = [BIN, 'start', '--queue', 'q', '--', 'true']
  // Interleaved, so load from elsewhere falls on both alike.
  const fullSamples = []
  const emptySamples = []
  measure(() => {
    fullSamples.push(timeRun(process.execPath, args, {env: envFor(full)}))
    emptySamples.push(timeRun(process.execPath, args, {env: envFor(empty)}))
    return 0
  }, ctx.runs)
  const withFull = summary(fullSamples.slice(1))
  const withEmpty = summary(emptySamples.slice(1))
  return [row(`start --queue, ${waiting.toLocaleString('en-US')} tasks waiting`, withFull.median, 'none waiting', withEmpty.median, 'ms', {maxRatio: 1.1}, 'medians; both queues paused, so the new task waits too')]
}

function cpuTicks(pid) {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
  return Number(fields[11]) + Number(fields[12]) // utime + stime, in clock ticks
}

/** CPU of `wait` on 100 queued tasks (a paused queue) over a window after it has settled. */
async function waitCpu(ctx) {
  const count = ctx.sizes.waitTasks
  const stateDir = ctx.dirs.fresh('queue-wait')
  run(process.execPath, [path.join(LIB, 'fill-queue.mjs'), stateDir, 'w', String(count)])
  const child = spawn(process.execPath, [BIN, 'wait', '--queue', 'w'], {env: envFor(stateDir), stdio: 'ignore'})
  try {
    await sleep(3000)
    const ticksPerSecond = 100 // USER_HZ on Linux
    const before = cpuTicks(child.pid)
    const began = Date.now()
    await sleep(ctx.sizes.waitWindowMs)
    const share = (cpuTicks(child.pid) - before) / ticksPerSecond / ((Date.now() - began) / 1000)
    return [row(`wait on ${count} tasks, CPU while waiting`, share * 100, '', null, '%', {maxValue: 5}, `over ${ctx.sizes.waitWindowMs / 1000} s, after 3 s to settle`)]
  } finally {
    child.kill('SIGKILL')
  }
}

export async function queues(ctx) {
  if (process.platform !== 'linux') return [row('queues', null, '', null, 'ms', null, 'reads /proc: Linux only')]
  return [...(await handOff(ctx)), ...startWithWaiting(ctx), ...(await waitCpu(ctx))]
}
