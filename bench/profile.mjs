// Where a hot command's time goes: runs each one with V8's CPU profiler
// (`--cpu-prof`), without the variables that change Node's boot, and sorts
// every sample into the phase it belongs to — Node's module loaders, Node's
// own modules loaded on demand, reading and compiling the bundles (their code
// cache), running the modules' top level, oclif's Config and parse, the
// command's state reads and rendering, garbage collection. Functions in the
// bundles are named by the module they came from through the bundles' source
// maps (scripts/bundle-cli.mjs). The profile starts after Node's own boot,
// which `node -e 0` times (shown beside). Numbers for
// docs/decisions/0039-start-up-against-the-true-floor.md.
//
// Usage: node bench/profile.mjs [RUNS] [--json]   (build first; RUNS per command, default 5)

import {spawnSync} from 'node:child_process'
import {mkdirSync, readdirSync, readFileSync, rmSync} from 'node:fs'
import {SourceMap} from 'node:module'
import path from 'node:path'
import {checkGenerated, startedId, succeededId, waitFinal} from './lib/cli-cases.mjs'
import {writeFinalTasks} from './lib/records.mjs'
import {BIN, clearBootVariables, envFor, makeTempDir, median, removeTempDirs, ROOT} from './lib/util.mjs'

const VENDOR = path.join(ROOT, 'dist', 'cli-bundle', 'vendor')

/** The phases, in the order they are reported. */
export const PHASES = [
  'ES module loader (Node)',
  'CommonJS loader and the entry (Node)',
  "Node's own modules, loaded on demand",
  'bundles: read',
  'bundles: compile (code cache)',
  'modules: top level',
  'oclif: Config.load',
  'oclif: parse',
  'oclif: find, run, other',
  'command: state reads',
  'command: rendering',
  'command: other',
  'garbage collection',
  'other',
]

/** Maps a position in a bundle to its source module, through the bundle's map (one line down: cached-loader.mjs wraps it). */
export function bundleMapper() {
  const maps = {}
  for (const bundle of ['oclif.cjs', 'drover.cjs']) {
    try {
      maps[path.join(VENDOR, bundle)] = new SourceMap(JSON.parse(readFileSync(path.join(VENDOR, `${bundle}.map`), 'utf8')))
    } catch {
      // no map: its functions are named by the bundle alone
    }
  }
  const cache = new Map()
  return (frame) => {
    const file = frame.url.startsWith('file://') ? new URL(frame.url).pathname : frame.url
    const map = maps[file]
    if (!map) return frame.url
    const key = `${file}:${frame.lineNumber}:${frame.columnNumber}`
    if (!cache.has(key)) {
      const entry = frame.lineNumber >= 1 ? map.findEntry(frame.lineNumber - 1, frame.columnNumber) : {}
      cache.set(key, entry.originalSource ? path.relative(ROOT, path.resolve(VENDOR, entry.originalSource)).split(path.sep).join('/') : path.basename(file))
    }
    return cache.get(key)
  }
}

/** A module's top level in a bundle: esbuild names the function that runs it by the module's path. */
const isModuleBody = (name) => /^(dist|node_modules)\//.test(name)

/** The phase of one sample, from its stack (root first; each frame with its source module). */
export function phaseOf(stack) {
  const leaf = stack.at(-1)
  if (leaf.name === '(garbage collector)') return 'garbage collection'
  if (leaf.name === '(program)' || leaf.name === '(idle)' || leaf.name === '(root)') return 'other'
  if (stack.some((f) => f.name === 'compileForInternalLoader' || f.name === 'compileForPublicLoader')) return "Node's own modules, loaded on demand"
  // the deepest frame that says which phase this is
  let oclifSeen = false
  for (let i = stack.length - 1; i >= 0; i--) {
    const {name, source} = stack[i]
    if (name === 'Script' && stack.slice(0, i).some((f) => f.name === 'loadCached')) return 'bundles: compile (code cache)'
    if (/^readFile/.test(name) && stack.slice(0, i).some((f) => f.name === 'loadCached')) return 'bundles: read'
    if (source.startsWith('dist/state/') || source.startsWith('dist/tasks/') || source.startsWith('dist/process/')) {
      if (stack.slice(0, i).some((f) => isModuleBody(f.name))) continue
      return 'command: state reads'
    }
    if (source.startsWith('dist/cli/render/')) return 'command: rendering'
    if (isModuleBody(name)) return 'modules: top level'
    if (name === 'load' && source.endsWith('config/config.js')) return 'oclif: Config.load'
    if (name === 'parse' && source.endsWith('parser/parse.js')) return 'oclif: parse'
    if (name === 'run' && source.startsWith('dist/cli/commands/')) return oclifSeen ? 'oclif: find, run, other' : 'command: other'
    if (name === 'loadCached') return 'modules: top level'
    // oclif's own work: which of it, its callers say (Config.load, the parser, a module's top level)
    if (source.includes('@oclif/core/lib/')) oclifSeen = true
  }
  if (oclifSeen) return 'oclif: find, run, other'
  if (stack.some((f) => f.url.startsWith('node:internal/modules/esm'))) return 'ES module loader (Node)'
  if (stack.some((f) => f.url.startsWith('node:internal/modules/'))) return 'CommonJS loader and the entry (Node)'
  return 'other'
}

/** Milliseconds per phase of one .cpuprofile. */
export function breakdown(profile, sourceOf) {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]))
  const parent = new Map()
  for (const n of profile.nodes) for (const child of n.children ?? []) parent.set(child, n.id)
  const stacks = new Map()
  const stackOf = (id) => {
    if (!stacks.has(id)) {
      const frames = []
      for (let at = id; at !== undefined; at = parent.get(at)) {
        const f = byId.get(at).callFrame
        frames.push({name: f.functionName, url: f.url, source: sourceOf(f)})
      }
      stacks.set(id, frames.reverse())
    }
    return stacks.get(id)
  }
  const ms = Object.fromEntries(PHASES.map((p) => [p, 0]))
  for (let i = 0; i < profile.samples.length; i++) {
    const delta = (profile.timeDeltas[i + 1] ?? 0) / 1000
    ms[phaseOf(stackOf(profile.samples[i]))] += delta
  }
  return ms
}

function profiled(args, stateDir, dir) {
  rmSync(dir, {recursive: true, force: true})
  mkdirSync(dir, {recursive: true})
  const r = spawnSync(process.execPath, ['--cpu-prof', '--cpu-prof-dir', dir, '--cpu-prof-interval', '200', BIN, ...args], {env: envFor(stateDir), cwd: ROOT, encoding: 'utf8', maxBuffer: 1 << 30})
  if (r.status !== 0) throw new Error(`${args.join(' ')} exited ${r.status}: ${r.stderr}`)
  const files = readdirSync(dir).filter((f) => f.endsWith('.cpuprofile'))
  return {stdout: r.stdout, profiles: files.map((f) => JSON.parse(readFileSync(path.join(dir, f), 'utf8')))}
}

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(new URL(import.meta.url).pathname)) {
  clearBootVariables()
  const runs = Number(process.argv.slice(2).find((a) => /^\d+$/.test(a)) ?? 5)
  const sourceOf = bundleMapper()
  const small = makeTempDir('profile-1k')
  const big = makeTempDir('profile-10k')
  const fresh = makeTempDir('profile-start')
  try {
    writeFinalTasks(small, 1000)
    writeFinalTasks(big, 10_000)
    checkGenerated(small, 1000)
    checkGenerated(big, 10_000)
    const statusId = String(succeededId(small, 1000))
    const commands = {
      '--version': [['--version'], small],
      'status ID (1,000 tasks)': [['status', statusId], small],
      'list (1,000 tasks)': [['list'], small],
      'list --json (10,000 tasks)': [['list', '--json'], big],
      'start -- true': [['start', '--', 'true'], fresh],
    }
    const scratch = makeTempDir('profiles')
    const results = {}
    for (const [label, [args, stateDir]] of Object.entries(commands)) {
      const samples = []
      for (let i = 0; i <= runs; i++) {
        const {stdout, profiles} = profiled(args, stateDir, scratch)
        if (args[0] === 'start') await waitFinal(stateDir, startedId({stdout}))
        if (i === 0) continue // warm-up
        samples.push(breakdown(profiles[0], sourceOf))
      }
      results[label] = Object.fromEntries(PHASES.map((p) => [p, median(samples.map((s) => s[p]))]))
    }
    if (process.argv.includes('--json')) process.stdout.write(`${JSON.stringify(results, null, 2)}\n`)
    else {
      const labels = Object.keys(results)
      process.stdout.write(`| phase (median ms of ${runs} profiled runs, Node ${process.version}) | ${labels.join(' | ')} |\n| --- |${labels.map(() => ' ---: |').join('')}\n`)
      for (const phase of PHASES) process.stdout.write(`| ${phase} | ${labels.map((l) => results[l][phase].toFixed(1)).join(' | ')} |\n`)
      process.stdout.write(`| **sampled in all** | ${labels.map((l) => PHASES.reduce((sum, p) => sum + results[l][p], 0).toFixed(1)).join(' | ')} |\n`)
    }
  } finally {
    removeTempDirs()
  }
}
