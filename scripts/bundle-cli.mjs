// Bundles the CLI front-end (dist/cli, from tsc) with the parts of @oclif/core
// it uses into dist/cli-bundle, which package.json's oclif settings point at.
// Why: @oclif/core is ~110 small CommonJS files; resolving, reading and
// wrapping each one is most of what a drover command costs before it runs
// (measured in bench/README.md). One file per command plus shared chunks loads
// the same code in a fraction of that. Still oclif: the same execute(),
// Config, parser and help — only packed.
//
// Everything below dist/cli that is not the CLI itself (dist/api and the
// layers under it) stays outside the bundle, imported from its tsc output:
// the library API keeps one copy of each module (bin/run.js prespawns a
// runner in dist/runner/local-executor.js, and start must find that same
// module instance), and modules that find files beside themselves
// (import.meta.url) keep their place. Every output file sits exactly two
// levels below dist (cli-bundle/<dir>/<file>.js), so one relative prefix
// reaches dist from any of them.

import {build} from 'esbuild'
import {readdirSync, rmSync} from 'node:fs'
import path from 'node:path'
import {fileURLToPath} from 'node:url'

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
const DIST = path.join(ROOT, 'dist')
const CLI = path.join(DIST, 'cli')
const OUT = path.join(DIST, 'cli-bundle')

const entryPoints = {
  'core/main': path.join(CLI, 'main.js'),
  'core/help': path.join(CLI, 'help.js'),
  'hooks/command-not-found': path.join(CLI, 'hooks', 'command-not-found.js'),
}
for (const file of readdirSync(path.join(CLI, 'commands'))) {
  if (file.endsWith('.js')) entryPoints[`commands/${file.slice(0, -3)}`] = path.join(CLI, 'commands', file)
}

/** Imports of dist modules outside dist/cli become imports of their tsc output, relative to any output file. */
const keepLibraryOutside = {
  name: 'keep-library-outside',
  setup(b) {
    b.onResolve({filter: /^\.\.?\//}, (args) => {
      const target = path.resolve(args.resolveDir, args.path)
      if (!target.startsWith(DIST + path.sep) || target.startsWith(CLI + path.sep)) return undefined
      return {path: `../../${path.relative(DIST, target).split(path.sep).join('/')}`, external: true}
    })
  },
}

rmSync(OUT, {recursive: true, force: true})
await build({
  entryPoints,
  outdir: OUT,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  chunkNames: 'chunks/[name]-[hash]',
  // oclif tells its own errors apart by class name (and so does base-command).
  keepNames: true,
  minifyWhitespace: true,
  minifySyntax: true,
  legalComments: 'none',
  logLevel: 'warning',
  // Only for TypeScript sources in development (oclif's ts-path); never in a built CLI.
  external: ['typescript', 'ts-node', 'tsx'],
  plugins: [keepLibraryOutside],
  // The CommonJS inside (oclif) calls require() for Node's modules and reads __dirname.
  banner: {
    js: "import {createRequire as __droverRequire} from 'node:module';import {dirname as __droverDir} from 'node:path';import {fileURLToPath as __droverPath} from 'node:url';const require=__droverRequire(import.meta.url);const __filename=__droverPath(import.meta.url);const __dirname=__droverDir(__filename);",
  },
})
