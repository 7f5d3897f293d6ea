// A floor for `start`: what no drover change removes from it, alone — the
// CLI is oclif as drover loads it (bench/lib/oclif-floor.mjs), and the task
// must be recorded running by a second Node process, booted on standby with
// the runner's flags before oclif loads. Here that stand-in gets a file name
// through its stdin, spawns `true`, writes one small JSON file the way a
// record is written (temp, fsync, rename) and closes fd 3; the CLI side writes
// its own record the same way first, hands the name over and waits for fd 3,
// as `start` does. No drover code runs on either side.
// Usage: node start-floor.mjs <drover root> <scratch dir>

import {spawn} from 'node:child_process'
import {closeSync, fsyncSync, openSync, readFileSync, renameSync, writeSync} from 'node:fs'
import path from 'node:path'
import {pathToFileURL} from 'node:url'

const [root, scratch] = process.argv.slice(2)

// The stand-in runner: blocking read of its assignment (as runner/main.ts
// does), the worker spawned, the record written, fd 3 closed.
const standIn = `
const {readSync, openSync, writeSync, fsyncSync, closeSync, renameSync} = require('node:fs')
const {spawn} = require('node:child_process')
const buffer = Buffer.alloc(4096)
let text = ''
for (let n; (n = readSync(0, buffer, 0, buffer.length, null)) > 0; ) text += buffer.toString('utf8', 0, n)
const file = text.trim()
const worker = spawn('true', [], {detached: true, stdio: 'ignore'})
worker.once('spawn', () => {
  const fd = openSync(file + '.tmp', 'w', 0o600)
  writeSync(fd, JSON.stringify({status: 'running', pid: worker.pid}) + '\\n')
  fsyncSync(fd)
  closeSync(fd)
  renameSync(file + '.tmp', file)
  closeSync(3)
  worker.unref()
})
`
const runner = spawn(process.execPath, ['--lite-mode', '-e', standIn], {detached: true, stdio: ['pipe', 'ignore', 'ignore', 'pipe']})
runner.unref()

globalThis.oclif = {enableAutoTranspile: false}
const {Config} = await import(pathToFileURL(path.join(root, 'dist', 'cli-bundle', 'vendor', 'config.js')).href)
const pjson = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8'))
await Config.load({root, pjson: {...pjson, oclif: {...pjson.oclif, plugins: []}}})

const record = path.join(scratch, `floor-${process.pid}.json`)
const fd = openSync(`${record}.tmp`, 'w', 0o600)
writeSync(fd, JSON.stringify({status: 'starting'}) + '\n')
fsyncSync(fd)
closeSync(fd)
renameSync(`${record}.tmp`, record)

const ready = runner.stdio[3]
ready.on('data', () => {})
await new Promise((resolve) => {
  ready.once('close', resolve)
  runner.once('exit', resolve)
  runner.stdio[0].end(`${record}\n`)
})
process.stdout.write(`${JSON.parse(readFileSync(record, 'utf8')).status}\n`)
