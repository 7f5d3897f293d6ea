#!/usr/bin/env node
// Installs the real agent CLIs the agents test suite runs (claude, codex,
// gemini, qwen, copilot, opencode), at exact versions, into a cache dir of
// their own: they are ~1.6 GB, so they stay out of the project's dependencies
// and `npm ci` stays small. Fast and silent when the right versions are
// already there. Prints where the binaries are.
//
// DROVER_TEST_AGENTS_DIR overrides the cache dir (default: drover-test-agents/
// under $XDG_CACHE_HOME or ~/.cache). With DROVER_TEST_AGENTS_LATEST=1 (or
// --latest) it installs the newest published version of each instead, into
// drover-test-agents-latest/ (the versions it chose are kept in versions.json
// there, so the suite knows what it runs).

import {spawnSync} from 'node:child_process'
import {existsSync, mkdirSync, readFileSync, writeFileSync} from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import {fileURLToPath} from 'node:url'

// claude: a plain install on Node 20 resolves to an older release, since later
// ones declare node >= 22; the binary itself is native and runs on any Node.
// qwen declares node >= 22 too and runs on 20.
export const PINNED_PACKAGES = {
  claude: {name: '@anthropic-ai/claude-code', version: '2.1.332'},
  codex: {name: '@openai/codex', version: '0.171.0'},
  gemini: {name: '@google/gemini-cli', version: '0.61.0'},
  qwen: {name: '@qwen-code/qwen-code', version: '0.24.4'},
  copilot: {name: '@github/copilot', version: '1.0.102'},
  opencode: {name: 'opencode-ai', version: '1.18.33'},
}

export const latestMode = () => process.env.DROVER_TEST_AGENTS_LATEST === '1'

const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm'

export function agentsDir() {
  if (process.env.DROVER_TEST_AGENTS_DIR) return path.resolve(process.env.DROVER_TEST_AGENTS_DIR)
  const cache = process.env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache')
  return path.join(cache, latestMode() ? 'drover-test-agents-latest' : 'drover-test-agents')
}

function readVersions(dir) {
  try {
    return JSON.parse(readFileSync(path.join(dir, 'versions.json'), 'utf8'))
  } catch {
    return null
  }
}

/** The packages of this run: the pinned ones, or in latest mode the versions chosen when they were installed. */
export const AGENT_PACKAGES = latestMode() ? (readVersions(agentsDir()) ?? PINNED_PACKAGES) : PINNED_PACKAGES

/** The newest published version of each agent (`npm view`), asked of the registry. */
export function newestPackages() {
  const out = {}
  for (const [kind, pkg] of Object.entries(PINNED_PACKAGES)) {
    const r = spawnSync(npm, ['view', pkg.name, 'version'], {encoding: 'utf8', shell: process.platform === 'win32'})
    const version = r.status === 0 ? r.stdout.trim().split('\n').at(-1) : ''
    if (!/^\d+\.\d+\.\d+/.test(version)) throw new Error(`npm view ${pkg.name} version failed: ${(r.stderr || r.stdout || '').trim().split('\n')[0]}`)
    out[kind] = {name: pkg.name, version}
  }
  return out
}

/** The launcher npm links for an agent; exists only once installed. */
export function agentBin(kind, dir = agentsDir()) {
  return path.join(dir, 'node_modules', '.bin', process.platform === 'win32' ? `${kind}.cmd` : kind)
}

/** opencode's plugin package, installed once here; each test copies the dir into its opencode config dir. */
export function opencodePluginDir(dir = agentsDir()) {
  const config = path.join(dir, 'opencode-config')
  return existsSync(path.join(config, 'node_modules', '@opencode-ai', 'plugin', 'package.json')) ? config : null
}

function installedVersion(name, dir) {
  try {
    return JSON.parse(readFileSync(path.join(dir, 'node_modules', ...name.split('/'), 'package.json'), 'utf8')).version
  } catch {
    return null
  }
}

/** The agents whose installed version is not the wanted one (or that are missing). */
export function missingAgents(dir = agentsDir(), packages = AGENT_PACKAGES) {
  return Object.entries(packages)
    .filter(([kind, pkg]) => installedVersion(pkg.name, dir) !== pkg.version || !existsSync(agentBin(kind, dir)))
    .map(([kind]) => kind)
}

function npmInstall(cwd, specs) {
  mkdirSync(cwd, {recursive: true})
  // A package.json of its own, so npm installs here and never walks up into
  // a project that happens to contain the cache dir.
  const manifest = path.join(cwd, 'package.json')
  if (!existsSync(manifest)) writeFileSync(manifest, JSON.stringify({name: 'drover-test-agents', private: true}, null, 2) + '\n')
  const result = spawnSync(npm, ['install', '--save-exact', '--no-audit', '--no-fund', '--engine-strict=false', '--loglevel=error', ...specs], {
    cwd,
    stdio: ['ignore', 'inherit', 'inherit'],
    shell: process.platform === 'win32',
  })
  if (result.status !== 0) throw new Error(`npm install ${specs.join(' ')} failed (exit ${result.status ?? result.signal})`)
}

export function installAgents(dir = agentsDir(), log = (line) => process.stderr.write(`${line}\n`)) {
  const packages = latestMode() ? newestPackages() : PINNED_PACKAGES
  const missing = missingAgents(dir, packages)
  if (missing.length > 0) {
    const specs = missing.map((kind) => `${packages[kind].name}@${packages[kind].version}`)
    log(`installing ${specs.join(' ')} into ${dir} …`)
    const began = Date.now()
    npmInstall(dir, specs)
    const still = missingAgents(dir, packages)
    if (still.length > 0) throw new Error(`after npm install, still missing or at the wrong version: ${still.join(', ')}`)
    log(`installed in ${((Date.now() - began) / 1000).toFixed(1)} s`)
  }
  // opencode npm-installs its plugin package into its config dir at every start: give it one to copy.
  const pluginVersion = installedVersion('@opencode-ai/plugin', path.join(dir, 'opencode-config'))
  if (pluginVersion !== packages.opencode.version) npmInstall(path.join(dir, 'opencode-config'), [`@opencode-ai/plugin@${packages.opencode.version}`])
  writeFileSync(path.join(dir, 'versions.json'), JSON.stringify(packages, null, 2) + '\n')
  return Object.fromEntries(Object.keys(packages).map((kind) => [kind, {bin: agentBin(kind, dir), version: packages[kind].version}]))
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  if (process.argv.includes('--latest')) process.env.DROVER_TEST_AGENTS_LATEST = '1'
  try {
    const bins = installAgents()
    for (const [kind, {bin, version}] of Object.entries(bins)) console.log(`${kind} ${version}: ${bin}`)
  } catch (error) {
    console.error(`install-agents: ${error.message}`)
    process.exit(1)
  }
}
