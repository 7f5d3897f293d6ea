// npm run chaos -- [--rounds N] [--seed S] [--processes P] [--reboot-every K] [--keep]
//
// A seeded chaos run against the real CLI and real processes: each round, P
// actors issue random drover commands at once while faults are injected
// (SIGKILL of runners, workers and commands; frozen runners and stalled
// commands; steps of the wall clock; a full disk; the derived index's
// segments truncated, from the future or damaged, the index deleted, its
// listing or journal damaged, or its writers killed mid-write);
// every K rounds a reboot kills everything and `resume --interrupted` runs.
// After each round the invariants (invariants.ts) are checked; a violation
// stops the run with the seed, the round, the recent history and the state
// dir kept for inspection (exit 1). The same seed replays the same
// operations and faults; their timing is the machine's.

import {spawn} from 'node:child_process'
import {mkdtempSync, rmSync} from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import {parseArgs} from 'node:util'
import {processStartTime} from '../../src/platform/platform.js'
import {DELAY_WEIGHTS, FAULT_WEIGHTS, injectFault, reboot, type Fault, type FaultContext} from './faults.js'
import {clockShifter} from './clock.js'
import {checkDependenciesObserved, checkInvariants, checkListMatchesRecords, readRecordTexts, type ListedTask} from './invariants.js'
import {injectIndexFault, INDEX_WEIGHTS, indexedIds, type IndexFault} from './index-faults.js'
import {OP_WEIGHTS, runOp} from './ops.js'
import {describeProcess, kill, processesByPrefix} from './procs.js'
import {Rng} from './rng.js'
import {canMountTmpfs, fabricateTask, mountTmpfs, unmountAll} from '../fixtures/rel-state.js'
import {World} from './world.js'

// Its faults and checks are Linux's: /proc, SIGSTOP stalls, a tmpfs to fill, libfaketime.
if (process.platform !== 'linux') {
  console.log(`chaos: the chaos run needs Linux (/proc, SIGSTOP, tmpfs); not run on ${process.platform}`)
  process.exit(0)
}

const {values} = parseArgs({
  options: {
    rounds: {type: 'string', default: '100'},
    seed: {type: 'string'},
    processes: {type: 'string', default: '4'},
    'ops-per-actor': {type: 'string', default: '4'},
    'reboot-every': {type: 'string', default: '10'},
    keep: {type: 'boolean', default: false},
  },
})
const rounds = Number(values.rounds)
const seed = values.seed === undefined ? Math.floor(Math.random() * 2 ** 31) : Number(values.seed)
const processes = Number(values.processes)
const opsPerActor = Number(values['ops-per-actor'])
const rebootEvery = Number(values['reboot-every'])
for (const [name, n] of Object.entries({rounds, seed, processes, opsPerActor, rebootEvery})) {
  if (!Number.isSafeInteger(n) || n < 0) {
    console.error(`chaos: --${name} must be a whole number`)
    process.exit(2)
  }
}

// On a small tmpfs when this process may mount one, so the disk can fill up.
const disk = canMountTmpfs() ? mountTmpfs('96m') : null
const stateDir = disk ? path.join(disk, 'state') : mkdtempSync(path.join(os.tmpdir(), 'drover-chaos-'))
const home = mkdtempSync(path.join(os.tmpdir(), 'drover-chaos-home-'))
const world = new World(stateDir, seed, path.join(home, 'hooks.txt'))
console.log(`chaos: seed ${seed}, ${rounds} rounds, ${processes} processes, state dir ${stateDir}`)
if (!clockShifter) console.log('chaos: no libfaketime (Debian package faketime): no clock steps this run')
if (!disk) console.log('chaos: no small tmpfs (needs root): no full disk this run')

/** Sentinels: live processes that are not drover's, named as worker and runner in fabricated records. */
async function plantStrangers(): Promise<void> {
  for (const status of ['running', 'lost', 'stopped'] as const) {
    const child = spawn('sleep', ['100000'], {stdio: 'ignore', detached: true})
    const entry = {identity: {pid: child.pid!, startTime: ''}, exited: null as string | null}
    child.on('exit', (code, signal) => (entry.exited = signal ?? `exit ${code}`))
    for (let i = 0; i < 100 && !processStartTime(child.pid!); i++) await new Promise((r) => setTimeout(r, 10))
    entry.identity.startTime = processStartTime(child.pid!)!
    world.strangers.push(entry)
    // the recorded start time is off by one: the pid is theirs now, not drover's
    const wrong = {pid: child.pid!, startTime: String(Number(entry.identity.startTime) - 1)}
    const id = fabricateTask(stateDir, {status, worker: wrong, runner: status === 'running' ? wrong : undefined})
    world.markers.set(id, null)
  }
}

async function list(round: number): Promise<ListedTask[]> {
  const r = await world.drover(round, 'checker', ['list', '--json', '--all'])
  if (r.exitCode !== 0) throw new Error(`list --json failed (${r.exitCode ?? r.signal}): ${r.stderr}`)
  return JSON.parse(r.stdout) as ListedTask[]
}

/** The checker's list, and how it differs from every task.json read just before and just after it. */
async function listChecked(round: number, label: string): Promise<{listed: ListedTask[]; violations: string[]}> {
  const before = readRecordTexts(stateDir)
  const indexed = indexedIds(stateDir)
  const listed = await list(round)
  return {listed, violations: checkListMatchesRecords(world, before, listed, readRecordTexts(stateDir), label, indexed)}
}

function fail(round: number, violations: string[]): never {
  console.error(`\nchaos: VIOLATION in round ${round} (seed ${seed}; replay: npm run chaos -- --seed ${seed} --rounds ${round})`)
  for (const v of violations) console.error(`  ${v}`)
  console.error('recent history:')
  for (const line of world.recent(40)) console.error(`  ${line}`)
  // the tasks the violations name, followed through the whole run (a marker is `sleep 7777.…` in a start's command)
  const ids = [...new Set(violations.flatMap((v) => [...v.matchAll(/\b\d{1,7}\b/g)].map((m) => Number(m[0]))))].filter((id) => world.markers.has(id) || world.firstSeen.has(id))
  if (ids.length > 0) {
    console.error(`history of tasks ${ids.join(', ')} (their markers: ${ids.map((id) => world.markers.get(id) ?? '-').join(', ')}):`)
    for (const line of world.naming(ids, 200)) console.error(`  ${line}`)
    // what a leftover is, and what its task's files said before the prune or rm that removed them
    for (const v of violations) for (const m of v.matchAll(/\(pid ([\d,]+)\)/g)) for (const pid of m[1].split(',')) console.error(`  ${describeProcess(Number(pid))}`)
    for (const id of ids) {
      const trail = world.trail.get(id)
      if (!trail) continue
      console.error(`task ${id} before its removal (${Math.round((Date.now() - trail.at) / 1000)} s ago):\n  task.json: ${trail.record.trim()}\n  events:\n${trail.events.trim().split('\n').map((l) => `    ${l}`).join('\n')}`)
    }
  }
  cleanupAll()
  console.error(`state dir kept: ${stateDir}${disk ? ' (a tmpfs: unmount it when done)' : ''}`)
  process.exit(1)
}

async function round(n: number): Promise<void> {
  const ctx: FaultContext = {world, rng: Rng.derive(seed, n, 999), diskFiller: disk ? path.join(disk, 'filler') : null, cleanups: []}
  world.uncertainRemoval = false
  const actors = Array.from({length: processes}, async (_, a) => {
    const rng = Rng.derive(seed, n, a)
    for (let k = 0; k < opsPerActor; k++) {
      await new Promise((r) => setTimeout(r, rng.int(0, 150)))
      await runOp(world, rng, n, `actor ${a}`, rng.weighted(OP_WEIGHTS), {HOME: home})
    }
  })
  let faulting = true
  const injector = (c: FaultContext, pick: () => Fault, gap: [number, number]) =>
    (async () => {
      while (faulting) {
        await new Promise((r) => setTimeout(r, c.rng.int(...gap)))
        if (!faulting) break
        const done = await injectFault(c, pick())
        if (done) {
          world.faults++
          world.history.push({round: n, actor: 'fault', op: done, args: [done], outcome: 'injected'})
        }
      }
    })()
  const delays: FaultContext = {...ctx, rng: Rng.derive(seed, n, 998)}
  // the index's faults: a stream of their own too, so older seeds replay as they did
  const indexRng = Rng.derive(seed, n, 997)
  const indexFaults = (async () => {
    while (faulting) {
      await new Promise((r) => setTimeout(r, indexRng.int(300, 1500)))
      if (!faulting) break
      await indexFault(n, indexRng)
    }
  })()
  const faults = Promise.all([
    injector(ctx, () => ctx.rng.weighted(FAULT_WEIGHTS), [100, 600]),
    injector(delays, () => delays.rng.weighted(DELAY_WEIGHTS), [300, 1500]),
    indexFaults,
  ])
  // The queues' limits, watched in the process table while the round runs.
  let sampling = true
  const sampler = (async () => {
    while (sampling) {
      sampleQueues()
      await new Promise((r) => setTimeout(r, 100))
    }
  })()
  await Promise.all(actors)
  faulting = false
  await faults
  sampling = false
  await sampler
  for (const cleanup of ctx.cleanups) cleanup()

  let afterReboot: Map<number, number> | undefined
  if (rebootEvery > 0 && n % rebootEvery === 0) {
    const before = await list(n)
    afterReboot = new Map(before.map((t) => [t.id, t.run ?? 0]))
    const killed = reboot(world)
    world.history.push({round: n, actor: 'fault', op: 'reboot', args: [`reboot (${killed} processes)`], outcome: 'injected'})
    world.faults++
    await world.drover(n, 'boot', ['resume', '--interrupted', '-q'], {HOME: home})
  }
  // the view a person types folds the hints of ended tasks into the index,
  // so the listing checked next reads them from it
  const folded = await world.drover(n, 'checker', ['list'])
  const checked = await listChecked(n, 'list --json --all')
  const violations = [...checkInvariants(world, checked.listed, {afterReboot}), ...checked.violations]
  if (folded.exitCode !== 0) violations.push(`list: the default view failed (${folded.exitCode ?? folded.signal}): ${folded.stderr.trim()}`)
  if (violations.length > 0) fail(n, violations)

  // At this quiet point (no actor, no other fault), one index fault, and
  // `list --json` must still say what the records say.
  const done = await indexFault(n, Rng.derive(seed, n, 996), true)
  const again = await listChecked(n, `list --json --all after ${done ?? 'no index fault'}`)
  if (again.violations.length > 0) fail(n, again.violations)
}

/** Index faults injected so far, by kind: the run's last lines say which were. */
const indexInjected = new Map<IndexFault, number>(Object.keys(INDEX_WEIGHTS).map((kind) => [kind as IndexFault, 0]))

/** One index fault drawn from `rng` and injected; what it did, or null when it found nothing to act on. */
async function indexFault(n: number, rng: Rng, quiet = false): Promise<string | null> {
  const kind = rng.weighted(INDEX_WEIGHTS)
  const done = await injectIndexFault(world, rng, n, kind, quiet)
  if (done) indexInjected.set(kind, indexInjected.get(kind)! + 1)
  record(n, done)
  return done
}

function record(n: number, fault: string | null): void {
  if (!fault) return
  if (!fault.startsWith('fold')) world.faults++
  world.history.push({round: n, actor: 'fault', op: fault.split(' ')[0], args: [fault], outcome: 'injected'})
}

/** Live marker processes: per queue against the highest limit the queue was ever given, and against their tasks' dependencies. */
function sampleQueues(): void {
  const taskOfMarker = new Map([...world.markers].flatMap(([id, marker]) => (marker ? [[marker, id] as const] : [])))
  const running = new Map<string, Set<number>>()
  const alive = new Set<number>()
  for (const {arg} of processesByPrefix(world.markerPrefix)) {
    const id = taskOfMarker.get(arg)
    if (id !== undefined) alive.add(id)
    const queue = id === undefined ? undefined : world.queueOf.get(id)
    if (id !== undefined && queue) running.set(queue, (running.get(queue) ?? new Set()).add(id))
  }
  for (const [queue, ids] of running) {
    const limit = world.queueLimits.get(queue) ?? 1
    if (ids.size > limit) world.samplerViolations.push(`queues: ${ids.size} tasks of queue ${queue} ran at once (limit ${limit}): ${[...ids].join(', ')}`)
  }
  checkDependenciesObserved(world, alive)
}

/** Until no hook supervisor (the runner bundle with --hook) lives, or `ms` passed; a moment at least. */
async function hooksSettled(ms: number): Promise<void> {
  const until = Date.now() + ms
  do await new Promise((r) => setTimeout(r, 500))
  while (processesByPrefix('--hook').some(({arg}) => arg === '--hook') && Date.now() < until)
}

function cleanupAll(): void {
  for (const stranger of world.strangers) kill(stranger.identity.pid, 'SIGKILL')
  reboot(world)
  for (const marker of processesByPrefix(world.markerPrefix)) kill(marker.pid, 'SIGKILL')
}

const started = Date.now()
try {
  await plantStrangers()
  for (let n = 1; n <= rounds; n++) {
    await round(n)
    if (n % 10 === 0 || n === rounds) console.log(`chaos: ${n}/${rounds} rounds, ${world.operations} operations, ${world.faults} faults, 0 violations (${((Date.now() - started) / 1000).toFixed(0)} s)`)
  }
  // The end: stop everything, and nothing of any task may be left.
  await world.drover(rounds + 1, 'end', ['stop', '--all', '--time', '1', '-q'])
  // A list fires the hooks a writer killed after its final record left
  // unclaimed; exit hooks run detached, so wait for their supervisors to end.
  await list(rounds + 1)
  await hooksSettled(30_000)
  const checked = await listChecked(rounds + 1, 'list --json --all')
  const violations = [...checkInvariants(world, checked.listed, {final: true}), ...checked.violations]
  if (violations.length > 0) fail(rounds + 1, violations)
  console.log(`chaos: passed — seed ${seed}, ${rounds} rounds, ${world.operations} operations, ${world.faults} faults, 0 violations in ${((Date.now() - started) / 1000).toFixed(0)} s`)
  console.log(`chaos: list --json matched ${world.listCompared} records field by field, ${world.listIndexed} of them with an index entry and no hint (${world.listMoved} rewritten while listed, skipped)`)
  console.log(`chaos: index faults injected: ${[...indexInjected].map(([kind, count]) => `${kind} ${count}`).join(', ')}`)
  cleanupAll()
  if (!values.keep) {
    rmSync(stateDir, {recursive: true, force: true})
    rmSync(home, {recursive: true, force: true})
    unmountAll()
  }
} catch (error) {
  cleanupAll()
  console.error(`chaos: the run itself failed (seed ${seed}): ${(error as Error).stack}`)
  process.exit(1)
}
