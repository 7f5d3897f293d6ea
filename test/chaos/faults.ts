// The faults a chaos round injects while its actors work: SIGKILL of a random
// runner, worker or drover command (mid-write included), a runner or a drover
// command frozen with SIGSTOP and thawed later (a stall every other process's
// clock sees: locks held, timers running out meanwhile), steps of the wall
// clock (commands started for a while see it minutes ahead or behind, as
// after an NTP step), the state dir's disk filling up and freeing, and —
// every so often — a reboot: every process of every task killed at once.

import {closeSync, openSync, readdirSync, readFileSync, unlinkSync, writeSync} from 'node:fs'
import path from 'node:path'
import type {ProcessIdentity} from '../../src/platform/platform.js'
import {clockShifter} from './clock.js'
import {alive, kill, processesByPrefix} from './procs.js'
import type {Rng} from './rng.js'
import type {World} from './world.js'

export type Fault = 'kill-runner' | 'kill-worker' | 'kill-command' | 'freeze-runner' | 'fill-disk' | Delay
export type Delay = 'stall-command' | 'step-clock'

export const FAULT_WEIGHTS: Record<Exclude<Fault, Delay>, number> = {
  'kill-runner': 3,
  'kill-worker': 3,
  'kill-command': 3,
  'freeze-runner': 2,
  'fill-disk': 1,
}

/**
 * Delays come from a stream of their own (run.ts), so adding them left the
 * operations and faults a seed drew before they existed as they were: the
 * seeds of old violations still replay what found them.
 */
export const DELAY_WEIGHTS: Record<Delay, number> = {
  'stall-command': 3,
  'step-clock': 2,
}

function taskIds(stateDir: string): number[] {
  try {
    return readdirSync(path.join(stateDir, 'tasks'))
      .filter((name) => /^[1-9]\d*$/.test(name))
      .map(Number)
  } catch {
    return []
  }
}

function readJson<T>(file: string): T | null {
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as T
  } catch {
    return null
  }
}

export const runnerOf = (stateDir: string, id: number) => readJson<ProcessIdentity>(path.join(stateDir, 'tasks', String(id), 'runner.json'))
export const workerOf = (stateDir: string, id: number) => readJson<{worker: ProcessIdentity | null}>(path.join(stateDir, 'tasks', String(id), 'task.json'))?.worker ?? null

/** Live identities of one kind across the state dir. */
function live(stateDir: string, of: (stateDir: string, id: number) => ProcessIdentity | null): ProcessIdentity[] {
  return taskIds(stateDir)
    .map((id) => of(stateDir, id))
    .filter((identity): identity is ProcessIdentity => alive(identity))
}

export interface FaultContext {
  world: World
  rng: Rng
  /** where a filler file may eat the state dir's disk; null when the state dir is not on a small tmpfs. */
  diskFiller: string | null
  /** thaw frozen runners and free the disk before the round is checked. */
  cleanups: (() => void)[]
}

export async function injectFault(ctx: FaultContext, fault: Fault): Promise<string | null> {
  const {world, rng} = ctx
  switch (fault) {
    case 'kill-runner':
    case 'kill-worker': {
      const targets = live(world.stateDir, fault === 'kill-runner' ? runnerOf : workerOf)
      if (targets.length === 0) return null
      const target = rng.pick(targets)
      // the worker leads its group: a reboot-like kill of a worker takes its group
      kill(fault === 'kill-worker' && rng.chance(0.5) ? -target.pid : target.pid, 'SIGKILL')
      return `${fault} ${target.pid}`
    }
    case 'kill-command': {
      const commands = [...world.inFlight]
      if (commands.length === 0) return null
      const command = rng.pick(commands)
      command.kill('SIGKILL')
      return `kill-command ${command.pid}`
    }
    case 'freeze-runner': {
      const targets = live(world.stateDir, runnerOf)
      if (targets.length === 0) return null
      const target = rng.pick(targets)
      kill(target.pid, 'SIGSTOP')
      const thaw = () => alive(target) && kill(target.pid, 'SIGCONT')
      const timer = setTimeout(thaw, rng.int(200, 3000))
      ctx.cleanups.push(() => {
        clearTimeout(timer)
        thaw()
      })
      return `freeze-runner ${target.pid}`
    }
    case 'stall-command': {
      const commands = [...world.inFlight]
      if (commands.length === 0) return null
      const command = rng.pick(commands)
      const ms = rng.int(500, 4000)
      command.kill('SIGSTOP')
      const thaw = () => command.exitCode === null && command.signalCode === null && command.kill('SIGCONT')
      const timer = setTimeout(thaw, ms)
      ctx.cleanups.push(() => {
        clearTimeout(timer)
        thaw()
      })
      return `stall-command ${command.pid} ${ms} ms`
    }
    case 'step-clock': {
      if (!clockShifter) return null
      // far enough to cross every grace period drover keeps (15 s for a run
      // starting), both ways; commands started in the window, and the runners
      // and workers they start, keep the shifted clock for life
      const minutes = rng.pick([-90, -20, -1, 1, 20, 90])
      const windowMs = rng.int(300, 2000)
      world.clockShift = minutes
      world.clockSteps++
      const timer = setTimeout(() => (world.clockShift = 0), windowMs)
      ctx.cleanups.push(() => {
        clearTimeout(timer)
        world.clockShift = 0
      })
      return `step-clock ${minutes > 0 ? '+' : ''}${minutes} min for ${windowMs} ms`
    }
    case 'fill-disk': {
      if (!ctx.diskFiller) return null
      const file = ctx.diskFiller
      const fd = openSync(file, 'a')
      const chunk = Buffer.alloc(1 << 20)
      try {
        for (;;) writeSync(fd, chunk)
      } catch {
        // full
      } finally {
        closeSync(fd)
      }
      const free = () => {
        try {
          unlinkSync(file)
        } catch {
          // freed already
        }
      }
      const timer = setTimeout(free, rng.int(100, 1500))
      ctx.cleanups.push(() => {
        clearTimeout(timer)
        free()
      })
      return 'fill-disk'
    }
  }
}

/** A power cut: every runner, worker and marker process of the state dir killed at once. */
export function reboot(world: World): number {
  const victims = [...live(world.stateDir, runnerOf), ...live(world.stateDir, workerOf)]
  for (const victim of victims) kill(victim.pid, 'SIGKILL')
  for (const worker of live(world.stateDir, workerOf)) kill(-worker.pid, 'SIGKILL')
  const markers = processesByPrefix(world.markerPrefix)
  for (const marker of markers) kill(marker.pid, 'SIGKILL')
  // the fake agents' own children (tool calls) die with the machine too
  return victims.length + markers.length
}
