// Makes the V8 code cache of oclif's bundle (see scripts/oclif-loader.mjs) for
// the Node that builds: runs, in one process, what drover commands do — a
// command with --json, a command's error path, help — so that the functions
// they compile are in the cache, then writes it. Runs after `oclif manifest`.

import {mkdtempSync, rmSync} from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import {fileURLToPath} from 'node:url'

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
const BIN = path.join(ROOT, 'bin', 'run.js')

globalThis.oclif = {...globalThis.oclif, enableAutoTranspile: false}
const {saveCodeCache} = await import('../dist/cli-bundle/vendor/oclif.js')
const {execute} = await import('../dist/cli-bundle/core/main.js')

const stateDir = mkdtempSync(path.join(os.tmpdir(), 'drover-warm-'))
const writes = [process.stdout.write, process.stderr.write]
process.stdout.write = process.stderr.write = () => true
try {
  const runs = [['list', '--json'], ['list'], ['status', '1'], ['list', '--no-such-flag']].map((args) => [...args, '--state-dir', stateDir])
  for (const args of [...runs, ['status', '--help'], ['--help']]) await execute({args, dir: BIN})
} finally {
  ;[process.stdout.write, process.stderr.write] = writes
  rmSync(stateDir, {recursive: true, force: true})
}
process.exitCode = 0
saveCodeCache()
