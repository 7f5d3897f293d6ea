// The short-command cases: CLI round trip (`--version`, `--help`, `list --json`
// at growing sizes, `status ID`) beside the floors that explain them, `start`
// until recorded running beside its own floor, 50 starts in a row beside pm2's, scale (`start` and
// `status` with many tasks present), and the table a person types (`list`).
// Samples of every command in a case are interleaved round by round, so a
// burst of load elsewhere hits all alike.

import {spawnSync} from 'node:child_process'
import {existsSync, readFileSync, symlinkSync} from 'node:fs'
import path from 'node:path'
import {writeFinalTasks} from './records.mjs'
import {fmtCpu, row, skipped} from './report.mjs'
import {BIN, drover, envFor, LIB, ROOT, summary, timed, timeRun, timeRunCpu, waitFor} from './util.mjs'

const node = process.execPath
const FLOOR = '`node -e 0`'

/**
 * Times each named command once as a warm-up, then `runsFor(name)` times,
 * one sample of each per round, every other round in reverse order: what a
 * command leaves behind (a started task's runner exiting, written-back pages)
 * then falls on the command after it in one round and on the one before it
 * in the next, not always on the same neighbour. Returns the summary per name.
 */
export async function interleaved(commands, runs, runsFor = () => runs) {
  const names = Object.keys(commands)
  for (const name of names) await commands[name]()
  // What the warm-up wrote (a first list of 100,000 tasks writes the summary's 300 MB) is written out now,
  // so its writeback cannot compete with the samples for the disk. Suspected, not proven, as the cause of one
  // run's `list --json` at 100,000 tasks taking 1.10–1.35 s where a settled state dir took 540 ms by hand.
  spawnSync('sync', {stdio: 'ignore'})
  const samples = Object.fromEntries(names.map((n) => [n, []]))
  const rounds = Math.max(...names.map((n) => runsFor(n)))
  const reversed = [...names].reverse()
  for (let round = 0; round < rounds; round++) {
    for (const name of round % 2 === 0 ? names : reversed) if (round < runsFor(name)) samples[name].push(await commands[name]())
  }
  return Object.fromEntries(names.map((n) => [n, summary(samples[n])]))
}

/** A drover run, timed; `on` names another Node, another copy of drover (its bin) or more environment. */
export const timeDrover = (stateDir, args, on = {}) => () => timeRunCpu(on.node ?? node, [on.bin ?? BIN, ...args], {env: envFor(stateDir, on.env)})
export const timeNode = (args, env) => () => timeRunCpu(node, args, {env})

/** A PATH of one folder holding a link to node and nothing else (no agent, no Slurm). */
function nodeOnlyPath(dir) {
  const link = path.join(dir, 'node')
  if (!existsSync(link)) symlinkSync(node, link)
  return dir
}

function recordOf(stateDir, id) {
  try {
    return JSON.parse(readFileSync(path.join(stateDir, 'tasks', String(id), 'task.json'), 'utf8'))
  } catch {
    return null
  }
}

const FINAL = new Set(['succeeded', 'failed', 'stopped', 'cancelled', 'drained', 'lost'])

/** Waits until the task's runner has recorded an end, so its work does not bleed into the next sample. */
export async function waitFinal(stateDir, id, timeout = 20_000, interval = 10) {
  return waitFor(() => {
    const record = recordOf(stateDir, id)
    return record && FINAL.has(record.status) ? record : null
  }, {timeout, interval, message: `task ${id} to end`})
}

/** Starts `true` and returns its id (start prints only the id). */
export function startedId(result) {
  const id = Number(result.stdout.trim())
  if (!Number.isSafeInteger(id) || id < 1) throw new Error(`start printed no id: ${result.stdout}${result.stderr}`)
  return id
}

/**
 * `drover start -- true`, timed, then waited to the end untimed. `runnerParts`
 * collects, per start, the runner's share: from the record's creation
 * (`created` in events.ndjson, written by start) to `started` (the runner
 * recorded the worker running). `options` gives each start's flags (e.g. a
 * fresh `--name`); `on` as for timeDrover.
 */
export function startTrue(stateDir, runnerParts = [], options = () => [], on = {}) {
  return async () => {
    // options() is called once a start: it may hand out a fresh name each time
    const flags = options()
    const result = timed(on.node ?? node, [on.bin ?? BIN, 'start', ...flags, '--', 'true'], {env: envFor(stateDir, on.env)})
    const id = startedId(result)
    await waitFinal(stateDir, id)
    const at = eventTimes(stateDir, id)
    // with a status hook: from `started` to the hook's event of that change (the run's end may come first)
    const hooked = flags.includes('--on-status')
    if (hooked) await waitHook(stateDir, id)
    const from = hooked ? at.started : at.created
    const to = hooked ? eventTimes(stateDir, id).hook : at.started
    if (from !== undefined && to !== undefined) runnerParts.push(to - from)
    return {ms: result.ms, cpuMs: result.cpuMs}
  }
}

/** Waits (at most 30 s) until the task's journal holds a hook's event of `running`. */
async function waitHook(stateDir, id) {
  const file = path.join(stateDir, 'tasks', String(id), 'events.ndjson')
  for (const deadline = Date.now() + 30_000; Date.now() < deadline; ) {
    try {
      if (readFileSync(file, 'utf8').includes('"hook":"on-status","status":"starting"')) return
    } catch {
      // not there yet
    }
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
}

/** When each event of the task's journal was written (ms since the epoch), by event name. */
function eventTimes(stateDir, id) {
  const times = {}
  try {
    for (const line of readFileSync(path.join(stateDir, 'tasks', String(id), 'events.ndjson'), 'utf8').split('\n')) {
      if (!line) continue
      const event = JSON.parse(line)
      times[event.event] ??= Date.parse(event.ts)
    }
  } catch {
    // no journal: no share to report
  }
  return times
}

/** The generated records must read as valid tasks, or the list timings would measure error paths. */
export function checkGenerated(stateDir, count) {
  const tasks = JSON.parse(drover(stateDir, ['list', '--json']).stdout)
  const corrupt = tasks.filter((t) => t.status === 'corrupt')
  if (tasks.length !== count || corrupt.length > 0) {
    throw new Error(`generated state dir lists ${tasks.length} tasks, ${corrupt.length} corrupt (${corrupt[0]?.error}); bench/lib/records.mjs is out of step with src/state/record.ts`)
  }
}

/** A generated task that ended `succeeded` (status shows no output tail for it). */
export function succeededId(stateDir, count) {
  for (let id = Math.ceil(count / 2); id <= count; id++) if (recordOf(stateDir, id)?.status === 'succeeded') return id
  throw new Error('no succeeded task among the generated ones')
}

export async function roundTrip(ctx) {
  const {peers, dirs, runs} = ctx
  checkGenerated(dirs.small(), ctx.sizes.small)
  const statusId = succeededId(dirs.small(), ctx.sizes.small)
  const doctorPath = nodeOnlyPath(dirs.fresh('doctor-path'))
  const commands = {
    floor: timeNode(['-e', '0']),
    version: timeDrover(dirs.empty(), ['--version']),
    help: timeDrover(dirs.empty(), ['--help']),
    list0: timeDrover(dirs.empty(), ['list', '--json']),
    list1k: timeDrover(dirs.small(), ['list', '--json']),
    view1k: timeDrover(dirs.small(), ['list']),
    listBig: timeDrover(dirs.big(), ['list', '--json']),
    status: timeDrover(dirs.small(), ['status', String(statusId)]),
    // doctor's own work over the big state dir: no agent on PATH (their --version is theirs), exit 1 allowed (it reports the machine)
    doctorBig: () => timeRunCpu(node, [BIN, 'doctor', '--json'], {env: envFor(dirs.big(), {PATH: doctorPath}), ok: [0, 1]}),
    // The parts no drover change can remove, alone (see bench/README.md).
    oclifCore: timeNode(['-e', "import('@oclif/core')"]),
    oclifDrover: timeNode([path.join(LIB, 'oclif-floor.mjs'), ROOT]),
    read1k: timeNode([path.join(LIB, 'read-records.mjs'), dirs.small()]),
    readBig: timeNode([path.join(LIB, 'read-records.mjs'), dirs.big()]),
  }
  if (peers['task-spooler'].available) {
    const tsp = ctx.sandbox('tsp')
    commands.tsp = () => timeRun('tsp', ['-l'], {env: tsp.env})
  }
  if (peers.pm2.available) {
    const pm2 = ctx.sandbox('pm2')
    // The warm-up call starts the daemon; samples then time a warm `jlist`.
    commands.pm2 = () => timeRun('pm2', ['jlist'], {env: pm2.env})
  }
  // Listing the big dir takes seconds: fewer samples keep the run short.
  const heavyRuns = Math.max(3, Math.ceil(runs / 2))
  const s = await interleaved(commands, runs, (name) => (name === 'listBig' || name === 'readBig' || name === 'doctorBig' ? heavyRuns : runs))
  ctx.floor = s.floor.median
  const big = ctx.sizes.big.toLocaleString('en-US')
  const small = ctx.sizes.small.toLocaleString('en-US')
  const vsFloor = (name, label, goal = null) => row(label, s[name].median, FLOOR, s.floor.median, 'ms', goal, fmtCpu(s[name].cpuMean, s.floor.cpuMean))
  const rows = [
    row(`round trip: ${FLOOR} (the floor)`, s.floor.median, null, null, 'ms', null, fmtCpu(s.floor.cpuMean, s.floor.cpuMean)),
    vsFloor('version', 'round trip: `drover --version`', {maxRatio: 1.3}),
    vsFloor('help', 'round trip: `drover --help` (piped)', {maxRatio: 2}),
    vsFloor('list0', 'round trip: `list --json`, 0 tasks'),
    vsFloor('list1k', `round trip: \`list --json\`, ${small} tasks`, ctx.sizes.small === 1000 ? {maxRatio: 2.5} : null),
    vsFloor('view1k', `round trip: \`list\`, ${small} tasks`, ctx.sizes.small === 1000 ? {maxRatio: 2} : null),
    vsFloor('listBig', `round trip: \`list --json\`, ${big} tasks`, ctx.sizes.big === 10_000 ? {maxRatio: 3} : null),
    vsFloor('status', `round trip: \`status ID\`, ${small} tasks present`, {maxRatio: 2}),
    vsFloor('doctorBig', `round trip: \`doctor --json\`, ${big} tasks, no agent on PATH`),
    vsFloor('oclifCore', 'floor: `node -e "import(\'@oclif/core\')"` (oclif as installed, loaded only)'),
    vsFloor('oclifDrover', 'floor: oclif as drover loads it (its bundle and code cache) and its Config.load'),
    vsFloor('read1k', `floor: reading ${small} task.json files (readFileSync, JSON.parse, one JSON out)`),
    vsFloor('readBig', `floor: reading ${big} task.json files (the same)`),
  ]
  rows.push(
    s.tsp
      ? row('round trip: `list --json`, 0 tasks, beside `tsp -l`', s.list0.median, '`tsp -l`', s.tsp.median, 'ms')
      : skipped('round trip beside `tsp -l`', peers['task-spooler'].note),
  )
  rows.push(
    s.pm2
      ? row('round trip: `list --json`, 0 tasks, beside `pm2 jlist`', s.list0.median, '`pm2 jlist` (daemon up)', s.pm2.median, 'ms')
      : skipped('round trip beside `pm2 jlist`', peers.pm2.note),
  )
  return rows
}

export async function start(ctx) {
  const {peers, dirs, runs} = ctx
  const runnerParts = []
  const hookDelays = []
  const commands = {
    floor: timeNode(['-e', '0']),
    drover: startTrue(dirs.fresh('start'), runnerParts),
    // A status hook is told of `running` only once start has its answer: it must cost a start nothing.
    hooked: startTrue(dirs.fresh('start-status-hook'), hookDelays, () => ['--on-status', 'true']),
    // What no drover change removes from a start, alone (see bench/README.md).
    startFloor: timeNode([path.join(LIB, 'start-floor.mjs'), ROOT, dirs.fresh('start-floor')]),
  }
  if (peers.nq.available) {
    const nq = ctx.sandbox('nq')
    commands.nq = () => timeRun('nq', ['true'], {env: nq.env})
  }
  if (peers['task-spooler'].available) {
    const tsp = ctx.sandbox('tsp')
    commands.tsp = () => timeRun('tsp', ['true'], {env: tsp.env})
  }
  if (peers.pm2.available) {
    const pm2 = ctx.sandbox('pm2')
    let n = 0
    // Unique names: pm2 would otherwise restart the existing app.
    commands.pm2 = () => timeRun('pm2', ['start', 'true', '--name', `bench-${++n}`, '--no-autorestart'], {env: pm2.env})
  }
  const s = await interleaved(commands, runs)
  const rows = [
    row('start: `start -- true` until recorded running', s.drover.median, FLOOR, s.floor.median, 'ms', {maxRatio: 3}, `${fmtCpu(s.drover.cpuMean, s.floor.cpuMean)} (the CLI alone: the runner is not its child)`),
    row('start: of which the runner, record created → recorded running', summary(runnerParts).median, FLOOR, s.floor.median, 'ms'),
    row('start: with a status hook (`--on-status true`)', s.hooked.median, 'without', s.drover.median, 'ms', {maxRatio: 1.1}, fmtCpu(s.hooked.cpuMean, s.drover.cpuMean)),
    row('status hook: recorded running → its first hook done', summary(hookDelays).median, FLOOR, s.floor.median, 'ms'),
    row(
      'floor: oclif as drover loads it, and a standby Node that records a spawned `true` (the protocol of start alone)',
      s.startFloor.median,
      FLOOR,
      s.floor.median,
      'ms',
      null,
      s.startFloor.cpuMean === null ? '' : `${fmtCpu(s.startFloor.cpuMean, s.floor.cpuMean)} (the CLI side alone, as for start)`,
    ),
    row('start: `start -- true` beside that floor', s.drover.median, 'the floor of start', s.startFloor.median, 'ms'),
  ]
  for (const [key, label, peer] of [
    ['nq', '`nq true`', 'nq'],
    ['tsp', '`tsp true`', 'task-spooler'],
    ['pm2', '`pm2 start true` (daemon up)', 'pm2'],
  ]) {
    rows.push(s[key] ? row(`start: beside ${label}`, s.drover.median, label, s[key].median, 'ms') : skipped(`start beside ${label}`, peers[peer].note))
  }
  return rows
}

/**
 * 50 starts in a row, as a script would issue them (each `start` returns once
 * its task runs), beside 50 `pm2 start`s with pm2's daemon up. Blocks of 10
 * alternate between the two sides, so load elsewhere lands on both alike;
 * the drover tasks (`true`) end by themselves meanwhile.
 */
export async function starts(ctx) {
  const {peers, sizes} = ctx
  const total = sizes.sequentialStarts
  if (!peers.pm2.available) return [skipped(`${total} sequential starts beside pm2`, peers.pm2.note)]
  const stateDir = ctx.dirs.fresh('starts')
  const pm2 = ctx.sandbox('pm2')
  let n = 0
  const pm2Start = () => timed('pm2', ['start', 'true', '--name', `seq-${++n}`, '--no-autorestart'], {env: pm2.env}).ms
  const droverStart = () => {
    const result = timed(node, [BIN, 'start', '--', 'true'], {env: envFor(stateDir)})
    startedId(result)
    return result.ms
  }
  // Warm-up: pm2's daemon up, page caches warm on both sides.
  pm2Start()
  droverStart()
  const block = Math.min(10, total)
  let droverMs = 0
  let pm2Ms = 0
  for (let done = 0; done < total; done += block) {
    const count = Math.min(block, total - done)
    for (let i = 0; i < count; i++) droverMs += droverStart()
    for (let i = 0; i < count; i++) pm2Ms += pm2Start()
  }
  return [
    row(`starts: ${total} \`start -- true\` in a row`, droverMs, `${total} \`pm2 start true\` in a row (daemon up)`, pm2Ms, 'ms', total === 50 ? {maxRatio: 1} : null),
  ]
}

export async function scale(ctx) {
  const {dirs, runs} = ctx
  const empty = dirs.fresh('scale-empty')
  const big = dirs.big()
  // `status` of a real, finished task in each dir: the one thing that differs is how many others are there.
  const emptyId = startedId(drover(empty, ['start', '--', 'true']))
  const bigId = startedId(drover(big, ['start', '--', 'true']))
  await waitFinal(empty, emptyId)
  await waitFinal(big, bigId)
  const s = await interleaved(
    {
      startEmpty: startTrue(empty),
      startBig: startTrue(big),
      statusEmpty: timeDrover(empty, ['status', String(emptyId)]),
      statusBig: timeDrover(big, ['status', String(bigId)]),
    },
    runs,
  )
  const n = ctx.sizes.big.toLocaleString('en-US')
  const goal = ctx.sizes.big === 10_000 ? {maxRatio: 1.1} : null
  return [
    row(`scale: \`start -- true\` with ${n} tasks present`, s.startBig.median, 'with none', s.startEmpty.median, 'ms', goal),
    row(`scale: \`status <id>\` with ${n} tasks present`, s.statusBig.median, 'with none', s.statusEmpty.median, 'ms', goal),
  ]
}

/**
 * The table a person types, piped (stdout captured): `list --all` must cost
 * about what `list --json` does (the table is linear), and the default view
 * (live tasks and the newest ended ones) at the big size about what it costs
 * at 100 tasks.
 */
export async function listView(ctx) {
  const {dirs, runs} = ctx
  const big = dirs.big()
  const hundred = dirs.fresh('list-100')
  writeFinalTasks(hundred, 100)
  checkGenerated(hundred, 100)
  const heavyRuns = Math.max(3, Math.ceil(runs / 2))
  const s = await interleaved(
    {
      json: timeDrover(big, ['list', '--json']),
      all: timeDrover(big, ['list', '--all']),
      viewBig: timeDrover(big, ['list']),
      view100: timeDrover(hundred, ['list']),
      refsBig: timeDrover(big, ['task-refs']),
      refs100: timeDrover(hundred, ['task-refs']),
    },
    runs,
    (name) => (name === 'json' || name === 'all' ? heavyRuns : runs),
  )
  const n = ctx.sizes.big.toLocaleString('en-US')
  const atTenThousand = ctx.sizes.big === 10_000
  return [
    row(`list: \`list --all\` (table, piped), ${n} tasks`, s.all.median, `\`list --json\`, ${n} tasks`, s.json.median, 'ms', atTenThousand ? {maxRatio: 1.5} : null),
    row(`list: \`list\` (default view), ${n} tasks`, s.viewBig.median, '`list`, 100 tasks', s.view100.median, 'ms', atTenThousand ? {maxRatio: 1.2} : null),
    // what shell completion runs on each Tab at a TASK argument
    row(`list: \`task-refs\` (completion's TASK candidates), ${n} tasks`, s.refsBig.median, '`task-refs`, 100 tasks', s.refs100.median, 'ms', atTenThousand ? {maxRatio: 1.2} : null),
  ]
}
