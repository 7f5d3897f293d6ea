// The state store: task folders, their paths, atomic record writes, id
// allocation, events and listing. It never decides a status (record.ts does)
// and never talks to processes (platform.ts does).

import {
  closeSync,
  constants as fsc,
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
import {decodeRecord, encodeRecord, RecordError} from './record-codec.js'
import type {ProcessIdentity, TaskRecord} from './record.js'

// O_NOFOLLOW makes every open refuse a symlink planted in place of one of our
// files; Windows has no such flag (and no unprivileged symlinks), hence `?? 0`.
const NOFOLLOW = fsc.O_NOFOLLOW ?? 0
export const FILE_MODE = 0o600
export const DIR_MODE = 0o700

export interface TaskPaths {
  dir: string
  record: string
  output: string
  events: string
  control: string
  requests: string
  session: string
  runner: string
  runnerLog: string
  /** claude's `--settings` file with drover's drain hook (written at each launch). */
  agentSettings: string
  /**
   * The worker's descendants the runner has seen (pid + start time), kept as
   * they appear: when runner and worker both vanish, what they left behind
   * can still be found and stopped before the task is recorded lost.
   */
  tree: string
}

// The tasks dir of the last state dir asked for: every command uses one state
// dir, and path.join's normalising was a fifth of `list` at 10,000 tasks.
let tasksDirMemo: {stateDir: string; tasks: string} | null = null

export function tasksDir(stateDir: string): string {
  if (tasksDirMemo?.stateDir !== stateDir) tasksDirMemo = {stateDir, tasks: path.join(stateDir, 'tasks')}
  return tasksDirMemo.tasks
}

/** Where `start --worktree` puts the tasks' git worktrees: beside tasks/, never inside a repository. */
export const worktreesDir = (stateDir: string) => path.join(stateDir, 'worktrees')

const taskDir = (stateDir: string, id: number) => tasksDir(stateDir) + path.sep + id

export function taskPaths(stateDir: string, id: number): TaskPaths {
  const dir = taskDir(stateDir, id)
  const at = (name: string) => dir + path.sep + name
  return {
    dir,
    record: at('task.json'),
    output: at('output.log'),
    events: at('events.ndjson'),
    control: at('control'),
    requests: at('requests'),
    session: at('session'),
    runner: at('runner.json'),
    runnerLog: at('runner.log'),
    agentSettings: at('claude-settings.json'),
    tree: at('tree.json'),
  }
}

let uniqueCounter = 0
/**
 * A name part no other writer uses at the same time: pid + time + a counter.
 * Not node:crypto — loading it costs the runner ~2 MB of RSS per live task.
 */
export function uniqueSuffix(): string {
  uniqueCounter += 1
  return `${process.pid}-${Date.now().toString(36)}-${uniqueCounter.toString(36)}${Math.floor(Math.random() * 0xffff).toString(36)}`
}

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
export function writeFileAtomic(file: string, content: string, opts: {durable?: boolean} = {}): void {
  const temp = path.join(path.dirname(file), `.${path.basename(file)}.${uniqueSuffix()}.tmp`)
  const fd = openSync(temp, fsc.O_WRONLY | fsc.O_CREAT | fsc.O_EXCL | NOFOLLOW, FILE_MODE)
  try {
    // writeSync may write less than asked (a nearly full disk): loop, or the
    // rename would publish a truncated record.
    const bytes = Buffer.from(content)
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

export function writeRecord(stateDir: string, record: TaskRecord): void {
  writeFileAtomic(taskPaths(stateDir, record.id).record, encodeRecord(record))
}

export type RecordRead =
  | {ok: true; id: number; record: TaskRecord}
  | {ok: false; id: number; missing: boolean; error: string}

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

/** Ids of the task folders present, ascending. Dot entries (temp, trash) and symlinks are not tasks. */
export function listTaskIds(stateDir: string): number[] {
  let entries
  try {
    entries = readdirSync(tasksDir(stateDir), {withFileTypes: true})
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return []
    throw error
  }
  const ids: number[] = []
  for (const entry of entries) {
    if (!entry.isDirectory() || !/^[1-9][0-9]*$/.test(entry.name)) continue
    ids.push(Number(entry.name))
  }
  return ids.sort((a, b) => a - b)
}

export function readAllRecords(stateDir: string): RecordRead[] {
  // A folder pruned between the listing and the read is gone, not corrupt.
  return listTaskIds(stateDir)
    .map((id) => readRecord(stateDir, id, {dirChecked: true}))
    .filter((read) => read.ok || !read.missing || isRealTaskDir(stateDir, read.id))
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

function readMarks(stateDir: string): number[] {
  let text: string
  try {
    text = readFileSync(highWaterFile(stateDir), 'utf8')
  } catch {
    return []
  }
  const marks: number[] = []
  for (const line of text.split('\n')) {
    const n = Number(line.trim())
    if (line.trim() !== '' && Number.isSafeInteger(n) && n > 0) marks.push(n)
  }
  return marks
}

export function readHighWater(stateDir: string): number {
  let high = 0
  for (const n of readMarks(stateDir)) if (n > high) high = n
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
    try {
      mkdirSync(dir, {mode: DIR_MODE})
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
      candidate += 1
      continue
    }
    const marks = readMarks(stateDir)
    if (!marks.includes(candidate)) break
    // Handed out (and pruned) while this allocator stalled: never used twice.
    rmdirSync(dir)
    candidate = Math.max(candidate, ...marks) + 1
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
