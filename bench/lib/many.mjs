// Many tasks in one state dir (10,000 and 100,000 ended ones): the reads that
// cover every task (`list --json`, `list -q`, `list --all`) beside the floor,
// and what must not grow with the ended tasks at all — the default `list`,
// `status ID`, `status NAME`, `start` and `start --name` — beside the same in
// a state dir of 100 tasks. The 100,000-task dir is written once per bench
// run (records.mjs, straight to disk) and shared with the manylive case.

import path from 'node:path'
import {writeFinalTasks} from './records.mjs'
import {checkGenerated, interleaved, startTrue, timeDrover, timeNode} from './cli-cases.mjs'
import {fmtCpu, row} from './report.mjs'
import {LIB, pairedRatio} from './util.mjs'

const FLOOR = '`node -e 0`'
const STAT_RECORDS = path.join(LIB, 'stat-records.mjs')

/** A generated task with a name, near the middle of the ids (names go to every fifth id: records.mjs). */
const namedId = (count) => Math.max(5, Math.round(count / 10) * 5)
/** A generated task that succeeded (ids ≡ 0, 1, 2 mod 8: records.mjs), near the middle: status shows no output tail for it. */
const succeededId = (count) => Math.floor(count / 16) * 8 + 1

/** `list --json`, `list -q` and `list --all` of a dir of `count` tasks beside the floor. */
async function everyTask(ctx, stateDir, count, runs, goal) {
  const s = await interleaved(
    {
      floor: timeNode(['-e', '0']),
      json: timeDrover(stateDir, ['list', '--json']),
      quiet: timeDrover(stateDir, ['list', '-q']),
      all: timeDrover(stateDir, ['list', '--all']),
      stats: timeNode([STAT_RECORDS, stateDir]),
    },
    runs,
    // the floor sampled every round, and on after the heavy ones stop: 3 samples of `node -e 0` on a loaded machine are no floor
    (name) => (name === 'floor' ? ctx.runs : runs),
  )
  const n = count.toLocaleString('en-US')
  const vsFloor = (name, label, rowGoal = goal) => row(`many: ${label}, ${n} tasks`, s[name].median, FLOOR, s.floor.median, 'ms', rowGoal, fmtCpu(s[name].cpuMean, s.floor.cpuMean), pairedRatio(s[name], s.floor))
  return [
    vsFloor('json', '`list --json`'),
    vsFloor('quiet', '`list -q`'),
    vsFloor('all', '`list --all` (table, piped)'),
    // what the truth of every record costs alone (decision 0044): `list --json` and `--all` pay it, `-q` does not
    vsFloor('stats', 'floor: `node` stating every task.json', null),
  ]
}

export async function many(ctx) {
  const {dirs, runs, sizes} = ctx
  const big = dirs.big()
  const huge = dirs.huge()
  const hundred = dirs.fresh('many-100')
  writeFinalTasks(hundred, 100)
  checkGenerated(hundred, 100)
  const rows = []
  // Reading every task takes seconds at 100,000: fewer samples there keep the run short. At
  // 10,000 a sample is a quarter second, and with half the runs (8) the median of one bench
  // run moved 2.8–3.3× the floor on unchanged code (the same instruction count, ±0.5%).
  rows.push(...(await everyTask(ctx, big, sizes.big, runs, sizes.big === 10_000 ? {maxRatio: 3} : null)))
  rows.push(...(await everyTask(ctx, huge, sizes.huge, sizes.hugeRuns, sizes.huge === 100_000 ? {maxRatio: 10} : null)))

  let named = 0
  const freshName = () => ['--name', `bench-${process.pid}-${++named}`]
  const s = await interleaved(
    {
      viewHuge: timeDrover(huge, ['list']),
      view100: timeDrover(hundred, ['list']),
      statusHuge: timeDrover(huge, ['status', String(succeededId(sizes.huge))]),
      status100: timeDrover(hundred, ['status', String(succeededId(100))]),
      // an ended task by name: the newest task of that name, when none of it is live
      nameHuge: timeDrover(huge, ['status', `job-${namedId(sizes.huge)}`]),
      name100: timeDrover(hundred, ['status', `job-${namedId(100)}`]),
      startHuge: startTrue(huge),
      start100: startTrue(hundred),
      startNamedHuge: startTrue(huge, [], freshName),
      startNamed100: startTrue(hundred, [], freshName),
    },
    runs,
  )
  const n = sizes.huge.toLocaleString('en-US')
  const goal = sizes.huge === 100_000 ? {maxRatio: 1.1} : null
  const vsHundred = (name, label, note = '') => row(`many: ${label}, ${n} tasks`, s[`${name}Huge`].median, 'the same, 100 tasks', s[`${name}100`].median, 'ms', goal, note, pairedRatio(s[`${name}Huge`], s[`${name}100`]))
  rows.push(
    vsHundred('view', '`list` (default view)'),
    vsHundred('status', '`status ID`'),
    vsHundred('name', '`status NAME` (an ended task)'),
    vsHundred('start', '`start -- true` until recorded running'),
    vsHundred('startNamed', '`start --name NEW -- true` until recorded running', 'a name must be unique among live tasks'),
  )
  return rows
}
