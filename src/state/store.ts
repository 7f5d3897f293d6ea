// The state store: atomic record writes, id allocation, events and reading
// records (the names of things are layout.ts). It never decides a status (record.ts does)
// and never talks to processes (platform.ts does).

import {
  closeSync,
  constants as fsc,
  fstatSync,
  fsyncSync,
  lstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  rmdirSync,
  readFileSync,
  renameSync,
  statSync,
  unlinkSync,
  writeSync,
} from 'node:fs'
import path from 'node:path'
import {retryOnBusySync} from '../platform/platform.js'
import {DIR_MODE, FILE_MODE, listTaskIds, NOFOLLOW, taskDir, tasksDir, taskPaths, uniqueSuffix, type TaskPaths} from './layout.js'
import {readAt} from './index-format.js'
import {noteFolderMade} from './index-listing.js'
import {markLive} from './live-hint.js'
import {decodeRecord, encodeRecord, RecordError} from './record-codec.js'
import type {ProcessIdentity, TaskRecord} from './record.js'

export {DIR_MODE, FILE_MODE, listTaskIds, tasksDir, taskPaths, uniqueSuffix, worktreesDir, type TaskPaths} from './layout.js'

/**
 * A version-4 UUID, for a session id drover gives an agent (copilot). Not
 * node:crypto, for the runner's sake (see uniqueSuffix): an id that must be
 * unique among one user's sessions, not secret — 122 bits from Math.random.
 */
export function sessionUuid(): string {
  const hex = (bits: number) => Math.floor(Math.random() * 2 ** bits).toString(16).padStart(bits / 4, '0')
  const variant = (8 + Math.floor(Math.random() * 4)).toString(16)
  return `${hex(32)}-${hex(16)}-4${hex(12)}-${variant}${hex(12)}-${hex(24)}${hex(24)}`
}

/**
 * Write temp, fsync, rename: a reader sees the old file or the new one, never
 * half of one. The rename alone gives that to every reader while the machine
 * runs (a killed writer included: what write() took is in the page cache);
 * the fsync is for a power loss or a kernel crash, after which a renamed file
 * could be empty. Files that only describe or steer live processes —
 * runner.json, control, tree.json — mean nothing once such a crash has ended
 * every process, so they pass `durable: false` and skip the fsync, which on a
 * busy disk costs milliseconds each on the path of every `start`. Records
 * (task.json) and anything that must outlive a reboot keep it.
 */
export function writeFileAtomic(file: string, content: string | Buffer, opts: {durable?: boolean} = {}): void {
  const temp = path.join(path.dirname(file), `.${path.basename(file)}.${uniqueSuffix()}.tmp`)
  const fd = openSync(temp, fsc.O_WRONLY | fsc.O_CREAT | fsc.O_EXCL | NOFOLLOW, FILE_MODE)
  try {
    // writeSync may write less than asked (a nearly full disk): loop, or the
    // rename would publish a truncated record.
    const bytes = typeof content === 'string' ? Buffer.from(content) : content
    for (let done = 0; done < bytes.length; ) done += writeSync(fd, bytes, done)
    if (opts.durable !== false) fsyncSync(fd)
  } catch (error) {
    closeSync(fd)
    safeUnlink(temp)
    throw error
  }
  closeSync(fd)
  try {
    // On Windows a reader, indexer or scanner holding `file` open makes the
    // replace fail for a moment (EPERM/EBUSY): waited out, not a lost update.
    retryOnBusySync(() => renameSync(temp, file))
  } catch (error) {
    safeUnlink(temp)
    throw error
  }
}

export function safeUnlink(file: string): void {
  try {
    unlinkSync(file)
  } catch {
    // already gone: the goal is reached
  }
}

/** Size of a file, or null when it cannot be read (missing, no permission). */
export function fileSize(file: string): number | null {
  try {
    return statSync(file).size
  } catch {
    return null
  }
}

/** Reads a file we own, refusing to follow a symlink planted in its place. */
export function readOwnFile(file: string): string {
  // By path with the flag, not open + read(fd): Node then reads the file in one
  // native call, ~30 % faster across the thousands of records `list` reads.
  // (Node takes numeric open flags here, as for fs.open; its types only list strings.)
  // On Windows a process holding the file without sharing reads (a backup, a
  // scanner) makes the open fail for a moment: waited out, not "corrupt".
  return retryOnBusySync(() => readFileSync(file, {encoding: 'utf8', flag: (fsc.O_RDONLY | NOFOLLOW) as unknown as string}))
}

/**
 * The one way a record is written. The task's live hint is touched first: a
 * hinted record is always read, never taken from the derived index
 * (index.ts), so a record changed after it was indexed can never be
 * shown as it was — whoever writes it, and wherever the writer dies.
 */
export function writeRecord(stateDir: string, record: TaskRecord): void {
  markLive(stateDir, record.id)
  writeFileAtomic(taskPaths(stateDir, record.id).record, encodeRecord(record))
}

export type RecordRead =
  | {ok: true; id: number; record: TaskRecord}
  | {ok: false; id: number; missing: boolean; error: string; /** a record of a newer drover: whole, just not ours to read. */ newer?: true}

/** `dirChecked`: the caller has just seen the folder as a real directory (a readdir). */
export function readRecord(stateDir: string, id: number, opts: {dirChecked?: boolean} = {}): RecordRead {
  const dir = taskDir(stateDir, id)
  // A task folder planted as a symlink is not a task: O_NOFOLLOW guards only the
  // last path component, so reading (and later writing) through it must stop here.
  if (!opts.dirChecked && lstatSync(dir, {throwIfNoEntry: false})?.isSymbolicLink()) {
    return {ok: false, id, missing: true, error: 'the task folder is a symlink (refused)'}
  }
  let text: string
  try {
    text = readOwnFile(dir + path.sep + 'task.json')
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    if (code === 'ENOENT') return {ok: false, id, missing: true, error: 'task.json is missing'}
    if (code === 'ELOOP') return {ok: false, id, missing: false, error: 'task.json is a symlink (refused)'}
    return {ok: false, id, missing: false, error: `task.json cannot be read: ${(error as Error).message}`}
  }
  try {
    const record = decodeRecord(text)
    if (record.id !== id) return {ok: false, id, missing: false, error: `task.json names id ${record.id}, not ${id}`}
    return {ok: true, id, record}
  } catch (error) {
    if (error instanceof RecordError && error.newer) return {ok: false, id, missing: false, error: `task.json was ${error.message}`, newer: true}
    if (error instanceof RecordError) return {ok: false, id, missing: false, error: `task.json is corrupt: ${error.message}`}
    throw error
  }
}

// What `start` puts in a task folder before the record (createTaskLayout),
// all empty until the record exists; and the temp file of the record's write.
const PRE_RECORD_DIRS = new Set(['requests', 'session'])
const PRE_RECORD_FILES = new Set(['output.log', 'events.ndjson'])
const isRecordTemp = (name: string) => name.startsWith('.task.json.') && name.endsWith('.tmp')

/**
 * A folder `start` made and never wrote a record into — killed between
 * taking the id and writing task.json: nothing in it but the empty layout
 * made before the record. No task was ever reported, and nothing is lost by
 * removing it; a folder without a record that holds anything more (output,
 * events) is a damaged task instead, shown as corrupt.
 */
export function isAbandonedCreation(stateDir: string, id: number): boolean {
  const dir = taskDir(stateDir, id)
  try {
    for (const entry of readdirSync(dir, {withFileTypes: true})) {
      const inside = dir + path.sep + entry.name
      if (entry.isDirectory() && PRE_RECORD_DIRS.has(entry.name)) {
        if (readdirSync(inside).length > 0) return false
      } else if (entry.isFile() && (PRE_RECORD_FILES.has(entry.name) || isRecordTemp(entry.name))) {
        if (!isRecordTemp(entry.name) && statSync(inside).size > 0) return false
      } else {
        return false
      }
    }
    return true
  } catch {
    return false
  }
}

/** Whether a read found a task: a folder pruned between the listing and the read is gone, not corrupt. */
export const readFoundTask = (stateDir: string, read: RecordRead): boolean => read.ok || !read.missing || isRealTaskDir(stateDir, read.id)

export function readAllRecords(stateDir: string): RecordRead[] {
  return listTaskIds(stateDir)
    .map((id) => readRecord(stateDir, id, {dirChecked: true}))
    .filter((read) => readFoundTask(stateDir, read))
}

// The high-water mark survives prune. Every allocation appends its id to it
// before its task can have a record, and prune appends (under its lock) the
// highest id it is about to remove, so an id handed out is in the mark before
// its folder can go. Allocation starts from the mark — listing tasks/ costs
// tens of milliseconds at 10,000 tasks, on every start — and after its mkdir
// checks its id is not in the mark already: an allocator that stalled between
// the two (a stopped process) may find a fresh folder where, meanwhile, a task
// was created, ended and pruned.
const highWaterFile = (stateDir: string) => path.join(stateDir, 'last-id')

/** The bytes of last-id, or null when there is none. */
function markBytes(stateDir: string): Buffer | null {
  try {
    return readFileSync(highWaterFile(stateDir))
  } catch {
    return null
  }
}

/**
 * Each id in the mark's lines, in one pass over the bytes with no string per
 * line: at 100,000 tasks the mark has 100,000 lines, and splitting them cost
 * a fresh process (a start, a Tab of shell completion) tens of milliseconds.
 * A line of anything but digits is read as a string: trimmed, a safe positive
 * integer or nothing.
 */
function eachMark(bytes: Buffer, visit: (id: number) => void): void {
  let lineStart = 0
  let value = 0
  for (let i = 0; i <= bytes.length; i++) {
    const byte = i < bytes.length ? bytes[i] : 10
    if (byte >= 48 && byte <= 57) {
      value = value * 10 + (byte - 48)
      continue
    }
    if (byte !== 10) {
      // not a plain id: skip to the end of the line and read it as a string
      let end = bytes.indexOf(10, i)
      if (end === -1) end = bytes.length
      const text = bytes.toString('utf8', lineStart, end).trim()
      const n = Number(text)
      if (text !== '' && Number.isSafeInteger(n) && n > 0) visit(n)
      i = end
    } else if (i > lineStart && i - lineStart <= 15) {
      if (value > 0) visit(value) // at most 15 digits: exact, a safe integer
    } else if (i - lineStart > 15) {
      const n = Number(bytes.toString('utf8', lineStart, i))
      if (Number.isSafeInteger(n) && n > 0) visit(n)
    }
    lineStart = i + 1
    value = 0
  }
}

export function readHighWater(stateDir: string): number {
  let fd: number
  try {
    fd = openSync(highWaterFile(stateDir), 'r')
  } catch {
    return 0
  }
  try {
    // only the tail is read: at 100,000 tasks the mark is 589 KB
    const size = fstatSync(fd).size
    const from = Math.max(0, size - MARK_TAIL)
    return highestMark(readAt(fd, from, size - from), from > 0, () => markBytes(stateDir) ?? Buffer.alloc(0))
  } catch {
    return 0
  } finally {
    closeSync(fd)
  }
}

/** Whether the mark holds `id` (exactly: every line is searched), and then its highest id (every line read). */
function markHolds(stateDir: string, id: number): {holds: boolean; high: number} {
  const bytes = markBytes(stateDir)
  if (!bytes) return {holds: false, high: 0}
  const text = bytes.toString('latin1')
  if (plainMark(text)) {
    const holds = `\n${text}\n`.includes(`\n${id}\n`)
    return {holds, high: holds ? walkedHighest(bytes) : 0}
  }
  let holds = false
  let high = 0
  eachMark(bytes, (mark) => {
    if (mark === id) holds = true
    if (mark > high) high = mark
  })
  return {holds, high}
}

/** Lines of digits alone, none with a leading zero (as drover writes them): a longer line is a higher id. */
const plainMark = (text: string) => !/[^0-9\n]/.test(text) && !text.startsWith('0') && !text.includes('\n0')

/** How far back from its end a plain mark is read for its highest id (about 1,300 lines of 6 digits). */
const MARK_TAIL = 8 * 1024

/**
 * The highest id of the mark, from its last MARK_TAIL bytes (`tail`; `cut`:
 * the file goes on before them). Appends only raise it — an allocator appends
 * an id above the mark it read — so a line after the highest is lower only
 * when its allocator read the mark before the highest was appended: the
 * highest lies further back than the tail only if more than a thousand
 * allocations were under way at once and none has finished since. Nothing
 * depends on this being exact: an id is handed out only after a search of
 * every line says it never was (allocateTaskId, markHolds), a raise that
 * finds the mark lower appends a line it did not need, and an index segment
 * above it is set aside for that read. At 100,000 tasks the walk of every
 * byte of the mark (589 KB) ran cold two or three times in every start, and
 * reading it whole and splitting 64 KB of it cost a name lookup ~10 ms. A
 * mark edited by hand is walked whole.
 */
function highestMark(tail: Buffer, cut: boolean, whole: () => Buffer): number {
  let text = tail.toString('latin1')
  // a tail cut mid-file starts mid-line: that line is left out
  if (cut) text = text.slice(text.indexOf('\n') + 1)
  if (!plainMark(text)) return walkedHighest(whole())
  let high = 0
  for (const line of text.split('\n')) {
    // more than 15 digits may be past what a double holds exactly: the walk leaves such lines out
    if (line.length > 15) return walkedHighest(whole())
    const id = line === '' ? 0 : Number(line)
    if (id > high) high = id
  }
  return high
}

function walkedHighest(bytes: Buffer): number {
  let high = 0
  eachMark(bytes, (id) => (high = id > high ? id : high))
  return high
}

// The mark is the largest of the lines in last-id, and raising it appends a line
// (O_APPEND: short appends never interleave or get lost). A rewrite would let two
// raisers race and the smaller id win, lowering the mark; appends need no lock.
// It grows by one short line per task, no faster than tasks/ itself.
export function raiseHighWater(stateDir: string, id: number): void {
  if (readHighWater(stateDir) >= id) return
  appendMark(stateDir, id)
}

function appendMark(stateDir: string, id: number): void {
  const fd = openAppend(highWaterFile(stateDir))
  try {
    writeSync(fd, `${id}\n`)
  } finally {
    closeSync(fd)
  }
}

/**
 * `mkdir tasks/<n>` is atomic on every OS: on EEXIST another start won n, so
 * try n+1. Ids go up from the high-water mark; only a state dir without one
 * (new, or from before the mark) is listed to find its top.
 */
export function allocateTaskId(stateDir: string, stalled?: () => void): number {
  const mark = readHighWater(stateDir)
  let candidate = (mark > 0 ? mark : (listTaskIds(stateDir).at(-1) ?? 0)) + 1
  // tests: what other processes do while this one is stopped right here
  stalled?.()
  for (;;) {
    const dir = path.join(tasksDir(stateDir), String(candidate))
    // The hint comes before the folder: an index segment may already hold an
    // entry for this id (one from the future, its ids caught up with), and a
    // folder without a hint would let a reader take that entry for the task.
    markLive(stateDir, candidate)
    try {
      // noted for the kept listing of tasks/, so the next look need not list 100,000 folders again
      noteFolderMade(stateDir, candidate, () => mkdirSync(dir, {mode: DIR_MODE}))
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
      candidate += 1
      continue
    }
    const {holds, high} = markHolds(stateDir, candidate)
    if (!holds) break
    // Handed out (and pruned) while this allocator stalled: never used twice.
    rmdirSync(dir)
    candidate = Math.max(candidate, high) + 1
  }
  // Every id, even one below the mark (a racing allocator went past it): the
  // check above needs each id handed out to be there. Recorded at once, so the
  // id stays taken even if its folder is later removed by hand.
  appendMark(stateDir, candidate)
  return candidate
}

/** The task folder must be a real directory, never a symlink someone planted. */
export function isRealTaskDir(stateDir: string, id: number): boolean {
  try {
    return lstatSync(taskPaths(stateDir, id).dir).isDirectory()
  } catch {
    return false
  }
}

export function createTaskLayout(paths: TaskPaths): void {
  for (const dir of [paths.requests, paths.session]) mkdirSync(dir, {recursive: true, mode: DIR_MODE})
  for (const file of [paths.output, paths.events]) closeSync(openSync(file, fsc.O_WRONLY | fsc.O_CREAT | fsc.O_APPEND | NOFOLLOW, FILE_MODE))
}

export function openAppend(file: string): number {
  return openSync(file, fsc.O_WRONLY | fsc.O_CREAT | fsc.O_APPEND | NOFOLLOW, FILE_MODE)
}

export interface TaskEvent {
  event: string
  [key: string]: unknown
}

/** Events are single short lines appended with O_APPEND, so concurrent appends never interleave. */
export function appendEvent(paths: TaskPaths, event: TaskEvent): void {
  const line = JSON.stringify({ts: new Date().toISOString(), ...event}) + '\n'
  const fd = openAppend(paths.events)
  try {
    writeSync(fd, line)
  } finally {
    closeSync(fd)
  }
}

export function readEvents(paths: TaskPaths): TaskEvent[] {
  let text: string
  try {
    text = readOwnFile(paths.events)
  } catch {
    return []
  }
  const events: TaskEvent[] = []
  for (const line of text.split('\n')) {
    if (!line) continue
    try {
      const event = JSON.parse(line) as TaskEvent | null
      if (event !== null && typeof event === 'object' && typeof event.event === 'string') events.push(event)
    } catch {
      // a torn last line after a crash: skip it, keep the rest
    }
  }
  return events
}

/** runner.json: the runner's pid and start time, and its host when it runs on another one (a Slurm job). */
export type RunnerIdentity = ProcessIdentity & {host?: string}

/** The live runner of a task as runner.json names it (pid + start time), or null when there is none or it is unreadable. */
export function readRunnerIdentity(stateDir: string, id: number): RunnerIdentity | null {
  const file = taskPaths(stateDir, id).runner
  try {
    // Most tasks have none (a runner removes it last): found out without the
    // exception a failed open throws, which costs ten times the lookup —
    // prune asks twice for each of 10,000 ended tasks.
    if (lstatSync(file, {throwIfNoEntry: false}) === undefined) return null
    const identity = JSON.parse(readOwnFile(file)) as RunnerIdentity
    if (!Number.isSafeInteger(identity.pid) || typeof identity.startTime !== 'string') return null
    return typeof identity.host === 'string' ? {pid: identity.pid, startTime: identity.startTime, host: identity.host} : {pid: identity.pid, startTime: identity.startTime}
  } catch {
    return null
  }
}

/** The identities a runner kept in tree.json; only well-formed entries, [] when there is none. */
export function readTreeFile(paths: TaskPaths): ProcessIdentity[] {
  try {
    const list = JSON.parse(readOwnFile(paths.tree)) as unknown
    if (!Array.isArray(list)) return []
    return list.filter(
      (entry): entry is ProcessIdentity =>
        typeof entry === 'object' && entry !== null && Number.isSafeInteger(entry.pid) && entry.pid > 1 && typeof entry.startTime === 'string',
    )
  } catch {
    return []
  }
}
