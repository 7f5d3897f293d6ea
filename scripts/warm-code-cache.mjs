// Makes the V8 code caches of the CLI's bundles (see scripts/cached-loader.mjs)
// for the Node that builds: runs, in one process, what drover commands do — a
// start and a wait for it, commands with --json and without, a command's error
// path, help — each the way bin/run.js runs it (the hot ones without oclif's
// Config.load), so that the functions they compile are in the caches, then
// writes them. Runs after `oclif manifest`.

import {mkdtempSync, readFileSync, rmSync} from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import {fileURLToPath} from 'node:url'

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')

globalThis.oclif = {...globalThis.oclif, enableAutoTranspile: false}
// the caches go beside the bundles (saveCodeCache), not into the user's cache dir
globalThis.droverWarmUp = true
const oclif = await import('../dist/cli-bundle/vendor/oclif.js')
const drover = await import('../dist/cli-bundle/vendor/drover.js')
const {execute} = await import('../dist/cli-bundle/core/main.js')
const {goesHot} = await import('../dist/cli/argv.js')
const pkg = {root: ROOT, pjson: JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8'))}
// As bin/run.js runs a command line: a hot command without oclif's Config.load, any other through oclif.
const run = (args) => (goesHot(args, {}) ? drover.drover.hot.runHot(pkg, args[0], args.slice(1), drover.drover.commands[args[0]]) : execute({args, dir: ROOT}))

const stateDir = mkdtempSync(path.join(os.tmpdir(), 'drover-warm-'))
const writes = [process.stdout.write, process.stderr.write]
process.stdout.write = process.stderr.write = () => true
try {
  // The task is 1 in the fresh state dir; `wait` holds until its runner has
  // recorded the end, so nothing writes there once it is removed.
  const runs = [['start', '--', process.execPath, '-e', '0'], ['wait', '1'], ['list', '--json'], ['list'], ['status', '1'], ['status', '1', '--json'], ['list', '--no-such-flag']]
  for (const args of [...runs.map(([command, ...rest]) => [command, '--state-dir', stateDir, ...rest]), ['status', '--help'], ['--help']]) await run(args)
} finally {
  ;[process.stdout.write, process.stderr.write] = writes
  rmSync(stateDir, {recursive: true, force: true, maxRetries: 5, retryDelay: 100})
}
process.exitCode = 0
oclif.saveCodeCache()
drover.saveCodeCache()
