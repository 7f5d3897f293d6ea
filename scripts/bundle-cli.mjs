// Bundles the CLI front-end (dist/cli, from tsc) and the parts of @oclif/core
// it uses into dist/cli-bundle, which package.json's oclif settings point at.
// Why: @oclif/core is ~110 small CommonJS files; resolving, reading, compiling
// and wrapping each one was most of what a drover command cost before it ran
// (numbers in bench/README.md). Still oclif — the same execute(), Config,
// parser and help — only packed:
//
//   vendor/oclif.cjs   oclif's modules in one CommonJS file, loaded by
//   vendor/oclif.js    which compiles it with V8's code cache (made at build
//                      time by scripts/warm-code-cache.mjs, for this Node);
//   vendor/<part>.js   what `@oclif/core/<part>` exported, taken from it;
//   commands/, core/, hooks/, chunks/   the CLI (ESM, shared chunks).
//
// Everything below dist that is not the CLI itself (dist/api and the layers
// under it) stays outside, imported from its tsc output: the library API
// keeps one copy of each module (bin/run.js prespawns a runner in
// dist/runner/local-executor.js, and start must find that same module
// instance), and modules that find files beside themselves (import.meta.url)
// keep their place. Every output file sits two levels below dist
// (cli-bundle/<dir>/<file>.js), so one relative prefix reaches dist from any.

import {build} from 'esbuild'
import {readdirSync, readFileSync, rmSync, writeFileSync} from 'node:fs'
import {createRequire} from 'node:module'
import path from 'node:path'
import {fileURLToPath} from 'node:url'

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
const DIST = path.join(ROOT, 'dist')
const CLI = path.join(DIST, 'cli')
const OUT = path.join(DIST, 'cli-bundle')
const VENDOR = path.join(OUT, 'vendor')
const require = createRequire(import.meta.url)

// The @oclif/core subpaths the CLI imports, each becoming vendor/<part>.js (config:
// for bench/lib/oclif-floor.mjs, which times oclif's load alone).
const PARTS = ['args', 'command', 'config', 'errors', 'execute', 'flags', 'help']

rmSync(OUT, {recursive: true, force: true})

// 1. oclif, one CommonJS file. Its few import() calls (loading a command,
// hook or help class by file URL) cannot run inside vm.Script without an
// experimental flag, so they go through the loader's own import().
const importThroughLoader = {
  name: 'import-through-loader',
  setup(b) {
    b.onLoad({filter: /[\\/]@oclif[\\/]core[\\/]lib[\\/].*\.js$/}, (args) => {
      const text = readFileSync(args.path, 'utf8')
      return {contents: text.replaceAll('await import(', 'await __droverImport('), loader: 'js'}
    })
  },
}
await build({
  stdin: {
    contents: `module.exports = {${PARTS.map((part) => `${JSON.stringify(part)}: require('@oclif/core/${part}')`).join(', ')}}`,
    resolveDir: ROOT,
    sourcefile: 'oclif-parts.cjs',
  },
  outfile: path.join(VENDOR, 'oclif.cjs'),
  bundle: true,
  format: 'cjs',
  platform: 'node',
  target: 'node20',
  // oclif tells its own errors apart by class name (and so does base-command).
  keepNames: true,
  minifyWhitespace: true,
  minifySyntax: true,
  legalComments: 'none',
  logLevel: 'warning',
  // Only for TypeScript sources in development (oclif's ts-path); never in a built CLI.
  external: ['typescript', 'ts-node', 'tsx'],
  plugins: [importThroughLoader],
})
writeFileSync(path.join(VENDOR, 'oclif.js'), readFileSync(path.join(ROOT, 'scripts', 'oclif-loader.mjs'), 'utf8'))
for (const part of PARTS) {
  const names = Object.keys(require(`@oclif/core/${part}`)).filter((name) => name !== 'default' && name !== '__esModule')
  writeFileSync(path.join(VENDOR, `${part}.js`), `import {oclif} from './oclif.js'\nexport const {${names.join(', ')}} = oclif[${JSON.stringify(part)}]\n`)
}

// 2. The CLI, as ES modules with shared chunks.
const entryPoints = {
  'core/main': path.join(CLI, 'main.js'),
  'core/help': path.join(CLI, 'help.js'),
  'hooks/command-not-found': path.join(CLI, 'hooks', 'command-not-found.js'),
}
for (const file of readdirSync(path.join(CLI, 'commands'))) {
  if (file.endsWith('.js')) entryPoints[`commands/${file.slice(0, -3)}`] = path.join(CLI, 'commands', file)
}

/** Library modules (dist outside dist/cli) and oclif's parts stay outside, by a path relative to any output file. */
const outside = {
  name: 'outside',
  setup(b) {
    b.onResolve({filter: /^@oclif\/core\//}, (args) => {
      const part = args.path.slice('@oclif/core/'.length)
      if (!PARTS.includes(part)) throw new Error(`bundle-cli: ${args.importer} imports @oclif/core/${part}; add it to PARTS`)
      return {path: `../vendor/${part}.js`, external: true}
    })
    b.onResolve({filter: /^\.\.?\//}, (args) => {
      const target = path.resolve(args.resolveDir, args.path)
      if (!target.startsWith(DIST + path.sep) || target.startsWith(CLI + path.sep)) return undefined
      return {path: `../../${path.relative(DIST, target).split(path.sep).join('/')}`, external: true}
    })
  },
}

await build({
  entryPoints,
  outdir: OUT,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  chunkNames: 'chunks/[name]-[hash]',
  keepNames: true,
  minifyWhitespace: true,
  minifySyntax: true,
  legalComments: 'none',
  logLevel: 'warning',
  plugins: [outside],
})
