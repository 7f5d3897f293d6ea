#!/usr/bin/env node
// The real-agent scenarios against the newest published version of each
// agent (claude, codex, gemini, qwen, copilot, opencode): a report, never a
// gate. It installs the newest versions (`npm view`) into a cache dir of their
// own (drover-test-agents-latest/), runs a reduced set of scenarios for all
// six in the loopback-only namespace (scripts/test-agents.mjs), and prints
// which pass for which version. Whatever fails — an install, a scenario — is
// printed, and the exit status is 0: the pinned versions gate CI, this tells
// what the next pin will meet.
//
// When the newest versions are the pinned ones, nothing runs (the gating
// suite just ran them); DROVER_TEST_AGENTS_LATEST_FORCE=1 runs anyway.
// DROVER_TEST_AGENTS_LATEST_SCENARIOS: a vitest -t pattern for more (or other)
// scenarios than the default one.

import {spawnSync} from 'node:child_process'
import {mkdtempSync, readFileSync, rmSync} from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import {fileURLToPath} from 'node:url'
import {newestPackages, PINNED_PACKAGES} from './install-agents.mjs'

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
// One scenario that crosses everything drover reads of an agent: its session
// and usage in status, a drain mid-turn, a resume in the same session with
// every flag kept. About 30–60 s per agent.
const SCENARIOS = process.env.DROVER_TEST_AGENTS_LATEST_SCENARIOS ?? 'status shows its session'
const AGENTS = ['claude', 'codex', 'gemini', 'qwen', 'copilot', 'opencode']

function say(line) {
  console.log(`test-agents-latest: ${line}`)
}

if (process.platform !== 'linux') {
  say(`needs a Linux network namespace; not run on ${process.platform}`)
  process.exit(0)
}

// Newest equal to pinned (the usual case right after a pin): the gating suite
// has just run those very binaries; nothing to install or run again.
let newest
try {
  newest = newestPackages()
} catch (error) {
  say(`could not ask the registry for the newest versions (not a failure of drover): ${error.message}`)
  process.exit(0)
}
const moved = AGENTS.filter((agent) => newest[agent].version !== PINNED_PACKAGES[agent].version)
if (moved.length === 0 && process.env.DROVER_TEST_AGENTS_LATEST_FORCE !== '1') {
  say(`the newest published versions are the pinned ones (${AGENTS.map((a) => `${a} ${newest[a].version}`).join(', ')}): the gating run covered them`)
  process.exit(0)
}
say(`newer than pinned: ${moved.map((a) => `${a} ${PINNED_PACKAGES[a].version} → ${newest[a].version}`).join(', ') || 'none (forced run)'}`)

const env = {...process.env, DROVER_TEST_AGENTS_LATEST: '1', DROVER_TEST_AGENTS_ONLY: AGENTS.join(',')}
const install = spawnSync(process.execPath, [path.join(ROOT, 'scripts', 'install-agents.mjs'), '--latest'], {cwd: ROOT, env, encoding: 'utf8'})
if (install.status !== 0) {
  say(`could not install the newest versions (not a failure of drover): ${(install.stderr || install.stdout).trim().split('\n').at(-1)}`)
  process.exit(0)
}
const versions = Object.fromEntries(
  install.stdout
    .trim()
    .split('\n')
    .map((line) => /^(\w+) ([^:]+):/.exec(line))
    .filter(Boolean)
    .map((m) => [m[1], m[2]]),
)

const dir = mkdtempSync(path.join(os.tmpdir(), 'drover-latest-'))
const report = path.join(dir, 'report.json')
const began = Date.now()
const run = spawnSync(
  process.execPath,
  [path.join(ROOT, 'scripts', 'test-agents.mjs'), 'test/real-agents/scenarios.test.ts', '-t', SCENARIOS, '--reporter=json', `--outputFile=${report}`, '--reporter=dot'],
  {cwd: ROOT, env, stdio: ['ignore', 'inherit', 'inherit']},
)
const seconds = ((Date.now() - began) / 1000).toFixed(0)

let results = []
try {
  results = JSON.parse(readFileSync(report, 'utf8')).testResults.flatMap((file) => file.assertionResults)
} catch {
  say(`the run left no report (exit ${run.status ?? run.signal}); not a gate`)
}
rmSync(dir, {recursive: true, force: true})

const rows = []
for (const agent of AGENTS) {
  const mine = results.filter((r) => r.ancestorTitles.some((t) => t.startsWith(`'${agent}'`) || t.startsWith(`${agent} `)) && r.status !== 'skipped' && r.status !== 'pending')
  for (const r of mine) rows.push({agent, version: versions[agent] ?? '?', scenario: r.title, status: r.status, message: (r.failureMessages?.[0] ?? '').split('\n')[0]})
  if (mine.length === 0) rows.push({agent, version: versions[agent] ?? '?', scenario: SCENARIOS, status: 'not run', message: ''})
}
say(`newest published versions, ${seconds} s (a report, not a gate):`)
for (const row of rows) {
  console.log(`  ${row.status === 'passed' ? 'pass' : row.status === 'failed' ? 'FAIL' : row.status.padEnd(4)}  ${row.agent} ${row.version}  ${row.scenario}${row.message ? `\n        ${row.message.slice(0, 300)}` : ''}`)
}
const failed = rows.filter((r) => r.status !== 'passed').length
say(failed === 0 ? 'every scenario passed' : `${failed} of ${rows.length} did not pass; the pinned versions still gate`)
process.exit(0)
