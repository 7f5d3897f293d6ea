// The dependency rule, checked over the import graph of src/: front-ends
// (commands, render, hooks) may use the API and the domain; the API may use
// the domain; the domain (src/core) knows no front-end, no oclif and no
// terminal library; the runner's bundle holds Node builtins and the domain
// only, never the API or a package. A wrong-way import fails here.

import {readdirSync, readFileSync} from 'node:fs'
import path from 'node:path'
import {describe, expect, it} from 'vitest'
import {ROOT} from '../helpers/cli.js'

const SRC = path.join(ROOT, 'src')

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
const isBuiltin = (spec: string) => spec.startsWith('node:')
const isOwn = (spec: string) => graph.has(spec)

describe('imports point one way', () => {
  it('the domain (src/core) imports only the domain, Node builtins and env-paths (the per-OS state dir)', () => {
    const allowed = (spec: string) => isBuiltin(spec) || spec === 'env-paths' || (isOwn(spec) && layer(spec) === 'core')
    const wrong = [...graph].flatMap(([file, specs]) => (layer(file) === 'core' ? specs.filter((spec) => !allowed(spec)).map((spec) => `${file} → ${spec}`) : []))
    expect(wrong).toEqual([])
  })

  it('the API imports the domain and itself only, and no front-end package', () => {
    const wrong = [...graph].flatMap(([file, specs]) =>
      layer(file) === 'api'
        ? specs.filter((spec) => !isBuiltin(spec) && spec !== 'env-paths' && !(isOwn(spec) && ['core', 'api'].includes(layer(spec)))).map((spec) => `${file} → ${spec}`)
        : [],
    )
    expect(wrong).toEqual([])
  })

  it('render never orchestrates through commands', () => {
    const wrong = [...graph].flatMap(([file, specs]) =>
      layer(file) === 'render' ? specs.filter((spec) => isOwn(spec) && layer(spec) === 'commands').map((spec) => `${file} → ${spec}`) : [],
    )
    expect(wrong).toEqual([])
  })

  it("the runner's bundle reaches only builtins and the domain (its memory is the product's footprint)", () => {
    const reached = new Set<string>()
    const visit = (file: string) => {
      if (reached.has(file)) return
      reached.add(file)
      for (const spec of graph.get(file) ?? []) if (isOwn(spec)) visit(spec)
    }
    visit('runner.ts')
    const outside = [...reached].filter((file) => file !== 'runner.ts' && layer(file) !== 'core')
    const packages = [...reached].flatMap((file) => (graph.get(file) ?? []).filter((spec) => !isBuiltin(spec) && !isOwn(spec)))
    expect(outside).toEqual([])
    expect(packages).toEqual([])
    expect(reached.has(path.join('core', 'runner.ts'))).toBe(true)
  })

  it('sees the whole graph (a parser that found nothing would pass everything)', () => {
    expect(graph.size).toBeGreaterThan(50)
    expect(graph.get(path.join('api', 'index.ts'))).toContain(path.join('core', 'launch.ts'))
    expect(graph.get('runner.ts')).toContain(path.join('core', 'runner.ts'))
  })
})
