// Where the state lives and whether it is safe to use: resolution order
// (--state-dir, DROVER_STATE_DIR, the per-OS data dir from env-paths), creation
// with private permissions, refusal of a directory others could tamper with,
// and its format: refusal of a layout newer than this drover reads.

import {closeSync, constants as fsc, existsSync, fsyncSync, linkSync, lstatSync, mkdirSync, openSync, readSync, renameSync, rmSync, statSync, unlinkSync, writeSync, type Stats} from 'node:fs'
import path from 'node:path'
import {stateDirError} from '../base/errors.js'
import {FILE_MODE, NOFOLLOW, uniqueSuffix} from './layout.js'

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
 * another user plant records that make drover signal their choice of pid —
 * and so is one of a newer format (readStateFormat). Its tasks/, locks/ and
 * index/ are made where missing; a dir that had no tasks/ is new to drover,
 * and gets its format file then.
 */
export function ensureStateDir(dir: string, opts: {create?: boolean} = {}): StateFormat {
  const create = opts.create ?? true
  let format: StateFormat | null = null
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
      format = {format: STATE_FORMAT, marked: false}
    } else if (code === 'ENOENT') {
      throw stateDirError(`state dir ${dir} does not exist`)
    } else {
      throw stateDirError(`cannot use state dir ${dir}: ${describeFsError(error)}`)
    }
  }
  refuseUnsafe(dir, stats)
  // Before anything is made in it: a newer drover's dir is left as it is.
  format ??= readStateFormat(dir)
  // index/ from the start: the listing of tasks/ is kept there (index-listing.ts),
  // and where no full reader had made it yet (a state dir of an older drover,
  // or one whose records were written by other means) every look listed every
  // folder — `top`'s first frame at 100,000 tasks 1.27–1.47× the same at 200.
  // Only segment files make an index (live-hint.ts): an empty index/ is none.
  let fresh = false
  for (const sub of ['tasks', 'locks', 'index']) {
    try {
      mkdirSync(path.join(dir, sub), {mode: 0o700})
      if (sub === 'tasks') fresh = true
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code
      if (code === 'EEXIST') continue
      throw stateDirError(`cannot use state dir ${dir}: ${describeFsError(error)}`)
    }
  }
  if (fresh && !format.marked) format = {format: STATE_FORMAT, marked: markStateFormat(dir)}
  return format
}

/** Nothing at the path: no dir to check or read (a dangling link is something, which ensureStateDir judges). */
export function stateDirMissing(dir: string): boolean {
  try {
    return lstatSync(dir, {throwIfNoEntry: false}) === undefined
  } catch {
    return false
  }
}

/**
 * drover 0.1.0 kept its caches in summary/, in formats of their own; index/
 * holds them now, built again from the records. Nothing in the old folder is
 * the truth, so it goes when the dir gets its format file: at the first
 * command that writes, never at a look.
 */
function dropLegacyCache(dir: string): void {
  const legacy = path.join(dir, 'summary')
  if (lstatSync(legacy, {throwIfNoEntry: false})?.isDirectory()) {
    try {
      rmSync(legacy, {recursive: true, force: true})
    } catch {
      // a read-only state dir: it stays, unread
    }
  }
}

/**
 * The format this drover writes and the newest it reads: which layout of files
 * a state dir holds, as one line `drover-state <n>` in <state dir>/format.
 * Raise it with a change an older drover would misread (a record field it
 * needs, a file moved, a queue file's shape), and teach readStateFormat's
 * callers to migrate or read the older one; a cache with a version of its
 * own (index/, index-format.ts), whose readers rebuild what they do not
 * know, needs no raise.
 */
export const STATE_FORMAT = 1

/** A state dir without a format file: the layout of every drover up to 0.1.0, which wrote none. */
const UNMARKED_FORMAT = 1

export const formatPath = (stateDir: string) => path.join(stateDir, 'format')

export interface StateFormat {
  format: number
  /** whether the format file is there (a state dir of drover 0.1.0 has none until a command writes in it). */
  marked: boolean
}

// The line is 15 bytes; a file much longer is not ours, and is not read whole.
const FORMAT_READ_BYTES = 64

/**
 * The state dir's format, from its format file: one small read on every
 * opening (no file: format 1). A format newer than STATE_FORMAT, or a file
 * that does not name one, throws a DroverError with exit 5 — before any
 * other file of the dir is read or made, so a newer drover's dir is never
 * misread nor changed.
 */
export function readStateFormat(dir: string): StateFormat {
  const file = formatPath(dir)
  let text: string
  try {
    const fd = openSync(file, fsc.O_RDONLY | NOFOLLOW)
    try {
      const buffer = Buffer.alloc(FORMAT_READ_BYTES)
      text = buffer.toString('utf8', 0, readSync(fd, buffer, 0, FORMAT_READ_BYTES, 0))
    } finally {
      closeSync(fd)
    }
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    // ENOTDIR: the state dir is a file, which its caller says in its own words
    if (code === 'ENOENT' || code === 'ENOTDIR') return {format: UNMARKED_FORMAT, marked: false}
    throw stateDirError(`cannot read the format of state dir ${dir} (${file}): ${describeFsError(error)}`)
  }
  const match = /^drover-state ([1-9][0-9]{0,8})\r?\n?$/.exec(text)
  if (match === null) {
    const shown = JSON.stringify(text.length > 32 ? `${text.slice(0, 32)}…` : text)
    throw stateDirError(`state dir ${dir} has a format file drover cannot read: ${file} holds ${shown}, not "drover-state <number>"`)
  }
  const format = Number(match[1])
  if (format > STATE_FORMAT) {
    throw stateDirError(`state dir ${dir} was written by a newer drover (format ${format}; this drover reads up to ${STATE_FORMAT}): upgrade drover`)
  }
  return {format, marked: true}
}

/**
 * Writes the format file where there is none, never over one, and says
 * whether it is there now. The line goes to a temp file (fsynced: an empty
 * format file after a power loss would lock drover out) that is hard-linked
 * into place, which fails if a format file appeared meanwhile — a newer
 * drover's is never overwritten — and never shows a reader half a line; a
 * file system without hard links gets a rename. Best effort: a dir without
 * the file is read as format 1 anyway, so a failure (a read-only or full
 * disk) loses nothing and must not fail a command that did its writing.
 */
export function markStateFormat(dir: string): boolean {
  const file = formatPath(dir)
  if (existsSync(file)) return true
  const temp = path.join(dir, `.format.${uniqueSuffix()}.tmp`)
  try {
    const fd = openSync(temp, fsc.O_WRONLY | fsc.O_CREAT | fsc.O_EXCL | NOFOLLOW, FILE_MODE)
    try {
      const bytes = Buffer.from(`drover-state ${STATE_FORMAT}\n`)
      for (let done = 0; done < bytes.length; ) done += writeSync(fd, bytes, done)
      fsyncSync(fd)
    } finally {
      closeSync(fd)
    }
    try {
      linkSync(temp, file)
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST' && !existsSync(file)) renameSync(temp, file)
    }
  } catch {
    // read as format 1 without it (see above)
  }
  try {
    unlinkSync(temp)
  } catch {
    // renamed into place, or never made
  }
  if (!existsSync(file)) return false
  dropLegacyCache(dir)
  return true
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
