// The invariants a chaos round must leave true, read from the state dir and
// the process table after one reconcile (a `drover list --json`):
//   records    every task.json decodes (nothing listed as corrupt)
//   ids        ids are unique and never reused (an id keeps its createdAt)
//   liveness   every task is final, or starting within its grace, or has a live runner
//   leftovers  no process of a task is alive once its status is final
//   intent     a task the run stopped or cancelled is not brought back by resume --interrupted
//   strangers  the live processes planted in fabricated records were never signalled
//   accounted  every task a start made still exists unless a prune or rm reported it removed

import {existsSync} from 'node:fs'
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
}

const FINAL = new Set(['succeeded', 'failed', 'stopped', 'cancelled', 'drained', 'lost'])

export function checkInvariants(world: World, listed: ListedTask[], opts: {afterReboot?: Map<number, number>} = {}): string[] {
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
    } else if (task.status !== 'starting' && !alive(runnerOf(world.stateDir, task.id))) {
      violations.push(`liveness: task ${task.id} is ${task.status} without a live runner`)
    }
  }

  for (const id of world.markers.keys()) {
    if (byId.has(id) || world.removed.has(id)) continue
    if (world.uncertainRemoval && !existsSync(path.join(world.stateDir, 'tasks', String(id)))) continue
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

  for (const stranger of world.strangers) {
    if (stranger.exited) violations.push(`strangers: pid ${stranger.identity.pid} planted in a record was ended (${stranger.exited})`)
    else if (state(stranger.identity.pid) === 'T') violations.push(`strangers: pid ${stranger.identity.pid} planted in a record was stopped`)
  }
  return violations
}
