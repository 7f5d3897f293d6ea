// The invariants a chaos round must leave true, read from the state dir and
// the process table after one reconcile (a `drover list --json`):
//   records    every task.json decodes (nothing listed as corrupt)
//   ids        ids are unique and never reused (an id keeps its createdAt)
//   liveness   every task is final, or starting within its grace, or has a live runner
//              (the grace measured by the checker's own clock: a task seen starting
//              with no runner for longer than STUCK_STARTING_MS is stuck)
//   leftovers  no process of a task is alive once its status is final (or it was removed)
//   intent     a task the run stopped or cancelled is not brought back by resume --interrupted
//   strangers  the live processes planted in fabricated records were never signalled
//   accounted  every task a start made still exists unless a prune or rm reported it removed
//   queues     no queue ran more tasks at once than its limit (a sampler of the process table)
//   after      no run of a task started before its --after tasks succeeded (--after-ended: ended):
//              observed (the sampler sees a task's child alive while a dependency's
//              events hold no such end), and from the recorded times while every
//              process has kept the one clock (no clock step yet in the run)
//   hooks      an --on-exit hook ran at most once per run (and, at the end, at least once)
//   list       `list --json --all` equals what reading every task.json says, field by field
//              (the derived index is a cache: it may make list faster, never different);
//              checked on records that stayed the same from before the list to after it

import {existsSync, readdirSync, readFileSync} from 'node:fs'
import path from 'node:path'
import {isDeepStrictEqual} from 'node:util'
import {taskJson} from '../../src/api/task-json.js'
import {decodeRecord} from '../../src/state/record-codec.js'
import {alive, processesByPrefix, state} from './procs.js'
import {runnerOf, workerOf} from './faults.js'
import type {World} from './world.js'

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
        // every ending is journalled as `exit` (settle.ts); `lost` and `skipped` events are those of older drovers
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

export const FINAL = new Set(['succeeded', 'failed', 'stopped', 'cancelled', 'drained', 'lost', 'skipped'])

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
  for (const {pid, arg} of processesByPrefix(world.markerPrefix)) markersAlive.set(arg, [...(markersAlive.get(arg) ?? []), pid])
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

  // a task is removed only once final, so nothing of it may live on either
  for (const id of world.removed) {
    const marker = world.markers.get(id)
    if (marker && markersAlive.has(marker)) violations.push(`leftovers: task ${id} was removed but its child ${marker} (pid ${markersAlive.get(marker)!.join(',')}) lives`)
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

/** Every tasks/<id>/task.json as text (null: a folder without one), read directly. */
export type RecordTexts = Map<number, string | null>

export function readRecordTexts(stateDir: string): RecordTexts {
  const texts: RecordTexts = new Map()
  let names: string[] = []
  try {
    names = readdirSync(path.join(stateDir, 'tasks'))
  } catch {
    return texts
  }
  for (const name of names) {
    if (!/^[1-9]\d*$/.test(name)) continue
    let text: string | null = null
    try {
      text = readFileSync(path.join(stateDir, 'tasks', name, 'task.json'), 'utf8')
    } catch {
      // a folder without a record: one being created, or left empty by a killed start
    }
    texts.set(Number(name), text)
  }
  return texts
}

/**
 * What `list --json` must show for a record, by the project's own JSON view
 * of it: the decoder is the record's reading, whatever list read it through.
 */
function expectedJson(stateDir: string, id: number, text: string): Record<string, unknown> {
  try {
    const record = decodeRecord(text)
    if (record.id !== id) return {id, status: 'corrupt'}
    // as list prints it: through JSON, where undefined fields vanish
    return JSON.parse(JSON.stringify(taskJson(record, {stateDir}))) as Record<string, unknown>
  } catch {
    return {id, status: 'corrupt'}
  }
}

/**
 * Fields computed from the clock or from other records rather than from this
 * one: a queued task's reason (a retry's time to come) and place in line, the
 * runtime of a run still going, and the engine's reason while starting.
 */
function volatileFields(expected: Record<string, unknown>): string[] {
  const fields: string[] = []
  if (expected.status === 'queued') fields.push('reason', 'position', 'queuePaused')
  if (expected.status === 'starting') fields.push('reason')
  if (expected.endedAt === null) fields.push('runtimeMs')
  return fields
}

const FIELDS_SHOWN = 6

/**
 * `list` invariant: the listing equals the records read before and after it.
 * A record that changed meanwhile (a runner recording a step, a queue
 * starting a task, list's own reconcile) is skipped: what the list saw of it
 * in between cannot be known — and such a record carries a live hint, so
 * list reads it rather than the index anyway. A task still non-final on
 * disk may show `lost` for the same run: reconcile's verdict when it could
 * not take the task lock to write it.
 */
export function checkListMatchesRecords(world: World, before: RecordTexts, listed: unknown[], after: RecordTexts, label: string, indexed = new Set<number>()): string[] {
  const violations: string[] = []
  const seen = new Set<number>()
  let previous = 0
  for (const entry of listed as Record<string, unknown>[]) {
    const id = entry.id as number
    if (seen.has(id)) violations.push(`list: ${label} shows task ${id} twice`)
    if (id <= previous) violations.push(`list: ${label} is not in id order (${id} after ${previous})`)
    seen.add(id)
    previous = Math.max(previous, id)
    if (!before.has(id) && !after.has(id)) violations.push(`list: ${label} shows task ${id}, which has no folder in tasks/`)
  }
  const byId = new Map((listed as Record<string, unknown>[]).map((entry) => [entry.id as number, entry]))
  for (const [id, text] of after) {
    if (text === null && before.get(id) === null) {
      // no record: list omits the folder (being created, or left empty) or shows it corrupt
      const shown = byId.get(id)
      if (shown && shown.status !== 'corrupt') violations.push(`list: ${label} shows task ${id} as ${shown.status}, and it has no task.json`)
      continue
    }
    if (text === null) continue
    if (before.get(id) !== text) {
      world.listMoved++
      continue
    }
    world.listCompared++
    if (indexed.has(id)) world.listIndexed++
    const expected = expectedJson(world.stateDir, id, text)
    const shown = byId.get(id)
    if (!shown) {
      violations.push(`list: ${label} leaves out task ${id}, whose task.json says ${expected.status}`)
      continue
    }
    if (expected.status === 'corrupt' || shown.status === 'corrupt') {
      if (expected.status !== shown.status) violations.push(`list: ${label} shows task ${id} as ${shown.status}, its task.json says ${expected.status}`)
      continue
    }
    if (shown.status === 'lost' && !FINAL.has(expected.status as string) && shown.run === expected.run) continue
    const skip = new Set(volatileFields(expected))
    const differ = [...new Set([...Object.keys(expected), ...Object.keys(shown)])].filter((key) => !skip.has(key) && !isDeepStrictEqual(expected[key], shown[key]))
    if (differ.length === 0) continue
    const shownFields = differ
      .slice(0, FIELDS_SHOWN)
      .map((key) => `${key}: listed ${JSON.stringify(shown[key])}, record ${JSON.stringify(expected[key])}`)
      .join('; ')
    violations.push(`list: ${label} shows task ${id} unlike its task.json (${shownFields}${differ.length > FIELDS_SHOWN ? '; …' : ''})`)
  }
  return violations
}
