// Bundles the CLI front-end (dist/cli, from tsc), the library layers under it
// and the parts of @oclif/core it uses into dist/cli-bundle, which
// package.json's oclif settings point at. Why: a drover command loaded ~50 ES
// modules of its own beside oclif's ~110 CommonJS files, and resolving,
// reading and compiling each one was most of what a command cost before it
// ran (numbers in docs/decisions/0028-start-up.md). Still oclif — the same
// execute(), Config, parser and help — only packed:
//
//   vendor/oclif.cjs    oclif's modules in one CommonJS file;
//   vendor/drover.cjs   drover's commands, help class and hook with everything
//                       of dist/ they import (the library layers), one
//                       CommonJS file whose modules initialise when first
//                       required; it takes oclif's parts from vendor/oclif.cjs;
//   vendor/cached.js    loads each with V8's code cache (made at build time by
//                       scripts/warm-code-cache.mjs, for this Node);
//   vendor/<part>.js    what `@oclif/core/<part>` exported, taken from it;
//   commands/, core/, hooks/   one line each: the class oclif's manifest names.
//
// Left outside, imported at run time from their tsc output: the dashboard, the
// MCP server and the terminal UI (dist/ui, dist/mcp, dist/tui: only `drover
// ui`, `drover mcp` and `drover top` load them, with their packages) — they
// use the library from dist/api, a second copy in those commands, which is why the standby runner (runner/standby)
// and DroverError (base/errors) are found by a global key rather than by
// module identity. Files the library finds beside itself (import.meta.url)
// are found from their place in dist/, as before.

import {build} from 'esbuild'
import {createHash} from 'node:crypto'
import {mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync} from 'node:fs'
import {createRequire} from 'node:module'
import path from 'node:path'
import {fileURLToPath} from 'node:url'

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
const DIST = path.join(ROOT, 'dist')
const CLI = path.join(DIST, 'cli')
const OUT = path.join(DIST, 'cli-bundle')
const VENDOR = path.join(OUT, 'vendor')
const require = createRequire(import.meta.url)

/**
 * Makes a bundle pure ASCII and returns a hash of its content. esbuild escapes
 * what is not ASCII in strings but not in a regular expression, and one such
 * character makes V8 hold the whole source as two bytes a character; ASCII
 * lets the loader read it as latin1, faster than utf8 and to the same string.
 * An escape means the same there (no bundled regular expression uses the v flag).
 * The hash (of the bundle and of the loader, which wraps it) names the
 * bundle's code cache in the user's cache dir (cached-loader.mjs).
 */
function asciiWithHash(file) {
  const text = readFileSync(file, 'utf8').replace(/[^\x00-\x7f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)
  writeFileSync(file, text)
  return createHash('sha256').update(readFileSync(path.join(ROOT, 'scripts', 'cached-loader.mjs'))).update(text).digest('hex').slice(0, 16)
}

// The @oclif/core subpaths the CLI imports, each becoming vendor/<part>.js (config:
// for bench/lib/oclif-floor.mjs, which times oclif's load alone).
const PARTS = ['args', 'command', 'config', 'errors', 'execute', 'flags', 'flush', 'help']

rmSync(OUT, {recursive: true, force: true})

// 1. oclif, one CommonJS file. Its few import() calls of a file URL (a
// command, hook or help class) cannot run inside vm.Script without an
// experimental flag, so they go through the loader's own import(); those of a
// package by name (wsl-utils, which Config.load asks whether this is WSL:
// five ES modules of its own) are bundled like the rest.
//
// Also: a plugin's commands are sorted by id with localeCompare, whose first
// call sets up ICU's collation, 10 ms of every command (a tenth of `node -e
// 0` here). Command ids are ASCII; they are sorted by code unit instead,
// which orders drover's the same (test/scripts/bundle-cli.test.ts holds it).
const LOCALE_SORT = 'a.id.localeCompare(b.id)'
// Also: oclif requires some of Node's own modules at the top of a module that
// uses them only now and then — readline in the parser (stdin for an
// argument), perf_hooks for its performance marks, fs/promises and
// child_process for Config.load — and loading them was a fifth of a hot
// command's run beyond `node -e 0`. Each is required when first used instead
// (__droverLazy, in the bundle's banner: a proxy of the module).
const LAZY_BUILTIN = /const (\w+) = require\("node:(readline|perf_hooks|fs\/promises|child_process)"\);/g
const LAZY_BANNER = `var __droverLazy = (load) => { let loaded; return new Proxy({}, {get: (_, key) => (loaded ??= load())[key], has: (_, key) => key in (loaded ??= load())}) };`
const importThroughLoader = {
  name: 'import-through-loader',
  setup(b) {
    b.onLoad({filter: /[\\/]@oclif[\\/]core[\\/]lib[\\/].*\.js$/}, (args) => {
      let text = readFileSync(args.path, 'utf8').replace(/await import\((?!['"])/g, 'await __droverImport(')
      // Node's own modules oclif needs only now and then, required when first used (LAZY_BUILTINS)
      text = text.replace(LAZY_BUILTIN, (_, name, builtin) => `const ${name} = __droverLazy(() => require("node:${builtin}"));`)
      if (/[\\/]config[\\/]plugin\.js$/.test(args.path)) {
        if (!text.includes(LOCALE_SORT)) throw new Error(`@oclif/core's config/plugin.js no longer sorts commands with ${LOCALE_SORT}: see scripts/bundle-cli.mjs`)
        text = text.replace(LOCALE_SORT, '(a.id < b.id ? -1 : a.id > b.id ? 1 : 0)')
      }
      return {contents: text, loader: 'js'}
    })
  },
}
await build({
  stdin: {
    // each part initialised when first asked for: a hot command (src/cli/hot.ts) never runs help's or execute's modules
    contents: `module.exports = {${PARTS.map((part) => `get ${JSON.stringify(part)}() { return require('@oclif/core/${part}') }`).join(', ')}}`,
    resolveDir: ROOT,
    sourcefile: 'oclif-parts.cjs',
  },
  outfile: path.join(VENDOR, 'oclif.cjs'),
  banner: {js: LAZY_BANNER},
  bundle: true,
  format: 'cjs',
  platform: 'node',
  target: 'node20',
  // oclif tells its own errors apart by class name (and so does base-command).
  keepNames: true,
  minifyWhitespace: true,
  minifySyntax: true,
  legalComments: 'none',
  // Maps (never packed) let bench/profile.mjs name the module of each sampled function.
  sourcemap: 'external',
  sourcesContent: false,
  logLevel: 'warning',
  // Only for TypeScript sources in development (oclif's ts-path); never in a built CLI.
  external: ['typescript', 'ts-node', 'tsx'],
  plugins: [importThroughLoader],
})
const oclifHash = asciiWithHash(path.join(VENDOR, 'oclif.cjs'))
for (const part of PARTS) {
  const names = Object.keys(require(`@oclif/core/${part}`)).filter((name) => name !== 'default' && name !== '__esModule')
  writeFileSync(path.join(VENDOR, `${part}.js`), `import bundles from './bundles.cjs'\nexport const {${names.join(', ')}} = bundles.oclif().exports[${JSON.stringify(part)}]\n`)
}

// 2. drover's CLI and the library under it, one CommonJS file. Each command
// is reached through a getter, so a run initialises only its own command's
// modules (esbuild wraps a required ES module in a lazy initialiser).
const COMMANDS = readdirSync(path.join(CLI, 'commands'))
  .filter((file) => file.endsWith('.js'))
  .map((file) => file.slice(0, -3))
const fromRoot = (file) => `./${path.relative(ROOT, file).split(path.sep).join('/')}`
const droverEntry = `module.exports = {
  commands: {${COMMANDS.map((name) => `get ${JSON.stringify(name)}() { return require(${JSON.stringify(fromRoot(path.join(CLI, 'commands', `${name}.js`)))}).default }`).join(',\n')}},
  get help() { return require(${JSON.stringify(fromRoot(path.join(CLI, 'help.js')))}).default },
  get hot() { return require(${JSON.stringify(fromRoot(path.join(CLI, 'hot.js')))}) },
  get commandNotFound() { return require(${JSON.stringify(fromRoot(path.join(CLI, 'hooks', 'command-not-found.js')))}).default },
}`

/** The front-ends only `ui`, `mcp` and `top` load stay in dist/, imported at run time. */
const OUTSIDE = ['ui', 'mcp', 'tui'].map((dir) => path.join(DIST, dir) + path.sep)

const droverParts = {
  name: 'drover-parts',
  setup(b) {
    // oclif's parts: the one copy in vendor/oclif.cjs, handed in by vendor/drover.js.
    b.onResolve({filter: /^@oclif\/core\//}, (args) => {
      const part = args.path.slice('@oclif/core/'.length)
      if (!PARTS.includes(part)) throw new Error(`bundle-cli: ${args.importer} imports @oclif/core/${part}; add it to PARTS`)
      return {path: part, namespace: 'oclif-part'}
    })
    b.onLoad({filter: /.*/, namespace: 'oclif-part'}, (args) => ({contents: `module.exports = __droverOclif[${JSON.stringify(args.path)}]`, loader: 'js'}))
    b.onResolve({filter: /^\.\.?\//}, (args) => {
      const target = path.resolve(args.resolveDir, args.path)
      if (!OUTSIDE.some((dir) => target.startsWith(dir))) return undefined
      return {path: `../../${path.relative(DIST, target).split(path.sep).join('/')}`, external: true}
    })
  },
}

/** A module that finds files beside itself keeps finding them from its place in dist/ (the bundle defines __droverModuleUrl). */
const moduleUrls = {
  name: 'module-urls',
  setup(b) {
    b.onLoad({filter: /[\\/]dist[\\/].*\.js$/}, (args) => {
      const text = readFileSync(args.path, 'utf8')
      if (!text.includes('import.meta.url')) return undefined
      const own = path.relative(DIST, args.path).split(path.sep).join('/')
      return {contents: text.replaceAll('import.meta.url', `__droverModuleUrl(${JSON.stringify(own)})`), loader: 'js'}
    })
  },
}

const droverOut = path.join(VENDOR, 'drover.cjs')
await build({
  stdin: {contents: droverEntry, resolveDir: ROOT, sourcefile: 'drover-cli.cjs'},
  outfile: droverOut,
  bundle: true,
  format: 'cjs',
  platform: 'node',
  target: 'node20',
  // oclif and base-command tell errors apart by class name.
  keepNames: true,
  minifyWhitespace: true,
  minifySyntax: true,
  legalComments: 'none',
  sourcemap: 'external',
  sourcesContent: false,
  logLevel: 'warning',
  external: ['typescript', 'ts-node', 'tsx'],
  plugins: [droverParts, moduleUrls],
})
// What stays outside is imported at run time, through the loader's import().
const bundled = readFileSync(droverOut, 'utf8')
writeFileSync(droverOut, bundled.replace(/\bimport\((?=["'])/g, '__droverImport('))
const droverHash = asciiWithHash(droverOut)

// The loader, with env-paths, as one CommonJS file: bin/run.js reaches it without the ES module loader.
await build({
  entryPoints: [path.join(ROOT, 'scripts', 'cached-loader.mjs')],
  outfile: path.join(VENDOR, 'cached.cjs'),
  bundle: true,
  format: 'cjs',
  platform: 'node',
  target: 'node20',
  legalComments: 'none',
  logLevel: 'warning',
})
// Both bundles, each loaded once, when first asked for, whoever asks first: bin/run.js
// (require) for a hot command, the ES modules below (oclif's import) for any other.
writeFileSync(
  path.join(VENDOR, 'bundles.cjs'),
  `'use strict'
const path = require('node:path')
const {pathToFileURL} = require('node:url')
const {loadCached} = require('./cached.cjs')
let oclif
let drover
const moduleUrl = (own) => pathToFileURL(path.join(__dirname, '..', '..', own)).href
exports.oclif = () => (oclif ??= loadCached(path.join(__dirname, 'oclif.cjs'), {hash: ${JSON.stringify(oclifHash)}}))
exports.drover = () => (drover ??= loadCached(path.join(__dirname, 'drover.cjs'), {extra: {__droverOclif: exports.oclif().exports, __droverModuleUrl: moduleUrl}, hash: ${JSON.stringify(droverHash)}}))
`,
)
for (const name of ['oclif', 'drover']) {
  writeFileSync(path.join(VENDOR, `${name}.js`), `import bundles from './bundles.cjs'\nconst loaded = bundles.${name}()\nexport const ${name} = loaded.exports\nexport const saveCodeCache = loaded.saveCodeCache\n`)
}
const shim = (dir, name, value) => writeFileSync(path.join(OUT, dir, `${name}.js`), `import {drover} from '../vendor/drover.js'\nexport default drover.${value}\n`)
for (const dir of ['commands', 'core', 'hooks']) mkdirSync(path.join(OUT, dir), {recursive: true})
for (const name of COMMANDS) shim('commands', name, `commands[${JSON.stringify(name)}]`)
shim('core', 'help', 'help')
shim('hooks', 'command-not-found', 'commandNotFound')
writeFileSync(path.join(OUT, 'core', 'main.js'), `// oclif's execute, from the same bundle as the commands: one copy of oclif serves the whole run.\nexport {execute} from '../vendor/execute.js'\n`)

// 3. What bin/run.js needs before it knows which way a command line goes —
// the command line (cli/argv), the fast paths (cli/fast-paths), the standby
// runner of `start` (runner/standby) — one CommonJS file, each part run when
// first asked for: no ES module loader for --version, help or a hot command.
await build({
  stdin: {
    contents: `module.exports = {
  get argv() { return require('./dist/cli/argv.js') },
  get fastPaths() { return require('./dist/cli/fast-paths.js') },
  get standby() { return require('./dist/runner/standby.js') },
}`,
    resolveDir: ROOT,
    sourcefile: 'boot.cjs',
  },
  outfile: path.join(OUT, 'boot.cjs'),
  bundle: true,
  format: 'cjs',
  platform: 'node',
  target: 'node20',
  minifyWhitespace: true,
  minifySyntax: true,
  legalComments: 'none',
  logLevel: 'warning',
  banner: {js: `const __droverModuleUrl = (own) => require('node:url').pathToFileURL(require('node:path').join(__dirname, '..', own)).href;`},
  plugins: [moduleUrls],
})
