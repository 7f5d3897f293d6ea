// What acts on the live tasks must cost what the live tasks cost, however many
// ended ones lie beside them: 100 live tasks with 100,000 ended, beside the
// same 100 live tasks with 200 ended (as many as any view shows, so both sides
// show the same rows). The live tasks are queued in a paused queue: live to
// every command, with no process of their own to load the machine.
//
// - `wait --all --timeout 1ms`: choosing every live task and one look at them.
// - `stop --all`: choosing them and ending each (queued: under its lock, no
//   process to signal); the 100 are queued again after each sample, untimed,
//   and `list` drops their hints, as it would between two real uses.
// - queue hand-off: a queue of 1 runs short tasks; previous exit → next started.
// - the dashboard's task list: GET /api/tasks of a running `drover ui`.
// - `top`: from spawning it in a pty to its first full frame; its CPU while idle.
// - MCP `list_tasks`, by a client of the SDK on one `drover mcp` per side.

import {readdirSync} from 'node:fs'
import {request} from 'node:http'
import path from 'node:path'
import {Client} from '@modelcontextprotocol/sdk/client/index.js'
import {StdioClientTransport} from '@modelcontextprotocol/sdk/client/stdio.js'
import {interleaved} from './cli-cases.mjs'
import {openPty} from './pty.mjs'
import {queueHandOffs} from './queues.mjs'
import {writeFinalTasks} from './records.mjs'
import {row} from './report.mjs'
import {cpuSeconds, startDashboard} from './ui-dashboard.mjs'
import {BIN, LIB, drover, envFor, percentile, run, sleep, summary, timed} from './util.mjs'

const node = process.execPath
const LIVE = 100
const SHOWN_ENDED = 200
const LIVE_QUEUE = 'live'
const TOP_FIRST_FRAME_RUNS = 9

const fillLive = (stateDir) => run(node, [path.join(LIB, 'fill-queue.mjs'), stateDir, LIVE_QUEUE, String(LIVE)])

/** Ends the live tasks and drops their hints: the dir as it was, every task ended. */
function endLive(stateDir) {
  drover(stateDir, ['stop', '--all', '--json'])
  drover(stateDir, ['list'])
}

/** GET of one dashboard API path, timed from the request to the last byte. */
function timedGet(dash, apiPath) {
  return new Promise((resolve, reject) => {
    const t0 = performance.now()
    const req = request(`${dash.url.origin}${apiPath}`, {headers: {Cookie: dash.cookie}}, (res) => {
      let body = ''
      res.setEncoding('utf8')
      res.on('data', (data) => (body += data))
      res.on('end', () => {
        const ms = performance.now() - t0
        if (res.statusCode !== 200) return reject(new Error(`${apiPath}: HTTP ${res.statusCode}: ${body.slice(0, 200)}`))
        resolve({ms, body})
      })
    })
    req.on('error', reject)
    req.end()
  })
}

async function mcpClient(stateDir) {
  const transport = new StdioClientTransport({command: node, args: [BIN, 'mcp', '--state-dir', stateDir], stderr: 'ignore'})
  const client = new Client({name: 'bench', version: '1.0.0'})
  await client.connect(transport)
  return client
}

/** One tool call, timed from the request to the parsed answer. */
async function timedCall(client, name, args) {
  const t0 = performance.now()
  const result = await client.callTool({name, arguments: args}, undefined, {timeout: 600_000})
  const ms = performance.now() - t0
  if (result.isError) throw new Error(`${name}: ${JSON.stringify(result.content).slice(0, 300)}`)
  return {ms, result}
}

/**
 * `top` until its header counts the live and ended tasks; then, unless
 * `firstOnly`, until every task is read, and its CPU over `seconds` idle.
 */
async function topRun(stateDir, ended, seconds, firstOnly = false) {
  const began = performance.now()
  const pty = openPty([node, BIN, 'top'], {env: envFor(stateDir)})
  try {
    const ready = (await pty.waitFor(new RegExp(`${LIVE} queued · ${ended} ended`), 300_000)) - began
    if (firstOnly) return {ready, whole: null, cpu: null}
    // its first frame counts them from the default view's look; every task is read once the header no longer says so
    const whole = (await pty.waitFor(new RegExp(`${LIVE} queued · ${ended} ended · [^r]`), 300_000)) - began
    if (seconds === 0) return {ready, whole, cpu: null}
    // Its watch waits four times as long as its last look took before the next: past that, it is idle as it stays.
    await sleep(Math.max(1000, 5 * ready))
    const pid = pty.pid()
    const before = cpuSeconds(pid)
    await sleep(seconds * 1000)
    return {ready, whole, cpu: ((cpuSeconds(pid) - before) / seconds) * 100}
  } finally {
    pty.close()
  }
}

export async function manyLive(ctx) {
  const {dirs, runs, sizes} = ctx
  const huge = dirs.huge()
  const few = dirs.fresh('manylive-few')
  writeFinalTasks(few, SHOWN_ENDED)
  // every task there but the live ones has ended
  const hugeEnded = () => readdirSync(path.join(huge, 'tasks')).length - LIVE
  fillLive(huge)
  fillLive(few)
  const n = sizes.huge.toLocaleString('en-US')
  const beside = `${LIVE} live, ${SHOWN_ENDED} ended`
  const goal = sizes.huge === 100_000 ? {maxRatio: 1.2} : null
  const label = (what) => `manylive: ${what}, ${LIVE} live + ${n} ended`
  const rows = []
  try {
    // wait --all: the selection and one look at each live task (the timeout ends it: exit 124)
    const waitArgs = [BIN, 'wait', '--all', '--timeout', '1ms']
    const w = await interleaved(
      {
        huge: () => timed(node, waitArgs, {env: envFor(huge), ok: [124]}),
        few: () => timed(node, waitArgs, {env: envFor(few), ok: [124]}),
      },
      runs,
    )
    rows.push(row(label('`wait --all --timeout 1ms`'), w.huge.median, beside, w.few.median, 'ms', goal, 'the selection of every live task and one look at each'))

    // the dashboard's list: the server up on each side, the same request to both
    const dashHuge = await startDashboard(ctx, 'manylive', huge)
    const dashFew = await startDashboard(ctx, 'manylive', few)
    try {
      const d = await interleaved({huge: () => timedGet(dashHuge, '/api/tasks'), few: () => timedGet(dashFew, '/api/tasks')}, runs)
      rows.push(row(label("dashboard's task list (GET /api/tasks)"), d.huge.median, beside, d.few.median, 'ms', goal, 'one `drover ui` per side, up before the first sample; the page asks for the live tasks and the 200 newest ended'))
    } finally {
      dashHuge.stop()
      dashFew.stop()
    }

    // MCP list_tasks: one server per side, up before the first call
    const mcpHuge = await mcpClient(huge)
    const mcpFew = await mcpClient(few)
    try {
      const call = (client, args) => () => timedCall(client, 'list_tasks', args)
      const live = {status: ['queued', 'starting', 'running', 'stopping', 'waiting']}
      const m = await interleaved({huge: call(mcpHuge, {}), few: call(mcpFew, {}), liveHuge: call(mcpHuge, live), liveFew: call(mcpFew, live)}, runs, (name) => (name === 'huge' || name === 'few' ? sizes.hugeRuns : runs))
      rows.push(
        row(label('MCP `list_tasks` (default: the newest 50 and the total)'), m.huge.median, beside, m.few.median, 'ms', goal, 'by an SDK client, over stdio, of one `drover mcp` per side'),
        row(label('MCP `list_tasks` of the live statuses'), m.liveHuge.median, beside, m.liveFew.median, 'ms', goal, 'status: queued, starting, running, stopping, waiting'),
      )
    } finally {
      await mcpHuge.close()
      await mcpFew.close()
    }

    // top: first frame and idle CPU, a few runs each side
    const ended = hugeEnded()
    const seconds = Math.min(ctx.sizes.uiSeconds, 10)
    const topHuge = []
    const topFew = []
    // The first frame is a few hundred ms a side, within the noise of 3
    // samples (1.09–1.22× from run to run on the same code): more runs a
    // side that stop at it, beyond the runs that wait for every task read.
    const firstRuns = Math.max(sizes.hugeRuns, TOP_FIRST_FRAME_RUNS)
    for (let i = 0; i < firstRuns; i++) {
      const firstOnly = i >= sizes.hugeRuns
      topHuge.push(await topRun(huge, ended, i === 0 ? seconds : 0, firstOnly))
      topFew.push(await topRun(few, SHOWN_ENDED, i === 0 ? seconds : 0, firstOnly))
    }
    const first = (samples) => summary(samples.map((s) => s.ready)).median
    const whole = (samples) => summary(samples.filter((s) => s.whole !== null).map((s) => s.whole)).median
    rows.push(
      row(label('`top` first frame'), first(topHuge), beside, first(topFew), 'ms', goal, `from spawning it in a pty to the header counting every task; ${firstRuns} runs a side, interleaved`),
      row(label('`top` every task read'), whole(topHuge), beside, whole(topFew), 'ms', null, 'from spawning it to its header no longer saying `reading older tasks…` (its watch\'s first pass done, every row there to scroll to)'),
      row(label('`top` idle CPU'), topHuge[0].cpu, beside, topFew[0].cpu, '%', null, `% of a core over ${seconds} s, from five times its first frame's time after it (its first look over, and the wait after it)`),
    )

    // queue hand-off: a queue of 1 running short tasks, beside the same in the small dir
    const count = Math.min(sizes.queueTasks, 30)
    const gapsHuge = await queueHandOffs(huge, 'handoff', count)
    const gapsFew = await queueHandOffs(few, 'handoff', count)
    rows.push(row(label('queue hand-off, slot freed → next running, p50'), percentile(gapsHuge, 50), beside, percentile(gapsFew, 50), 'ms', goal, `${count - 1} hand-offs a side in a queue of 1 (exit event → started event); p90 ${percentile(gapsHuge, 90).toFixed(0)} ms vs ${percentile(gapsFew, 90).toFixed(0)} ms`))

    // stop --all last: it ends the live tasks, which are queued again for the next sample
    const stopOnce = (stateDir) => () => {
      const result = timed(node, [BIN, 'stop', '--all', '--json'], {env: envFor(stateDir)})
      const stopped = JSON.parse(result.stdout).results.length
      if (stopped !== LIVE) throw new Error(`stop --all ended ${stopped} tasks, expected ${LIVE}`)
      drover(stateDir, ['list'])
      fillLive(stateDir)
      return {ms: result.ms, cpuMs: result.cpuMs}
    }
    const st = await interleaved({huge: stopOnce(huge), few: stopOnce(few)}, Math.min(runs, 8))
    rows.push(row(label('`stop --all` (ends the 100 queued)'), st.huge.median, beside, st.few.median, 'ms', goal, 'the live tasks queued again after each sample, untimed, and `list` run to drop their hints'))
  } finally {
    endLive(huge)
    endLive(few)
  }
  return rows
}
