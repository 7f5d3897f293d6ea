// Every process.platform branch of drover lives here: process identity (pid + OS start time),
// descendant snapshots, group/identity signalling, worker spawn options and tree removal.
// The detached runner imports this module, so it may import Node builtins only.

import {execFileSync} from 'node:child_process'
import {accessSync, constants as fsConstants, readFileSync, readdirSync, statfsSync, statSync} from 'node:fs'
import path from 'node:path'
import {constants as osConstants} from 'node:os'

export type OsName = 'linux' | 'darwin' | 'win32' | (string & {})
/**
 * Runs an external program synchronously and returns its stdout; throws if it fails
 * (like execFileSync, the error carries the exit code in `status`).
 * Injected in tests for the platforms we cannot run.
 */
export type CommandRunner = (file: string, args: string[]) => string
export interface PlatformContext {
  os: OsName
  run: CommandRunner
  /**
   * Whether a process with this pid exists (kill(pid, 0)). Injected in tests
   * of a faked platform; without it a faked platform's pids are taken to
   * exist, and the real OS is asked only when the context is the real one.
   */
  exists?: (pid: number) => boolean
  /** Ends a process at once (TerminateProcess/SIGKILL); injected with `exists` in tests of a faked platform. */
  terminate?: (pid: number) => boolean
}
export interface ProcessIdentity {
  pid: number
  startTime: string
}
export type StopSignal = 'SIGTERM' | 'SIGKILL' | 'SIGINT' | 'SIGHUP'
/** What drover sends to a process: a stop, or SIGCONT to wake one that was frozen (SIGSTOP). */
export type ProcessSignal = StopSignal | 'SIGCONT'

const runCommand: CommandRunner = (file, args) =>
  execFileSync(file, args, {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'ignore'],
    // LC_ALL=C: ps prints lstart in the C locale, so the recorded string never depends on the user's locale.
    env: {...process.env, LC_ALL: 'C'},
    windowsHide: true,
    // A hung ps/PowerShell must not wedge the runner's stop sequence.
    timeout: 10_000,
  })

/** Whether a context asks this machine (tests inject their own runner to fake another OS, or this one). */
const isRealContext = (ctx: PlatformContext): boolean => ctx.run === runCommand && ctx.os === process.platform

export function currentPlatform(): PlatformContext {
  return {os: process.platform, run: runCommand}
}

// pid 0 and negative pids mean "my group" / "every process" to kill(2): never let one through.
const isValidPid = (pid: number): boolean => Number.isSafeInteger(pid) && pid > 0

/** Windows has no zombies; Linux marks them Z (and X while being torn down). */
const isDeadState = (state: string): boolean => state === 'Z' || state === 'X' || state === 'x'

interface LinuxStat {
  state: string
  ppid: number
  pgrp: number
  session: number
  startTime: string
}

/** Parse /proc/<pid>/stat. comm (field 2) may contain spaces and ')', so split after the LAST ')'. */
function readLinuxStat(pid: number): LinuxStat | null {
  let text: string
  const file = `/proc/${pid}/stat`
  try {
    // A pid long gone (a lost task's worker, asked by prune for thousands): no exception to build.
    if (statSync(file, {throwIfNoEntry: false}) === undefined) return null
    text = readFileSync(file, 'utf8')
  } catch {
    return null // gone, or vanished between readdir and read
  }
  const close = text.lastIndexOf(')')
  if (close < 0) return null
  // After the split: [0] state (field 3), [1] ppid (field 4) … [19] starttime (field 22).
  const fields = text.slice(close + 2).trim().split(' ')
  if (fields.length < 20) return null
  return {state: fields[0], ppid: Number(fields[1]), pgrp: Number(fields[2]), session: Number(fields[3]), startTime: fields[19]}
}

let childrenFiles: boolean | null = null

/** Whether the kernel lists each thread's children (/proc/<pid>/task/<tid>/children, Linux 3.5+ with CONFIG_PROC_CHILDREN). */
function linuxHasChildrenFiles(): boolean {
  if (childrenFiles === null) {
    try {
      readFileSync(`/proc/${process.pid}/task/${process.pid}/children`, 'utf8')
      childrenFiles = true
    } catch {
      childrenFiles = false
    }
  }
  return childrenFiles
}

/**
 * The tree walked down from the root through each thread's children file: a
 * few small reads for a small tree, where scanning every process of the
 * machine costs the runner time and memory each second. Every thread is read,
 * since a multi-threaded program (codex, claude) may fork from any of them.
 */
function linuxDescendantsByChildrenFiles(rootPid: number, prune?: (pid: number) => boolean): ProcessIdentity[] {
  const result: ProcessIdentity[] = []
  const seen = new Set<number>([rootPid])
  const queue = [rootPid]
  while (queue.length > 0) {
    const parent = queue.shift()!
    let threads: string[]
    try {
      threads = readdirSync(`/proc/${parent}/task`)
    } catch {
      continue // gone meanwhile
    }
    for (const tid of threads) {
      let listed: string
      try {
        listed = readFileSync(`/proc/${parent}/task/${tid}/children`, 'utf8')
      } catch {
        continue
      }
      for (const word of listed.split(' ')) {
        const pid = Number(word)
        if (!isValidPid(pid) || seen.has(pid)) continue
        seen.add(pid)
        if (prune?.(pid)) continue
        queue.push(pid)
        const stat = readLinuxStat(pid)
        if (stat && !isDeadState(stat.state)) result.push({pid, startTime: stat.startTime})
      }
    }
  }
  return result
}

/** Every process's /proc/<pid>/stat (those that vanish while being read are skipped). */
function linuxProcessTable(): Array<[number, LinuxStat]> {
  let names: string[]
  try {
    names = readdirSync('/proc')
  } catch {
    return []
  }
  const table: Array<[number, LinuxStat]> = []
  for (const name of names) {
    if (!/^\d+$/.test(name)) continue
    const stat = readLinuxStat(Number(name))
    if (stat) table.push([Number(name), stat])
  }
  return table
}

// PowerShell (Windows) reports start times from CIM in both places, so a snapshot entry and a
// later identity check compare equal: Get-Process's StartTime has finer precision than CIM's
// CreationDate. Single quotes only: double quotes would need escaping across CreateProcess.
const winStartTimeScript = (pid: number) =>
  `(Get-CimInstance Win32_Process -Filter 'ProcessId=${pid}' -ErrorAction Stop).CreationDate.ToFileTimeUtc()`
const winProcessListScript =
  "Get-CimInstance Win32_Process | ForEach-Object { if ($_.CreationDate) { '{0} {1} {2}' -f $_.ProcessId, $_.ParentProcessId, $_.CreationDate.ToFileTimeUtc() } }"
const powershell = (ctx: PlatformContext, script: string) =>
  ctx.run('powershell.exe', ['-NoProfile', '-NonInteractive', '-Command', script])

/**
 * Whether a process with this pid exists, without starting any program:
 * kill(pid, 0) — on Windows libuv opens the process and reads its exit code,
 * so a process that ended is absent even while someone still holds its handle.
 * EPERM (someone else's process) exists. Says nothing of who the process is.
 */
export function pidExists(pid: number, ctx: PlatformContext = currentPlatform()): boolean {
  if (!isValidPid(pid)) return false
  if (ctx.exists) return ctx.exists(pid)
  if (!isRealContext(ctx)) return true // a faked platform: its pids name nothing here
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return (error as NodeJS.ErrnoException).code !== 'ESRCH'
  }
}

// This process's own start time never changes: on Windows it is learnt from
// a process table read for another reason (processTable), never asked alone;
// on Linux it is kept from its first read.
let selfStart: string | null = null

/** This process's start time if a process table read for another reason named it (Windows), else null. */
export function knownSelfStartTime(): string | null {
  return selfStart
}

/**
 * What a recorded identity is now: the very process ('same'), another that
 * took its pid ('other'), no process at all ('gone'), or 'unknown' — a pid
 * that exists but whose start time could not be read (on Windows, PowerShell
 * failed, timed out or is missing; or the identity itself was recorded
 * without one). Callers never signal an 'unknown' process, and never declare
 * its owner dead on that answer alone. On Windows a pid that no longer exists
 * is found without starting any program.
 */
export type IdentityState = 'same' | 'other' | 'gone' | 'unknown'

export function identityState(identity: ProcessIdentity, ctx: PlatformContext = currentPlatform()): IdentityState {
  if (!isValidPid(identity.pid)) return 'gone'
  if (ctx.os !== 'win32') {
    const now = processStartTime(identity.pid, ctx)
    return now === null ? 'gone' : now === identity.startTime ? 'same' : 'other'
  }
  if (!pidExists(identity.pid, ctx)) return 'gone'
  if (!/^\d+$/.test(identity.startTime)) return 'unknown'
  const now = processStartTime(identity.pid, ctx)
  return now === null ? 'unknown' : now === identity.startTime ? 'same' : 'other'
}

/** OS-reported start time of pid, as an opaque string compared verbatim; null when no such process or it is a zombie/dead. Never throws. */
export function processStartTime(pid: number, ctx: PlatformContext = currentPlatform()): string | null {
  if (!isValidPid(pid)) return null
  if (pid === process.pid && selfStart !== null && isRealContext(ctx)) return selfStart
  try {
    if (ctx.os === 'linux') {
      const stat = readLinuxStat(pid)
      const startTime = stat && !isDeadState(stat.state) && /^\d+$/.test(stat.startTime) ? stat.startTime : null
      // Our own is read once: every lock taken writes it (prune takes one per task).
      if (pid === process.pid && startTime !== null && isRealContext(ctx)) selfStart = startTime
      return startTime
    }
    if (ctx.os === 'win32') {
      const out = powershell(ctx, winStartTimeScript(pid)).trim()
      return /^\d+$/.test(out) ? out : null
    }
    // macOS and other Unixes: BSD-style ps. Separate -o flags: BSD and procps disagree on "a=,b=".
    const out = ctx.run('ps', ['-o', 'stat=', '-o', 'lstart=', '-p', String(pid)]).trim()
    const match = /^(\S+)\s+(.+)$/.exec(out)
    if (!match || match[1].startsWith('Z')) return null
    return match[2].trim()
  } catch {
    return null // ps exits non-zero for an unknown pid; PowerShell errors likewise
  }
}

/**
 * Whether start time `a` is no earlier than `b`, both as processStartTime
 * gives them (clock ticks since boot on Linux, FILETIME on Windows, ps's
 * date on macOS). Unknown or mixed forms compare as false: a caller deciding
 * whether a process is ours must not guess.
 */
export function startedNoEarlierThan(a: string, b: string): boolean {
  if (/^\d+$/.test(a) && /^\d+$/.test(b)) return BigInt(a) >= BigInt(b)
  if (/^\d+$/.test(a) || /^\d+$/.test(b)) return false
  const [ta, tb] = [Date.parse(a), Date.parse(b)]
  return Number.isFinite(ta) && Number.isFinite(tb) && ta >= tb
}

export function isProcessAlive(pid: number, ctx: PlatformContext = currentPlatform()): boolean {
  return processStartTime(pid, ctx) !== null
}

/** True when the process with this pid is the very one recorded (pid + start time). */
export function isSameProcess(identity: ProcessIdentity, ctx: PlatformContext = currentPlatform()): boolean {
  return identityState(identity, ctx) === 'same'
}

/** pid → parent pid and start time of every live process, read at once. */
export type ProcessTable = Map<number, {ppid: number; startTime: string}>

/**
 * Windows: every process from one CIM query (one PowerShell start), so that
 * many identities — a whole tree — are checked for the price of one; this
 * process's own start time is noted from it on the way. null when the query
 * failed or answered nothing usable (then nothing may be concluded from it),
 * and on the other systems, whose per-pid reads are cheap.
 */
export function processTable(ctx: PlatformContext = currentPlatform()): ProcessTable | null {
  if (ctx.os !== 'win32') return null
  let out: string
  try {
    out = powershell(ctx, winProcessListScript)
  } catch {
    return null
  }
  const table: ProcessTable = new Map()
  for (const line of out.split(/\r?\n/)) {
    const m = /^\s*(\d+)\s+(\d+)\s+(\d+)\s*$/.exec(line)
    if (m) table.set(Number(m[1]), {ppid: Number(m[2]), startTime: m[3]})
  }
  // A real table lists at least the process that asked.
  if (table.size === 0) return null
  const self = table.get(process.pid)
  if (self && isRealContext(ctx)) selfStart ??= self.startTime
  return table
}

/** The identity's state as a table read at one moment shows it ('unknown' without a table). */
export function identityInTable(identity: ProcessIdentity, table: ProcessTable | null): IdentityState {
  if (table === null) return 'unknown'
  const row = table.get(identity.pid)
  return row === undefined ? 'gone' : row.startTime === identity.startTime ? 'same' : 'other'
}

/**
 * Descendants of rootPid in a table. Windows never re-parents: a
 * ParentProcessId may name a dead parent whose pid was recycled. A real child
 * cannot predate its parent, so links from older processes are dropped, and a
 * root that is gone has no provable descendants at all.
 */
export function descendantsInTable(rootPid: number, table: ProcessTable): ProcessIdentity[] {
  const children = new Map<number, number[]>()
  for (const [pid, {ppid, startTime}] of table) {
    const parent = table.get(ppid)
    if (pid === ppid || parent === undefined || BigInt(startTime) < BigInt(parent.startTime)) continue
    const list = children.get(ppid)
    if (list) list.push(pid)
    else children.set(ppid, [pid])
  }
  const result: ProcessIdentity[] = []
  const seen = new Set<number>([rootPid])
  const queue = table.has(rootPid) ? [rootPid] : []
  while (queue.length > 0) {
    for (const pid of children.get(queue.shift()!) ?? []) {
      if (seen.has(pid)) continue
      seen.add(pid)
      queue.push(pid)
      result.push({pid, startTime: table.get(pid)!.startTime})
    }
  }
  return result
}

/**
 * Ends one process at once without starting any program: TerminateProcess on
 * Windows (what taskkill /F does), SIGKILL elsewhere. Only for a pid whose
 * identity the caller has just confirmed (a table read this moment, or its
 * own child, whose pid cannot be reused while the caller holds its handle).
 * False when it was already gone.
 */
export function terminateConfirmed(identity: ProcessIdentity, ctx: PlatformContext = currentPlatform()): boolean {
  if (!isValidPid(identity.pid) || identity.pid === 1) throw new RangeError(`refusing to signal process ${identity.pid}`)
  if (ctx.terminate) return ctx.terminate(identity.pid)
  // a faked platform's pids name nothing real here
  if (!isRealContext(ctx)) throw new Error('terminateConfirmed: a faked platform must inject terminate()')
  return unixKill(identity.pid, 'SIGKILL')
}

/**
 * Snapshot of every live descendant of rootPid (children, grandchildren … found by walking ppid
 * links), with start times, so survivors can be swept even after they escaped the group with setsid.
 * The root itself is not included, nor is a process `prune` picks, nor anything below it.
 */
export function listDescendants(rootPid: number, ctx: PlatformContext = currentPlatform(), prune?: (pid: number) => boolean): ProcessIdentity[] {
  if (!isValidPid(rootPid)) return []
  if (ctx.os === 'linux' && linuxHasChildrenFiles()) return linuxDescendantsByChildrenFiles(rootPid, prune)
  const children = new Map<number, number[]>()
  const startOf = new Map<number, string>() // live processes only
  const link = (pid: number, ppid: number) => {
    const list = children.get(ppid)
    if (list) list.push(pid)
    else children.set(ppid, [pid])
  }

  if (ctx.os === 'linux') {
    for (const [pid, stat] of linuxProcessTable()) {
      link(pid, stat.ppid)
      if (!isDeadState(stat.state)) startOf.set(pid, stat.startTime)
    }
  } else if (ctx.os === 'win32') {
    const table = processTable(ctx)
    return table ? descendantsInTable(rootPid, table) : []
  } else {
    let out: string
    try {
      out = ctx.run('ps', ['-A', '-o', 'pid=', '-o', 'ppid='])
    } catch {
      return []
    }
    for (const line of out.split('\n')) {
      const m = /^\s*(\d+)\s+(\d+)\s*$/.exec(line)
      if (m) link(Number(m[1]), Number(m[2]))
    }
  }

  const result: ProcessIdentity[] = []
  const seen = new Set<number>([rootPid])
  const queue = [rootPid]
  while (queue.length > 0) {
    for (const pid of children.get(queue.shift()!) ?? []) {
      if (seen.has(pid)) continue
      seen.add(pid)
      if (prune?.(pid)) continue
      queue.push(pid)
      // BSD ps gives no start times in the listing: ask per process (also filters out zombies).
      const startTime = ctx.os === 'linux' ? startOf.get(pid) : processStartTime(pid, ctx)
      if (startTime) result.push({pid, startTime})
    }
  }
  return result
}

/**
 * taskkill's documented exit codes: 0 done, 1 failed (access denied; a console
 * process that only /F ends; an option this taskkill lacks), 128 no such
 * process. Neither failure is taken at its word: Wine's taskkill has no /T
 * (exit 1) and answers 128 for a live windowless process asked without /F, so
 * "gone" is believed only when the process is gone. A refused /T still ends
 * the process itself; its descendants are reached one by one by the caller,
 * from the tree it recorded (ProcessTree.signal). A graceful request that
 * fails is best effort: Windows has no SIGTERM, and the caller escalates to
 * SIGKILL after its grace. A forced kill that fails on a live process throws.
 */
function taskkill(pid: number, signal: StopSignal, tree: boolean, ctx: PlatformContext): boolean {
  const force = signal === 'SIGKILL'
  const attempt = (withTree: boolean): number | null => {
    try {
      ctx.run('taskkill', [...(withTree ? ['/T'] : []), ...(force ? ['/F'] : []), '/PID', String(pid)])
      return null
    } catch (error) {
      const status = (error as {status?: unknown}).status
      return typeof status === 'number' ? status : -1
    }
  }
  let failed = attempt(tree)
  if (failed === null) return true
  if (!isProcessAlive(pid, ctx)) return false
  if (tree) {
    failed = attempt(false)
    if (failed === null) return true
    if (!isProcessAlive(pid, ctx)) return false
  }
  if (!force) return true
  throw Object.assign(new Error(`taskkill /F /PID ${pid} failed: exit ${failed}`), {status: failed})
}

/** Unix kill(2): ESRCH means nothing left to signal; EPERM and anything else are real errors. */
function unixKill(target: number, signal: ProcessSignal): boolean {
  try {
    process.kill(target, signal)
    return true
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ESRCH') return false
    throw error
  }
}

/**
 * Signal a whole process group led by pgid (Unix: kill(-pgid); Windows: taskkill /T, with /F for
 * SIGKILL). Returns true when something was signalled, false when the group/process no longer exists.
 * Throws RangeError for pgid <= 1: kill(-1) would reach every process we may signal.
 */
export function signalProcessGroup(pgid: number, signal: StopSignal, ctx: PlatformContext = currentPlatform()): boolean {
  if (!isValidPid(pgid) || pgid === 1) throw new RangeError(`refusing to signal process group ${pgid}`)
  if (ctx.os === 'win32') return taskkill(pgid, signal, true, ctx)
  return unixKill(-pgid, signal)
}

/**
 * Signal one process only after checking it is still the recorded identity. Returns false (and
 * sends nothing) when the pid is gone or now belongs to another process.
 */
export function signalIdentity(identity: ProcessIdentity, signal: ProcessSignal, ctx: PlatformContext = currentPlatform()): boolean {
  if (!isValidPid(identity.pid) || !isSameProcess(identity, ctx)) return false
  if (ctx.os === 'win32') {
    // Windows has no frozen process to wake (and taskkill would end it): nothing is sent.
    if (signal === 'SIGCONT') return false
    return taskkill(identity.pid, signal, false, ctx)
  }
  return unixKill(identity.pid, signal)
}

/**
 * spawn() options that put the worker in a process group of its own. Unix: detached makes it leader
 * of a new session and group (pid = pgid). Windows: detached gives it its own group; windowsHide
 * keeps a console window from popping up.
 */
export function workerSpawnOptions(ctx: PlatformContext = currentPlatform()): {detached: boolean; windowsHide: boolean} {
  return {detached: true, windowsHide: ctx.os === 'win32'}
}

/**
 * A worker a person uses on this terminal (`drover attach`): in the caller's
 * process group, which the shell made the terminal's foreground group, so it
 * may read the terminal and gets its Ctrl-C; on Windows in this console.
 */
export function terminalSpawnOptions(): {detached: boolean; windowsHide: boolean} {
  return {detached: false, windowsHide: false}
}

// What Windows answers while another process has the file open without
// sharing delete (a reader, a search indexer, an antivirus scan, a dying
// process): ERROR_SHARING_VIOLATION is EBUSY, ERROR_ACCESS_DENIED is EPERM (or
// EACCES), and a folder whose files are still being deleted is ENOTEMPTY.
const BUSY_CODES = new Set(['EBUSY', 'EPERM', 'EACCES', 'ENOTEMPTY'])

/**
 * The waits between attempts at a replace or a removal: on Windows a backoff
 * that gives a holder about 3.3 s in all (scanners hold a new file for tens to
 * hundreds of ms); elsewhere none — those errors are real there (a mount
 * point, a permission) and retrying would only delay them.
 */
export function busyRetryDelays(ctx: PlatformContext = currentPlatform()): readonly number[] {
  return ctx.os === 'win32' ? [10, 20, 40, 80, 160, 320, 640, 1000, 1000] : []
}

// Node 24's fs.rmSync (std::filesystem underneath) answers the OS errors it
// has no name for with code "", errno UV_UNKNOWN and "Unknown error: <the
// OS's own text>" (Node 20 and 22 say EBUSY; nodejs/node#65884). The code is
// recovered from that text where it is one we know (strerror's words on Unix,
// FormatMessage's on an English Windows), so a busy folder reads EBUSY on
// every Node.
const UV_UNKNOWN = -4094
const CODE_OF_TEXT: ReadonlyArray<readonly [RegExp, string]> = [
  [/resource busy|being used by another process/i, 'EBUSY'],
  [/directory not empty|directory is not empty/i, 'ENOTEMPTY'],
  [/permission denied/i, 'EACCES'],
  [/operation not permitted|access is denied/i, 'EPERM'],
]

/**
 * An fs error with its code filled in where Node left it empty (Node 24's
 * rmSync, above): code and message then read as Node 20's do
 * ("EBUSY: Device or resource busy, rm 'PATH'"). Any other error is returned
 * as it is.
 */
export function withErrorCode<E>(error: E): E {
  const e = error as NodeJS.ErrnoException | null
  if (e === null || typeof e !== 'object' || (e.code ?? '') !== '' || e.errno !== UV_UNKNOWN) return error
  const text = /Unknown error: (.*?)(?: '[^']*')?$/.exec(e.message)?.[1] ?? e.message
  const code = CODE_OF_TEXT.find(([words]) => words.test(text))?.[1]
  if (code === undefined) return error
  e.code = code
  e.message = `${code}: ${text}, ${e.syscall ?? 'rm'}${e.path === undefined ? '' : ` '${e.path}'`}`
  return error
}

// A code-less error whose text is none of the above (a Windows in another
// language) is retried too: a retry costs a few seconds where the error is
// real, and a busy file left behind costs a lost removal.
const isBusy = (error: unknown): boolean => {
  const e = error as NodeJS.ErrnoException | null
  return BUSY_CODES.has(e?.code ?? '') || (e?.errno === UV_UNKNOWN && (e.code ?? '') === '')
}
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))
let sleeper: Int32Array | null = null
const sleepSync = (ms: number) => {
  sleeper ??= new Int32Array(new SharedArrayBuffer(4))
  Atomics.wait(sleeper, 0, 0, ms)
}

/** Run fn; on Windows retry it while the file is busy (busyRetryDelays), then rethrow. */
export async function retryOnBusy<T>(fn: () => Promise<T>, ctx: PlatformContext = currentPlatform(), delays: readonly number[] = busyRetryDelays(ctx)): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await fn()
    } catch (caught) {
      const error = withErrorCode(caught)
      if (attempt >= delays.length || !isBusy(error)) throw error
      await sleep(delays[attempt])
    }
  }
}

/**
 * retryOnBusy for the synchronous writers (records, locks): the thread waits,
 * as these writes are on every path anyway and a few hundred ms on Windows
 * beats a lost record update.
 */
export function retryOnBusySync<T>(fn: () => T, ctx: PlatformContext = currentPlatform(), delays: readonly number[] = busyRetryDelays(ctx)): T {
  for (let attempt = 0; ; attempt++) {
    try {
      return fn()
    } catch (caught) {
      const error = withErrorCode(caught)
      if (attempt >= delays.length || !isBusy(error)) throw error
      sleepSync(delays[attempt])
    }
  }
}

/**
 * Remove a path recursively without following symlinks: fs.rm lstat()s each entry, so a link
 * (even the target itself) is unlinked, never descended into. A missing path is not an error.
 */
export async function removeTree(target: string, ctx: PlatformContext = currentPlatform()): Promise<void> {
  // Imported here, not at the top: the runner loads this module and never removes trees.
  const {rm} = await import('node:fs/promises')
  await retryOnBusy(() => rm(target, {recursive: true, force: true}), ctx)
}

/**
 * Why a task cannot go to Slurm from this OS, or null. Slurm's client
 * commands (sbatch, squeue, scancel) and its nodes are Linux's and other
 * Unixes': there is no Windows build to submit from.
 */
export function slurmUnavailable(ctx: PlatformContext = currentPlatform()): string | null {
  return ctx.os === 'win32' ? "--executor slurm is not available on Windows: Slurm's commands and nodes run on Linux; start the task from the cluster's login node" : null
}

/**
 * Whether a process's end says which signal killed it. Windows has no signals:
 * TerminateProcess (taskkill /F) hands the process an exit code of the
 * killer's choosing, so a killed worker looks like one that exited.
 */
export function exitShowsSignal(ctx: PlatformContext = currentPlatform()): boolean {
  return ctx.os !== 'win32'
}

/** Signal number for exit-code computation (128 + n). Throws RangeError for a name the OS does not know. */
export function signalNumber(signal: string): number {
  const n = (osConstants.signals as Record<string, number | undefined>)[signal]
  if (n === undefined) throw new RangeError(`unknown signal: ${signal}`)
  return n
}

/**
 * argv that runs a script through the user's shell — only ever used for an
 * explicit `--shell`; drover otherwise never hands a command to a shell.
 */
export function shellCommand(script: string, env: NodeJS.ProcessEnv = process.env, ctx: PlatformContext = currentPlatform()): string[] {
  if (ctx.os === 'win32') return [env.ComSpec || 'cmd.exe', '/d', '/s', '/c', script]
  return [env.SHELL || '/bin/sh', '-c', script]
}

/**
 * Why the OS would refuse to start `argv` for its length (E2BIG), or null.
 * Linux caps each argument at 128 KiB with its NUL (MAX_ARG_STRLEN); Windows
 * the whole command line at 32,767 characters, quoting included (counted
 * here without it: a near miss is the OS's to refuse). macOS caps only the
 * arguments and environment together, at 1 MiB: left to the OS.
 */
export function argvTooLong(argv: string[], ctx: PlatformContext = currentPlatform()): string | null {
  if (ctx.os === 'linux') {
    const longest = Math.max(...argv.map((arg) => Buffer.byteLength(arg)))
    return longest >= 128 * 1024 ? `an argument of ${longest} bytes, where Linux takes at most ${128 * 1024 - 1}` : null
  }
  if (ctx.os === 'win32') {
    const line = argv.reduce((sum, arg) => sum + arg.length + 1, -1)
    return line > 32_767 ? `a command line of ${line} characters, where Windows takes at most 32767` : null
  }
  return null
}

/** Whether a file exists and may be run; injected in tests for the platforms we cannot run. */
export type ExecutableCheck = (file: string) => boolean

const isRunnableFile: ExecutableCheck = (file) => {
  try {
    if (!statSync(file).isFile()) return false
    accessSync(file, fsConstants.X_OK)
    return true
  } catch {
    return false
  }
}

/**
 * The absolute path a program name runs as, searched the way the OS would
 * (PATH; on Windows also PATHEXT and `;`), or null when nothing matches. A name
 * with a directory part is resolved against `cwd`, as spawn would.
 */
export function resolveExecutable(
  name: string,
  opts: {pathEnv: string | undefined; cwd: string; pathExt?: string},
  ctx: PlatformContext = currentPlatform(),
  runnable: ExecutableCheck = isRunnableFile,
): string | null {
  const p = ctx.os === 'win32' ? path.win32 : path.posix
  const extensions = ctx.os === 'win32' ? ['', ...(opts.pathExt || '.COM;.EXE;.BAT;.CMD').split(';').filter(Boolean)] : ['']
  const candidates = (base: string) => extensions.map((ext) => base + ext)
  const hasDir = ctx.os === 'win32' ? /[\\/]/.test(name) : name.includes('/')
  if (hasDir) return candidates(p.resolve(opts.cwd, name)).find(runnable) ?? null
  const delimiter = ctx.os === 'win32' ? ';' : ':'
  for (const dir of (opts.pathEnv ?? '').split(delimiter)) {
    // An empty PATH entry means the current directory, as in every shell.
    const base = p.resolve(opts.cwd, dir === '' ? '.' : dir, name)
    const found = candidates(base).find(runnable)
    if (found) return found
  }
  return null
}

/**
 * Live processes still in the process group — or, on Linux, the session — that
 * `leader` opened (the worker runs detached: pid = pgid = sid). After the
 * worker exits, its children are re-parented and no longer its descendants,
 * but every one that did not call setsid itself is still found here. Windows
 * has neither groups nor sessions of this kind: callers rely on descendants
 * seen while the worker lived.
 */
/**
 * Live processes whose environment holds every one of `marks` (name=value):
 * how a task's processes are found whatever they did to their parents,
 * groups and sessions (a setsid child whose parent died at once). Linux
 * reads /proc/<pid>/environ (this user's processes only); elsewhere the
 * environment of another process is not readable cheaply, and this is [].
 */
export function listProcessesWithEnv(marks: Record<string, string>, ctx: PlatformContext = currentPlatform()): ProcessIdentity[] {
  if (ctx.os !== 'linux') return []
  const wanted = Object.entries(marks).map(([name, value]) => `${name}=${value}`)
  if (wanted.length === 0) return []
  const found: ProcessIdentity[] = []
  for (const [pid, stat] of linuxProcessTable()) {
    if (isDeadState(stat.state) || pid === process.pid) continue
    let environ: string
    try {
      environ = readFileSync(`/proc/${pid}/environ`, 'latin1')
    } catch {
      continue // another user's, or gone
    }
    const vars = new Set(environ.split('\0'))
    if (wanted.every((pair) => vars.has(pair))) found.push({pid, startTime: stat.startTime})
  }
  return found
}

/**
 * Whether a process's environment holds `pair` (name=value) — as it was when
 * the process started: Linux reads /proc/<pid>/environ. false where that cannot
 * be read (another user's process, one gone, and every other system).
 */
export function processEnvHas(pid: number, pair: string, ctx: PlatformContext = currentPlatform()): boolean {
  if (ctx.os !== 'linux' || !isValidPid(pid)) return false
  try {
    return readFileSync(`/proc/${pid}/environ`, 'latin1').split('\0').includes(pair)
  } catch {
    return false
  }
}

/**
 * Signals the process group a child of the caller's leads: while the child
 * lives, or, once it exited, while a member of its group is left — an
 * emptied group's number may be anyone's by then. Never throws.
 */
export function signalChildGroup(pid: number | undefined, exited: boolean, signal: StopSignal, ctx: PlatformContext = currentPlatform()): void {
  if (!pid || (exited && listGroupMembers(pid, ctx).length === 0)) return
  try {
    signalProcessGroup(pid, signal, ctx)
  } catch {
    // not ours to signal any more
  }
}

export function listGroupMembers(leader: number, ctx: PlatformContext = currentPlatform()): ProcessIdentity[] {
  if (!isValidPid(leader) || ctx.os === 'win32') return []
  const members: ProcessIdentity[] = []
  if (ctx.os === 'linux') {
    for (const [pid, stat] of linuxProcessTable()) {
      if (pid !== leader && (stat.pgrp === leader || stat.session === leader) && !isDeadState(stat.state)) members.push({pid, startTime: stat.startTime})
    }
    return members
  }
  let out: string
  try {
    out = ctx.run('ps', ['-A', '-o', 'pid=', '-o', 'pgid='])
  } catch {
    return []
  }
  for (const line of out.split('\n')) {
    const m = /^\s*(\d+)\s+(\d+)\s*$/.exec(line)
    if (!m || Number(m[2]) !== leader || Number(m[1]) === leader) continue
    const startTime = processStartTime(Number(m[1]), ctx)
    if (startTime) members.push({pid: Number(m[1]), startTime})
  }
  return members
}

// statfs f_type of the file systems that live in one machine's memory (linux/magic.h).
const MEMORY_FILE_SYSTEMS = new Map([
  [0x01021994, 'tmpfs'],
  [0x858458f6, 'ramfs'],
])

/**
 * The name of the file system `dir` is on when it lives in this machine's
 * memory (tmpfs, ramfs): nothing another host could mount. Null elsewhere,
 * for any other file system, and on the systems whose statfs types are not
 * Linux's numbers.
 */
export function memoryFileSystem(dir: string, ctx: PlatformContext = currentPlatform(), statType: (dir: string) => number = (d) => statfsSync(d).type): string | null {
  if (ctx.os !== 'linux') return null
  try {
    return MEMORY_FILE_SYSTEMS.get(statType(dir)) ?? null
  } catch {
    return null
  }
}
