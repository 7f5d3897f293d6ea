#!/usr/bin/env node
// Installs the real `claude` and `codex` CLIs the agents test suite runs, at
// exact versions, into a cache dir of their own: they are ~0.5 GB, so they stay
// out of the project's dependencies and `npm ci` stays small. Fast and silent
// when the right versions are already there. Prints where the binaries are.
//
// DROVER_TEST_AGENTS_DIR overrides the cache dir (default: drover-test-agents/
// under $XDG_CACHE_HOME or ~/.cache).

import {spawnSync} from 'node:child_process'
import {existsSync, mkdirSync, readFileSync, writeFileSync} from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import {fileURLToPath} from 'node:url'

// claude: a plain install on Node 20 resolves to an older release, since later
// ones declare node >= 22; the binary itself is native and runs on any Node.
export const AGENT_PACKAGES = {
  claude: {name: '@anthropic-ai/claude-code', version: '2.1.332'},
  codex: {name: '@openai/codex', version: '0.171.0'},
  gemini: {name: '@google/gemini-cli', version: '0.61.0'},
  qwen: {name: '@qwen-code/qwen-code', version: '0.24.4'},
  copilot: {name: '@github/copilot', version: '1.0.102'},
  opencode: {name: 'opencode-ai', version: '1.18.33'},
}

export function agentsDir() {
  if (process.env.DROVER_TEST_AGENTS_DIR) return path.resolve(process.env.DROVER_TEST_AGENTS_DIR)
  const cache = process.env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache')
  return path.join(cache, 'drover-test-agents')
}

/** The launcher npm links for an agent; exists only once installed. */
export function agentBin(kind, dir = agentsDir()) {
  return path.join(dir, 'node_modules', '.bin', process.platform === 'win32' ? `${kind}.cmd` : kind)
}

function installedVersion(name, dir) {
  try {
    return JSON.parse(readFileSync(path.join(dir, 'node_modules', ...name.split('/'), 'package.json'), 'utf8')).version
  } catch {
    return null
  }
}

/** The agents whose installed version is not the pinned one (or that are missing). */
export function missingAgents(dir = agentsDir()) {
  return Object.entries(AGENT_PACKAGES)
    .filter(([kind, pkg]) => installedVersion(pkg.name, dir) !== pkg.version || !existsSync(agentBin(kind, dir)))
    .map(([kind]) => kind)
}

export function installAgents(dir = agentsDir(), log = (line) => process.stderr.write(`${line}\n`)) {
  const missing = missingAgents(dir)
  if (missing.length > 0) {
    mkdirSync(dir, {recursive: true})
    // A package.json of its own, so npm installs here and never walks up into
    // a project that happens to contain the cache dir.
    const manifest = path.join(dir, 'package.json')
    if (!existsSync(manifest)) writeFileSync(manifest, JSON.stringify({name: 'drover-test-agents', private: true}, null, 2) + '\n')
    const specs = Object.values(AGENT_PACKAGES).map((p) => `${p.name}@${p.version}`)
    log(`installing ${specs.join(' ')} into ${dir} …`)
    const began = Date.now()
    const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm'
    const result = spawnSync(
      npm,
      ['install', '--save-exact', '--no-audit', '--no-fund', '--engine-strict=false', '--loglevel=error', ...specs],
      {cwd: dir, stdio: ['ignore', 'inherit', 'inherit'], shell: process.platform === 'win32'},
    )
    if (result.status !== 0) throw new Error(`npm install of the test agents failed (exit ${result.status ?? result.signal})`)
    const still = missingAgents(dir)
    if (still.length > 0) throw new Error(`after npm install, still missing or at the wrong version: ${still.join(', ')}`)
    log(`installed in ${((Date.now() - began) / 1000).toFixed(1)} s`)
  }
  return {claude: agentBin('claude', dir), codex: agentBin('codex', dir)}
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  try {
    const bins = installAgents()
    for (const [kind, bin] of Object.entries(bins)) console.log(`${kind} ${AGENT_PACKAGES[kind].version}: ${bin}`)
  } catch (error) {
    console.error(`install-agents: ${error.message}`)
    process.exit(1)
  }
}
