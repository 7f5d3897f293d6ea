// Output throughput: a worker writes N MiB to stdout under drover (from
// `start` until the record is final) and the same command redirected to a
// file by sh. Both write to the same file system; files are deleted after
// each run so the disk never holds more than one.

import {readFileSync, rmSync, statSync} from 'node:fs'
import path from 'node:path'
import {waitFinal} from './cli-cases.mjs'
import {row} from './report.mjs'
import {BIN, LIB, envFor, median, timed, wallNow} from './util.mjs'

const WRITER = path.join(LIB, 'writer.mjs')
// The settled sides wait this long before writing, so drover's own start-up
// (the CLI exiting, the runner's bookkeeping) no longer overlaps the writes:
// what is left is the cost per byte of the output path.
const SETTLE_MS = 1000

/** The worker's own [begin, end] of its last run, from the times file it appends to. */
function writerPace(timesFile) {
  const [begin, end] = readFileSync(timesFile, 'utf8').trim().split('\n').at(-1).split(' ').map(Number)
  return end - begin
}

function checkSize(file, mib, who) {
  const size = statSync(file).size
  if (size !== mib * 2 ** 20) throw new Error(`${who}: output is ${size} bytes, expected ${mib * 2 ** 20}`)
}

async function underDrover(stateDir, mib, timesFile, delay = 0) {
  const begin = wallNow()
  // A cap above the size keeps the runner's default log-cap watch in play without tripping it.
  const started = timed(process.execPath, [BIN, 'start', '--max-output', `${mib * 2}MiB`, '--', process.execPath, WRITER, String(mib), timesFile, String(delay)], {
    env: envFor(stateDir),
  })
  const id = Number(started.stdout.trim())
  // Polling fast would steal CPU from the writer on a small machine (it halved
  // its pace on two cores); the end time comes from the record instead.
  const record = await waitFinal(stateDir, id, 600_000, 200)
  const wall = Date.parse(record.endedAt) - begin
  if (record.status !== 'succeeded') throw new Error(`throughput task ${id} ended ${record.status}: ${record.reason}`)
  const output = path.join(stateDir, 'tasks', String(id), 'output.log')
  checkSize(output, mib, 'drover')
  rmSync(output)
  return {wall, pace: writerPace(timesFile)}
}

function redirected(dir, mib, timesFile, delay = 0) {
  const file = path.join(dir, 'redirect.out')
  const result = timed('sh', ['-c', 'exec "$0" "$1" "$2" "$3" "$4" > "$5"', process.execPath, WRITER, String(mib), timesFile, String(delay), file])
  checkSize(file, mib, 'redirect')
  rmSync(file)
  return {wall: result.ms, pace: writerPace(timesFile)}
}

export async function throughput(ctx) {
  const mib = ctx.sizes.throughputMiB
  const runs = ctx.sizes.throughputRuns
  const stateDir = ctx.dirs.fresh('throughput')
  const times = path.join(stateDir, 'writer-times')
  await underDrover(stateDir, 16, times)
  redirected(stateDir, 16, times)
  const d = []
  const r = []
  const dSettled = []
  const rSettled = []
  for (let i = 0; i < runs; i++) {
    // Rotate which goes first, so whatever one run leaves behind (page-cache writeback) burdens each alike.
    const sides = [
      async () => d.push(await underDrover(stateDir, mib, times)),
      async () => r.push(redirected(stateDir, mib, times)),
      async () => dSettled.push(await underDrover(stateDir, mib, times, SETTLE_MS)),
      async () => rSettled.push(redirected(stateDir, mib, times, SETTLE_MS)),
    ]
    for (let k = 0; k < sides.length; k++) await sides[(i + k) % sides.length]()
  }
  const rate = (ms) => mib / (ms / 1000)
  const size = mib >= 1024 ? `${mib / 1024} GiB` : `${mib} MiB`
  return [
    row(`throughput: ${size} to stdout, \`start\` until final`, rate(median(d.map((x) => x.wall))), '`sh -c "… > file"`', rate(median(r.map((x) => x.wall))), 'MiB/s', {minRatio: 0.95}, `${runs} runs each`),
    row(`throughput: the worker's own write pace`, rate(median(d.map((x) => x.pace))), 'the same under `sh > file`', rate(median(r.map((x) => x.pace))), 'MiB/s'),
    row(
      `throughput: the worker's own write pace, starting ${SETTLE_MS / 1000} s after launch`,
      rate(median(dSettled.map((x) => x.pace))),
      'the same under `sh > file`',
      rate(median(rSettled.map((x) => x.pace))),
      'MiB/s',
    ),
  ]
}
