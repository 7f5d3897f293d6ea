// tasks/ as last listed, kept for the next process: at 100,000 tasks a
// listing of the folder is 75–90 ms, most of what the default `list` costs
// beyond the same list at 100; reading the ids kept here is about a
// millisecond. Like the summary beside it, it is a cache and never the truth:
//
// - it names the stamp of tasks/ it was listed at (identity, modification
//   and change times, size), and is used only while tasks/ still has that
//   stamp — a task folder made, renamed or removed changes the folder's
//   modification time — or while the starts noted in its journal since lead
//   from that stamp to the stamp of now (listing-journal.ts);
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

import {closeSync, fstatSync, openSync, readFileSync, renameSync, writeSync} from 'node:fs'
import path from 'node:path'
import {FILE_MODE, idsIn, listed, lowerBound, summaryDir, tasksDir, uniqueSuffix} from './layout.js'
import {freshJournal, journalledIds, stampOf, tasksDirStat} from './listing-journal.js'
import {removeLeftovers, unlinkQuietly} from './fs-clock.js'

const FILE = 'listing.bin'
const TEMP = '.listing-'
const RACY_MS = 2000
/**
 * Kept at any size: with the journal a start keeps it current for two stats
 * and one appended line, and reading it costs no more than listing even a
 * handful of folders (at 100 tasks, medians of 40: the default list 133 ms
 * kept, 131 listed; list --json 131 and 132 — the noise). An empty tasks/ is
 * not worth a file.
 */
const KEEP_MIN = 1
/** The header: a line of JSON padded to this length, so the ids after it are aligned for a Float64Array. */
const HEADER = 256
const VERSION = 2
/** A temp file older than this was left by a writer killed before its rename. */
const STALE_TEMP_MS = 10 * 60_000

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
  /** where the ids came from: the kept file alone, the kept file and its journal (listing-journal.ts), or a listing now. */
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
    const added = kept?.journal ? journalledIds(stateDir, kept.journal, kept.stamp, now) : null
    if (added) return {ids: withIds(kept!.ids, added), stamp: now, changedMs: msOf(stat.mtimeNs), settled: true, source: 'journal'}
  }
  return listAndKeep(stateDir, tasksDir(stateDir))
}

const msOf = (ns: bigint) => Number(ns) / 1e6

/** `ids` (ascending) with `added` in their places, once each: copied in runs, not id by id (100,000 of them). */
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

function readKept(stateDir: string): {ids: Float64Array; stamp: string; journal: string | null} | null {
  let bytes: Buffer
  try {
    bytes = readFileSync(path.join(summaryDir(stateDir), FILE))
  } catch {
    return null
  }
  if (bytes.length < HEADER) return null
  let header: {v?: unknown; stamp?: unknown; count?: unknown; journal?: unknown}
  try {
    header = JSON.parse(bytes.toString('utf8', 0, HEADER))
  } catch {
    return null
  }
  const {stamp, count, journal} = header
  if (header.v !== VERSION || typeof stamp !== 'string' || typeof count !== 'number' || bytes.length !== HEADER + count * 8) return null
  // aligned where the read gave the file its own memory; else a copy
  const at = bytes.byteOffset + HEADER
  const ids = at % 8 === 0 ? new Float64Array(bytes.buffer, at, count) : new Float64Array(bytes.buffer.slice(at, at + count * 8))
  return {ids, stamp, journal: typeof journal === 'string' ? journal : null}
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
  const stat = tasksDirStat(stateDir)
  const ids = idsIn(dir)
  const stamp = stat ? stampOf(stat) : null
  const changedMs = stat ? msOf(stat.mtimeNs) : 0
  // Nothing changed in tasks/ for RACY_MS before the listing began: these ids hold while the stamp does.
  const settled = stat !== null && began - changedMs >= RACY_MS
  const listing = {ids, stamp, changedMs, settled, source: 'listed' as const}
  if (fd === null) return listing
  let renamed = false
  try {
    // The journal the starts after this listing note themselves in: a new one, so no line of an older listing's is taken for this one's.
    const journal = settled && ids.length >= KEEP_MIN ? freshJournal(stateDir, TEMP) : null
    const text = JSON.stringify({v: VERSION, stamp, count: ids.length, journal})
    if (journal !== null && text.length < HEADER) {
      const header = Buffer.alloc(HEADER, 0x20)
      header.write(text)
      header[HEADER - 1] = 0x0a
      writeSync(fd, header)
      writeSync(fd, new Uint8Array(ids.buffer, ids.byteOffset, ids.length * 8))
      closeSync(fd)
      fd = null
      renameSync(temp, path.join(summaryDir(stateDir), FILE))
      renamed = true
      removeLeftovers(summaryDir(stateDir), TEMP, began, STALE_TEMP_MS)
    }
  } catch {
    // a full disk: the listing was made, only not kept
  } finally {
    if (fd !== null) closeSync(fd)
    if (!renamed) unlinkQuietly(temp)
  }
  return listing
}

