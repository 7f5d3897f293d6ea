// The dashboard bench with real pages (ui.mjs, mode "browser"): one
// headless Chromium (Debian's, through playwright-core), 20 pages, each on
// one live task's page and each in a browser context of its own (see
// below why), as 20 people would have them open. What each page
// received is counted in the page itself, on the page's own EventSource: a
// script installed before the page's wraps EventSource and, for the output
// feed, checks that each event starts where the last ended and keeps a
// running hash of the text. The bench hashes output.log from the first
// offset the page got and compares: the writers wait silent until every
// page is open on its task, so that offset is 0 and every byte counts. The server's CPU and the browser's (all its processes) are
// read from /proc apart. On two cores the browser may fall behind 20 MiB/s
// of rendering: then the pages are late, and the bench says by how much
// rather than shrinking the load.

import {existsSync, readdirSync, readFileSync, writeFileSync} from 'node:fs'
import path from 'node:path'
import {row, skipped} from './report.mjs'
import {cpuSeconds, KIB_PER_SECOND, outputLog, startDashboard, startWriters} from './ui-dashboard.mjs'
import {droverJson, sleep} from './util.mjs'

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium'

/** Runs in every page before its own script: counts and checks what the output feed delivers. */
function recordFeed() {
  const Native = window.EventSource
  const got = {offset: null, end: 0, chars: 0, hash: 0x811c9dc5, events: 0, error: null, ended: false, endedAt: null, sources: 0}
  window.__benchFeed = got
  window.EventSource = class extends Native {
    constructor(url, init) {
      super(url, init)
      if (!/\/api\/tasks\/\d+\/stream/.test(String(url))) return
      got.sources++
      this.addEventListener('output', (event) => {
        const chunk = JSON.parse(event.data)
        if (got.offset === null) got.offset = chunk.offset
        else if (chunk.offset !== null && chunk.offset !== got.end && got.error === null) got.error = `a chunk at ${chunk.offset}, expected ${got.end}`
        if (chunk.end !== null) got.end = chunk.end
        let hash = got.hash
        for (let i = 0; i < chunk.text.length; i++) hash = Math.imul(hash ^ chunk.text.charCodeAt(i), 16777619)
        got.hash = hash >>> 0
        got.chars += chunk.text.length
        got.events++
      })
      this.addEventListener('reset', () => (got.error ??= 'the feed was reset'))
      this.addEventListener('end', () => {
        got.ended = true
        got.endedAt = Date.now()
      })
    }
  }
}

/** The page's hash (FNV-1a over UTF-16 code units), over the same text. */
function fnv1a(text) {
  let hash = 0x811c9dc5
  for (let i = 0; i < text.length; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 16777619)
  return hash >>> 0
}

/** Pids under `root` (itself included), from one scan of /proc: Chromium starts its helpers from other threads than its main one. */
function processTree(root) {
  const children = new Map()
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8')
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1])
      children.set(ppid, [...(children.get(ppid) ?? []), Number(name)])
    } catch {
      // gone meanwhile
    }
  }
  const tree = []
  const visit = (pid) => {
    tree.push(pid)
    for (const child of children.get(pid) ?? []) visit(child)
  }
  visit(root)
  return tree
}

/** CPU seconds of a process tree, with what its members reaped (a helper that exited meanwhile still counts). */
const treeCpu = (pids) => pids.reduce((sum, pid) => sum + cpuSeconds(pid, {children: true}), 0)

export async function uiBrowser(ctx) {
  const {uiTasks: tasks, uiSeconds: seconds} = ctx.sizes
  const name = `ui: server CPU, ${tasks} browser pages on ${tasks} tasks writing 1 MiB/s`
  if (!existsSync(CHROMIUM)) return [skipped(name, `no Chromium at ${CHROMIUM} (apt-get install chromium, or set CHROMIUM_PATH)`)]
  let chromium
  try {
    ;({chromium} = await import('playwright-core'))
  } catch {
    return [skipped(name, 'playwright-core is not installed (npm ci)')]
  }
  const dash = await startDashboard(ctx, 'ui-browser')
  const browser = await chromium.launch({executablePath: CHROMIUM, args: ['--no-sandbox'], headless: true})
  try {
    // A profile holds at most 6 HTTP/1.1 connections to one host, and each open page keeps one feed:
    // 20 pages in one profile would stall from the sixth. So a context (profile) per page, as 20 people's browsers.
    const contexts = await Promise.all(ids0(tasks).map(async () => {
      const context = await browser.newContext({viewport: {width: 1280, height: 800}})
      await context.addInitScript(recordFeed)
      const signIn = await context.newPage()
      await signIn.goto(dash.url.href)
      await signIn.close()
      return context
    }))
    // The browser's processes: everything under this process but the dashboard (and its runners are not ours).
    const browserPids = () => processTree(process.pid).filter((pid) => pid !== process.pid && pid !== dash.pid)

    // The writers wait for the go file while the pages open on them: then all 20 write at once, every page live from byte 0.
    const goFile = path.join(dash.stateDir, 'go')
    const ids = startWriters(dash.stateDir, tasks, seconds, goFile)
    const pages = []
    for (const [i, id] of ids.entries()) {
      const page = await contexts[i].newPage()
      await page.goto(`${dash.url.origin}/task/${id}`)
      await page.waitForFunction(() => window.__benchFeed.sources > 0 && document.getElementById('live')?.textContent === 'live')
      pages.push(page)
    }
    const visibility = await Promise.all(pages.map((page) => page.evaluate(() => document.visibilityState)))
    const serverBefore = cpuSeconds(dash.pid)
    const browserBefore = treeCpu(browserPids())
    const began = Date.now()
    writeFileSync(goFile, '')
    // The writers are done `seconds` after their start; give the pages as long again, and a minute, to catch up.
    const deadline = began + seconds * 2000 + 60_000
    let feeds
    for (;;) {
      feeds = await Promise.all(pages.map((page) => page.evaluate(() => ({...window.__benchFeed}))))
      if (feeds.every((feed) => feed.ended) || Date.now() > deadline) break
      await sleep(250)
    }
    const ended = Date.now()
    const wall = (ended - began) / 1000
    const serverCpu = cpuSeconds(dash.pid) - serverBefore
    const browserCpu = treeCpu(browserPids()) - browserBefore

    // Every page's bytes so far are checked, finished or not: a page behind is late, never wrong.
    let bytes = 0
    let written = 0
    let worstLagMs = 0
    let unfinished = 0
    for (const [i, id] of ids.entries()) {
      const feed = feeds[i]
      if (feed.error) throw new Error(`task ${id}: ${feed.error}`)
      const task = droverJson(dash.stateDir, ['status', String(id)])
      const log = outputLog(dash.stateDir, id)
      const text = log.subarray(feed.offset ?? 0, feed.end).toString('utf8')
      if (feed.chars !== text.length || feed.hash !== fnv1a(text) || (feed.ended && feed.end !== log.length)) {
        throw new Error(`task ${id}: the page got ${feed.chars} characters up to byte ${feed.end}; output.log from ${feed.offset} holds ${text.length} up to there (${log.length} in all), or they differ`)
      }
      bytes += text.length
      written += log.length
      if (!feed.ended) unfinished++
      worstLagMs = Math.max(worstLagMs, (feed.ended ? feed.endedAt : ended) - Date.parse(task.endedAt ?? new Date(ended).toISOString()))
    }
    const mib = (n) => (n / 1024 / 1024).toFixed(0)
    const served = `${tasks} tasks × ${KIB_PER_SECOND} KiB/s for ${seconds} s, a page each in one headless Chromium (pages ${[...new Set(visibility)].join('/')})`
    const delivered = `${mib(bytes)} of the ${mib(written)} MiB written reached the pages, every byte in order, in ${wall.toFixed(1)} s (${(bytes / 1024 / 1024 / wall).toFixed(1)} MiB/s)${
      unfinished ? `; ${unfinished} of ${tasks} pages had not got the end of their task's output when the bench stopped waiting` : ''
    }`
    return [
      row(name, pct(serverCpu, wall), '', null, '% of a core', {maxValue: 50}, `${served}; ${delivered}; ${serverCpu.toFixed(2)} s CPU`),
      row(`ui: the browser's CPU beside it (${tasks} pages rendering)`, pct(browserCpu, wall), '', null, '% of a core', null, `all of Chromium's processes, over the same ${wall.toFixed(1)} s; the machine has 2 cores`),
      row(
        `ui: the slowest page behind its task at the end`,
        worstLagMs,
        '',
        null,
        'ms',
        {maxValue: 2000},
        `${unfinished ? 'at least (pages still behind when the bench stopped waiting): ' : ''}from the task's end (its record's endedAt) to the page's \`end\` event; over 2 s means the pages did not keep up with 1 MiB/s each`,
      ),
    ]
  } finally {
    await browser.close().catch(() => {})
    dash.stop()
  }
}

const ids0 = (n) => Array.from({length: n}, (_, i) => i)
const pct = (cpu, wall) => Math.round((cpu / wall) * 1000) / 10
