// What prune is asked and what it answers: the criteria, the options, the
// --json result, and the checks of them. Kept apart from prune.ts so a
// front-end validates a prune without loading the machinery that does it.

import {usageError} from '../base/errors.js'
import type {PlatformContext} from '../platform/platform.js'
import {FINAL_STATUSES, type TaskStatus} from '../state/record.js'
import type {RemovalIo} from './removal.js'
import type {WorktreeRemoval} from '../process/worktree.js'

export interface PruneCriteria {
  /** keep the newest N final tasks (among those --status allows), remove the rest. */
  keep?: number
  /** remove tasks that ended more than this long ago. */
  olderThanMs?: number
  /** remove the oldest final tasks until the whole state dir holds at most this many bytes. */
  maxTotalBytes?: number
  /** only tasks in these (final) statuses; all final statuses when absent. */
  statuses?: readonly TaskStatus[]
  /** drained and lost tasks with a checkpoint are someone's unfinished work: kept unless this is set. */
  includeCheckpoints?: boolean
  /** also remove records that cannot be read (reported and kept otherwise). */
  includeCorrupt?: boolean
  /**
   * a task's clean worktree whose branch has unmerged commits: remove the
   * worktree and keep the branch (without this the task is kept). A worktree
   * with uncommitted changes keeps its task, unless 'force' (`drover rm
   * --force`), which discards those changes and still keeps the branch.
   */
  includeWorktrees?: boolean | 'force' | 'discard'
  /** exactly these tasks (`drover rm`), instead of the rules: a live one is skipped. */
  ids?: readonly number[]
}

export interface PruneOptions extends PruneCriteria {
  dryRun?: boolean
  /** how long to wait for another prune holding the state-dir lock. */
  lockWaitMs?: number
  now?: number
  platform?: PlatformContext
  io?: Partial<RemovalIo>
  /** wraps the removal phase (a progress display); must call `removeAll` once. */
  around?: (count: number, removeAll: (step: () => void) => Promise<void>) => Promise<void>
}

export interface PrunedTask {
  id: number
  name: string | null
  /** `corrupt` for a record that could not be read (removed with --include-corrupt). */
  status: TaskStatus | 'corrupt'
  /** null for a corrupt record. */
  endedAt: string | null
  bytes: number
  /** the task's git worktree, removed with it (only for a task that had one); a kept branch is said in `note`. */
  worktree?: WorktreeRemoval
}

/** The stable --json shape of `drover prune`. */
export interface PruneResult {
  dryRun: boolean
  removed: PrunedTask[]
  /** tasks left in the state dir afterwards (would be left, with --dry-run). */
  kept: number
  /** tasks a rule selected that were not removed, and why. */
  skipped: {id: number; reason: string}[]
  /** removals that went wrong (the command then exits 1). */
  errors: {id: number | null; error: string}[]
  bytesReclaimed: number
  /** leftovers cleared from tasks/: a crashed prune's trash, symlinks planted in place of a task folder. */
  debris: string[]
  /** records that cannot be read, left in place (without --include-corrupt), and why. */
  corrupt: {id: number; error: string}[]
}

export const DEFAULT_LOCK_WAIT_MS = 30_000

export function hasCriterion(criteria: PruneCriteria): boolean {
  return (
    criteria.keep !== undefined ||
    criteria.olderThanMs !== undefined ||
    criteria.maxTotalBytes !== undefined ||
    criteria.includeCorrupt === true ||
    criteria.ids !== undefined
  )
}

/** --status values (comma-separated, repeatable): final statuses only — prune never aims at live work. */
export function parsePruneStatuses(values: readonly string[] | undefined): TaskStatus[] | undefined {
  if (!values || values.length === 0) return undefined
  const wanted = new Set<TaskStatus>()
  for (const value of values.flatMap((v) => v.split(',')).map((v) => v.trim()).filter(Boolean)) {
    if (!(FINAL_STATUSES as readonly string[]).includes(value)) {
      throw usageError(`--status: prune removes only ended tasks; ${JSON.stringify(value.slice(0, 40))} is not one of ${FINAL_STATUSES.join(', ')}`)
    }
    wanted.add(value as TaskStatus)
  }
  return [...wanted]
}

