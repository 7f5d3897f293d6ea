// Start-up on every supported Node, side by side: the commands scripts call
// in loops, each against that Node's own `node -e 0`, on Node 20, 22 and 24
// (scripts/install-nodes.mjs brings the ones this machine lacks). On the
// Node that built, drover runs from this repo; on another, from a copy whose
// code caches that Node made (as a clone built there has them). Then an
// installed package on another Node (issue 41): packed here, installed from
// the tarball, run on 22 and 24, beside that clone and that floor.

import {spawnSync} from 'node:child_process'
import {cpSync, mkdirSync, symlinkSync} from 'node:fs'
import path from 'node:path'
import {installNodes, NODE_VERSIONS} from '../../scripts/install-nodes.mjs'
import {interleaved, startTrue, succeededId, timeDrover} from './cli-cases.mjs'
import {packAndInstall} from './install.mjs'
import {fmtCpu, row, skipped} from './report.mjs'
import {makeTempDir, ROOT, timeRunCpu} from './util.mjs'

const FLOOR = '`node -e 0`'

/** The goals of issue 43, each against the floor of the Node it runs on; judged on 20 and 22, shown on 24. */
const GOALS = {version: 1.3, status: 2, list: 2, start: 3, listBig: 3}
const JUDGED = new Set(['20', '22'])

/** A copy of the built CLI with the code caches of `nodeBinary` beside its bundles, as a build on that Node leaves them. */
function cloneBuiltOn(nodeBinary, env) {
  const dir = makeTempDir('clone')
  for (const entry of ['bin', 'dist', 'package.json', 'oclif.manifest.json']) cpSync(path.join(ROOT, entry), path.join(dir, entry), {recursive: true})
  mkdirSync(path.join(dir, 'scripts'))
  cpSync(path.join(ROOT, 'scripts', 'warm-code-cache.mjs'), path.join(dir, 'scripts', 'warm-code-cache.mjs'))
  symlinkSync(path.join(ROOT, 'node_modules'), path.join(dir, 'node_modules'), 'dir')
  const made = spawnSync(nodeBinary, [path.join(dir, 'scripts', 'warm-code-cache.mjs')], {cwd: dir, env, stdio: ['ignore', 'ignore', 'pipe'], encoding: 'utf8'})
  if (made.status !== 0) throw new Error(`warm-code-cache on ${nodeBinary} failed: ${made.stderr}`)
  return path.join(dir, 'bin', 'run.js')
}

const nodeFloor = (binary) => () => timeRunCpu(binary, ['-e', '0'])

export async function nodes(ctx) {
  const {dirs, runs} = ctx
  const heavyRuns = Math.max(3, Math.ceil(runs / 2))
  // The user's cache dir of every run here is private: drover on a Node it has no code cache for makes one there.
  const cacheHome = makeTempDir('xdg-cache')
  const env = {XDG_CACHE_HOME: cacheHome, LOCALAPPDATA: cacheHome}
  let binaries
  try {
    binaries = installNodes(Object.keys(NODE_VERSIONS), {log: (line) => process.stderr.write(`  ${line}\n`)})
  } catch (error) {
    return [skipped('nodes', `Node 22 and 24 could not be installed: ${error.message}`)]
  }
  const small = dirs.small()
  const big = dirs.big()
  const statusId = succeededId(small, ctx.sizes.small)
  const rows = []
  const clones = {}
  for (const [major, binary] of Object.entries(binaries)) {
    if (binary !== process.execPath) clones[major] = cloneBuiltOn(binary, {...process.env, ...env})
    const on = {node: binary, bin: clones[major], env}
    const s = await interleaved(
      {
        floor: nodeFloor(binary),
        version: timeDrover(small, ['--version'], on),
        status: timeDrover(small, ['status', String(statusId)], on),
        list: timeDrover(small, ['list'], on),
        listBig: timeDrover(big, ['list', '--json'], on),
        start: startTrue(dirs.fresh(`nodes-start-${major}`), [], () => [], on),
      },
      runs,
      (name) => (name === 'listBig' ? heavyRuns : runs),
    )
    const label = `Node ${major}`
    const floorOf = `${FLOOR} on ${major}`
    // the goal of list --json is for 10,000 tasks
    const judged = (name) => JUDGED.has(major) && (name !== 'listBig' || ctx.sizes.big === 10_000)
    const vs = (name, what) => row(`nodes: ${what}, ${label}`, s[name].median, floorOf, s.floor.median, 'ms', judged(name) ? {maxRatio: GOALS[name]} : null, fmtCpu(s[name].cpuMean, s.floor.cpuMean))
    rows.push(
      row(`nodes: ${FLOOR}, ${label} (${NODE_VERSIONS[major]})`, s.floor.median, null, null, 'ms', null, fmtCpu(s.floor.cpuMean, s.floor.cpuMean)),
      vs('version', '`--version`'),
      vs('status', '`status ID`, 1,000 tasks present'),
      vs('list', '`list`, 1,000 tasks'),
      vs('listBig', `\`list --json\`, ${ctx.sizes.big.toLocaleString('en-US')} tasks`),
      vs('start', '`start -- true` until recorded running'),
    )
  }
  rows.push(...(await installed(ctx, binaries, clones, env, small)))
  return rows
}

/**
 * Issue 41: a package packed on this Node (the build on disk, as prepack
 * would pack it) and installed from its tarball, run on another Node — whose
 * code caches it does not ship — beside a clone built on that Node and that
 * Node's floor: `list` at 1,000 tasks. The warm-up run is the installed
 * package's first on that Node (it makes its cache in the private cache dir).
 */
async function installed(ctx, binaries, clones, env, small) {
  const others = Object.keys(clones)
  if (others.length === 0) return [skipped('nodes: installed package on another Node', 'no Node other than the one that built')]
  let bin
  try {
    bin = packAndInstall(makeTempDir('installed'), {build: false}).bin
  } catch (error) {
    return [skipped('nodes: installed package on another Node', `pack and install failed: ${String(error.message).split('\n')[0]}`)]
  }
  const packer = Object.entries(binaries).find(([, binary]) => binary === process.execPath)?.[0] ?? process.versions.node.split('.')[0]
  const rows = []
  for (const major of others) {
    const binary = binaries[major]
    const s = await interleaved(
      {
        floor: nodeFloor(binary),
        clone: timeDrover(small, ['list'], {node: binary, bin: clones[major], env}),
        installed: timeDrover(small, ['list'], {node: binary, bin, env}),
      },
      ctx.runs,
    )
    const what = `nodes: \`list\`, 1,000 tasks, packed on ${packer}, installed, run on ${major}`
    rows.push(
      row(`${what}, beside a clone built on ${major}`, s.installed.median, `a clone built on ${major}`, s.clone.median, 'ms', {maxRatio: 1.1}, fmtCpu(s.installed.cpuMean, s.clone.cpuMean).replace("the floor's", "the clone's")),
      row(`${what}, beside ${FLOOR}`, s.installed.median, `${FLOOR} on ${major}`, s.floor.median, 'ms', {maxRatio: 3}, fmtCpu(s.installed.cpuMean, s.floor.cpuMean)),
    )
  }
  return rows
}
