// Follow-latency worker: writes "<seq> <wall-clock ms>" lines at a steady
// interval, the timestamp taken right before the write, so a follower can
// tell how long each line took to reach it.
// usage: node ticker.mjs <lines> <interval ms>

import {writeSync} from 'node:fs'

const lines = Number(process.argv[2] ?? 200)
const interval = Number(process.argv[3] ?? 50)
let seq = 0
const timer = setInterval(() => {
  // timeOrigin + now(): wall clock with sub-millisecond resolution, the same
  // clock the bench reads on receipt.
  writeSync(1, `${seq} ${(performance.timeOrigin + performance.now()).toFixed(3)}\n`)
  seq += 1
  if (seq >= lines) clearInterval(timer)
}, interval)
