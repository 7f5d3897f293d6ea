// Pruning finished tasks: choosing which final tasks go (--keep, --older-than,
// --max-total-size, narrowed by --status; or the tasks `rm` names) under the
// state-wide prune lock, and reporting it. Corrupt records are reported, and
// removed only when asked. How one folder is taken away is removal.ts.

import {conflictError} from '../base/errors.js'
import {acquireLock, LockBusyError, stateLockPath, type Release} from '../state/lock.js'
import {busyRetryDelays, currentPlatform, type PlatformContext} from '../platform/platform.js'
import {reconcile, runnerState} from './reconcile.js'
import {FINAL_STATUSES, isFinalStatus, type TaskRecord} from '../state/record.js'
import {endedInMemory} from '../runner/settle.js'
import {
  claimTask,
  clearDebris,
  defaultIo,
  discard,
  endedAtOf,
  plannedWorktreeRemoval,
  findDebris,
  protection,
  runnerAlive,
  taskDirPath,
  treeBytes,
  type Claim,
  type RemovalIo,
} from './removal.js'
import {isAbandonedCreation, listTaskIds, raiseHighWater, readFoundTask, readRecord, type RecordRead} from '../state/store.js'
import {stateDirMissing} from '../state/statedir.js'
import {beingCreated, readEveryRecord} from './read.js'
import {THREADS_FROM, TrashThreads} from './trash-threads.js'

export {treeBytes, type RemovalIo}
export {DEFAULT_LOCK_WAIT_MS, hasCriterion, parsePruneStatuses, type PruneCriteria, type PruneOptions, type PrunedTask, type PruneResult} from './prune-rules.js'
import {DEFAULT_LOCK_WAIT_MS, type PrunedTask, type PruneOptions, type PruneResult} from './prune-rules.js'

const endedMs = (record: TaskRecord): number => Date.parse(endedAtOf(record)) || 0
interface Candidate {
  id: number
  /** null for a corrupt record. */
  record: TaskRecord | null
  protectedBy: string | null
  bytes: number | null
}

interface Plan {
  remove: Candidate[]
  skipped: {id: number; reason: string}[]
  corrupt: {id: number; error: string}[]
  taskCount: number
}

/** The true state of a non-final record; a dry run must not write, so it decides in memory only. */
async function trueRecord(stateDir: string, record: TaskRecord, dryRun: boolean): Promise<TaskRecord> {
  // A queued task has no runner to have lost (reconcile leaves it alone too).
  if (isFinalStatus(record.status) || record.status === 'queued') return record
  if (!dryRun) return reconcile(stateDir, record)
  return runnerState(stateDir, record) === 'gone' ? endedInMemory(record, {status: 'lost', cause: 'runner-lost', reason: 'runner vanished without recording an end'}) : record
}

/**
 * The rule: among final tasks in an allowed status, a task goes when ANY
 * selected criterion picks it; protected tasks (live runner, checkpoint) are
 * then skipped whatever picked them. Non-final tasks are never candidates.
 */
async function plan(stateDir: string, options: PruneOptions, ctx: PlatformContext, reads: RecordRead[]): Promise<Plan> {
  const named = options.ids !== undefined
  const allowed = new Set(named ? FINAL_STATUSES : (options.statuses ?? FINAL_STATUSES))
  const candidates: Candidate[] = []
  const corrupt: Candidate[] = []
  const reported: Plan['corrupt'] = []
  const skipped = new Map<Candidate, string>()
  // A named task is someone's explicit choice: its checkpoint does not keep it.
  const includeCheckpoints = named || (options.includeCheckpoints ?? false)
  for (const read of reads) {
    if (!read.ok) {
      if (beingCreated(stateDir, read)) continue // `start` is still writing it
      if (read.missing && isAbandonedCreation(stateDir, read.id)) continue // debris (findDebris)
      // Unreadable: never judged by a rule, only removed when asked for (or named).
      if (!named && !options.includeCorrupt) {
        reported.push({id: read.id, error: read.error})
        continue
      }
      corrupt.push({id: read.id, record: null, protectedBy: runnerAlive(stateDir, read.id, ctx) ? 'its runner is still alive' : null, bytes: null})
      continue
    }
    const record = await trueRecord(stateDir, read.record, options.dryRun ?? false)
    if (!isFinalStatus(record.status)) {
      if (named) skipped.set({id: record.id, record, protectedBy: null, bytes: null}, `it is ${record.status} (stop or cancel it first)`)
      continue
    }
    if (!allowed.has(record.status)) continue
    candidates.push({id: record.id, record, protectedBy: protection(stateDir, record, includeCheckpoints, ctx, options.includeWorktrees), bytes: null})
  }
  // Taken after reconciling, so a task this very prune found lost counts as ended by now (--older-than 0s).
  const now = options.now ?? Date.now()
  // Newest first; the id breaks ties so the order never depends on the file system.
  candidates.sort((a, b) => endedMs(b.record!) - endedMs(a.record!) || b.id - a.id)

  const picked = new Set<Candidate>(named ? candidates : [])
  if (options.keep !== undefined) for (const c of candidates.slice(options.keep)) picked.add(c)
  if (options.olderThanMs !== undefined) {
    for (const c of candidates) if (endedMs(c.record!) <= now - options.olderThanMs) picked.add(c)
  }
  if (options.maxTotalBytes !== undefined) {
    let total = treeBytes(stateDir)
    for (const c of [...candidates, ...corrupt]) c.bytes = treeBytes(taskDirPath(stateDir, c.id))
    for (const c of [...picked, ...corrupt]) if (!c.protectedBy) total -= c.bytes ?? 0
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
  for (const c of corrupt) {
    if (c.protectedBy) skipped.set(c, c.protectedBy)
    else remove.push(c)
  }
  return {
    remove,
    skipped: [...skipped].map(([c, reason]) => ({id: c.id, reason})).sort((a, b) => a.id - b.id),
    corrupt: reported,
    taskCount: named ? listTaskIds(stateDir).length : reads.length,
  }
}

/**
 * What the plan judges: the tasks named, or every task — through the
 * index's entries, which write nothing (a dry run's too). Each task it
 * picks is read again under its lock before it goes (claimTask), so an entry
 * behind its record decides nothing.
 */
function selectionReads(stateDir: string, ids: readonly number[] | undefined): RecordRead[] {
  if (ids === undefined) return readEveryRecord(stateDir)
  return ids.map((id) => readRecord(stateDir, id)).filter((read) => readFoundTask(stateDir, read))
}

// Deletions in flight while the next tasks are claimed: deletion waits on the
// disk, claiming mostly on the lock, so overlapping them roughly halves a big
// prune. On threads of their own (trash-threads.ts) many more queue, so the
// claims never wait for them; the bound only keeps hidden trash from piling up.
const DISCARDS_IN_FLIGHT = 8
const THREAD_DISCARDS_IN_FLIGHT = 1024

const nothingPruned = (dryRun: boolean): PruneResult => ({dryRun, removed: [], kept: 0, skipped: [], errors: [], bytesReclaimed: 0, debris: [], corrupt: []})

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
  // A state dir that does not exist holds nothing to prune, and a look through a mistyped path makes none (no lock to take in it).
  if (stateDirMissing(stateDir)) return nothingPruned(dryRun)
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
    // Every record is read once, before the debris is cleared: the plan skips
    // a recordless folder anyway, so reads from before the clearing plan the same.
    const reads = selectionReads(stateDir, options.ids)
    // `rm` removes what it names and nothing else; the sweep of leftovers is prune's.
    const debris = options.ids === undefined ? findDebris(stateDir, reads) : []
    const result: PruneResult = {...nothingPruned(dryRun), debris}
    // What is reported is what went: a start that wrote its record meanwhile keeps its folder.
    if (!dryRun) result.debris = await clearDebris(stateDir, debris, io, ctx, result.errors)
    // A folder just cleared as debris no longer counts among the tasks kept.
    const cleared = new Set(dryRun ? [] : result.debris.map(Number))
    const {remove, skipped, corrupt, taskCount} = await plan(stateDir, options, ctx, reads.filter((read) => !cleared.has(read.id)))
    result.skipped = skipped
    result.corrupt = corrupt
    // Ids are never reused: allocation reads this mark after listing the folders.
    if (!dryRun && remove.length > 0) raiseHighWater(stateDir, Math.max(...remove.map((c) => c.id)))
    // Many deletions go to threads of their own, unless a test injects how a tree is deleted.
    const threads =
      !dryRun && options.io?.removeTree === undefined && remove.length >= THREADS_FROM ? await TrashThreads.start(stateDir, remove.length, busyRetryDelays(ctx)) : null
    const removeAll = async (step: () => void) => {
      const inFlight = new Set<Promise<void>>()
      for (const c of remove) {
        const {id, record} = c
        const includeWorktrees = options.includeWorktrees ?? false
        let claim: Claim
        try {
          claim = dryRun
            ? {trash: '', grave: null, worktree: record && plannedWorktreeRemoval(record, includeWorktrees)}
            : await claimTask(stateDir, c, io, ctx, includeWorktrees, threads ? (id) => threads.trashFor(id) : undefined)
        } catch (error) {
          // Whatever goes wrong with one task, those removed before it are still reported.
          claim = {error: `cannot remove task ${id}: ${(error as Error).message}`}
        }
        if ('trash' in claim) {
          const ended = record === null ? null : endedAtOf(record)
          const worktree = claim.worktree
          // A dry run measures the tree; a removal learns its size from the deletion.
          const removed: PrunedTask = {id, name: record?.name ?? null, status: record?.status ?? 'corrupt', endedAt: ended, bytes: 0, ...(worktree ? {worktree} : {})}
          result.removed.push(removed)
          if (dryRun) removed.bytes = c.bytes ?? treeBytes(taskDirPath(stateDir, id))
          else {
            const deletion = threads ? threads.discard(claim.trash, claim.grave) : discard(claim, io, ctx)
            const pending: Promise<void> = deletion.then(({bytes, error}) => {
              removed.bytes = bytes
              if (error) result.errors.push({id, error: `task ${id} removed from the list, but some files could not be deleted yet: ${error}`})
              inFlight.delete(pending)
            })
            inFlight.add(pending)
            if (inFlight.size >= (threads ? THREAD_DISCARDS_IN_FLIGHT : DISCARDS_IN_FLIGHT)) await Promise.race(inFlight)
          }
        } else {
          if (claim.error) result.errors.push({id, error: claim.error})
          if (claim.reason) result.skipped.push({id, reason: claim.reason})
        }
        step()
      }
      await Promise.all(inFlight)
      for (const removed of result.removed) result.bytesReclaimed += removed.bytes
    }
    try {
      if (options.around && remove.length > 0) await options.around(remove.length, removeAll)
      else await removeAll(() => {})
    } finally {
      await threads?.close()
    }
    result.kept = taskCount - result.removed.length
    return result
  } finally {
    release?.()
  }
}
