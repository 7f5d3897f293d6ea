// Taking one task folder away safely, for prune and rm alike: what protects a
// task whatever the rules say, claiming it under its task lock (re-read, then
// renamed out of sight in one step), deleting the renamed tree, and clearing
// the leftovers of a crashed prune. Nothing here follows a symlink.

import {lstatSync, readdirSync, renameSync} from 'node:fs'
import {lstat, readdir, rm, rmdir, unlink} from 'node:fs/promises'
import path from 'node:path'
import {acquireLock, LockBusyError, taskLockPath, type Release} from '../state/lock.js'
import {currentPlatform, retryOnBusy, retryOnBusySync, type PlatformContext} from '../platform/platform.js'
import {isFinalStatus, type TaskRecord} from '../state/record.js'
import {isAbandonedCreation, readRecord, tasksDir, uniqueSuffix, type RecordRead} from '../state/store.js'
import {runnerAlive as runnerLives, workerAliveHere} from '../runner/executors.js'
import {beingCreated} from './read.js'
import {removeWorktree, worktreeVerdict, type WorktreeRemoval, type WorktreeRule, type WorktreeVerdict} from '../process/worktree.js'
import {TRASH_PREFIX, treeBytes} from './tree-delete.js'


/** Removal steps, injectable so the Windows retry on open handles can be tested on any OS. */
export interface RemovalIo {
  /**
   * Synchronous: a claim is a few quick metadata steps on the main thread;
   * queued on the thread pool it waited behind the deletions in flight.
   */
  rename: (from: string, to: string) => void
  /** Deletes a claimed tree, adding to `removed.bytes` the size of each file (as treeBytes counts it) once it is gone. */
  removeTree: (target: string, removed: {bytes: number}) => Promise<void>
}

export {treeBytes}

export const endedAtOf = (record: TaskRecord): string => record.endedAt ?? record.createdAt

const hasCheckpoint = (record: TaskRecord): boolean =>
  (record.status === 'drained' || record.status === 'lost') && record.checkpoint !== null

/** A live runner protects its task: by pid and start time locally, by heartbeat and the scheduler for a Slurm job (runner/executors). */
export function runnerAlive(stateDir: string, id: number, ctx: PlatformContext, record: TaskRecord | null = null): boolean {
  return runnerLives(stateDir, id, record, ctx)
}

/** How long removing a named task waits for the runner of its final record to exit. */
export const RUNNER_EXIT_WAIT_MS = 3000

/**
 * Waits, up to `waitMs`, for the runners of these tasks whose records are
 * final to exit. A runner writes its task's end first, then fires its hooks,
 * hands its queue slot on and exits: `stop 4 && rm 4` (or the library's stop
 * then rm) asked for the removal in that moment and was refused, "its runner
 * is still alive".
 */
export async function finalRunnersGone(stateDir: string, ids: number[], ctx: PlatformContext = currentPlatform(), waitMs = RUNNER_EXIT_WAIT_MS): Promise<void> {
  const until = Date.now() + waitMs
  let waiting = ids
  for (;;) {
    waiting = waiting.filter((id) => {
      const read = readRecord(stateDir, id)
      return read.ok && isFinalStatus(read.record.status) && runnerAlive(stateDir, id, ctx, read.record)
    })
    if (waiting.length === 0 || Date.now() >= until) return
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
}

/** Why a final task must stay whatever the rules say, or null when it may go. */
export function protection(stateDir: string, record: TaskRecord, includeCheckpoints: boolean, ctx: PlatformContext, includeWorktrees: WorktreeRule = false): string | null {
  if (runnerAlive(stateDir, record.id, ctx, record)) return 'its runner is still alive'
  if (record.status === 'lost' && workerAliveHere(record, ctx)) return 'its worker is still running'
  if (!includeCheckpoints && hasCheckpoint(record)) return 'it has a checkpoint (--include-checkpoints to remove it)'
  const verdict = worktreeJudgement(record, includeWorktrees)
  return verdict?.keep ? verdict.reason : null
}

/** What removing the task would do to its worktree (null without one); a git failure keeps it. */
function worktreeJudgement(record: TaskRecord, includeWorktrees: WorktreeRule): WorktreeVerdict | null {
  if (!record.worktree) return null
  try {
    return worktreeVerdict(record.worktree, includeWorktrees)
  } catch (error) {
    return {keep: true, reason: `its worktree could not be checked: ${(error as Error).message}`}
  }
}

/** The worktree part of a removal, as a dry run reports it (nothing done). */
export function plannedWorktreeRemoval(record: TaskRecord, includeWorktrees: WorktreeRule): WorktreeRemoval | null {
  const verdict = worktreeJudgement(record, includeWorktrees)
  if (!verdict || verdict.keep) return null
  const {path: where, branch} = record.worktree!
  return {path: where, branch, worktreeRemoved: verdict.removeWorktree, branchDeleted: verdict.deleteBranch, note: verdict.note, ...(verdict.discarded ? {discarded: verdict.discarded} : {})}
}


export const taskDirPath = (stateDir: string, id: number) => path.join(tasksDir(stateDir), String(id))

/** A task folder without a record that no start is filling: one a start killed before its record left. */
const leftByAStart = (stateDir: string, read: RecordRead): boolean =>
  !read.ok && read.missing && !beingCreated(stateDir, read) && isAbandonedCreation(stateDir, read.id)

/**
 * Entries of tasks/ that are not task folders but ours to clear: trash of a
 * crashed prune, symlinks named like ids, and folders a killed `start` left
 * without a record. Whether a folder has its record is taken from `reads`,
 * the records prune has just read for its plan: reading each one a second
 * time here was a tenth of a dry run at 10,000 tasks. A folder made after
 * those reads is no debris yet (the next prune looks again).
 */
export function findDebris(stateDir: string, reads: readonly RecordRead[]): string[] {
  let entries
  try {
    entries = readdirSync(tasksDir(stateDir), {withFileTypes: true})
  } catch {
    return []
  }
  const recordless = new Map<number, RecordRead>()
  for (const read of reads) if (!read.ok && read.missing) recordless.set(read.id, read)
  const abandoned = (id: number): boolean => {
    const read = recordless.get(id)
    return read !== undefined && leftByAStart(stateDir, read)
  }
  return entries
    .filter((e) => e.name.startsWith(TRASH_PREFIX) || (/^[1-9][0-9]*$/.test(e.name) && (e.isSymbolicLink() || (e.isDirectory() && abandoned(Number(e.name))))))
    .map((e) => e.name)
    .sort()
}

/**
 * Deletes a claimed (renamed, so ours alone) tree on the thread pool — a
 * prune of a few tasks; many go to trash-threads.ts — counting its bytes
 * as tree-delete.ts's deleteTreeSync does: fs.rm tried an rmdir on every
 * folder before listing it (a failed, costly call per task folder); this
 * lists each folder once with its entries' types, lstat()s each file for its
 * size (counted once it is gone, rather than by a treeBytes walk on the main
 * thread), unlinks it (a symlink as itself, never followed) and removes
 * each folder once emptied. It stays asynchronous: a removal waits on the
 * disk, and the pool overlaps those waits. Anything unexpected (a file
 * appearing, a permission) falls back to fs.rm for what is left, measured
 * first, so it is never less thorough than fs.rm.
 */
export async function removeClaimedTree(target: string, removed: {bytes: number} = {bytes: 0}): Promise<void> {
  try {
    const stats = await lstat(target).catch(() => null)
    if (stats === null) return
    if (!stats.isDirectory()) {
      await rm(target, {force: true})
      removed.bytes += stats.size
      return
    }
    await emptyAndRemove(target, removed)
  } catch {
    const left = treeBytes(target)
    try {
      await rm(target, {recursive: true, force: true})
    } finally {
      removed.bytes += left - treeBytes(target)
    }
  }
}

async function emptyAndRemove(dir: string, removed: {bytes: number}): Promise<void> {
  const entries = await readdir(dir, {withFileTypes: true})
  await Promise.all(
    entries.map(async (entry) => {
      const inside = dir + path.sep + entry.name
      if (entry.isDirectory()) return emptyAndRemove(inside, removed)
      // A type the file system did not report: lstat says.
      const stats = await lstat(inside)
      if (stats.isDirectory()) return emptyAndRemove(inside, removed)
      await unlink(inside)
      removed.bytes += stats.size
    }),
  )
  await rmdir(dir)
}

// platform.removeTree without its own retry: the callers wrap each step in
// retryOnBusy with the (injectable) platform, so the retry is what tests see.
export function defaultIo(): RemovalIo {
  return {
    rename: (from, to) => renameSync(from, to),
    removeTree: removeClaimedTree,
  }
}

/** A claimed task: its tree renamed to `trash`, and its released task lock moved to `grave` (null: released in place). */
export type Claim = {trash: string; grave: string | null; worktree: WorktreeRemoval | null} | {reason?: string; error?: string}

/**
 * Takes one task out of sight. Under the task lock (which `start <id>` and
 * `resume` also take) it re-reads the record, so a task restarted since the
 * plan is left alone; it then renames the folder to a dot-name — one atomic
 * step, after which `list` no longer sees it — and releases the lock by
 * renaming it beside that trash. Deleting both is the caller's (discard), so
 * it overlaps with claiming the next task.
 */
export async function claimTask(
  stateDir: string,
  planned: {id: number; record: TaskRecord | null},
  io: RemovalIo,
  ctx: PlatformContext,
  includeWorktrees: WorktreeRule = false,
  /** where the folder goes (a big prune's trash folder, trash-threads.ts); by default a `.trash-` name beside it. */
  trashFor: (id: number) => string = (id) => path.join(tasksDir(stateDir), `${TRASH_PREFIX}${id}-${uniqueSuffix()}`),
): Promise<Claim> {
  const id = planned.id
  const dir = taskDirPath(stateDir, id)
  let release: Release
  try {
    release = await acquireLock(taskLockPath(stateDir, id), {waitMs: 0, platform: ctx})
  } catch (error) {
    if (error instanceof LockBusyError) return {reason: 'another drover command is changing it'}
    // A full disk (the lock file is written) must not lose the report of what was removed before: this one stays.
    return {error: `cannot remove task ${id}: ${(error as Error).message}`}
  }
  let grave: string | undefined
  try {
    // Never read through a symlink planted in place of the folder: open() would follow it.
    if (!lstatSync(dir, {throwIfNoEntry: false})?.isDirectory()) return {reason: 'its folder is gone or not a directory'}
    const fresh = readRecord(stateDir, id, {dirChecked: true})
    const guard = planned.record === null ? corruptGuard(stateDir, fresh, ctx) : taskGuard(stateDir, fresh, planned.record, ctx, includeWorktrees)
    if (guard) return {reason: guard}
    // The worktree goes first: a task whose worktree cannot be removed stays,
    // so its record still says where the work is.
    let worktree: WorktreeRemoval | null = null
    if (fresh.ok && fresh.record.worktree) {
      const verdict = worktreeJudgement(fresh.record, includeWorktrees)
      if (verdict?.keep) return {reason: verdict.reason}
      try {
        worktree = removeWorktree(fresh.record.worktree, verdict!)
      } catch (error) {
        return {error: `cannot remove task ${id}'s worktree: ${(error as Error).message}`}
      }
    }
    let trash: string
    try {
      trash = trashFor(id)
      retryOnBusySync(() => io.rename(dir, trash), ctx)
    } catch (error) {
      return {error: `cannot remove task ${id}: ${(error as Error).message}`}
    }
    // Beside the trash, so a crash before the deletion leaves debris the next prune clears.
    grave = `${trash}.lock`
    return {trash, grave, worktree}
  } finally {
    release(grave)
  }
}

/** Why a planned final task must stay after all (re-read under its lock), or null. */
function taskGuard(stateDir: string, fresh: RecordRead, planned: TaskRecord, ctx: PlatformContext, includeWorktrees: WorktreeRule): string | null {
  if (!fresh.ok) return fresh.missing ? 'its record is gone' : fresh.error
  const record = fresh.record
  if (!isFinalStatus(record.status)) return `its record says ${record.status}`
  if (record.runs.length !== planned.runs.length || endedAtOf(record) !== endedAtOf(planned)) return 'it changed while pruning'
  // The worktree is judged by the caller right before it acts on it.
  return protection(stateDir, {...record, worktree: null}, true, ctx, includeWorktrees)
}

/** The same for a record planned as corrupt: it must still be unreadable and nobody's live work. */
function corruptGuard(stateDir: string, fresh: RecordRead, ctx: PlatformContext): string | null {
  if (fresh.ok) return 'its record is readable again'
  if (beingCreated(stateDir, fresh)) return 'it is being created'
  if (runnerAlive(stateDir, fresh.id, ctx)) return 'its runner is still alive'
  return null
}

/**
 * Deletes a claimed tree and its released lock on the thread pool, telling
 * the bytes the tree held when claimed: what the deletion freed, plus what a
 * failed one left. On failure the rest stays out of sight (dot-names) and
 * the next prune clears it. (Many deletions go to trash-threads.ts instead.)
 */
export async function discard(claim: {trash: string; grave: string | null}, io: RemovalIo, ctx: PlatformContext): Promise<{bytes: number; error: string | null}> {
  const removed = {bytes: 0}
  const [tree, grave] = await Promise.allSettled([
    retryOnBusy(() => io.removeTree(claim.trash, removed), ctx),
    claim.grave === null ? Promise.resolve() : retryOnBusy(() => io.removeTree(claim.grave!, {bytes: 0}), ctx),
  ])
  const failed = tree.status === 'rejected' ? tree.reason : grave.status === 'rejected' ? grave.reason : null
  return {
    bytes: removed.bytes + (tree.status === 'rejected' ? treeBytes(claim.trash) : 0),
    error: failed === null ? null : (failed as Error).message,
  }
}


export async function clearDebris(
  stateDir: string,
  names: string[],
  io: RemovalIo,
  ctx: PlatformContext,
  errors: {id: number | null; error: string}[],
): Promise<string[]> {
  const cleared: string[] = []
  for (const name of names) {
    let target = path.join(tasksDir(stateDir), name)
    try {
      // An abandoned task folder goes out of sight first: a `start` that was
      // only stalled, never killed, then fails on its next write instead of
      // filling a folder half removed.
      if (/^[1-9][0-9]*$/.test(name) && !lstatSync(target).isSymbolicLink()) {
        // Judged again just before it goes: the removals before it took time,
        // and a start only stalled may have written its record meanwhile.
        if (!leftByAStart(stateDir, readRecord(stateDir, Number(name)))) continue
        const trash = path.join(tasksDir(stateDir), `${TRASH_PREFIX}${name}-${uniqueSuffix()}`)
        retryOnBusySync(() => io.rename(target, trash), ctx)
        target = trash
      }
      await retryOnBusy(() => io.removeTree(target, {bytes: 0}), ctx)
      cleared.push(name)
    } catch (error) {
      errors.push({id: null, error: `cannot clear ${name}: ${(error as Error).message}`})
    }
  }
  return cleared
}
