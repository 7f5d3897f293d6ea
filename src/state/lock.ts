// Cross-process locks without a daemon: a lock is a directory (mkdir is atomic
// on every OS) holding owner.json with the holder's pid, process start time and
// host, so a lock left by a crashed holder is recognised and taken over safely.
// A state dir shared with a cluster's nodes has holders on other hosts (a
// runner in a Slurm job handing its queue slot on): their pid means nothing
// here, so such a lock is taken over only once it is far older than any hold.

import {mkdirSync, renameSync, rmdirSync, rmSync, statSync, unlinkSync, writeFileSync} from 'node:fs'
import {hostname} from 'node:os'
import path from 'node:path'
import {isSameProcess, processStartTime, retryOnBusySync} from '../platform/platform.js'
import {readOwnFile, uniqueSuffix} from './store.js'
import type {ProcessIdentity} from './record.js'

export interface LockOptions {
  /** How long to wait for a live holder before giving up. 0 = try once. */
  waitMs?: number
  /** Poll interval while waiting. */
  pollMs?: number
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

export type Release = () => void

// A lock dir without owner.json is one being created right now, unless it has
// been like that for longer than a create can take (its holder died in between).
const OWNERLESS_GRACE_MS = 5000

// A lock of another host's process cannot be checked: it is stale only when
// older than this. Holds are short (a record's write, a queue's advance with
// its sbatch calls, a prune); a wait gives up long before, with the lock busy.
export const FOREIGN_STALE_MS = 10 * 60_000

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

export type LockOwner = ProcessIdentity & {host?: string}

let host: string | null = null
const thisHost = () => (host ??= hostname())

// This process's own start time never changes: read once, not per lock (prune takes one per task).
let own: LockOwner | null = null
function ownIdentity(): LockOwner {
  if (own?.pid === process.pid) return own
  const startTime = processStartTime(process.pid)
  const identity = {pid: process.pid, startTime: startTime ?? 'unknown', host: thisHost()}
  if (startTime !== null) own = identity
  return identity
}

function readOwner(lockPath: string): LockOwner | null {
  try {
    const owner = JSON.parse(readOwnFile(path.join(lockPath, 'owner.json'))) as LockOwner
    return Number.isSafeInteger(owner.pid) && typeof owner.startTime === 'string' ? owner : null
  } catch {
    return null
  }
}

function isStale(lockPath: string): boolean {
  const owner = readOwner(lockPath)
  // owner.json without a host: a drover from before hosts were written, on this host.
  if (owner && (owner.host === undefined || owner.host === thisHost())) return !isSameProcess(owner)
  try {
    return Date.now() - statSync(lockPath).mtimeMs > (owner ? FOREIGN_STALE_MS : OWNERLESS_GRACE_MS)
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
  return {holder: readOwner(lockPath), stale: isStale(lockPath), ageMs: Math.max(0, Date.now() - mtimeMs)}
}

function tryCreate(lockPath: string): Release | null {
  try {
    mkdirSync(lockPath, {mode: 0o700})
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return null
    throw error
  }
  try {
    // Written in place, not temp + fsync + rename: the fresh lock dir is ours alone, and a
    // torn owner.json after a crash only makes the lock look ownerless, which the grace
    // below handles. Skipping the fsync makes each lock several times cheaper (prune
    // takes one per task).
    writeFileSync(path.join(lockPath, 'owner.json'), JSON.stringify(ownIdentity()) + '\n', {mode: 0o600, flag: 'wx'})
  } catch (error) {
    // A full or failing disk: leave no ownerless lock behind to block others for its grace.
    removeLockDir(lockPath)
    throw error
  }
  let released = false
  return () => {
    if (released) return
    released = true
    removeLockDir(lockPath)
  }
}

function removeLockDir(lockPath: string): void {
  // Rename first so a half-removed lock dir is never mistaken for a held one.
  // (uniqueSuffix, not node:crypto: runners take queue locks, and crypto costs each ~2 MB.)
  const grave = `${lockPath}.${uniqueSuffix()}.released`
  try {
    // A lock left in place would block every other drover for its grace: on
    // Windows a scanner's handle on owner.json is waited out first.
    retryOnBusySync(() => renameSync(lockPath, grave))
  } catch {
    return
  }
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
 * Taking over a stale lock is itself serialised by a second lock, so two
 * contenders who both saw the holder dead cannot both remove it — the second
 * would otherwise delete the fresh lock the first had just taken.
 */
function takeOverIfStale(lockPath: string): void {
  const stealPath = `${lockPath}.steal`
  let releaseSteal = tryCreate(stealPath)
  if (!releaseSteal) {
    if (!isStale(stealPath)) return
    removeLockDir(stealPath)
    releaseSteal = tryCreate(stealPath)
    if (!releaseSteal) return
  }
  try {
    if (isStale(lockPath)) removeLockDir(lockPath)
  } finally {
    releaseSteal()
  }
}

export async function acquireLock(lockPath: string, options: LockOptions = {}): Promise<Release> {
  const waitMs = options.waitMs ?? 10_000
  const pollMs = options.pollMs ?? 20
  const deadline = Date.now() + waitMs
  for (;;) {
    const release = tryCreate(lockPath)
    if (release) return release
    takeOverIfStale(lockPath)
    const retry = tryCreate(lockPath)
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
