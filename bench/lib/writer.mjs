// Throughput worker: writes <MiB> MiB to stdout in 1 MiB chunks, as fast as
// the output path takes them, then appends its own start and end times
// (wall-clock ms) to <times file> so the bench can tell its pace apart from
// the start-up around it. With a delay it waits that long before writing,
// so whatever starts alongside it has settled.
// usage: node writer.mjs <MiB> <times file> [delay ms]

import {appendFileSync, writeSync} from 'node:fs'

const mib = Number(process.argv[2])
const timesFile = process.argv[3]
const delay = Number(process.argv[4] ?? 0)
const chunk = Buffer.alloc(1024 * 1024, 'drover throughput benchmark line\n')

function write() {
  const begin = performance.timeOrigin + performance.now()
  for (let i = 0; i < mib; i++) {
    let written = 0
    // A pipe or a full disk may take less than asked: write the rest.
    while (written < chunk.length) written += writeSync(1, chunk, written)
  }
  const end = performance.timeOrigin + performance.now()
  appendFileSync(timesFile, `${begin} ${end}\n`)
}

if (delay > 0) setTimeout(write, delay)
else write()
