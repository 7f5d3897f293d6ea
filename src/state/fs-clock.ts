// The time now by the clock that stamps a state dir's files. A file's age is
// judged from its mtime, which the kernel — or a file server — writes with
// its own clock; drover's Date.now() need not agree with it: a clock stepped
// ahead (the chaos run steps the clock of chosen commands) took a task folder
// made a moment ago for one left empty 90 minutes before, and a prune swept
// away the task being created in it (seed 2016699043). So ages are measured
// against a probe: a file made in the state dir's locks/ folder, its mtime
// read and the file removed at once. Between probes the monotonic clock
// carries the time on; a probe older than a few seconds is made again, so a
// step of the system clock itself is followed soon after.

import {closeSync, fstatSync, lstatSync, openSync, readdirSync, rmSync, unlinkSync} from 'node:fs'
import path from 'node:path'
import {FILE_MODE, LOCK_DRAFT_SUFFIX, LOCK_GRAVE_SUFFIX, uniqueSuffix} from './layout.js'

const PREFIX = '.clock-'
const REPROBE_MS = 5000
// A probe left by a process killed between its create and its unlink.
const LEFTOVER_MS = 10 * 60_000

const probes = new Map<string, {fsMs: number; at: number}>()

/** The folder the probes of a state dir are made in: never tasks/, whose stamp the kept listing watches. */
export const clockDir = (stateDir: string) => path.join(stateDir, 'locks')

/**
 * Now, in ms since the epoch, by the clock that stamps files made in `dir`
 * (a state dir's locks/ folder, clockDir). Where no file can be made there (a
 * read-only state dir, a folder not made yet), this process's clock: the
 * best there is, and what every age was measured with before.
 */
export function fileSystemNow(dir: string): number {
  const now = performance.now()
  const known = probes.get(dir)
  if (known && now - known.at < REPROBE_MS) return known.fsMs + (now - known.at)
  const fsMs = probe(dir)
  if (fsMs === null) return Date.now()
  probes.set(dir, {fsMs, at: performance.now()})
  return fsMs
}

/** The age of a file's mtime by the clock that wrote it; `dir` as for fileSystemNow. */
export const ageByFileSystem = (mtimeMs: number, dir: string): number => fileSystemNow(dir) - mtimeMs

function probe(dir: string): number | null {
  const file = path.join(dir, `${PREFIX}${uniqueSuffix()}`)
  let fd: number
  try {
    fd = openSync(file, 'wx', FILE_MODE)
  } catch {
    return null
  }
  let fsMs: number | null = null
  try {
    fsMs = fstatSync(fd).mtimeMs
  } catch {
    // a file made and not readable: no time from it
  } finally {
    closeSync(fd)
    unlinkQuietly(file)
  }
  if (fsMs !== null) removeLeftovers(dir, isLeftover, fsMs, LEFTOVER_MS)
  return fsMs
}

// In locks/ (clockDir): probes, and locks killed while being drafted or released
// (lock.ts's `<lock>.<unique>.draft` and `.released`), folders holding owner.json.
const isLeftover = (name: string) => name.startsWith(PREFIX) || name.endsWith(LOCK_DRAFT_SUFFIX) || name.endsWith(LOCK_GRAVE_SUFFIX)

/**
 * Removes what in `dir` is named as `match` says and is older than `maxAgeMs`
 * at `now` (the file system's time: a probe's mtime): what writers killed
 * before their rename or unlink left behind, files or folders.
 */
export function removeLeftovers(dir: string, match: (name: string) => boolean, now: number, maxAgeMs: number): void {
  let names: string[]
  try {
    names = readdirSync(dir)
  } catch {
    return
  }
  for (const name of names) {
    if (!match(name)) continue
    const file = path.join(dir, name)
    const stat = lstatSync(file, {throwIfNoEntry: false})
    if (!stat || now - stat.mtimeMs <= maxAgeMs) continue
    if (!stat.isDirectory()) unlinkQuietly(file)
    else {
      try {
        rmSync(file, {recursive: true, force: true})
      } catch {
        // its releaser removing it too, or held open on Windows: the next probe's sweep
      }
    }
  }
}

export function unlinkQuietly(file: string): void {
  try {
    unlinkSync(file)
  } catch {
    // gone already, or another process's cleanup got it first
  }
}

/** Tests: forget the probes, as a new process would. */
export function forgetProbes(): void {
  probes.clear()
}
