// Cross-process locks without a daemon: a lock is a directory (mkdir is atomic
// on every OS) holding owner.json with the holder's pid, process start time and
// host, so a lock left by a crashed holder is recognised and taken over safely.
// A state dir shared with a cluster's nodes has holders on other hosts (a
// runner in a Slurm job handing its queue slot on): their pid means nothing
// here, so such a lock is taken over only once it is far older than any hold.

import {lstatSync, mkdirSync, renameSync, rmdirSync, rmSync, statSync, unlinkSync, writeFileSync} from 'node:fs'
import {hostname} from 'node:os'
import path from 'node:path'
import {conflictError} from '../base/errors.js'
import {currentPlatform, identityState, isSameProcess, knownSelfStartTime, pidExists, processStartTime, retryOnBusySync, type PlatformContext} from '../platform/platform.js'
import {readOwnFile, uniqueSuffix} from './store.js'
import {LOCK_DRAFT_SUFFIX, LOCK_GRAVE_SUFFIX} from './layout.js'
import {ageByFileSystem} from './fs-clock.js'
import type {ProcessIdentity} from './record.js'

export interface LockOptions {
  /** How long to wait for a live holder before giving up. 0 = try once. */
  waitMs?: number
  /** Poll interval while waiting. */
  pollMs?: number
  /** injected in tests to judge holders the way another OS does. */
  platform?: PlatformContext
}

export class LockBusyError extends Error {
  constructor(
    readonly lockPath: string,
    readonly holder: ProcessIdentity | null,
  ) {
    super(`lock ${path.basename(lockPath)} is held${holder ? ` by pid ${holder.pid}` : ''}`)
    this.name = 'LockBusyError'
  }
}

/**
 * Frees the lock. `graveAt`: a path in a folder the caller deletes anyway
 * (prune's trash beside a claimed task): the lock dir is renamed there, one
 * step that frees it as surely as the ordinary release, and its removal is
 * left to the caller — the rmdir of a lock dir is its costliest step, and
 * prune releases one lock per task. If that rename fails, the ordinary release.
 */
export type Release = (graveAt?: string) => void

// A lock dir without owner.json: one a drover before locks were drafted
// (tryCreate) is making right now, unless it has been like that for longer
// than a create can take (its maker died in between), or one damaged by hand.
// Ages are by the file system's clock (fs-clock.ts): by a clock stepped ahead
// every lock being created looked abandoned, and was taken from its holder.
const OWNERLESS_GRACE_MS = 5000

// A lock of another host's process cannot be checked: it is stale only when
// older than this. Holds are short (a record's write, a queue's advance with
// its sbatch calls, a prune); a wait gives up long before, with the lock busy.
export const FOREIGN_STALE_MS = 10 * 60_000

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** startedAt (Windows): when this process began, by its own clock (ms), for when its start time is not known. */
export type LockOwner = ProcessIdentity & {host?: string; startedAt?: number}

let host: string | null = null
const thisHost = () => (host ??= hostname())

function ownIdentity(ctx: PlatformContext): LockOwner {
  if (ctx.os !== 'win32') return {pid: process.pid, startTime: processStartTime(process.pid, ctx) ?? 'unknown', host: thisHost()}
  // Windows: reading the start time starts PowerShell; taking a lock must not. A runner knows it by now.
  return {pid: process.pid, startTime: knownSelfStartTime() ?? 'unknown', host: thisHost(), startedAt: Math.round(performance.timeOrigin)}
}

// Windows: a live holder's lock is taken for held without asking PowerShell
// while it is younger than this (holds are short: a record's write, a
// spawn). Older, its holder's start time is read once per this long.
export const WIN_TRUSTED_HOLD_MS = 30_000
// Between a process's creation and Node's own idea of when it began: loading
// node.exe, under load. Start times further apart are different processes.
const STARTED_AT_TOLERANCE_MS = 5000
// FILETIME (100 ns since 1601) of the Unix epoch.
const FILETIME_UNIX_EPOCH = 116444736000000000n
const confirmedHolders = new Map<string, number>()

/**
 * Windows. No process with the pid: stale, known at once. A young lock of a
 * live pid: held. Older: the holder's start time is read (once per
 * WIN_TRUSTED_HOLD_MS) and compared with what it recorded — its exact start
 * time, or its own clock's startedAt within a tolerance. If that cannot be
 * read (PowerShell failing), the lock is held until it is as old as a
 * foreign host's: a failing query never lets two holders in.
 */
function winOwnerStale(lockPath: string, owner: LockOwner, ctx: PlatformContext): boolean {
  if (!pidExists(owner.pid, ctx)) return true
  // Neither a Windows start time nor the word a holder writes without one: no live process of this machine.
  if (owner.startTime !== 'unknown' && !/^\d+$/.test(owner.startTime)) return true
  const age = lockAge(lockPath)
  if (age === null) return false
  if (age < WIN_TRUSTED_HOLD_MS) return false
  const key = `${lockPath}|${owner.pid}|${owner.startTime}|${owner.startedAt ?? ''}`
  const confirmed = confirmedHolders.get(key)
  if (confirmed !== undefined && Date.now() - confirmed < WIN_TRUSTED_HOLD_MS) return false
  let state = identityState(owner, ctx)
  if (state === 'unknown' && typeof owner.startedAt === 'number') {
    const now = processStartTime(owner.pid, ctx)
    if (now !== null) {
      const startedMs = Number((BigInt(now) - FILETIME_UNIX_EPOCH) / 10_000n)
      state = Math.abs(startedMs - owner.startedAt) <= STARTED_AT_TOLERANCE_MS ? 'same' : 'other'
    }
  }
  if (state === 'same') {
    confirmedHolders.set(key, Date.now())
    return false
  }
  if (state === 'unknown') return age > FOREIGN_STALE_MS
  return true
}

function lockAge(lockPath: string): number | null {
  try {
    return ageByFileSystem(statSync(path.join(lockPath, 'owner.json')).mtimeMs, path.dirname(lockPath))
  } catch {
    return null // released meanwhile
  }
}

function readOwnerText(lockPath: string): string | null {
  try {
    return readOwnFile(path.join(lockPath, 'owner.json'))
  } catch {
    return null
  }
}

function parseOwner(text: string | null): LockOwner | null {
  if (text === null) return null
  try {
    const owner = JSON.parse(text) as LockOwner
    return Number.isSafeInteger(owner.pid) && typeof owner.startTime === 'string' ? owner : null
  } catch {
    return null
  }
}

const readOwner = (lockPath: string) => parseOwner(readOwnerText(lockPath))

function isStale(lockPath: string, ctx: PlatformContext, owner = readOwner(lockPath)): boolean {
  // owner.json without a host: a drover from before hosts were written, on this host.
  if (owner && (owner.host === undefined || owner.host === thisHost())) return ctx.os === 'win32' ? winOwnerStale(lockPath, owner, ctx) : !isSameProcess(owner, ctx)
  try {
    return ageByFileSystem(statSync(lockPath).mtimeMs, path.dirname(lockPath)) > (owner ? FOREIGN_STALE_MS : OWNERLESS_GRACE_MS)
  } catch {
    return false // vanished: not stale, just free — the next mkdir will tell
  }
}

/** What a lock left in place says of itself, for `drover doctor`: who holds it, and whether its holder is gone. */
export interface LockState {
  holder: LockOwner | null
  /** its holder is gone (or it is ownerless or another host's beyond the grace): the next taker removes it. */
  stale: boolean
  ageMs: number | null
}

/** Reads a lock without touching it (doctor is read-only); null when it is not there. */
export function inspectLock(lockPath: string): LockState | null {
  let mtimeMs: number
  try {
    mtimeMs = statSync(lockPath).mtimeMs
  } catch {
    return null
  }
  return {holder: readOwner(lockPath), stale: isStale(lockPath, currentPlatform()), ageMs: Math.max(0, ageByFileSystem(mtimeMs, path.dirname(lockPath)))}
}

/**
 * A lock is made whole or not at all: its dir is drafted beside it with
 * owner.json inside, then renamed into place, which fails while another holds
 * it. Made in two steps (mkdir, then owner.json), a lock stood ownerless for a
 * moment, and a maker held up there — in the kernel, behind a disk busy with
 * other writers' fsyncs, for seconds on a loaded machine — was taken over as
 * dead, then wrote its owner.json and held it too: two advancers counting one
 * queue, six workers in a queue of four (the queue torture test, on CI).
 */
function tryCreate(lockPath: string, ctx: PlatformContext): Release | null {
  // Held: refused without drafting a dir (waiters poll this every few ms).
  if (lstatSync(lockPath, {throwIfNoEntry: false})) return null
  const draft = `${lockPath}.${uniqueSuffix()}${LOCK_DRAFT_SUFFIX}`
  mkdirSync(draft, {mode: 0o700})
  try {
    // Written in place, not temp + fsync + rename: the draft is ours alone, and a
    // crash leaves only a draft (swept with the state dir's other leftovers, fs-clock.ts).
    // Skipping the fsync makes each lock several times cheaper (prune takes one per task).
    writeFileSync(path.join(draft, 'owner.json'), JSON.stringify(ownIdentity(ctx)) + '\n', {mode: 0o600, flag: 'wx'})
    // Linux refuses a non-empty target (ENOTEMPTY, EEXIST), Windows any existing one (EPERM, EACCES).
    renameSync(draft, lockPath)
  } catch (error) {
    deleteGrave(draft) // ours alone: no rename first
    if (TAKEN_CODES.has((error as NodeJS.ErrnoException).code ?? '')) return null
    throw error
  }
  let released = false
  return (graveAt?: string) => {
    if (released) return
    released = true
    if (graveAt !== undefined) {
      try {
        retryOnBusySync(() => renameSync(lockPath, graveAt), ctx)
        return
      } catch {
        // another file system, or the place is taken: released here instead
      }
    }
    removeLockDir(lockPath)
  }
}

// What a rename onto a lock someone holds fails with; ENOTDIR: a file in its place, judged by isStale as ever;
// EBUSY: on Windows a scanner's handle on the draft, which the next poll's draft may not meet.
const TAKEN_CODES = new Set(['EEXIST', 'ENOTEMPTY', 'EPERM', 'EACCES', 'EISDIR', 'ENOTDIR', 'EBUSY'])

function removeLockDir(lockPath: string): void {
  // Rename first so a half-removed lock dir is never mistaken for a held one.
  // (uniqueSuffix, not node:crypto: runners take queue locks, and crypto costs each ~2 MB.)
  const grave = graveOf(lockPath)
  try {
    // A lock left in place would block every other drover for its grace: on
    // Windows a scanner's handle on owner.json is waited out first.
    retryOnBusySync(() => renameSync(lockPath, grave))
  } catch {
    return
  }
  deleteGrave(grave)
}

const graveOf = (lockPath: string) => `${lockPath}.${uniqueSuffix()}${LOCK_GRAVE_SUFFIX}`

function deleteGrave(grave: string): void {
  // The grave holds owner.json alone: unlink it and rmdir, two steps where
  // rmSync's recursive walk takes five (one a failing rmdir); prune takes and
  // releases a lock per task. Anything else inside falls back to the walk.
  try {
    try {
      unlinkSync(path.join(grave, 'owner.json'))
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error
    }
    rmdirSync(grave)
  } catch {
    retryOnBusySync(() => rmSync(grave, {recursive: true, force: true}))
  }
}

/**
 * Removes the lock at `lockPath` if it is stale — that lock, the one judged:
 * between the judgement and the rename another contender may have removed it
 * and someone taken the lock afresh. What the rename took is compared with
 * what was judged, and a fresh lock is put back. True when a stale lock went.
 */
function removeIfStale(lockPath: string, ctx: PlatformContext): boolean {
  const judged = readOwnerText(lockPath)
  if (!isStale(lockPath, ctx, parseOwner(judged))) return false
  const grave = graveOf(lockPath)
  try {
    retryOnBusySync(() => renameSync(lockPath, grave))
  } catch {
    return false // gone meanwhile: the next create tells whether it is free
  }
  if (readOwnerText(grave) !== judged) {
    try {
      renameSync(grave, lockPath)
      return false
    } catch {
      // taken again meanwhile, by a third: the fresh lock is lost either way
    }
  }
  deleteGrave(grave)
  return true
}

/**
 * Taking over a stale lock is itself serialised by a second lock, so two
 * contenders who both saw the holder dead cannot both remove it — the second
 * would otherwise delete the fresh lock the first had just taken. (A steal
 * lock whose own holder died is removed the same careful way.)
 */
function takeOverIfStale(lockPath: string, ctx: PlatformContext): void {
  // A live holder (the common case while waiting): no steal lock made and
  // released on every poll, which a process killed mid-way would leave stale.
  if (!isStale(lockPath, ctx)) return
  const stealPath = `${lockPath}.steal`
  let releaseSteal = tryCreate(stealPath, ctx)
  if (!releaseSteal) {
    if (!removeIfStale(stealPath, ctx)) return
    releaseSteal = tryCreate(stealPath, ctx)
    if (!releaseSteal) return
  }
  try {
    removeIfStale(lockPath, ctx)
  } finally {
    releaseSteal()
  }
}

export async function acquireLock(lockPath: string, options: LockOptions = {}): Promise<Release> {
  const waitMs = options.waitMs ?? 10_000
  const pollMs = options.pollMs ?? 20
  const deadline = Date.now() + waitMs
  const ctx = options.platform ?? currentPlatform()
  for (;;) {
    const release = tryCreate(lockPath, ctx)
    if (release) return release
    takeOverIfStale(lockPath, ctx)
    const retry = tryCreate(lockPath, ctx)
    if (retry) return retry
    if (Date.now() >= deadline) throw new LockBusyError(lockPath, readOwner(lockPath))
    await sleep(pollMs)
  }
}

export async function withLock<T>(lockPath: string, fn: () => Promise<T> | T, options?: LockOptions): Promise<T> {
  const release = await acquireLock(lockPath, options)
  try {
    return await fn()
  } finally {
    release()
  }
}

export const stateLockPath = (stateDir: string, name: string) => path.join(stateDir, 'locks', `${name}.lock`)
export const taskLockPath = (stateDir: string, id: number) => path.join(stateDir, 'locks', `task-${id}.lock`)

/** What a command says when a task's lock stays held (exit 4); any other error (a read-only or full state dir) as it is. */
export function taskBusy(error: unknown, id: number): unknown {
  return error instanceof LockBusyError ? conflictError(`task ${id} is being changed by another drover command; try again`, {id}) : error
}

/** The task's lock, or the conflict a command reports when another holds it past `waitMs`. */
export async function acquireTaskLock(stateDir: string, id: number, waitMs: number): Promise<Release> {
  try {
    return await acquireLock(taskLockPath(stateDir, id), {waitMs})
  } catch (error) {
    throw taskBusy(error, id)
  }
}
