// The scenario of the Windows cost case, run under `strace -f` by
// win-cost.mjs: every drover command as a user would type it, through Wine's
// node.exe, one after the other. It writes one JSON line per phase to the
// file named in argv[2] — the Linux pid of the phase's command and when it
// began and ended — so the trace's process starts can be put in their phase.

import {spawn} from 'node:child_process'
import {appendFileSync, closeSync, existsSync, openSync, readFileSync} from 'node:fs'
import path from 'node:path'

const [phasesFile, settingsJson] = process.argv.slice(2)
const {wine, nodeExe, bin, stateDir, stateDirWin, lockScript, idleMs, workDir} = JSON.parse(settingsJson)

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms))
const record = (entry) => appendFileSync(phasesFile, JSON.stringify(entry) + '\n')

/** Runs node.exe with args, output to files (never a pipe: node.exe under Wine dies with EBADF writing to one). */
function windows(name, args) {
  const out = path.join(workDir, `${name}.out`)
  const err = path.join(workDir, `${name}.err`)
  const fds = [openSync(out, 'w'), openSync(err, 'w')]
  const began = Date.now()
  const child = spawn(wine, [nodeExe, ...args], {stdio: ['ignore', fds[0], fds[1]]})
  for (const fd of fds) closeSync(fd)
  return new Promise((resolve) => {
    child.on('exit', (code) => {
      const ended = Date.now()
      record({phase: name, pid: child.pid, began, ended, code})
      resolve({code, stdout: readFileSync(out, 'utf8'), stderr: readFileSync(err, 'utf8')})
    })
  })
}

const drover = (name, args) => windows(name, [bin, '--state-dir', stateDirWin, ...args])

const started = await drover('start', ['start', '--', 'node.exe', '-e', 'setInterval(() => {}, 1000)'])
if (started.code !== 0) throw new Error(`start failed: ${started.stderr}`)
const id = started.stdout.trim()

// Idle: the live task alone, its runner doing what it does every tick.
const idleBegan = Date.now()
await sleep(idleMs)
record({phase: 'idle', pid: null, began: idleBegan, ended: Date.now()})

await drover('status', ['status', id, '--json'])
await drover('list', ['list', '--json'])

// A lock wait: one node.exe holds a lock until 3 s after another began to wait for it.
const heldFile = path.join(workDir, 'held')
const heldWin = `Z:${heldFile.replaceAll('/', '\\')}`
const holder = windows('lock-hold', [lockScript, 'hold', stateDirWin, '3000', heldWin])
for (let i = 0; i < 300 && !existsSync(heldFile); i++) await sleep(50)
if (!existsSync(heldFile)) throw new Error('the lock holder never took the lock')
const waited = await windows('lock-wait', [lockScript, 'wait', stateDirWin, '20000', heldWin])
await holder
record({phase: 'lock-result', pid: null, began: 0, ended: 0, note: waited.stdout.trim()})

// stop: returns once the request is acknowledged; the runner then carries it out.
const stopBegan = Date.now()
await drover('stop', ['stop', id, '--time', '2s', '--wait'])
// the runner's share of the stop: until the record is final
const taskJson = path.join(stateDir, 'tasks', id, 'task.json')
for (let i = 0; i < 600; i++) {
  const status = JSON.parse(readFileSync(taskJson, 'utf8')).status
  if (['stopped', 'killed', 'failed', 'succeeded', 'cancelled', 'lost'].includes(status)) break
  await sleep(100)
}
record({phase: 'stop-final', pid: null, began: stopBegan, ended: Date.now()})
