// Where the state lives and whether it is safe to use: resolution order
// (--state-dir, DROVER_STATE_DIR, the per-OS data dir from env-paths), creation
// with private permissions, and refusal of a directory others could tamper with.

import {existsSync, mkdirSync, statSync, type Stats} from 'node:fs'
import path from 'node:path'
import {stateDirError} from '../base/errors.js'

export const STATE_DIR_ENV = 'DROVER_STATE_DIR'

/**
 * env-paths is imported only when neither override is given, so scripts and
 * tests that pass --state-dir never pay for it. It reads process.platform and
 * the home directory, which is why the unit tests inject those rather than us
 * keeping a second copy of its per-OS rules.
 */
export async function resolveStateDir(flag: string | undefined, env: NodeJS.ProcessEnv = process.env): Promise<string> {
  if (flag !== undefined && flag !== '') return path.resolve(flag)
  const fromEnv = env[STATE_DIR_ENV]
  if (fromEnv !== undefined && fromEnv !== '') return path.resolve(fromEnv)
  const {default: envPaths} = await import('env-paths')
  return envPaths('drover', {suffix: ''}).data
}

/**
 * Creates the state dir (and missing parents) 0700 and checks it: a file in
 * its place, no permission, or a directory that group or others may write is
 * refused — transcripts hold prompts and secrets, and a writable state dir lets
 * another user plant records that make drover signal their choice of pid. Its
 * tasks/, locks/ and summary/ are made where missing.
 */
export function ensureStateDir(dir: string, opts: {create?: boolean} = {}): void {
  const create = opts.create ?? true
  let stats
  try {
    stats = statSync(dir)
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    if (code === 'ENOENT' && create) {
      try {
        makeDirs(dir)
      } catch (mkdirError) {
        throw stateDirError(`cannot create state dir ${dir}: ${describeFsError(mkdirError)}`)
      }
      stats = statSync(dir)
    } else if (code === 'ENOENT') {
      throw stateDirError(`state dir ${dir} does not exist`)
    } else {
      throw stateDirError(`cannot use state dir ${dir}: ${describeFsError(error)}`)
    }
  }
  refuseUnsafe(dir, stats)
  // summary/ from the start: the listing of tasks/ is kept there (kept-listing.ts),
  // and where no full reader had made it yet (a state dir of an older drover,
  // or one whose records were written by other means) every look listed every
  // folder — `top`'s first frame at 100,000 tasks 1.27–1.47× the same at 200.
  // Only segment files make a summary (live-hint.ts): an empty summary/ is none.
  for (const sub of ['tasks', 'locks', 'summary']) {
    try {
      mkdirSync(path.join(dir, sub), {mode: 0o700})
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code
      if (code === 'EEXIST') continue
      throw stateDirError(`cannot use state dir ${dir}: ${describeFsError(error)}`)
    }
  }
}

/**
 * Refuses a state dir that exists and is not safe to use (exit 5), as
 * ensureStateDir would, without creating anything: for what is read before the
 * state dir is opened (`start` reads its config.json first), so another
 * user's state dir is called that, not an unreadable file inside it.
 */
export function refuseUnsafeStateDir(dir: string): void {
  let stats
  try {
    stats = statSync(dir)
  } catch {
    return // missing, or not reachable: opening it says which
  }
  refuseUnsafe(dir, stats)
}

function refuseUnsafe(dir: string, stats: Stats): void {
  if (!stats.isDirectory()) throw stateDirError(`state dir ${dir} is not a directory`)
  if (process.platform !== 'win32') {
    if ((stats.mode & 0o022) !== 0) {
      throw stateDirError(`state dir ${dir} is writable by other users (mode ${(stats.mode & 0o777).toString(8)}); ${permissionHint(dir, stats.mode)}`)
    }
    if (typeof process.getuid === 'function' && stats.uid !== process.getuid()) {
      throw stateDirError(`state dir ${dir} belongs to another user (uid ${stats.uid})`)
    }
  }
}

/**
 * What to do about a state dir others can write. chmod is suggested only for a
 * directory drover made (it holds drover's tasks/, ours) and that is not
 * shared by design (sticky, like /tmp): `chmod 700 /tmp` would break the
 * machine. Anything else gets a private subdirectory, which drover creates 0700.
 */
export function permissionHint(dir: string, mode: number): string {
  let ours = false
  try {
    const tasks = statSync(path.join(dir, 'tasks'))
    ours = tasks.isDirectory() && (typeof process.getuid !== 'function' || tasks.uid === process.getuid())
  } catch {
    // no tasks/ inside: not a directory drover made
  }
  const shared = (mode & 0o1000) !== 0
  if (ours && !shared) return `if only you should write it, run: chmod 700 ${dir}`
  return `use a directory of its own inside it, which drover creates private: --state-dir ${path.join(dir, 'drover')}`
}

/**
 * mkdir -p one level at a time, each new level 0700. Node's recursive mkdir
 * reports ENOENT when the parent is on a read-only file system; a plain mkdir
 * tells the real reason (EROFS, EACCES), which is what the user must read.
 */
function makeDirs(dir: string): void {
  const missing: string[] = []
  for (let level = dir; !existsSync(level); level = path.dirname(level)) {
    missing.unshift(level)
    if (path.dirname(level) === level) break
  }
  for (const level of missing) {
    try {
      mkdirSync(level, {mode: 0o700})
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
    }
  }
}

export function describeFsError(error: unknown): string {
  const e = error as NodeJS.ErrnoException
  switch (e.code) {
    case 'EACCES':
    case 'EPERM':
      return 'permission denied'
    case 'EROFS':
      return 'read-only file system'
    case 'ENOSPC':
      return 'no space left on device'
    case 'ENOTDIR':
      return 'a path component is not a directory'
    case 'ENOENT':
      return 'no such file or directory'
    default:
      return e.message ?? String(error)
  }
}
