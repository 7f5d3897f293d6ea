// Dashboard: 20 live tasks writing 1 MiB/s each, followed through `drover
// ui`'s output feed (server-sent events) by 20 clients, in two modes
// (BENCH_UI_CLIENTS, default both):
//
// - http: 20 plain HTTP clients read the feed from byte 0, as the page's
//   EventSource does, and nothing else: the server's cost alone.
// - browser: 20 pages of one headless Chromium, each on one task's page,
//   what the issue asked for (ui-browser.mjs). The browser shares the two
//   cores with the server, so its CPU is measured apart, and whether the
//   pages kept up is a row of its own.
//
// Every byte must arrive, in order (each event's offset is the previous
// one's end, and the text equals output.log), or the case fails. The
// server's CPU time over the run is the measure (< 50% of one core).

import {request} from 'node:http'
import {row, skipped} from './report.mjs'
import {uiBrowser} from './ui-browser.mjs'
import {cpuSeconds, KIB_PER_SECOND, outputLog, startDashboard, startWriters} from './ui-dashboard.mjs'

/** Follows one task's output feed from byte 0; resolves with its text once the `end` event came. */
function followFeed(base, cookie, id) {
  return new Promise((resolve, reject) => {
    const req = request(`${base}/api/tasks/${id}/stream?offset=0`, {headers: {Cookie: cookie}}, (res) => {
      if (res.statusCode !== 200) return reject(new Error(`feed of task ${id}: HTTP ${res.statusCode}`))
      res.setEncoding('utf8')
      let held = ''
      let text = ''
      let end = 0
      res.on('data', (data) => {
        const events = (held + data).split('\n\n')
        held = events.pop()
        for (const event of events) {
          const type = /^event: (\w+)$/m.exec(event)?.[1]
          const payload = /^data: (.*)$/m.exec(event)?.[1]
          if (type === 'output') {
            const chunk = JSON.parse(payload)
            if (chunk.offset !== null && chunk.offset !== end) return reject(new Error(`task ${id}: a chunk at ${chunk.offset}, expected ${end}`))
            if (chunk.end !== null) end = chunk.end
            text += chunk.text
          } else if (type === 'end') {
            res.destroy()
            resolve(text)
          }
        }
      })
      res.on('error', reject)
    })
    req.on('error', reject)
    req.end()
  })
}

async function uiHttp(ctx) {
  const {uiTasks: tasks, uiSeconds: seconds} = ctx.sizes
  const dash = await startDashboard(ctx, 'ui-http')
  try {
    const ids = startWriters(dash.stateDir, tasks, seconds)
    const cpuBefore = cpuSeconds(dash.pid)
    const began = Date.now()
    const texts = await Promise.all(ids.map((id) => followFeed(dash.url.origin, dash.cookie, id)))
    const wall = (Date.now() - began) / 1000
    const cpu = cpuSeconds(dash.pid) - cpuBefore
    let bytes = 0
    for (const [i, id] of ids.entries()) {
      const log = outputLog(dash.stateDir, id).toString('utf8')
      if (texts[i] !== log) throw new Error(`task ${id}: the feed delivered ${texts[i].length} bytes, output.log holds ${log.length}, or they differ`)
      bytes += log.length
    }
    const percent = Math.round((cpu / wall) * 1000) / 10
    const note = `plain HTTP clients from byte 0; ${tasks} tasks × ${KIB_PER_SECOND} KiB/s for ${seconds} s; ${(bytes / 1024 / 1024).toFixed(0)} MiB delivered whole and in order in ${wall.toFixed(1)} s; ${cpu.toFixed(2)} s CPU`
    return [row(`ui: server CPU, ${tasks} HTTP clients on ${tasks} tasks writing 1 MiB/s`, percent, '', null, '% of a core', {maxValue: 50}, note)]
  } finally {
    dash.stop()
  }
}

const MODES = {http: uiHttp, browser: uiBrowser}

export async function ui(ctx) {
  const modes = (process.env.BENCH_UI_CLIENTS || 'http,browser').split(',').map((m) => m.trim())
  const rows = []
  for (const mode of modes) {
    if (!MODES[mode]) throw new Error(`BENCH_UI_CLIENTS: no mode '${mode}' (http, browser)`)
    try {
      rows.push(...(await MODES[mode](ctx)))
    } catch (error) {
      process.stderr.write(`${error.stack ?? error}\n`)
      rows.push(skipped(`ui (${mode} clients)`, `the case failed: ${String(error.message ?? error).split('\n')[0]}`))
    }
  }
  return rows
}
