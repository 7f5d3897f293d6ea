#!/usr/bin/env node
// Runs the agents test suite (the real claude and codex against fake model
// servers) inside a network namespace that has loopback only, so no agent
// feature can reach beyond the machine whatever a new version adds. The agents
// are installed first, outside the namespace, where the npm registry is
// reachable. Extra arguments go to vitest (e.g. a test file).
//
// Linux only: elsewhere there is no such namespace, and the suite is not run.
// As root the namespace comes from `unshare -n`; otherwise from a user
// namespace (`unshare -rn`), which the kernel may refuse — then this fails.

import {spawnSync} from 'node:child_process'
import {existsSync} from 'node:fs'
import path from 'node:path'
import {fileURLToPath} from 'node:url'
import {installAgents} from './install-agents.mjs'

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')

function fail(message) {
  console.error(`test-agents: ${message}`)
  process.exit(1)
}

function onPath(program) {
  return spawnSync('sh', ['-c', `command -v ${program}`], {stdio: 'ignore'}).status === 0
}

if (process.platform !== 'linux') {
  console.log(`test-agents: the real-agent suite needs a Linux network namespace; not run on ${process.platform}`)
  process.exit(0)
}
if (!existsSync(path.join(ROOT, 'dist', 'runner.cjs'))) fail('drover is not built: run npm run build first')
for (const program of ['unshare', 'ip']) {
  if (!onPath(program)) fail(`${program} is missing (${program === 'ip' ? 'iproute2' : 'util-linux'}): install it to run the real-agent suite`)
}

try {
  const bins = installAgents()
  console.log(`test-agents: ${Object.entries(bins).map(([kind, {version}]) => `${kind} ${version}`).join(', ')}`)
} catch (error) {
  fail(error.message)
}

const vitest = path.join(ROOT, 'node_modules', 'vitest', 'vitest.mjs')
// "$0" is node and "$1" the vitest entry, the rest go to vitest: passed as
// arguments, so no path is ever parsed by the shell.
const inner = 'ip link set lo up && entry="$1" && shift && exec "$0" "$entry" run --project agents "$@"'
const unshareArgs = process.getuid?.() === 0 ? ['-n'] : ['-r', '-n']
const result = spawnSync('unshare', [...unshareArgs, 'sh', '-c', inner, process.execPath, vitest, ...process.argv.slice(2)], {
  cwd: ROOT,
  stdio: 'inherit',
})
if (result.error) fail(`could not start unshare: ${result.error.message}`)
process.exit(result.status ?? 1)
