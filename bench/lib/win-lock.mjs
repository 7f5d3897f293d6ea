// The lock wait of the Windows cost case, run by node.exe under Wine:
// `hold DIR MS FILE` takes a lock in state dir DIR, writes FILE once it holds
// it, and keeps it until MS ms after FILE.waiting appears; `wait DIR MS FILE`
// writes FILE.waiting and takes the same lock, waiting up to MS ms, and
// prints how long it waited.
// drover's own lock module (dist/state/lock.js), exactly as its commands take it.

import {existsSync, writeFileSync} from 'node:fs'
import path from 'node:path'
import {pathToFileURL} from 'node:url'
import {fileURLToPath} from 'node:url'

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms))
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..')
const {acquireLock, stateLockPath} = await import(pathToFileURL(path.join(root, 'dist', 'state', 'lock.js')).href)
const [mode, stateDir, ms, heldFile] = process.argv.slice(2)
const lock = stateLockPath(stateDir, 'bench-wait')
if (mode === 'wait') writeFileSync(`${heldFile}.waiting`, '')
const began = Date.now()
const release = await acquireLock(lock, {waitMs: mode === 'wait' ? Number(ms) : 0})
if (mode === 'hold') {
  writeFileSync(heldFile, `${Date.now()}\n`)
  for (let i = 0; i < 1200 && !existsSync(`${heldFile}.waiting`); i++) await sleep(50)
  await sleep(Number(ms))
}
release()
process.stdout.write(`${mode} ${Date.now() - began} ms\n`)
