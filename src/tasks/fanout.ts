// Making and launching a fan-out's attempts (api/fanout.ts checked them):
// one worktree plan for all, so every attempt starts from one base commit;
// the group named and the attempts numbered under the names lock, so two
// fan-outs at once never hand out one name twice; every record written
// before any runner is launched, then the runners launched together, so the
// fan-out reaches "all running" in about the time of one start, not N.

import {DroverError, ExitCode} from '../base/errors.js'
import {parseTaskName} from '../base/parse.js'
import {planWorktree, type WorktreePlan} from '../process/worktree.js'
import {runnerEntry} from '../runner/local-executor.js'
import {settleTask} from '../runner/settle.js'
import {withLock} from '../state/lock.js'
import {effectiveQueue, queueLockPath} from '../state/queues.js'
import type {TaskRecord} from '../state/record.js'
import {allocateTaskId} from '../state/store.js'
import {LOCK_WAIT_MS} from '../runner/advance.js'
import {acquireNamesLock, advanceOwnMany, createTask, launchRunner, type TaskSpec} from './launch.js'
import {tasksNamed} from './lookup.js'

/** The attempts to make: each agent's spec (its command written), how many of it, and the group's name (null: `g<first id>`). */
export interface FanOutPlan {
  group: string | null
  attempts: {agent: string; count: number; spec: TaskSpec}[]
}

export interface FanOutStarted {
  group: string
  base: {ref: string; commit: string; branch: string | null}
  records: TaskRecord[]
}

/** The group of a fan-out given no name: its first attempt's id, as a name (a name starts with a letter). */
export const defaultGroupName = (firstId: number) => `g${firstId}`

/**
 * Makes every attempt, then launches them together: `starting` ones at once,
 * queued ones as their queue allows (those that get a slot now are awaited).
 * `queue` is the resolved queue and dependencies every attempt shares. When an
 * attempt cannot be made (a full disk, git refusing), those already made are
 * cancelled before they start and the error is thrown.
 */
export async function startFanOut(stateDir: string, plan: FanOutPlan, queue: Pick<TaskSpec, 'queue' | 'priority' | 'after' | 'afterEnded'>): Promise<FanOutStarted> {
  const first = plan.attempts[0].spec
  // One plan for every attempt: one base commit, whatever HEAD does meanwhile (each attempt pins it).
  const worktree = planWorktree({cwd: first.cwd, branch: null, base: first.worktree?.base ?? null, existingBranch: false})
  const specs = plan.attempts.map((a) => ({...a, spec: {...a.spec, ...queue}}))
  const line = effectiveQueue({queue: queue.queue ?? null, after: queue.after ?? [], afterEnded: queue.afterEnded ?? []})
  const made: TaskRecord[] = []
  let group = plan.group
  const create = async () => {
    const release = await acquireNamesLock(stateDir)
    try {
      // The first attempt's id is taken first when the group is to be named after it.
      const firstId = group === null ? allocateTaskId(stateDir) : undefined
      group ??= defaultGroupName(firstId!)
      const names = attemptNames(stateDir, group, specs)
      for (const {spec} of specs) {
        for (const name of names.get(spec)!) made.push(createTask(stateDir, {...spec, group, name}, worktree, made.length === 0 ? firstId : undefined))
      }
    } finally {
      release()
    }
  }
  try {
    await (line === null ? create() : withLock(queueLockPath(stateDir, line), create, {waitMs: LOCK_WAIT_MS}))
  } catch (error) {
    await cancelMade(stateDir, made, error)
    throw error
  }
  const ids = made.map((r) => r.id)
  const records = line === null ? await Promise.all(ids.map((id) => launchRunner(stateDir, id))) : await advanceOwnMany(stateDir, ids)
  return {group: group!, base: baseOf(worktree), records}
}

function baseOf(plan: WorktreePlan): FanOutStarted['base'] {
  return {ref: plan.base, commit: plan.baseCommit, branch: plan.baseBranch}
}

/**
 * Each attempt's name, GROUP-AGENT-N: the numbers of an agent go on past any
 * name a task bears already (a second fan-out into the group, a task named so
 * by hand), so an attempt's name is never one a task had. Under the names lock.
 */
function attemptNames<T extends {agent: string; count: number; spec: TaskSpec}>(stateDir: string, group: string, attempts: T[]): Map<TaskSpec, string[]> {
  const names = new Map<TaskSpec, string[]>()
  for (const {agent, count, spec} of attempts) {
    const mine: string[] = []
    for (let n = 1; mine.length < count; n++) {
      const name = `${group}-${agent}-${n}`
      if (tasksNamed(stateDir, name).length === 0) mine.push(parseTaskName(name))
    }
    names.set(spec, mine)
  }
  return names
}

/** Attempts made before one could not be: ended before they start, so nothing half-made runs. */
async function cancelMade(stateDir: string, made: TaskRecord[], error: unknown): Promise<void> {
  const why = error instanceof Error ? error.message : String(error)
  for (const record of made) {
    try {
      await settleTask(
        stateDir,
        record.id,
        (current) =>
          current.status === 'starting' || current.status === 'queued'
            ? {status: 'cancelled', cause: 'not-started', reason: `the fan-out stopped before this attempt started: ${why}`}
            : null,
        {entry: runnerEntry(), waitMs: 10_000},
      )
    } catch (failure) {
      if (!(failure instanceof DroverError) || failure.exitCode !== ExitCode.conflict) throw failure
    }
  }
}
