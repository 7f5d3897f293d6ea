// `drover top` in a real pseudo-terminal (pty.mjs): how long until its first
// full frame (20 live tasks, and 10,000 ended ones), its CPU while idle with
// 20 live tasks, and key-to-screen latency — from writing a key into the pty
// to the bytes of its effect coming out — while the selected task writes
// 1 MiB/s into the preview pane, and while scrolling a list of 10,000 tasks.

import path from 'node:path'
import {openPty} from './pty.mjs'
import {row} from './report.mjs'
import {cpuSeconds} from './ui-dashboard.mjs'
import {BIN, LIB, drover, median, percentile, sleep} from './util.mjs'

const KEYS = 30

function startTop(stateDir) {
  const began = performance.now()
  const pty = openPty([process.execPath, BIN, 'top'], {env: {...process.env, DROVER_STATE_DIR: stateDir, NO_COLOR: '1'}})
  return {pty, began}
}

/** Key → screen, `count` times: each key's wait for its pattern, with a person's pause between keys. */
async function keyLatencies(pty, presses, count = KEYS) {
  const samples = []
  for (let i = 0; i < count; i++) {
    for (const [key, pattern] of presses) {
      pty.mark()
      const t0 = performance.now()
      pty.write(key)
      samples.push((await pty.waitFor(pattern)) - t0)
      await sleep(80 + Math.random() * 120)
    }
  }
  return samples.sort((a, b) => a - b)
}

const stats = (samples) => `p50 ${median(samples).toFixed(1)} ms, p95 ${percentile(samples, 95).toFixed(1)} ms, max ${samples.at(-1).toFixed(1)} ms over ${samples.length} keys`

// The footer's filter prompt (`/` and a reverse-video cursor), and the key hints back after Esc.
const FILTER_OPEN = ['/', /\/\u001B\[7m \u001B\[27m/]
const FILTER_CLOSED = ['\u001B', /q quit/]

async function liveTasks(ctx) {
  const {uiTasks: count, uiSeconds: seconds} = ctx.sizes
  const stateDir = ctx.dirs.fresh('top-idle')
  for (let i = 0; i < count; i++) drover(stateDir, ['start', '--', 'sleep', '600'])
  const {pty, began} = startTop(stateDir)
  try {
    const ready = (await pty.waitFor(new RegExp(`drover top · ${count} live`), 20_000)) - began
    await sleep(2000)
    const pid = pty.pid()
    const before = cpuSeconds(pid)
    await sleep(seconds * 1000)
    const percent = Math.round(((cpuSeconds(pid) - before) / seconds) * 1000) / 10
    return [
      row(`top: first frame with ${count} live tasks`, ready, '', null, 'ms', null, 'from spawning `drover top` in a pty to its frame listing them'),
      row(`top: idle CPU, ${count} live tasks`, percent, '', null, '% of a core', {maxValue: 2}, `over ${seconds} s after start-up; the list live from the API's events (a wake-up every 250 ms), the runtime column redrawn every second`),
    ]
  } finally {
    pty.close()
  }
}

async function flood(ctx) {
  const stateDir = ctx.dirs.fresh('top-flood')
  const seconds = 30 + Math.ceil((KEYS * 2 * 400) / 1000)
  drover(stateDir, ['start', '--name', 'flood', '--', process.execPath, path.join(LIB, 'paced-writer.mjs'), String(seconds), '1024'])
  drover(stateDir, ['start', '--name', 'quiet', '--', 'sleep', '600'])
  const {pty} = startTop(stateDir)
  try {
    // the writer is selected (first live task) and its lines are streaming through the pane
    await pty.waitFor(/line 0000\d{5} x/, 20_000)
    const pid = pty.pid()
    const cpuBefore = cpuSeconds(pid)
    const t0 = performance.now()
    const samples = await keyLatencies(pty, [FILTER_OPEN, FILTER_CLOSED])
    const cpu = Math.round(((cpuSeconds(pid) - cpuBefore) / ((performance.now() - t0) / 1000)) * 1000) / 10
    return [
      row('top: key → screen, the selected task writing 1 MiB/s', median(samples), '', null, 'ms', {maxValue: 100}, `${stats(samples)}; p95 ${percentile(samples, 95) < 100 ? 'also' : 'not'} under the goal; the key opens and closes the filter prompt while the preview pane follows the flood; top's CPU meanwhile ${cpu} % of a core`),
    ]
  } finally {
    pty.close()
  }
}

async function scale(ctx) {
  const stateDir = ctx.dirs.big()
  const count = ctx.sizes.big
  const {pty, began} = startTop(stateDir)
  try {
    const ready = (await pty.waitFor(new RegExp(`${count} ended`), 60_000)) - began
    await sleep(1000)
    // each j moves the reverse-video cursor one row down
    const samples = await keyLatencies(pty, [['j', /\u001B\[7m>/]])
    const ends = await keyLatencies(pty, [['G', /\u001B\[7m>/], ['g', /\u001B\[7m>/]], 5)
    return [
      row(`top: first frame with all ${count.toLocaleString('en-US')} tasks`, ready, '', null, 'ms', null, 'every task read once through the events (the list scrolls through all of them)'),
      row(`top: key → screen scrolling ${count.toLocaleString('en-US')} tasks`, median(samples), '', null, 'ms', {maxValue: 100}, `j: ${stats(samples)}; End/Home: ${stats(ends)}`),
    ]
  } finally {
    pty.close()
  }
}

export async function top(ctx) {
  return [...(await liveTasks(ctx)), ...(await flood(ctx)), ...(await scale(ctx))]
}
