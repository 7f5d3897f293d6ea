// Pruning finished tasks: choosing which final tasks go (--keep, --older-than,
// --max-total-size, narrowed by --status), proving each one is not live work,
// and removing its folder whole and without following a symlink anywhere.

import {lstatSync, readdirSync} from 'node:fs'
import {rename, rm} from 'node:fs/promises'
import path from 'node:path'
import {randomBytes} from 'node:crypto'
import {conflictError, usageError} from './errors.js'
import {acquireLock, LockBusyError, stateLockPath, taskLockPath, type Release} from './lock.js'
import {currentPlatform, isSameProcess, retryOnBusy, type PlatformContext} from './platform.js'
import {readRunnerIdentity, reconcile, runnerState} from './reconcile.js'
import {FINAL_STATUSES, isFinalStatus, transition, type TaskRecord, type TaskStatus} from './record.js'
import {raiseHighWater, readAllRecords, readRecord, tasksDir} from './store.js'

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
}

/** Removal steps, injectable so the Windows retry on open handles can be tested on any OS. */
export interface RemovalIo {
  rename: (from: string, to: string) => Promise<void>
  removeTree: (target: string) => Promise<void>
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
  status: TaskStatus
  endedAt: string
  bytes: number
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
}

export const DEFAULT_LOCK_WAIT_MS = 30_000
const TRASH_PREFIX = '.trash-'

export function hasCriterion(criteria: PruneCriteria): boolean {
  return criteria.keep !== undefined || criteria.olderThanMs !== undefined || criteria.maxTotalBytes !== undefined
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

/** Sum of the sizes of everything under target, by lstat: a symlink counts as itself, never its target. */
export function treeBytes(target: string): number {
  let total = 0
  const stack = [target]
  while (stack.length > 0) {
    const current = stack.pop()!
    let stats
    try {
      stats = lstatSync(current)
    } catch {
      continue // vanished while we looked
    }
    if (!stats.isDirectory()) {
      total += stats.size
      continue
    }
    try {
      for (const name of readdirSync(current)) stack.push(path.join(current, name))
    } catch {
      // unreadable or vanished: counts as empty
    }
  }
  return total
}

const endedAtOf = (record: TaskRecord): string => record.endedAt ?? record.createdAt
const endedMs = (record: TaskRecord): number => Date.parse(endedAtOf(record)) || 0
const hasCheckpoint = (record: TaskRecord): boolean =>
  (record.status === 'drained' || record.status === 'lost') && record.checkpoint !== null

/** Why a final task must stay whatever the rules say, or null when it may go. */
function protection(stateDir: string, record: TaskRecord, includeCheckpoints: boolean, ctx: PlatformContext): string | null {
  const runner = readRunnerIdentity(stateDir, record.id)
  if (runner && isSameProcess(runner, ctx)) return 'its runner is still alive'
  if (record.worker !== null && record.status === 'lost' && isSameProcess(record.worker, ctx)) return 'its worker is still running'
  if (!includeCheckpoints && hasCheckpoint(record)) return 'it has a checkpoint (--include-checkpoints to remove it)'
  return null
}

interface Candidate {
  record: TaskRecord
  protectedBy: string | null
  bytes: number | null
}

interface Plan {
  remove: Candidate[]
  skipped: {id: number; reason: string}[]
  taskCount: number
}

/** The true state of a non-final record; a dry run must not write, so it decides in memory only. */
async function trueRecord(stateDir: string, record: TaskRecord, dryRun: boolean): Promise<TaskRecord> {
  if (isFinalStatus(record.status)) return record
  if (!dryRun) return reconcile(stateDir, record)
  return runnerState(stateDir, record) === 'gone' ? transition(record, {status: 'lost', reason: 'runner vanished without recording an end'}) : record
}

/**
 * The rule: among final tasks in an allowed status, a task goes when ANY
 * selected criterion picks it; protected tasks (live runner, checkpoint) are
 * then skipped whatever picked them. Non-final tasks are never candidates.
 */
async function plan(stateDir: string, options: PruneOptions, ctx: PlatformContext): Promise<Plan> {
  const allowed = new Set(options.statuses ?? FINAL_STATUSES)
  const reads = readAllRecords(stateDir)
  const candidates: Candidate[] = []
  for (const read of reads) {
    if (!read.ok) continue // corrupt or still being created: never ours to judge
    const record = await trueRecord(stateDir, read.record, options.dryRun ?? false)
    if (!isFinalStatus(record.status) || !allowed.has(record.status)) continue
    candidates.push({record, protectedBy: protection(stateDir, record, options.includeCheckpoints ?? false, ctx), bytes: null})
  }
  // Taken after reconciling, so a task this very prune found lost counts as ended by now (--older-than 0s).
  const now = options.now ?? Date.now()
  // Newest first; the id breaks ties so the order never depends on the file system.
  candidates.sort((a, b) => endedMs(b.record) - endedMs(a.record) || b.record.id - a.record.id)

  const picked = new Set<Candidate>()
  if (options.keep !== undefined) for (const c of candidates.slice(options.keep)) picked.add(c)
  if (options.olderThanMs !== undefined) {
    for (const c of candidates) if (endedMs(c.record) <= now - options.olderThanMs) picked.add(c)
  }
  const skipped = new Map<Candidate, string>()
  if (options.maxTotalBytes !== undefined) {
    let total = treeBytes(stateDir)
    for (const c of candidates) c.bytes = treeBytes(taskDirPath(stateDir, c.record.id))
    for (const c of picked) if (!c.protectedBy) total -= c.bytes ?? 0
    for (const c of [...candidates].reverse()) {
      if (total <= options.maxTotalBytes) break
      if (picked.has(c)) continue
      if (c.protectedBy) {
        skipped.set(c, c.protectedBy)
        continue
      }
      picked.add(c)
      total -= c.bytes ?? 0
    }
  }
  const remove: Candidate[] = []
  for (const c of candidates) {
    if (!picked.has(c)) continue
    if (c.protectedBy) skipped.set(c, c.protectedBy)
    else remove.push(c)
  }
  remove.reverse() // oldest first: an interrupted prune has removed the oldest
  return {
    remove,
    skipped: [...skipped].map(([c, reason]) => ({id: c.record.id, reason})).sort((a, b) => a.id - b.id),
    taskCount: reads.length,
  }
}

const taskDirPath = (stateDir: string, id: number) => path.join(tasksDir(stateDir), String(id))

/** Entries of tasks/ that are not task folders but ours to clear: trash of a crashed prune, symlinks named like ids. */
function findDebris(stateDir: string): string[] {
  let entries
  try {
    entries = readdirSync(tasksDir(stateDir), {withFileTypes: true})
  } catch {
    return []
  }
  return entries
    .filter((e) => e.name.startsWith(TRASH_PREFIX) || (e.isSymbolicLink() && /^[1-9][0-9]*$/.test(e.name)))
    .map((e) => e.name)
    .sort()
}

// platform.removeTree without its own retry: the callers wrap each step in
// retryOnBusy with the (injectable) platform, so the retry is what tests see.
function defaultIo(): RemovalIo {
  return {
    rename: (from, to) => rename(from, to),
    // fs.rm lstat()s every entry: a symlink, even the top one, is unlinked and never descended into.
    removeTree: (target) => rm(target, {recursive: true, force: true}),
  }
}

type Claim = {trash: string; bytes: number} | {reason?: string; error?: string}

/**
 * Takes one task out of sight. Under the task lock (which `start <id>` and
 * `resume` also take) it re-reads the record, so a task restarted since the
 * plan is left alone; it then renames the folder to a dot-name — one atomic
 * step, after which `list` no longer sees it. Deleting the renamed tree is
 * the caller's (discard), so it can overlap with claiming the next task.
 */
async function claimTask(stateDir: string, planned: TaskRecord, io: RemovalIo, ctx: PlatformContext): Promise<Claim> {
  const id = planned.id
  const dir = taskDirPath(stateDir, id)
  let release: Release
  try {
    release = await acquireLock(taskLockPath(stateDir, id), {waitMs: 0})
  } catch (error) {
    if (error instanceof LockBusyError) return {reason: 'another drover command is changing it'}
    throw error
  }
  try {
    // Never read through a symlink planted in place of the folder: open() would follow it.
    if (!lstatSync(dir, {throwIfNoEntry: false})?.isDirectory()) return {reason: 'its folder is gone or not a directory'}
    const fresh = readRecord(stateDir, id)
    if (!fresh.ok) return {reason: fresh.missing ? 'its record is gone' : fresh.error}
    const record = fresh.record
    if (!isFinalStatus(record.status)) return {reason: `its record says ${record.status}`}
    if (record.runs.length !== planned.runs.length || endedAtOf(record) !== endedAtOf(planned)) {
      return {reason: 'it changed while pruning'}
    }
    const guard = protection(stateDir, record, true, ctx)
    if (guard) return {reason: guard}
    const trash = path.join(tasksDir(stateDir), `${TRASH_PREFIX}${id}-${randomBytes(4).toString('hex')}`)
    try {
      await retryOnBusy(() => io.rename(dir, trash), ctx)
    } catch (error) {
      return {error: `cannot remove task ${id}: ${(error as Error).message}`}
    }
    return {trash, bytes: treeBytes(trash)}
  } finally {
    release()
  }
}

/** Deletes a claimed tree; on failure it stays out of sight (a dot-name) and the next prune clears it. */
async function discard(id: number, trash: string, io: RemovalIo, ctx: PlatformContext): Promise<string | null> {
  try {
    await retryOnBusy(() => io.removeTree(trash), ctx)
    return null
  } catch (error) {
    return `task ${id} removed from the list, but some files could not be deleted yet: ${(error as Error).message}`
  }
}

// Deletions in flight while the next tasks are claimed: deletion waits on the
// disk, claiming mostly on the lock, so overlapping them roughly halves a big prune.
const DISCARDS_IN_FLIGHT = 8

async function clearDebris(stateDir: string, names: string[], io: RemovalIo, ctx: PlatformContext, errors: PruneResult['errors']) {
  for (const name of names) {
    const target = path.join(tasksDir(stateDir), name)
    try {
      await retryOnBusy(() => io.removeTree(target), ctx)
    } catch (error) {
      errors.push({id: null, error: `cannot clear ${name}: ${(error as Error).message}`})
    }
  }
}

/**
 * Prunes under the state-wide prune lock, so two prunes at once (two cron
 * lines) take turns: the second waits, then plans from what the first left.
 * A dry run takes no lock and writes nothing, not even a reconciled `lost`.
 */
export async function prune(stateDir: string, options: PruneOptions): Promise<PruneResult> {
  const ctx = options.platform ?? currentPlatform()
  const io = {...defaultIo(), ...options.io}
  const dryRun = options.dryRun ?? false
  let release: Release | null = null
  if (!dryRun) {
    try {
      // A slow poll: twenty cron prunes waiting at once must not crowd the disk the holder is working on.
      release = await acquireLock(stateLockPath(stateDir, 'prune'), {waitMs: options.lockWaitMs ?? DEFAULT_LOCK_WAIT_MS, pollMs: 200})
    } catch (error) {
      if (!(error instanceof LockBusyError)) throw error
      const holder = error.holder ? ` (pid ${error.holder.pid})` : ''
      throw conflictError(`another prune${holder} is still running; nothing was removed, try again later`)
    }
  }
  try {
    const result: PruneResult = {dryRun, removed: [], kept: 0, skipped: [], errors: [], bytesReclaimed: 0, debris: findDebris(stateDir)}
    if (!dryRun) await clearDebris(stateDir, result.debris, io, ctx, result.errors)
    const {remove, skipped, taskCount} = await plan(stateDir, options, ctx)
    result.skipped = skipped
    // Ids are never reused: allocation reads this mark after listing the folders.
    if (!dryRun && remove.length > 0) raiseHighWater(stateDir, Math.max(...remove.map((c) => c.record.id)))
    const removeAll = async (step: () => void) => {
      const inFlight = new Set<Promise<void>>()
      for (const c of remove) {
        const {id, name, status} = c.record
        const claim: Claim = dryRun
          ? {trash: '', bytes: c.bytes ?? treeBytes(taskDirPath(stateDir, id))}
          : await claimTask(stateDir, c.record, io, ctx)
        if ('trash' in claim) {
          result.removed.push({id, name, status, endedAt: endedAtOf(c.record), bytes: claim.bytes})
          result.bytesReclaimed += claim.bytes
          if (!dryRun) {
            const pending: Promise<void> = discard(id, claim.trash, io, ctx).then((error) => {
              if (error) result.errors.push({id, error})
              inFlight.delete(pending)
            })
            inFlight.add(pending)
            if (inFlight.size >= DISCARDS_IN_FLIGHT) await Promise.race(inFlight)
          }
        } else {
          if (claim.error) result.errors.push({id, error: claim.error})
          if (claim.reason) result.skipped.push({id, reason: claim.reason})
        }
        step()
      }
      await Promise.all(inFlight)
    }
    if (options.around && remove.length > 0) await options.around(remove.length, removeAll)
    else await removeAll(() => {})
    result.kept = taskCount - result.removed.length
    return result
  } finally {
    release?.()
  }
}
