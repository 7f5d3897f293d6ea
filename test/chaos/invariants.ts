// The invariants a chaos round must leave true, read from the state dir and
// the process table after one reconcile (a `drover list --json`):
//   records    every task.json decodes (nothing listed as corrupt)
//   ids        ids are unique and never reused (an id keeps its createdAt)
//   liveness   every task is final, or starting within its grace, or has a live runner
//              (the grace measured by the checker's own clock: a task seen starting
//              with no runner for longer than STUCK_STARTING_MS is stuck)
//   leftovers  no process of a task is alive once its status is final
//   intent     a task the run stopped or cancelled is not brought back by resume --interrupted
//   strangers  the live processes planted in fabricated records were never signalled
//   accounted  every task a start made still exists unless a prune or rm reported it removed
//   queues     no queue ran more tasks at once than its limit (a sampler of the process table)
//   after      no run of a task started before its --after tasks succeeded (--after-ended: ended):
//              observed (the sampler sees a task's child alive while a dependency's
//              events hold no such end), and from the recorded times while every
//              process has kept the one clock (no clock step yet in the run)
//   hooks      an --on-exit hook ran at most once per run (and, at the end, at least once)

import {existsSync, readFileSync} from 'node:fs'
import path from 'node:path'
import {alive, processesByPrefix, state} from './procs.js'
import {runnerOf, workerOf} from './faults.js'
import {MARKER_PREFIX, type World} from './world.js'

export interface ListedTask {
  id: number
  status: string
  createdAt?: string
  run?: number
  desired?: string
  error?: string
  reason?: string | null
  after?: number[]
  afterEnded?: number[]
  runs?: {startedAt: string | null}[]
}

/** drover's grace for a run starting is 15 s; the checker sees a task later than drover does. */
const STUCK_STARTING_MS = 20_000

/** When the task's events say it ended (with `succeeded` only, when asked), oldest first. */
export function endings(stateDir: string, id: number, succeededOnly: boolean): number[] {
  let text: string
  try {
    text = readFileSync(path.join(stateDir, 'tasks', String(id), 'events.ndjson'), 'utf8')
  } catch {
    return []
  }
  return text
    .split('\n')
    .flatMap((line) => {
      try {
        const e = JSON.parse(line) as {ts?: string; event?: string; status?: string}
        const ended = e.event === 'exit' || e.event === 'lost' || e.event === 'skipped'
        return ended && (!succeededOnly || e.status === 'succeeded') && e.ts ? [Date.parse(e.ts)] : []
      } catch {
        return []
      }
    })
}

/** The runner may have recorded the end (and gone) between the listing and this check. */
/**
 * The record moved on since `listed` was read: it is final now, or shows
 * another run or status. Someone wrote it in between — a runner recording
 * its end and a retry (whose next runner is not up yet), or a reconcile —
 * so what was listed is stale, not a run left without its runner.
 */
function movedOnSince(stateDir: string, listed: ListedTask): boolean {
  try {
    const record = JSON.parse(readFileSync(path.join(stateDir, 'tasks', String(listed.id), 'task.json'), 'utf8')) as {status?: string; runs?: unknown[]}
    if (FINAL.has(record.status ?? '')) return true
    return record.status !== listed.status || (listed.run !== undefined && record.runs?.length !== listed.run)
  } catch {
    return false
  }
}

/** Hook lines per task id, from the run's hook log. */
export function hookCounts(file: string): Map<number, number> {
  const counts = new Map<number, number>()
  let text = ''
  try {
    text = readFileSync(file, 'utf8')
  } catch {
    return counts
  }
  for (const line of text.split('\n')) {
    const id = Number(line.split(' ')[0])
    if (Number.isSafeInteger(id) && id > 0) counts.set(id, (counts.get(id) ?? 0) + 1)
  }
  return counts
}

const FINAL = new Set(['succeeded', 'failed', 'stopped', 'cancelled', 'drained', 'lost', 'skipped'])

/**
 * The sampler's half of `after`: a task's child is alive now, so each of its
 * dependencies' events must already hold the end it waited for. Events are
 * only appended, so this needs no clock; read the process table first.
 */
export function checkDependenciesObserved(world: World, runningIds: Iterable<number>): void {
  for (const id of runningIds) {
    let record: {run?: number; after?: number[]; afterEnded?: number[]}
    try {
      record = JSON.parse(readFileSync(path.join(world.stateDir, 'tasks', String(id), 'task.json'), 'utf8'))
    } catch {
      continue
    }
    // once per run: `start ID` runs a task again, and waits for its dependencies again
    const key = `${id}/${record.run ?? 0}`
    if (world.dependencyChecked.has(key)) continue
    world.dependencyChecked.add(key)
    for (const [deps, succeededOnly] of [[record.after ?? [], true], [record.afterEnded ?? [], false]] as const) {
      for (const dep of deps) {
        if (!existsSync(path.join(world.stateDir, 'tasks', String(dep)))) continue
        if (endings(world.stateDir, dep, succeededOnly).length === 0) {
          world.samplerViolations.push(`after: task ${id} runs while task ${dep} has not ${succeededOnly ? 'succeeded' : 'ended'} (seen in the process table)`)
        }
      }
    }
  }
}

export function checkInvariants(world: World, listed: ListedTask[], opts: {afterReboot?: Map<number, number>; final?: boolean} = {}): string[] {
  const violations: string[] = []
  const byId = new Map(listed.map((task) => [task.id, task]))

  for (const task of listed) {
    if (task.status === 'corrupt') violations.push(`records: task ${task.id} is corrupt (${task.error})`)
    if (task.createdAt) {
      const first = world.firstSeen.get(task.id)
      if (first === undefined) world.firstSeen.set(task.id, task.createdAt)
      else if (first !== task.createdAt) violations.push(`ids: id ${task.id} reused (created ${first}, now ${task.createdAt})`)
    }
  }

  const markersAlive = new Map<string, number[]>()
  for (const {pid, arg} of processesByPrefix(MARKER_PREFIX)) markersAlive.set(arg, [...(markersAlive.get(arg) ?? []), pid])
  for (const task of listed) {
    if (task.status === 'corrupt') continue
    if (FINAL.has(task.status)) {
      const worker = workerOf(world.stateDir, task.id)
      if (alive(worker)) violations.push(`leftovers: task ${task.id} is ${task.status} but its worker ${worker!.pid} lives`)
      const marker = world.markers.get(task.id)
      if (marker && markersAlive.has(marker)) violations.push(`leftovers: task ${task.id} is ${task.status} but its child ${marker} (pid ${markersAlive.get(marker)!.join(',')}) lives`)
    } else if (task.status === 'queued') {
      // a queued task holds no process: it waits, and says for what
      if (!task.reason) violations.push(`liveness: task ${task.id} is queued without a reason`)
    } else if (task.status !== 'starting' && !alive(runnerOf(world.stateDir, task.id)) && !movedOnSince(world.stateDir, task)) {
      violations.push(`liveness: task ${task.id} is ${task.status} without a live runner`)
    }
    if (task.status === 'starting' && !alive(runnerOf(world.stateDir, task.id))) {
      const since = world.startingSince.get(task.id) ?? Date.now()
      world.startingSince.set(task.id, since)
      if (Date.now() - since > STUCK_STARTING_MS) violations.push(`liveness: task ${task.id} has been starting with no runner for ${Math.round((Date.now() - since) / 1000)} s`)
    } else {
      world.startingSince.delete(task.id)
    }
  }

  for (const id of world.markers.keys()) {
    if (byId.has(id) || world.removed.has(id)) continue
    // a prune or rm killed mid-way may have removed it without saying so: from now on it counts as removed
    if (world.uncertainRemoval && !existsSync(path.join(world.stateDir, 'tasks', String(id)))) {
      world.removed.add(id)
      continue
    }
    violations.push(`accounted: task ${id} vanished without a prune or rm reporting it`)
  }

  if (opts.afterReboot) {
    for (const [id, runs] of opts.afterReboot) {
      const task = byId.get(id)
      if (task && world.stoppedOnPurpose.has(id) && (task.run ?? 0) > runs) {
        violations.push(`intent: task ${id} was stopped on purpose, and resume --interrupted ran it again (run ${task.run})`)
      }
    }
  }

  violations.push(...world.samplerViolations.splice(0))

  // recorded times are comparable only while every process kept the one clock
  for (const task of world.clockSteps > 0 ? [] : listed) {
    for (const [deps, succeededOnly] of [[task.after ?? [], true], [task.afterEnded ?? [], false]] as const) {
      for (const dep of deps) {
        if (!existsSync(path.join(world.stateDir, 'tasks', String(dep)))) continue
        const ends = endings(world.stateDir, dep, succeededOnly)
        for (const run of task.runs ?? []) {
          if (!run.startedAt) continue
          const started = Date.parse(run.startedAt)
          if (!ends.some((at) => at <= started)) violations.push(`after: task ${task.id} started at ${run.startedAt} before task ${dep} ${succeededOnly ? 'succeeded' : 'ended'}`)
        }
      }
    }
  }

  const hooks = hookCounts(world.hookLog)
  for (const task of listed) {
    const count = hooks.get(task.id) ?? 0
    if (count > (task.run ?? 1)) violations.push(`hooks: task ${task.id}'s exit hook ran ${count} times in ${task.run} run(s)`)
    if (opts.final && world.hooked.has(task.id) && FINAL.has(task.status) && count === 0) violations.push(`hooks: task ${task.id} ended ${task.status} and its exit hook never ran`)
  }

  for (const stranger of world.strangers) {
    if (stranger.exited) violations.push(`strangers: pid ${stranger.identity.pid} planted in a record was ended (${stranger.exited})`)
    else if (state(stranger.identity.pid) === 'T') violations.push(`strangers: pid ${stranger.identity.pid} planted in a record was stopped`)
  }
  return violations
}
