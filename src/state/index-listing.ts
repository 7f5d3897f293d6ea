// tasks/ as last listed, kept in the index for the next process
// (index/listing, in the format of index-format.ts: the ids, no columns): at
// 100,000 tasks a listing of the folder is 75–90 ms, most of what the
// default `list` costs beyond the same list at 100; reading the kept ids is
// about a millisecond. A cache, never the truth:
//
// - it names the stamp of tasks/ it was listed at (identity, modification
//   and change times in ns, size) and is used only while tasks/ still has
//   that stamp — a task folder made, renamed or removed changes the folder's
//   modification time — or while the starts noted in its journal since lead
//   from that stamp to the stamp of now;
// - it is kept only when the listing began at least RACY_MS after the
//   folder's last change, by the file system's own clock (the time it gave a
//   probe file made before the listing began), never by this process's;
// - the stamp is read from the folder opened (close-to-open on a network
//   file system), where a folder can be opened.
//
// The journal (index/journal) is the index's one file of another format,
// because it is appended to: every `start` makes a folder in tasks/, which
// moves the folder's stamp, and without a note of it the first look after
// any start listed 100,000 folders again (75–110 ms). Rewriting the 800 KB
// listing at every start instead would cost more than the listing saves.
// A start appends `BEFORE AFTER +ID` (the stamps of tasks/ around its mkdir);
// a reader follows the lines from the kept stamp, each beginning where the
// one before ended, and the last must end at the stamp of now. Any break —
// a folder removed by hand, a prune (which notes nothing), interleaved
// writers, a line cut short — means a listing. Where the file system's clock
// is coarse, a change by hand in the same tick as a noted one with tasks/
// keeping its size could hide: the journal is bounded (MAX_JOURNAL), so such
// a miss lasts until the listing is made again. The journal belongs to one
// kept listing, which names its identity; starts only append to one there.
//
// A long-lived process (a watch, the dashboard's server, MCP's) keeps its
// own listing in memory (TasksListing) and lists again only when tasks/ may
// have changed.

import {closeSync, constants as fsc, fstatSync, openSync, readSync, renameSync, statSync, writeSync, type BigIntStats} from 'node:fs'
import path from 'node:path'
import {FILE_MODE, idsIn, indexDir, listed, lowerBound, NOFOLLOW, tasksDir, uniqueSuffix} from './layout.js'
import {ageByFileSystem, clockDir, removeLeftovers, unlinkQuietly} from './fs-clock.js'
import {packIndexFile, readIndexFile} from './index-format.js'

const LISTING = 'listing'
const JOURNAL = 'journal'
const TEMP = '.listing-'
const RACY_MS = 2000
/** A temp file older than this was left by a writer killed before its rename. */
const STALE_TEMP_MS = 10 * 60_000
/** Beyond this the journal is not followed: a listing is made, and kept anew when it may be. */
const MAX_JOURNAL = 256 * 1024

/** What a listing of tasks/ goes with: the folder's identity, modification and change times (ns) and size. */
const stampOf = (stat: BigIntStats) => `${stat.ino}:${stat.mtimeNs}:${stat.ctimeNs}:${stat.size}`
const msOf = (ns: bigint) => Number(ns) / 1e6
const journalPath = (stateDir: string) => path.join(indexDir(stateDir), JOURNAL)

/** tasks/'s stat, from the folder opened where a folder can be (not on Windows); null without tasks/. */
function tasksDirStat(stateDir: string): BigIntStats | null {
  const dir = tasksDir(stateDir)
  let fd: number
  try {
    fd = openSync(dir, 'r')
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null
    return statSync(dir, {bigint: true, throwIfNoEntry: false}) ?? null
  }
  try {
    return fstatSync(fd, {bigint: true})
  } finally {
    closeSync(fd)
  }
}

export function tasksStamp(stateDir: string): string | null {
  const stat = tasksDirStat(stateDir)
  return stat === null ? null : stampOf(stat)
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
  /** where the ids came from: the kept file alone, with its journal, or a listing now. */
  source: 'kept' | 'journal' | 'listed'
}

/** taskIdsKept with what the ids go with; `fresh` lists tasks/ whatever is kept (and keeps that listing when it may). */
export function listTasksKept(stateDir: string, opts: {fresh?: boolean} = {}): KeptListing {
  if (!opts.fresh) {
    const stat = tasksDirStat(stateDir)
    if (stat === null) return {ids: new Float64Array(0), stamp: null, changedMs: 0, settled: false, source: 'listed'}
    const now = stampOf(stat)
    const kept = readKept(stateDir)
    if (kept && kept.stamp === now) return {ids: kept.ids, stamp: now, changedMs: msOf(stat.mtimeNs), settled: true, source: 'kept'}
    // tasks/ changed since: by the starts the journal names, and nothing else?
    const added = kept ? journalledIds(stateDir, kept.journal, kept.stamp, now) : null
    if (added) return {ids: withIds(kept!.ids, added), stamp: now, changedMs: msOf(stat.mtimeNs), settled: true, source: 'journal'}
  }
  return listAndKeep(stateDir)
}

/** `ids` (ascending) with `added` in their places, once each: copied in runs, not id by id. */
function withIds(ids: Float64Array, added: number[]): Float64Array {
  const extra = [...new Set(added)].filter((id) => !listed(ids, id)).sort((a, b) => a - b)
  if (extra.length === 0) return ids
  const all = new Float64Array(ids.length + extra.length)
  let from = 0
  extra.forEach((id, k) => {
    const at = lowerBound(ids, id)
    all.set(ids.subarray(from, at), from + k)
    all[at + k] = id
    from = at
  })
  all.set(ids.subarray(from), from + extra.length)
  return all
}

function readKept(stateDir: string): {ids: Float64Array; stamp: string; journal: string} | null {
  const read = readIndexFile(path.join(indexDir(stateDir), LISTING), [], false)
  if (typeof read === 'string') return null
  const {stamp, journal, kind} = read.header
  return kind === 'listing' && typeof stamp === 'string' && typeof journal === 'string' ? {ids: read.ids, stamp, journal} : null
}

function listAndKeep(stateDir: string): KeptListing {
  const dir = indexDir(stateDir)
  // The probe comes first: the file system's time now, before the listing begins.
  const probe = path.join(dir, `${TEMP}${uniqueSuffix()}`)
  let began = Number.NEGATIVE_INFINITY
  try {
    const fd = openSync(probe, 'wx', FILE_MODE)
    began = fstatSync(fd).mtimeMs
    closeSync(fd)
  } catch {
    // no index/ yet, or a read-only state dir: listed, not kept
  }
  const stat = tasksDirStat(stateDir)
  const ids = idsIn(tasksDir(stateDir))
  const stamp = stat ? stampOf(stat) : null
  const changedMs = stat ? msOf(stat.mtimeNs) : 0
  // Nothing changed in tasks/ for RACY_MS before the listing began: these ids hold while the stamp does.
  const settled = stat !== null && began - changedMs >= RACY_MS
  try {
    // The journal the starts after this listing note themselves in: a new one, so no line of an older listing's is taken for this one's.
    const journal = settled && ids.length > 0 ? freshJournal(stateDir) : null
    if (journal !== null) {
      const bytes = packIndexFile({kind: 'listing', highWater: ids.length > 0 ? ids[ids.length - 1] : 0, stamp, journal}, ids, null, {})
      const fd = openSync(probe, fsc.O_WRONLY | NOFOLLOW)
      try {
        writeSync(fd, bytes)
      } finally {
        closeSync(fd)
      }
      renameSync(probe, path.join(dir, LISTING))
      removeLeftovers(dir, (name) => name.startsWith(TEMP), began, STALE_TEMP_MS)
    }
  } catch {
    // a full disk: the listing was made, only not kept
  } finally {
    unlinkQuietly(probe)
  }
  return {ids, stamp, changedMs, settled, source: 'listed'}
}

/** Puts a new, empty journal in place for a listing about to be kept; its identity, or null when it cannot. */
function freshJournal(stateDir: string): string | null {
  const temp = path.join(indexDir(stateDir), `${TEMP}j-${uniqueSuffix()}`)
  try {
    const fd = openSync(temp, 'wx', FILE_MODE)
    let ino: bigint
    try {
      ino = fstatSync(fd, {bigint: true}).ino
    } finally {
      closeSync(fd)
    }
    renameSync(temp, journalPath(stateDir))
    return String(ino)
  } catch {
    unlinkQuietly(temp)
    return null
  }
}

/** Makes task folder `id` with `make` (which throws when it cannot, EEXIST included) and notes the change when a kept listing has a journal. */
export function noteFolderMade(stateDir: string, id: number, make: () => void): void {
  const before = tasksStamp(stateDir)
  make()
  const after = tasksStamp(stateDir)
  if (before === null || after === null) return
  let fd: number
  try {
    // never created here: a journal exists only beside the kept listing it belongs to
    fd = openSync(journalPath(stateDir), fsc.O_WRONLY | fsc.O_APPEND | NOFOLLOW)
  } catch {
    return
  }
  try {
    // past the bound no reader follows it: a state dir whose tasks/ never stands still would grow it without end
    if (fstatSync(fd).size <= MAX_JOURNAL) writeSync(fd, `${before} ${after} +${id}\n`)
  } catch {
    // a full disk: the line is missing, so the chain breaks there and readers list tasks/
  } finally {
    closeSync(fd)
  }
}

/** The ids journal `journal` adds to a listing made at stamp `from`, when its lines lead from there to `to` without a break; else null. */
function journalledIds(stateDir: string, journal: string, from: string, to: string): number[] | null {
  let fd: number
  try {
    fd = openSync(journalPath(stateDir), fsc.O_RDONLY | NOFOLLOW)
  } catch {
    return null
  }
  let text: string
  try {
    const stat = fstatSync(fd, {bigint: true})
    if (String(stat.ino) !== journal || stat.size > BigInt(MAX_JOURNAL)) return null
    const bytes = Buffer.allocUnsafe(Number(stat.size))
    let got = 0
    for (let n = 1; got < bytes.length && n > 0; got += n) n = readSync(fd, bytes, got, bytes.length - got, got)
    text = bytes.toString('utf8', 0, got)
  } catch {
    return null
  } finally {
    closeSync(fd)
  }
  const ids: number[] = []
  let at = from
  // a last line without its newline is one being written, or cut short: the chain ends before it
  for (let start = 0, end = text.indexOf('\n'); end !== -1; start = end + 1, end = text.indexOf('\n', start)) {
    const [before, after, change] = text.slice(start, end).split(' ')
    if (before !== at || after === undefined || !/^\+[1-9][0-9]*$/.test(change ?? '')) return null
    at = after
    ids.push(Number(change!.slice(1)))
  }
  return at === to ? ids : null
}

/**
 * A long-lived process's listing: reused while tasks/ keeps its stamp —
 * unless it was made so soon after a change that a second change in the
 * same tick of a coarse clock could hide behind the same time: trusted when
 * the kept rule says so, or when the file system's clock puts the change
 * RACY_MS back.
 */
export class TasksListing {
  private listing: {ids: Float64Array; stamp: string; trusted: boolean} | null = null
  constructor(private readonly stateDir: string) {}
  /** The ids in tasks/, ascending; `relisted` false when they are the last listing's. `fresh` lists the folder itself. */
  ids(fresh = false): {ids: Float64Array; relisted: boolean} {
    if (!fresh && this.listing?.trusted && this.listing.stamp === tasksStamp(this.stateDir)) return {ids: this.listing.ids, relisted: false}
    const {ids, stamp, changedMs, settled} = listTasksKept(this.stateDir, {fresh})
    this.listing = stamp === null ? null : {ids, stamp, trusted: settled || ageByFileSystem(changedMs, clockDir(this.stateDir)) >= RACY_MS}
    return {ids, relisted: true}
  }
}
