// The dependency rule, checked over the import graph of src/. The folders are
// the layers, lowest first:
//
//   base → platform → state → process → agents → runner → tasks → api → front-ends (cli, …)
//
// A module may import its own layer and the layers below it, never one above.
// Front-ends reach drover only through the API (and themselves). Below the API
// nothing imports a package but env-paths (the per-OS state dir), so no oclif,
// MCP or HTTP library leaks into the product. The runner's bundle holds Node
// builtins and the layers up to runner/ only. A wrong-way import fails here.

import {readdirSync, readFileSync} from 'node:fs'
import path from 'node:path'
import {describe, expect, it} from 'vitest'
import {ROOT} from '../helpers/cli.js'

const SRC = path.join(ROOT, 'src')

/** The layers, lowest first. A folder of src/ missing here fails the first test. */
const LAYERS = ['base', 'platform', 'state', 'process', 'agents', 'runner', 'tasks', 'api']
/** Front-ends: each sits on the API alone. */
const FRONT_ENDS = ['cli', 'mcp', 'ui', 'tui']

function sources(dir: string): string[] {
  return readdirSync(dir, {withFileTypes: true}).flatMap((entry) => {
    const full = path.join(dir, entry.name)
    if (entry.isDirectory()) return sources(full)
    return entry.name.endsWith('.ts') ? [full] : []
  })
}

/** Every module a file imports (static and dynamic): src-relative paths for our own, package names for the rest. */
function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8')
  const specs = [...text.matchAll(/(?:^|\n)\s*(?:import|export)[^'"]*?from\s+'([^']+)'|import\(\s*'([^']+)'\s*\)|(?:^|\n)\s*import\s+'([^']+)'/g)].map(
    (m) => m[1] ?? m[2] ?? m[3],
  )
  return specs.map((spec) => (spec.startsWith('.') ? path.relative(SRC, path.resolve(path.dirname(file), spec)).replace(/\.js$/, '.ts') : spec))
}

const graph = new Map(sources(SRC).map((file) => [path.relative(SRC, file), importsOf(file)]))
const layer = (file: string) => file.split(path.sep)[0]
const rank = (file: string) => LAYERS.indexOf(layer(file))
const isBuiltin = (spec: string) => spec.startsWith('node:')
const isOwn = (spec: string) => graph.has(spec)
/** `drover mcp` and `drover ui` (cli/commands/) starting their front-end through its index.ts: the one way front-ends meet. */
const isLaunch = (file: string, spec: string) =>
  file.startsWith(path.join('cli', 'commands') + path.sep) && FRONT_ENDS.includes(layer(spec)) && spec === path.join(layer(spec), 'index.ts')
const edges = (keep: (file: string, spec: string) => boolean) =>
  [...graph].flatMap(([file, specs]) => specs.filter((spec) => keep(file, spec)).map((spec) => `${file} → ${spec}`))

describe('imports point one way', () => {
  it('every source file lives in a named layer or front-end', () => {
    const stray = [...graph.keys()].filter((file) => !LAYERS.includes(layer(file)) && !FRONT_ENDS.includes(layer(file)))
    expect(stray).toEqual([])
  })

  it('no layer imports one above it', () => {
    const wrong = edges((file, spec) => LAYERS.includes(layer(file)) && isOwn(spec) && !(LAYERS.includes(layer(spec)) && rank(spec) <= rank(file)))
    expect(wrong).toEqual([])
  })

  it('below the API nothing imports a package but env-paths; the API imports none', () => {
    const wrong = edges(
      (file, spec) => LAYERS.includes(layer(file)) && !isOwn(spec) && !isBuiltin(spec) && !(spec === 'env-paths' && layer(file) === 'state'),
    )
    expect(wrong).toEqual([])
  })

  it('front-ends reach drover only through the API', () => {
    const wrong = edges(
      (file, spec) => FRONT_ENDS.includes(layer(file)) && isOwn(spec) && layer(spec) !== 'api' && layer(spec) !== layer(file) && !isLaunch(file, spec),
    )
    expect(wrong).toEqual([])
  })

  it('a CLI command may launch another front-end, through its entry module alone', () => {
    expect(isLaunch(path.join('cli', 'commands', 'mcp.ts'), path.join('mcp', 'index.ts'))).toBe(true)
    expect(graph.get(path.join('cli', 'commands', 'mcp.ts'))).toContain(path.join('mcp', 'index.ts'))
    expect(isLaunch(path.join('cli', 'commands', 'mcp.ts'), path.join('mcp', 'server.ts'))).toBe(false)
    expect(isLaunch(path.join('cli', 'base-command.ts'), path.join('mcp', 'index.ts'))).toBe(false)
    expect(graph.get(path.join('cli', 'commands', 'ui.ts'))).toContain(path.join('ui', 'index.ts'))
  })

  it("the dashboard's page scripts import nothing but each other (they run in the browser)", () => {
    const client = path.join('ui', 'client') + path.sep
    const wrong = edges((file, spec) => file.startsWith(client) && !spec.startsWith(client))
    expect(wrong).toEqual([])
    expect(graph.get(path.join('ui', 'client', 'app.ts'))).toContain(path.join('ui', 'client', 'list-view.ts'))
  })

  it("the runner's bundle reaches only builtins and the layers up to runner/ (its memory is the product's footprint)", () => {
    const reached = new Set<string>()
    const visit = (file: string) => {
      if (reached.has(file)) return
      reached.add(file)
      for (const spec of graph.get(file) ?? []) if (isOwn(spec)) visit(spec)
    }
    visit(path.join('runner', 'main.ts'))
    const outside = [...reached].filter((file) => rank(file) < 0 || rank(file) > LAYERS.indexOf('runner'))
    const packages = [...reached].flatMap((file) => (graph.get(file) ?? []).filter((spec) => !isBuiltin(spec) && !isOwn(spec)))
    expect(outside).toEqual([])
    expect(packages).toEqual([])
    expect(reached.has(path.join('runner', 'runner.ts'))).toBe(true)
  })

  it("the runner's bundle loads no node:crypto (about 2 MB of RSS for every live task)", () => {
    const reached = new Set<string>()
    const visit = (file: string) => {
      if (reached.has(file)) return
      reached.add(file)
      for (const spec of graph.get(file) ?? []) if (isOwn(spec)) visit(spec)
    }
    visit(path.join('runner', 'main.ts'))
    const crypto = [...reached].filter((file) => (graph.get(file) ?? []).some((spec) => spec === 'node:crypto' || spec === 'crypto'))
    expect(crypto).toEqual([])
  })

  it('sees the whole graph (a parser that found nothing would pass everything)', () => {
    expect(graph.size).toBeGreaterThan(50)
    // a dynamic import, a static one, and a front-end's
    expect(graph.get(path.join('api', 'drover.ts'))).toContain(path.join('tasks', 'launch.ts'))
    expect(graph.get(path.join('api', 'drover.ts'))).toContain(path.join('tasks', 'read.ts'))
    expect(graph.get(path.join('cli', 'commands', 'list.ts'))).toContain(path.join('api', 'drover.ts'))
    expect(graph.get(path.join('runner', 'main.ts'))).toContain(path.join('runner', 'runner.ts'))
  })
})
