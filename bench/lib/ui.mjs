// Dashboard: 20 clients, each following one of 20 live tasks that write
// 1 MiB/s, through `drover ui`'s output feed (server-sent events, what the
// page's EventSource reads). Every byte must arrive, in order (each event's
// offset is the previous one's end, and the text equals output.log), and the
// server's CPU time over the run is the measure. The clients speak HTTP
// themselves rather than being 20 Chromiums: on two cores those would
// measure the browsers, not the server.

import {spawn} from 'node:child_process'
import {readFileSync} from 'node:fs'
import {request} from 'node:http'
import path from 'node:path'
import {row} from './report.mjs'
import {BIN, LIB, drover, envFor, kill, waitFor} from './util.mjs'

const CLK_TCK = 100

function cpuSeconds(pid) {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
  return (Number(fields[11]) + Number(fields[12])) / CLK_TCK
}

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

export async function ui(ctx) {
  const tasks = ctx.sizes.uiTasks
  const seconds = ctx.sizes.uiSeconds
  const kibPerSecond = 1024
  const stateDir = ctx.dirs.fresh('ui')
  const server = spawn(process.execPath, [BIN, 'ui'], {env: envFor(stateDir), stdio: ['ignore', 'pipe', 'pipe']})
  let printed = ''
  server.stdout.on('data', (data) => (printed += data))
  try {
    const url = new URL(await waitFor(() => /^(http:\/\/\S+)\n/.exec(printed)?.[1], {timeout: 20_000, message: "drover ui's URL"}))
    const cookie = `drover_ui_${url.port}=${url.searchParams.get('token')}`
    const ids = []
    // Each start takes a few hundred ms: the first tasks have a backlog when the clients connect, which they read first.
    for (let i = 0; i < tasks; i++) {
      const started = drover(stateDir, ['start', '--json', '--', process.execPath, path.join(LIB, 'paced-writer.mjs'), String(seconds), String(kibPerSecond)])
      ids.push(JSON.parse(started.stdout).id)
    }
    const cpuBefore = cpuSeconds(server.pid)
    const began = Date.now()
    const texts = await Promise.all(ids.map((id) => followFeed(url.origin, cookie, id)))
    const wall = (Date.now() - began) / 1000
    const cpu = cpuSeconds(server.pid) - cpuBefore
    let bytes = 0
    for (const [i, id] of ids.entries()) {
      const log = readFileSync(path.join(stateDir, 'tasks', String(id), 'output.log'), 'utf8')
      if (texts[i] !== log) throw new Error(`task ${id}: the feed delivered ${texts[i].length} bytes, output.log holds ${log.length}, or they differ`)
      bytes += log.length
    }
    const percent = Math.round((cpu / wall) * 1000) / 10
    const note = `${tasks} tasks × ${kibPerSecond} KiB/s for ${seconds} s; ${(bytes / 1024 / 1024).toFixed(0)} MiB delivered whole and in order in ${wall.toFixed(1)} s; ${cpu.toFixed(2)} s CPU`
    return [row(`ui: server CPU, ${tasks} clients on ${tasks} tasks writing 1 MiB/s`, percent, '', null, '% of a core', {maxValue: 50}, note)]
  } finally {
    kill(server.pid, 'SIGINT')
  }
}
