// tasks/ as last listed, kept for the next process: at 100,000 tasks a
// listing of the folder is 75–90 ms, most of what the default `list` costs
// beyond the same list at 100; reading the ids kept here is about a
// millisecond. Like the summary beside it, it is a cache and never the truth:
//
// - it names the stamp of tasks/ it was listed at (identity, modification
//   time, size), and is used only while tasks/ still has that stamp: a task
//   folder made, renamed or removed changes the folder's modification time;
// - it is kept only when the listing began at least RACY_MS after the
//   folder's last change, measured by the file system's own clock (the time
//   it gave a probe file made before the listing began), never by this
//   process's clock, which may be stepped or skewed. A change later than
//   that beginning gets a later time than the one kept, however coarse the
//   file system's clock; one in the same tick as the kept time cannot follow
//   a listing that began seconds later;
// - the stamp is read from the folder opened (close-to-open: a network file
//   system checks its attributes with the server then), where a folder can
//   be opened;
// - the file is written whole under another name and renamed in; any doubt
//   (no such file, a header of another version, a length that disagrees)
//   means a listing, as without it.
//
// Every reader of tasks/ by id uses it: the default list, top's first frame,
// the newest page, and the full listings (list --json, -q, --all), whose
// summary entries for 100,000 tasks come from sidecars read in one go.

import {closeSync, fstatSync, openSync, readdirSync, readFileSync, renameSync, statSync, unlinkSync, writeSync, type Stats} from 'node:fs'
import path from 'node:path'
import {FILE_MODE, idsIn, summaryDir, tasksDir, uniqueSuffix} from './layout.js'

const FILE = 'listing.bin'
const TEMP = '.listing-'
const RACY_MS = 2000
/** Below this many tasks a listing is cheaper than keeping it up to date. */
const KEEP_MIN = 1000
/** The header: a line of JSON padded to this length, so the ids after it are aligned for a Float64Array. */
const HEADER = 128
const VERSION = 1
/** A temp file older than this was left by a writer killed before its rename. */
const STALE_TEMP_MS = 10 * 60_000

/** What a listing of tasks/ goes with: the folder's identity, modification time and size. */
export const stampOf = (stat: Stats) => `${stat.ino}:${stat.mtimeMs}:${stat.size}`

/** The stamp of tasks/, from the folder opened where a folder can be (not on Windows). */
function folderStat(dir: string): Stats | null {
  let fd: number
  try {
    fd = openSync(dir, 'r')
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    if (code === 'ENOENT') return null
    return statSync(dir, {throwIfNoEntry: false}) ?? null
  }
  try {
    return fstatSync(fd)
  } finally {
    closeSync(fd)
  }
}

/** The ids in tasks/, ascending: the kept listing while tasks/ is unchanged since it, else listed now (and kept when it may be). */
export function taskIdsKept(stateDir: string): Float64Array {
  return listTasksKept(stateDir).ids
}

export interface KeptListing {
  ids: Float64Array
  /** the stamp of tasks/ the ids go with; null: no tasks/. */
  stamp: string | null
  /** tasks/'s modification time as seen before the listing. */
  changedMs: number
  /** whether the ids are known to hold for as long as the stamp does (kept, or listed under the kept rule). */
  settled: boolean
}

/** taskIdsKept with what the ids go with; `fresh` lists tasks/ whatever is kept (and keeps that listing when it may). */
export function listTasksKept(stateDir: string, opts: {fresh?: boolean} = {}): KeptListing {
  const dir = tasksDir(stateDir)
  if (!opts.fresh) {
    const stat = folderStat(dir)
    if (stat === null) return {ids: new Float64Array(0), stamp: null, changedMs: 0, settled: false}
    const kept = readKept(stateDir, stampOf(stat))
    if (kept) return {ids: kept, stamp: stampOf(stat), changedMs: stat.mtimeMs, settled: true}
  }
  return listAndKeep(stateDir, dir)
}

function readKept(stateDir: string, stamp: string): Float64Array | null {
  let bytes: Buffer
  try {
    bytes = readFileSync(path.join(summaryDir(stateDir), FILE))
  } catch {
    return null
  }
  if (bytes.length < HEADER) return null
  let header: {v?: unknown; stamp?: unknown; count?: unknown}
  try {
    header = JSON.parse(bytes.toString('utf8', 0, HEADER))
  } catch {
    return null
  }
  if (header.v !== VERSION || header.stamp !== stamp || typeof header.count !== 'number' || bytes.length !== HEADER + header.count * 8) return null
  // aligned where the read gave the file its own memory; else a copy
  const at = bytes.byteOffset + HEADER
  return at % 8 === 0 ? new Float64Array(bytes.buffer, at, header.count) : new Float64Array(bytes.buffer.slice(at, at + header.count * 8))
}

function listAndKeep(stateDir: string, dir: string): KeptListing {
  // The probe comes first: the file system's time now, before the listing begins.
  const temp = path.join(summaryDir(stateDir), `${TEMP}${uniqueSuffix()}`)
  let fd: number | null = null
  let began = Number.NEGATIVE_INFINITY
  try {
    fd = openSync(temp, 'wx', FILE_MODE)
    began = fstatSync(fd).mtimeMs
  } catch {
    fd = null // no summary/ yet, or a read-only state dir: listed, not kept
  }
  const stat = folderStat(dir)
  const ids = idsIn(dir)
  const stamp = stat ? stampOf(stat) : null
  const changedMs = stat?.mtimeMs ?? 0
  // Nothing changed in tasks/ for RACY_MS before the listing began: these ids hold while the stamp does.
  const settled = stat !== null && began - changedMs >= RACY_MS
  if (fd === null) return {ids, stamp, changedMs, settled}
  let renamed = false
  try {
    const text = JSON.stringify({v: VERSION, stamp, count: ids.length})
    if (settled && ids.length >= KEEP_MIN && text.length < HEADER) {
      const header = Buffer.alloc(HEADER, 0x20)
      header.write(text)
      header[HEADER - 1] = 0x0a
      writeSync(fd, header)
      writeSync(fd, new Uint8Array(ids.buffer, ids.byteOffset, ids.length * 8))
      closeSync(fd)
      fd = null
      renameSync(temp, path.join(summaryDir(stateDir), FILE))
      renamed = true
      removeStaleTemps(stateDir, began)
    }
  } catch {
    // a full disk: the listing was made, only not kept
  } finally {
    if (fd !== null) closeSync(fd)
    if (!renamed) unlinkQuietly(temp)
  }
  return {ids, stamp, changedMs, settled}
}

/** Temp files of writers killed before their rename (`now` by the file system's clock). */
function removeStaleTemps(stateDir: string, now: number): void {
  const dir = summaryDir(stateDir)
  for (const name of readdirSync(dir)) {
    if (!name.startsWith(TEMP)) continue
    const file = path.join(dir, name)
    const stat = statSync(file, {throwIfNoEntry: false})
    if (stat && now - stat.mtimeMs > STALE_TEMP_MS) unlinkQuietly(file)
  }
}

function unlinkQuietly(file: string): void {
  try {
    unlinkSync(file)
  } catch {
    // gone already
  }
}
