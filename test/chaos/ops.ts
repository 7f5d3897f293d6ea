// The operations a chaos actor draws from: every verb of the product, with
// the kinds of task that stress it (short, long, timed out, leaving
// background and setsid children, fake agents), each through the real CLI.

import {readFileSync} from 'node:fs'
import path from 'node:path'
import type {Rng} from './rng.js'
import {processesByPrefix} from './procs.js'
import {FIXTURES, World} from './world.js'

export type Op = 'start' | 'stop' | 'cancel' | 'drain' | 'resume' | 'restart' | 'prune' | 'rm' | 'list' | 'status' | 'logs' | 'queue' | 'wait'

/** The queues the run uses, and the most each may run at once (the checker's bound). */
export const QUEUES = ['q1', 'q2'] as const
export const MAX_PARALLEL = 3

export const OP_WEIGHTS: Record<Op, number> = {
  start: 6,
  queue: 0.6,
  wait: 0.5,
  stop: 2,
  cancel: 1,
  drain: 1.5,
  resume: 1,
  restart: 1,
  prune: 0.7,
  rm: 0.7,
  list: 1,
  status: 1,
  logs: 0.5,
}

const AGENT_BIN = path.join(FIXTURES, 'bin')

/** The ids of tasks that exist now, from the folder names (cheap, no reconcile). */
function knownIds(world: World): number[] {
  return [...world.markers.keys()].filter((id) => !world.removed.has(id))
}

/** A start of one of the kinds of task; the id and marker are remembered when it answers. */
async function start(world: World, rng: Rng, round: number, actor: string, base: Record<string, string>): Promise<void> {
  const marker = world.nextMarker()
  const kind = rng.weighted({short: 4, long: 3, timeout: 1, setsid: 1, claude: 1, codex: 0.6})
  let args: string[]
  let env: Record<string, string> = base
  switch (kind) {
    case 'short':
      args = ['--shell', `sleep ${marker} & sleep 0.${rng.int(1, 9)}`]
      break
    case 'long':
      args = ['--shell', `sleep ${marker} & sleep ${rng.int(5, 30)}`]
      break
    case 'timeout':
      args = ['--timeout', '1s', '--shell', `sleep ${marker} & sleep 30`]
      break
    case 'setsid':
      // the runner's look at the tree is once a second: the parent lives past it
      args = ['--shell', `setsid sleep ${marker} & sleep ${rng.int(2, 4)}`]
      break
    case 'claude':
    case 'codex':
      args =
        kind === 'claude'
          ? ['--', 'claude', '-p', 'count', '--output-format', 'stream-json', '--verbose']
          : ['--', 'codex', 'exec', '--json', 'count']
      env = {...base, PATH: `${AGENT_BIN}${path.delimiter}${process.env.PATH}`, FAKE_AGENT_TURN_MS: '100', FAKE_AGENT_TURNS: String(rng.int(3, 40))}
      break
  }
  const named = rng.chance(0.2) ? ['--name', `t${rng.int(1, 30)}`] : []
  const known = knownIds(world)
  const orchestration = [
    ...(rng.chance(0.35) ? ['--queue', rng.pick(QUEUES), ...(rng.chance(0.3) ? ['--priority', String(rng.int(-2, 2))] : [])] : []),
    ...(known.length > 0 && rng.chance(0.15) ? [rng.chance(0.7) ? '--after' : '--after-ended', String(rng.pick(known))] : []),
    ...(kind !== 'claude' && kind !== 'codex' && rng.chance(0.15) ? ['--retry', '1', '--retry-delay', '0s'] : []),
    ...(rng.chance(0.2) ? ['--on-exit', `echo "$DROVER_TASK_ID $DROVER_STATUS" >> '${world.hookLog}'`] : []),
  ]
  // a short task that may be retried fails, so its retries happen
  if (kind === 'short' && orchestration.includes('--retry')) args = ['--shell', `sleep ${marker} & sleep 0.2; exit 3`]
  const r = await world.drover(round, actor, ['start', '--json', ...named, ...orchestration, ...args], env)
  if (r.exitCode === 0 || r.exitCode === 1) {
    try {
      const task = JSON.parse(r.stdout) as {id?: number}
      // exit 1 may carry an error object instead of a task (a dependency that failed)
      if (typeof task.id !== 'number') return
      world.markers.set(task.id, kind === 'claude' || kind === 'codex' ? null : marker)
      const queue = orchestration.indexOf('--queue')
      if (queue >= 0) world.queueOf.set(task.id, orchestration[queue + 1])
      if (orchestration.includes('--on-exit')) world.hooked.add(task.id)
      world.stoppedOnPurpose.delete(task.id)
    } catch {
      // killed mid-write: the task, if any, is found by the checker
    }
  }
}

export async function runOp(world: World, rng: Rng, round: number, actor: string, op: Op, env: Record<string, string>): Promise<void> {
  const ids = knownIds(world)
  const someId = () => String(ids.length > 0 && rng.chance(0.9) ? rng.pick(ids) : rng.int(1, 5000))
  switch (op) {
    case 'start':
      return start(world, rng, round, actor, env)
    case 'stop':
    case 'cancel': {
      const all = rng.chance(0.1)
      const target = all ? ['--all'] : [someId()]
      const extra = op === 'stop' ? ['--time', String(rng.int(0, 2))] : []
      const r = await world.drover(round, actor, [op, '--json', ...extra, ...target])
      if (r.exitCode === 0) {
        try {
          for (const result of (JSON.parse(r.stdout) as {results: {id: number; status: string}[]}).results) {
            if (['stopped', 'cancelled'].includes(result.status)) world.stoppedOnPurpose.add(result.id)
          }
        } catch {
          // not JSON: killed
        }
      }
      return
    }
    case 'drain': {
      const target = rng.chance(0.1) ? ['--all'] : [someId()]
      await world.drover(round, actor, ['drain', '--json', '--grace', `${rng.int(0, 2)}s`, '--kill-after', '1s', ...target])
      return
    }
    case 'resume':
    case 'restart': {
      const id = someId()
      const r = await world.drover(round, actor, op === 'resume' ? ['resume', '--json', id] : ['start', '--json', id], env)
      // Unless refused (usage 2, not found 3, conflict 4), the command may have
      // opened the new run: exit 1 is a run that failed to launch (which
      // `resume --interrupted` then tries again, by design), exit 5 or a kill may
      // have come after the record was written. The intent is `running` again.
      if (r.exitCode === null || ![2, 3, 4].includes(r.exitCode)) world.stoppedOnPurpose.delete(Number(id))
      return
    }
    case 'prune':
    case 'rm': {
      const args =
        op === 'prune'
          ? ['prune', '--json', ...(rng.chance(0.5) ? ['--keep', String(rng.int(0, 10))] : ['--older-than', '0s']), ...(rng.chance(0.3) ? ['--include-checkpoints'] : [])]
          : ['rm', '--json', someId(), ...(rng.chance(0.3) ? [someId()] : [])]
      keepTrail(world)
      const r = await world.drover(round, actor, args)
      try {
        for (const task of (JSON.parse(r.stdout) as {removed: {id: number}[]}).removed ?? []) world.removed.add(task.id)
      } catch {
        if (r.signal) world.uncertainRemoval = true
      }
      if (r.signal) world.uncertainRemoval = true
      return
    }
    case 'list':
      await world.drover(round, actor, ['list', '--json', ...(rng.chance(0.5) ? ['--all'] : [])])
      return
    case 'status':
      await world.drover(round, actor, ['status', '--json', someId()])
      return
    case 'logs':
      await world.drover(round, actor, ['logs', '-n', '5', someId()])
      return
    case 'queue': {
      const queue = rng.pick(QUEUES)
      const action = rng.weighted({set: 3, pause: 1, resume: 2})
      const parallel = rng.int(1, MAX_PARALLEL)
      const args = action === 'set' ? ['queue', 'set', queue, '--parallel', String(parallel)] : ['queue', action, queue]
      // the bound is the highest limit ever asked for: a lower one stops nothing that runs
      if (action === 'set') world.queueLimits.set(queue, Math.max(world.queueLimits.get(queue) ?? 1, parallel))
      await world.drover(round, actor, [...args, '--json'])
      return
    }
    case 'wait': {
      const target = rng.chance(0.5) ? ['--queue', rng.pick(QUEUES)] : [someId()]
      await world.drover(round, actor, ['wait', '--any', '--timeout', '2s', '--json', ...target])
      return
    }
  }
}

/** The files of every task whose marker child lives, as they are now (World.trail). */
function keepTrail(world: World): void {
  const live = new Set(processesByPrefix(world.markerPrefix).map(({arg}) => arg))
  for (const [id, marker] of world.markers) {
    if (!marker || !live.has(marker)) continue
    const dir = path.join(world.stateDir, 'tasks', String(id))
    const read = (name: string) => {
      try {
        return readFileSync(path.join(dir, name), 'utf8')
      } catch (error) {
        return `(${(error as NodeJS.ErrnoException).code ?? 'unreadable'})`
      }
    }
    world.trail.set(id, {at: Date.now(), record: read('task.json'), events: read('events.ndjson')})
  }
}
