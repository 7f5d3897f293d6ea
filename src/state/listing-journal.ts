// Keeps the kept listing of tasks/ (kept-listing.ts) good across drover's own
// starts. Every `start` makes a folder in tasks/, which moves the folder's
// stamp; without this, the first look after any start listed 100,000 folders
// again (75–110 ms), so in a state dir where tasks keep starting the bounded
// views cost 1.7–2× what they cost at 100 tasks.
//
// A writer that makes a task folder notes it here: the stamp of tasks/ just
// before its change, the stamp just after, and the id, one line appended with
// O_APPEND after the change. A reader holding a kept listing at stamp S
// follows the lines from S: each must begin at the stamp the one before it
// ended at, and the last must end at the stamp tasks/ has now. Then the
// listing plus those ids is tasks/ as it is; any break means a listing, as
// without the journal. So nothing here is trusted on its own word:
//
// - a change nobody noted — a folder removed by hand, a prune (which does not
//   note its renames), a writer killed between its change and its line —
//   moves the stamp without a line: the next line cannot begin where the
//   last one ended, or the last cannot end at the stamp of now;
// - two writers whose changes and lines interleave leave lines that do not
//   follow one another: a listing;
// - a line cut short (a reader racing an append, a full disk) ends the chain
//   there: a listing.
//
// The stamps carry nanoseconds and the change time. Where the file system
// gives a change made right after a stat a time of its own (Linux 6.13+ on
// ext4, xfs, btrfs and tmpfs; APFS, NTFS), a change nobody noted always moves
// the stamp. Where its clock is coarse, one noted change and a change by hand
// inside the same tick of that clock, with tasks/ keeping its size, would
// look like the noted one alone: the window is the few microseconds between a
// writer's change and its second stat. The journal is bounded (MAX_BYTES:
// readers follow no further, and starts write no more), so such a miss lasts
// until the listing is made again.
//
// The journal belongs to one kept listing: the writer of a new listing puts
// an empty journal in place (a new file, renamed in) and names its identity
// in the listing's header. Writers only ever append to a journal that is
// there; without a kept listing there is none, and a start writes nothing.

import {closeSync, constants as fsc, fstatSync, openSync, readSync, renameSync, statSync, unlinkSync, writeSync, type BigIntStats} from 'node:fs'
import path from 'node:path'
import {FILE_MODE, NOFOLLOW, summaryDir, tasksDir, uniqueSuffix} from './layout.js'

const FILE = 'listing.journal'
/** Beyond this the chain is not followed: a listing is made, and kept anew when it may be. */
const MAX_BYTES = 256 * 1024

/** What a listing of tasks/ goes with: the folder's identity, modification and change times (ns) and size. */
export const stampOf = (stat: BigIntStats) => `${stat.ino}:${stat.mtimeNs}:${stat.ctimeNs}:${stat.size}`

/** tasks/'s stat, from the folder opened where a folder can be (not on Windows); null without tasks/. */
export function tasksDirStat(stateDir: string): BigIntStats | null {
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

export const tasksStamp = (stateDir: string): string | null => {
  const stat = tasksDirStat(stateDir)
  return stat === null ? null : stampOf(stat)
}

const journalPath = (stateDir: string) => path.join(summaryDir(stateDir), FILE)

/**
 * Makes task folder `id` with `make` (which throws when it cannot, EEXIST
 * included) and notes the change when a kept listing has a journal.
 */
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
    // past the bound no reader follows it: a state dir whose tasks/ never stands still long enough for
    // a listing to be kept anew (which starts an empty journal) would otherwise grow it without end
    if (fstatSync(fd).size <= MAX_BYTES) writeSync(fd, `${before} ${after} +${id}\n`)
  } catch {
    // a full disk: the line is missing, so the chain breaks there and readers list tasks/
  } finally {
    closeSync(fd)
  }
}

/**
 * Puts a new, empty journal in place for a listing about to be kept, and
 * returns its identity (for the listing's header), or null when it cannot.
 * `tempPrefix` names the temp file so the kept listing's sweep of files left
 * by killed writers clears it too.
 */
export function freshJournal(stateDir: string, tempPrefix: string): string | null {
  const temp = path.join(summaryDir(stateDir), `${tempPrefix}j-${uniqueSuffix()}`)
  let fd: number | null = null
  try {
    fd = openSync(temp, 'wx', FILE_MODE)
    const ino = fstatSync(fd, {bigint: true}).ino
    closeSync(fd)
    fd = null
    renameSync(temp, journalPath(stateDir))
    return String(ino)
  } catch {
    if (fd !== null) closeSync(fd)
    try {
      unlinkSync(temp)
    } catch {
      // never made, or renamed in
    }
    return null
  }
}

/**
 * The ids the journal `journal` (an identity from freshJournal) adds to a
 * listing made at stamp `from`, when its lines lead from there to stamp `to`
 * without a break; null when they do not, or the journal is gone, replaced,
 * too long or unreadable.
 */
export function journalledIds(stateDir: string, journal: string, from: string, to: string): number[] | null {
  let fd: number
  try {
    fd = openSync(journalPath(stateDir), fsc.O_RDONLY | NOFOLLOW)
  } catch {
    return null
  }
  let text: string
  try {
    const stat = fstatSync(fd, {bigint: true})
    if (String(stat.ino) !== journal || stat.size > BigInt(MAX_BYTES)) return null
    const bytes = Buffer.allocUnsafe(Number(stat.size))
    let got = 0
    while (got < bytes.length) {
      const n = readSync(fd, bytes, got, bytes.length - got, got)
      if (n === 0) break
      got += n
    }
    text = bytes.toString('utf8', 0, got)
  } catch {
    return null
  } finally {
    closeSync(fd)
  }
  const ids: number[] = []
  let at = from
  let start = 0
  for (;;) {
    const end = text.indexOf('\n', start)
    // a line without its newline is one being written, or cut short: the chain ends before it
    if (end === -1) break
    const [before, after, change] = text.slice(start, end).split(' ')
    start = end + 1
    if (before !== at || after === undefined || !/^\+[1-9][0-9]*$/.test(change ?? '')) return null
    at = after
    ids.push(Number(change!.slice(1)))
  }
  return at === to ? ids : null
}
