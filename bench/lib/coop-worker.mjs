// Drain worker: a cooperative agent stand-in. Polls $DROVER_CONTROL_FILE every
// 50 ms; on STOP it "wraps up" for a random 0–500 ms, appends the wall-clock
// time it exits at to <exits file>, and exits 0.
// usage: node coop-worker.mjs <exits file>

import {appendFileSync, readFileSync} from 'node:fs'

const exitsFile = process.argv[2]
const control = process.env.DROVER_CONTROL_FILE

function read() {
  try {
    return readFileSync(control, 'utf8')
  } catch {
    return ''
  }
}

// Never outlive a benchmark that failed before draining us.
setTimeout(() => process.exit(3), 120_000).unref()

const timer = setInterval(() => {
  if (!read().includes('STOP')) return
  clearInterval(timer)
  setTimeout(() => {
    appendFileSync(exitsFile, `${performance.timeOrigin + performance.now()} ${process.pid}\n`)
    process.exit(0)
  }, Math.random() * 500)
}, 50)
