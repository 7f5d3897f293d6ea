// `npm run bench`: measures drover beside its peers and the floor in one run
// and writes bench/RESULTS.md (medians, ratios, goals, machine, date, peer
// versions). Knobs are environment variables, listed in bench/README.md.

import {spawnSync} from 'node:child_process'
import {existsSync, readFileSync, writeFileSync} from 'node:fs'
import path from 'node:path'
import {listView, roundTrip, scale, start, starts} from './lib/cli-cases.mjs'
import {disk} from './lib/disk.mjs'
import {drain} from './lib/drain.mjs'
import {follow} from './lib/follow.mjs'
import {many} from './lib/many.mjs'
import {manyLive} from './lib/many-live.mjs'
import {scriptOnly} from './lib/script-only.mjs'
import {memory} from './lib/memory.mjs'
import {nodes} from './lib/nodes.mjs'
import {detectPeers, nqSandbox, pm2Sandbox, tspSandbox} from './lib/peers.mjs'
import {writeFinalTasks} from './lib/records.mjs'
import {machine, resultsMarkdown, skipped, textTable, updatedResults} from './lib/report.mjs'
import {slurm} from './lib/slurm.mjs'
import {throughput} from './lib/throughput.mjs'
import {queues} from './lib/queues.mjs'
import {followups} from './lib/followups.mjs'
import {fanout} from './lib/fanout.mjs'
import {top} from './lib/top.mjs'
import {ui} from './lib/ui.mjs'
import {winCost} from './lib/win-cost.mjs'
import {clearBootVariables, intEnv, makeTempDir, removeTempDirs, ROOT, TMP} from './lib/util.mjs'

const CASES = {roundtrip: roundTrip, start, nodes, starts, memory, follow, throughput, drain, scale, list: listView, queues, followups, fanout, ui, top, slurm, wincost: winCost, disk, many, manylive: manyLive, scriptonly: scriptOnly}
// Cases that take minutes of their own (a 100,000-task state dir): run only when named in BENCH_CASES.
const ON_REQUEST = new Set(['many', 'manylive', 'scriptonly'])
const DEFAULT_CASES = Object.keys(CASES).filter((name) => !ON_REQUEST.has(name))

// Both sides of every ratio run without what changes Node's boot (util.mjs): the floor is Node's own.
const bootVariables = clearBootVariables()
const BOOT_VARIABLE_NAMES = 'NODE_*, UV_THREADPOOL_SIZE, OPENSSL_CONF, OPENSSL_MODULES, SSL_CERT_FILE, SSL_CERT_DIR'

const quick = process.env.BENCH_QUICK === '1'
const selected = (process.env.BENCH_CASES ?? DEFAULT_CASES.join(','))
  .split(',')
  .map((s) => s.trim())
  .filter(Boolean)
for (const name of selected) if (!(name in CASES)) throw new Error(`BENCH_CASES: unknown case '${name}' (one of ${Object.keys(CASES).join(', ')})`)
const complete = !quick && DEFAULT_CASES.every((name) => selected.includes(name))
// BENCH_UPDATE=1: the cases run replace their own rows in bench/RESULTS.md, the others stay.
const update = process.env.BENCH_UPDATE === '1' && !quick && !complete
const out = process.env.BENCH_OUT ?? (complete || update ? path.join(ROOT, 'bench', 'RESULTS.md') : path.join(TMP, 'RESULTS-partial.md'))

if (!existsSync(path.join(ROOT, 'dist', 'cli', 'commands'))) {
  process.stderr.write('bench: no build found; run `npm run build` first\n')
  process.exit(1)
}

const sizes = {
  small: 1000,
  big: intEnv('BENCH_SCALE_TASKS', quick ? 2000 : 10_000),
  huge: intEnv('BENCH_HUGE_TASKS', quick ? 5000 : 100_000),
  hugeRuns: intEnv('BENCH_HUGE_RUNS', 3),
  throughputMiB: intEnv('BENCH_THROUGHPUT_MB', quick ? 64 : 1024),
  throughputRuns: intEnv('BENCH_THROUGHPUT_RUNS', quick ? 1 : 5),
  followLines: intEnv('BENCH_FOLLOW_LINES', quick ? 60 : 200),
  memTasks: intEnv('BENCH_MEM_TASKS', quick ? 3 : 10),
  drainTasks: intEnv('BENCH_DRAIN_TASKS', quick ? 10 : 50),
  queueTasks: intEnv('BENCH_QUEUE_TASKS', quick ? 20 : 100),
  queueWaiting: intEnv('BENCH_QUEUE_WAITING', 1000),
  followups: intEnv('BENCH_FOLLOWUPS', quick ? 5 : 20),
  waitTasks: 100,
  waitWindowMs: quick ? 5000 : 10_000,
  uiTasks: intEnv('BENCH_UI_TASKS', 20),
  uiSeconds: intEnv('BENCH_UI_SECONDS', quick ? 8 : 20),
  sequentialStarts: intEnv('BENCH_SEQUENTIAL_STARTS', quick ? 10 : 50),
}
const runs = intEnv('BENCH_RUNS', quick ? 5 : 15)

const sandboxes = []
const cached = {}
const ctx = {
  runs,
  sizes,
  peers: detectPeers(),
  dirs: {
    fresh: (prefix) => makeTempDir(`state-${prefix}`),
    empty: () => (cached.empty ??= makeTempDir('state-empty')),
    small: () => (cached.small ??= populated('small', sizes.small)),
    big: () => (cached.big ??= populated('big', sizes.big)),
    huge: () => (cached.huge ??= populated('huge', sizes.huge)),
  },
  /** A private peer sandbox, closed (daemons killed) when the run ends. */
  sandbox(kind) {
    const box = {nq: nqSandbox, tsp: tspSandbox, pm2: pm2Sandbox}[kind]()
    sandboxes.push(box)
    return box
  },
}

function populated(prefix, count) {
  const dir = makeTempDir(`state-${prefix}`)
  const began = Date.now()
  writeFinalTasks(dir, count)
  // 100,000 folders just made are dirty pages the kernel writes back for
  // a minute or more: written out now, so that writeback is not in the samples
  // (it took a fifth more from the floor beside them, and more from the lists).
  spawnSync('sync', {stdio: 'ignore'})
  log(`  (wrote ${count} task records in ${Date.now() - began} ms, synced)`)
  return dir
}

function log(line) {
  process.stderr.write(`${line}\n`)
}

function cleanup() {
  for (const box of sandboxes.splice(0)) box.close?.()
  removeTempDirs()
}

process.once('SIGINT', () => {
  cleanup()
  process.exit(130)
})

const began = Date.now()
const date = new Date().toISOString().replace(/\.\d+Z$/, 'Z')
const host = machine()
const rows = []
const notes = []
try {
  for (const name of selected) {
    log(`bench: ${name} …`)
    const caseBegan = Date.now()
    try {
      rows.push(...(await CASES[name](ctx)))
    } catch (error) {
      log(error.stack ?? String(error))
      rows.push(skipped(name, `the case failed: ${String(error.message ?? error).split('\n')[0]}`))
    }
    log(`bench: ${name} took ${((Date.now() - caseBegan) / 1000).toFixed(1)} s`)
  }
} finally {
  cleanup()
}

if (quick) notes.push('BENCH_QUICK=1: reduced sizes, so goals tied to a size (1,000 / 10,000 tasks) apply only where the size matches.')
const settings = {
  'runs per CLI case (BENCH_RUNS)': `${runs} (list --json and list --all at ${sizes.big.toLocaleString('en-US')} tasks in round trip and scale: ${Math.max(3, Math.ceil(runs / 2))}; in many: all), after one warm-up`,
  'scale (BENCH_SCALE_TASKS)': `${sizes.big.toLocaleString('en-US')} tasks`,
  ...(selected.some((name) => ON_REQUEST.has(name))
    ? {'many, manylive (BENCH_HUGE_TASKS, BENCH_HUGE_RUNS)': `${sizes.huge.toLocaleString('en-US')} tasks; ${sizes.hugeRuns} runs of what reads every one of them`}
    : {}),
  'throughput (BENCH_THROUGHPUT_MB, BENCH_THROUGHPUT_RUNS)': `${sizes.throughputMiB} MiB × ${sizes.throughputRuns} runs`,
  'follow latency (BENCH_FOLLOW_LINES)': `${sizes.followLines} lines`,
  'memory (BENCH_MEM_TASKS)': `${sizes.memTasks} live tasks per group`,
  'drain (BENCH_DRAIN_TASKS)': `${sizes.drainTasks} tasks`,
  'sequential starts (BENCH_SEQUENTIAL_STARTS)': `${sizes.sequentialStarts} on each side`,
  'queues (BENCH_QUEUE_TASKS, BENCH_QUEUE_WAITING)': `${sizes.queueTasks} hand-offs; start with ${sizes.queueWaiting} waiting; wait on ${sizes.waitTasks}`,
  'follow-ups (BENCH_FOLLOWUPS)': `${sizes.followups} delivered in a row`,
  environment: `every command, drover and \`node -e 0\` alike, runs without the variables that change Node's boot or oclif's (${BOOT_VARIABLE_NAMES}); removed from this run's environment: ${bootVariables.length > 0 ? bootVariables.join(', ') : 'none was set'}`,
  cases: selected.join(', '),
}
const markdown = update
  ? updatedResults(readFileSync(out, 'utf8'), {rows, cases: selected, date, durationMs: Date.now() - began, machine: host})
  : resultsMarkdown({rows, machine: host, peers: ctx.peers, settings, date, durationMs: Date.now() - began, notes})
writeFileSync(out, markdown)
process.stdout.write(`\n${textTable(rows)}\n\n`)
const missed = rows.filter((r) => r.raw.met === false).map((r) => r.case)
process.stdout.write(missed.length ? `goals missed: ${missed.join('; ')}\n` : 'every goal met\n')
process.stdout.write(`written: ${path.relative(process.cwd(), out)}\n`)
