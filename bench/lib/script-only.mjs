// A state dir used only from scripts (issue 38): tasks started through the
// library and then looked at only with `list --json`, `wait` and `status` —
// never the default `list`, which was the one command that folded ended
// tasks' live hints into the summary. Beside it: the same state dir after one
// default `list`. The summary must not depend on which command a user runs.
//
// At BENCH_SCRIPT_REAL tasks (default 1,000) every task is started for real
// (the library's start, `true` as the command, a runner each) and waited for;
// at BENCH_SCALE_TASKS (10,000) starting each for real would take most of an
// hour here, so the tasks are written as such a start leaves them: an ended
// record and its hint in live/ (records.mjs), nothing summarised.

import {cpSync, readdirSync, writeFileSync} from 'node:fs'
import path from 'node:path'
import {pathToFileURL} from 'node:url'
import {writeFinalTasks} from './records.mjs'
import {interleaved, timeDrover} from './cli-cases.mjs'
import {row} from './report.mjs'
import {drover, intEnv, pairedRatio, ROOT} from './util.mjs'

/** Starts `count` tasks through the library, a few at a time, and waits for them all. */
async function startForReal(stateDir, count) {
  const {openStateDir} = await import(pathToFileURL(path.join(ROOT, 'dist', 'api', 'index.js')).href)
  const lib = await openStateDir(stateDir)
  const ids = []
  for (let k = 0; k < count; k += 20) {
    const batch = await Promise.all(Array.from({length: Math.min(20, count - k)}, () => lib.start({command: ['true']})))
    ids.push(...batch.map((t) => t.id))
  }
  await lib.wait(ids.map(String), {timeoutMs: 600_000})
}

/** Ended tasks with their hints, as library starts leave them when nothing folds. */
function writeHinted(stateDir, count) {
  writeFinalTasks(stateDir, count)
  for (let id = 1; id <= count; id++) writeFileSync(path.join(stateDir, 'live', String(id)), '')
}

async function compare(ctx, count, real) {
  const scripted = ctx.dirs.fresh(`script-only-${count}`)
  if (real) await startForReal(scripted, count)
  else writeHinted(scripted, count)
  const hintsBefore = readdirSync(path.join(scripted, 'live')).length
  const listed = ctx.dirs.fresh(`script-only-listed-${count}`)
  cpSync(scripted, listed, {recursive: true})
  drover(listed, ['list'])
  const id = String(Math.ceil(count / 2))
  // The first `list --json` of the scripted dir (it folds what it reads ended), timed alone.
  const first = await timeDrover(scripted, ['list', '--json'])()
  const hintsAfter = readdirSync(path.join(scripted, 'live')).length
  const s = await interleaved(
    {
      json: timeDrover(scripted, ['list', '--json']),
      jsonListed: timeDrover(listed, ['list', '--json']),
      wait: timeDrover(scripted, ['wait', id]),
      waitListed: timeDrover(listed, ['wait', id]),
      status: timeDrover(scripted, ['status', id]),
      statusListed: timeDrover(listed, ['status', id]),
    },
    ctx.runs,
  )
  const n = count.toLocaleString('en-US')
  const how = real ? 'started for real' : 'written with their hints'
  const goal = {maxRatio: 1.2}
  const beside = 'the same dir after one default `list`'
  const note = `${hintsBefore} hints before the first \`list --json\` (${Math.round(first.ms)} ms), ${hintsAfter} after`
  const vs = (name, label, extra = '') => row(`script only: ${label}, ${n} tasks ${how}`, s[name].median, beside, s[`${name}Listed`].median, 'ms', goal, extra, pairedRatio(s[name], s[`${name}Listed`]))
  return [vs('json', '`list --json`', note), vs('wait', '`wait ID`'), vs('status', '`status ID`')]
}

export async function scriptOnly(ctx) {
  const rows = []
  rows.push(...(await compare(ctx, intEnv('BENCH_SCRIPT_REAL', 1000), true)))
  rows.push(...(await compare(ctx, ctx.sizes.big, false)))
  return rows
}
