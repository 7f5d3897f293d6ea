// Output throughput: a worker writes N MiB to stdout under drover (from
// `start` until the record is final) and the same command redirected to a
// file by sh. Both write to the same file system; files are deleted after
// each run so the disk never holds more than one.

import {readFileSync, rmSync, statSync} from 'node:fs'
import path from 'node:path'
import {waitFinal} from './cli-cases.mjs'
import {row, skipped} from './report.mjs'
import {BIN, LIB, commandExists, envFor, median, timed, wallNow} from './util.mjs'

const WRITER = path.join(LIB, 'writer.mjs')

/** The worker's own [begin, end] of its last run, from the times file it appends to. */
function writerPace(timesFile) {
  const [begin, end] = readFileSync(timesFile, 'utf8').trim().split('\n').at(-1).split(' ').map(Number)
  return end - begin
}

function checkSize(file, mib, who) {
  const size = statSync(file).size
  if (size !== mib * 2 ** 20) throw new Error(`${who}: output is ${size} bytes, expected ${mib * 2 ** 20}`)
}

async function underDrover(stateDir, mib, timesFile) {
  const begin = wallNow()
  // A cap above the size keeps the runner's default log-cap watch in play without tripping it.
  const started = timed(process.execPath, [BIN, 'start', '--max-output', `${mib * 2}MiB`, '--', process.execPath, WRITER, String(mib), timesFile], {
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

// `detached` mimics how the runner spawns a worker (its own session, stdout
// and stderr appended to one file, no stdin), to tell drover's own cost apart
// from what a new session costs on a busy machine (its own scheduler autogroup).
function redirected(dir, mib, timesFile, detached = false) {
  const file = path.join(dir, 'redirect.out')
  const script = detached ? 'exec "$0" "$1" "$2" "$3" >> "$4" 2>&1 < /dev/null' : 'exec "$0" "$1" "$2" "$3" > "$4"'
  const argv = ['sh', '-c', script, process.execPath, WRITER, String(mib), timesFile, file]
  const result = detached ? timed('setsid', ['-w', ...argv]) : timed(argv[0], argv.slice(1))
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
  if (commandExists('setsid')) redirected(stateDir, 16, times, true)
  const setsid = commandExists('setsid')
  const d = []
  const r = []
  const s = []
  for (let i = 0; i < runs; i++) {
    // Rotate which goes first, so whatever one run leaves behind (page-cache writeback) burdens each alike.
    const sides = [
      async () => d.push(await underDrover(stateDir, mib, times)),
      async () => r.push(redirected(stateDir, mib, times)),
      async () => setsid && s.push(redirected(stateDir, mib, times, true)),
    ]
    for (let k = 0; k < sides.length; k++) await sides[(i + k) % sides.length]()
  }
  const rate = (ms) => mib / (ms / 1000)
  const size = mib >= 1024 ? `${mib / 1024} GiB` : `${mib} MiB`
  return [
    row(`throughput: ${size} to stdout, \`start\` until final`, rate(median(d.map((x) => x.wall))), '`sh -c "… > file"`', rate(median(r.map((x) => x.wall))), 'MiB/s', {minRatio: 0.95}, `${runs} runs each`),
    row(`throughput: the worker's own write pace`, rate(median(d.map((x) => x.pace))), 'the same under `sh > file`', rate(median(r.map((x) => x.pace))), 'MiB/s'),
    setsid
      ? row(`throughput: the worker's own write pace, beside a detached redirect`, rate(median(d.map((x) => x.pace))), '`setsid sh -c "… >> file 2>&1"`', rate(median(s.map((x) => x.pace))), 'MiB/s')
      : skipped('throughput beside a detached redirect', '`setsid` not found (util-linux)'),
  ]
}
