// Prune at scale, outside the test suite: `node bench/prune-scale.mjs [tasks] [runs]`
// times `drover list --json`, `prune --keep 100 --dry-run` (warm), `prune --keep 100`
// and `prune --older-than 0s` over 10,000 ended tasks (by default) through the
// built CLI, beside `rm -rf` of the same folders, and prints medians of wall and
// CPU time (user + system). Build first.

import {readFileSync} from 'node:fs'
import path from 'node:path'
import {pathToFileURL} from 'node:url'
import {makeEndedTasks} from './lib/make-tasks.mjs'
import {BIN, ROOT, envFor, makeTempDir, removeTempDirs, summary, timed} from './lib/util.mjs'

const count = Number(process.argv[2] ?? 10_000)
const runs = Number(process.argv[3] ?? 3)

// The generator must write what drover itself would accept.
const {decodeRecord} = await import(pathToFileURL(path.join(ROOT, 'dist', 'state', 'record-codec.js')).href)

function freshStateDir() {
  const dir = makeTempDir('prune-scale')
  const begin = process.hrtime.bigint()
  makeEndedTasks(dir, count)
  const ms = Number(process.hrtime.bigint() - begin) / 1e6
  decodeRecord(readFileSync(path.join(dir, 'tasks', '1', 'task.json'), 'utf8'))
  return {dir, ms}
}

const cli = (dir, args) => timed(process.execPath, [BIN, ...args], {env: envFor(dir)})
const fmt = (s, cpu) => `median ${s.median.toFixed(0)} ms (min ${s.min.toFixed(0)}, max ${s.max.toFixed(0)}, n=${s.n})${cpu ? `, CPU median ${cpu.median.toFixed(0)} ms` : ''}`
const cpuOf = (results) => (results.every((r) => r.cpuMs !== null) ? summary(results.map((r) => r.cpuMs)) : null)

try {
  const floor = summary(Array.from({length: runs + 1}, () => timed(process.execPath, ['-e', '0']).ms).slice(1))

  const {dir: listDir, ms: genMs} = freshStateDir()
  cli(listDir, ['list', '--json']) // warm-up: page cache
  const list = summary(
    Array.from({length: runs}, () => {
      const result = cli(listDir, ['list', '--json'])
      if (JSON.parse(result.stdout).length !== count) throw new Error('list --json did not list every task')
      return result.ms
    }),
  )

  const keep = Math.min(100, count)
  const dryRuns = Array.from({length: runs}, () => {
    const result = cli(listDir, ['prune', '--keep', String(keep), '--dry-run', '--json'])
    if (JSON.parse(result.stdout).removed.length !== count - keep) throw new Error('the dry run did not plan every removal')
    return result
  })
  const keepRuns = Array.from({length: runs}, () => {
    const {dir} = freshStateDir()
    const result = cli(dir, ['prune', '--keep', String(keep), '--json'])
    const out = JSON.parse(result.stdout)
    if (out.removed.length !== count - keep || out.errors.length > 0 || out.kept !== keep) throw new Error(`prune --keep removed ${out.removed.length} of ${count - keep}`)
    return result
  })

  const pruneSamples = []
  let bytes = 0
  for (let i = 0; i < runs; i++) {
    const {dir} = freshStateDir()
    const result = cli(dir, ['prune', '--older-than', '0s', '--json'])
    const out = JSON.parse(result.stdout)
    if (out.removed.length !== count || out.errors.length > 0) throw new Error(`prune removed ${out.removed.length} of ${count}`)
    bytes = out.bytesReclaimed
    pruneSamples.push(result.ms)
  }
  const pruned = summary(pruneSamples)

  // The floor: the OS deleting the same folders with no checks and no locks at all.
  const rmRuns = Array.from({length: runs}, () => {
    const {dir} = freshStateDir()
    return timed('rm', ['-rf', path.join(dir, 'tasks')])
  })
  const floorRm = summary(rmRuns.map((r) => r.ms))

  console.log(`drover prune at scale: ${count} ended tasks, ${runs} runs each (generating one state dir took ${genMs.toFixed(0)} ms)`)
  console.log(`  node -e 0 (floor)          ${fmt(floor)}`)
  console.log(`  list --json                ${fmt(list)}`)
  console.log(`  prune --keep ${keep} --dry-run ${fmt(summary(dryRuns.map((r) => r.ms)), cpuOf(dryRuns))}`)
  console.log(`  prune --keep ${keep}         ${fmt(summary(keepRuns.map((r) => r.ms)), cpuOf(keepRuns))}`)
  console.log(`  prune --older-than 0s      ${fmt(pruned)}; ${(count / (pruned.median / 1000)).toFixed(0)} tasks/s, ${(bytes / 1048576).toFixed(1)} MiB reclaimed`)
  console.log(`  rm -rf tasks/ (floor)      ${fmt(floorRm, cpuOf(rmRuns))}`)
} finally {
  removeTempDirs()
}
