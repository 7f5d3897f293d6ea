// What `drover doctor` asks of the OS, per platform: the PATH variable (its
// name differs on Windows), how a program found on PATH is run for its
// `--version` (a Windows .cmd launcher needs cmd.exe), who owns a directory
// and whether others may write it (Windows answers with ACLs, not modes), the
// free space under it, and which processes carry a variable in their
// environment. Read-only, and never a signal.

import {spawn} from 'node:child_process'
import {readdirSync, readFileSync, statfsSync, type Stats} from 'node:fs'
import path from 'node:path'
import {currentPlatform, processStartTime, signalChildGroup, workerSpawnOptions, type PlatformContext, type ProcessIdentity} from './platform.js'

/** The PATH variable's value: on Windows its name is any case (`Path` usually). */
export function pathValue(env: NodeJS.ProcessEnv, ctx: PlatformContext = currentPlatform()): string | undefined {
  if (ctx.os !== 'win32') return env.PATH
  const key = Object.keys(env).find((name) => name.toUpperCase() === 'PATH')
  return key === undefined ? undefined : env[key]
}

/** PATHEXT on Windows (any case), else undefined. */
export function pathExtValue(env: NodeJS.ProcessEnv, ctx: PlatformContext = currentPlatform()): string | undefined {
  if (ctx.os !== 'win32') return undefined
  const key = Object.keys(env).find((name) => name.toUpperCase() === 'PATHEXT')
  return key === undefined ? undefined : env[key]
}

export interface ProgramLaunch {
  file: string
  args: string[]
  /** pass the arguments to CreateProcess as they are (cmd.exe does its own quoting). */
  verbatim: boolean
}

/**
 * How to run a program found on PATH with fixed arguments. npm installs agents
 * on Windows as `claude.cmd`, which Node refuses to run without a shell since
 * the batch-file fix of 2024 (EINVAL): it goes through cmd.exe, quoted as
 * `cmd /d /s /c ""C:\path with spaces\claude.cmd" --version"`. The arguments
 * here are drover's own words (`--version`, `exec`, `--help`), never user input.
 */
export function programLaunch(file: string, args: string[], env: NodeJS.ProcessEnv, ctx: PlatformContext = currentPlatform()): ProgramLaunch {
  if (ctx.os !== 'win32' || !/\.(cmd|bat)$/i.test(file)) return {file, args, verbatim: false}
  const comspecKey = Object.keys(env).find((name) => name.toUpperCase() === 'COMSPEC')
  const comspec = (comspecKey && env[comspecKey]) || 'cmd.exe'
  const line = [file, ...args].map((word) => (/[\s&()^|<>"]/.test(word) ? `"${word}"` : word)).join(' ')
  return {file: comspec, args: ['/d', '/s', '/c', `"${line}"`], verbatim: true}
}

export interface Ownership {
  uid: number
  /** owned by the user running drover. */
  mine: boolean
  /** permission bits as octal text, e.g. "700". */
  mode: string
  groupWritable: boolean
  worldWritable: boolean
}

/**
 * Owner and permission bits of a file or directory, as Unix means them. Null
 * on Windows: there Node reports a mode made up from the read-only attribute
 * and uid 0, and access is decided by ACLs, which drover does not judge.
 */
export function ownershipOf(stats: Pick<Stats, 'uid' | 'mode'>, ctx: PlatformContext = currentPlatform(), uid: number | null = process.getuid?.() ?? null): Ownership | null {
  if (ctx.os === 'win32') return null
  return {
    uid: stats.uid,
    mine: uid === null || stats.uid === uid,
    mode: (stats.mode & 0o7777).toString(8),
    groupWritable: (stats.mode & 0o020) !== 0,
    worldWritable: (stats.mode & 0o002) !== 0,
  }
}

export interface DiskSpace {
  /** bytes this user may still write (blocks available to non-root). */
  freeBytes: number
  totalBytes: number
}

/** Free and total space of the file system `dir` is on, or null when it cannot be asked. */
export function diskSpace(dir: string): DiskSpace | null {
  try {
    const s = statfsSync(dir)
    return {freeBytes: s.bavail * s.bsize, totalBytes: s.blocks * s.bsize}
  } catch {
    return null
  }
}

export interface MarkedProcess extends ProcessIdentity {
  /** the variable's value in that process's environment. */
  value: string
}

/**
 * Every live process (this user's: others' environments are unreadable) whose
 * environment holds `name`, with its value: one pass over the process table
 * whatever the number of tasks asked about. Linux reads /proc/<pid>/environ;
 * elsewhere another process's environment is not readable cheaply, and this
 * is [] (the caller says the check was not made).
 */
export function processesWithVariable(name: string, ctx: PlatformContext = currentPlatform()): MarkedProcess[] {
  if (ctx.os !== 'linux') return []
  let pids: string[]
  try {
    pids = readdirSync('/proc').filter((entry) => /^\d+$/.test(entry))
  } catch {
    return []
  }
  const prefix = `${name}=`
  const found: MarkedProcess[] = []
  for (const entry of pids) {
    const pid = Number(entry)
    if (pid === process.pid) continue
    let environ: string
    try {
      environ = readFileSync(path.join('/proc', entry, 'environ'), 'utf8')
    } catch {
      continue // another user's, or gone
    }
    const pair = environ.split('\0').find((item) => item.startsWith(prefix))
    if (pair === undefined) continue
    const startTime = processStartTime(pid, ctx)
    if (startTime !== null) found.push({pid, startTime, value: pair.slice(prefix.length)})
  }
  return found
}

/**
 * The pids alive now, from one read of /proc (Linux), so that checking
 * thousands of recorded identities reads only those whose pid exists; null
 * elsewhere (every identity is then checked on its own).
 */
export function livePids(ctx: PlatformContext = currentPlatform()): Set<number> | null {
  if (ctx.os !== 'linux') return null
  try {
    return new Set(readdirSync('/proc').filter((entry) => /^\d+$/.test(entry)).map(Number))
  } catch {
    return null
  }
}

/** Whether another process's environment can be read here (processesWithVariable finds anything at all). */
export const canReadEnvironments = (ctx: PlatformContext = currentPlatform()): boolean => ctx.os === 'linux'

export interface BriefRun {
  /** exit code, null when it did not exit by itself (killed, could not start). */
  code: number | null
  stdout: string
  stderr: string
  tookMs: number
  timedOut: boolean
  /** why it could not be started (ENOENT, EACCES …), else null. */
  error: string | null
}

const MAX_OUTPUT = 4 * 1024 * 1024
// After a timeout's SIGKILL, how long to wait for the pipes to close: a
// process that left the group may still hold them.
const CLOSE_GRACE_MS = 500

/**
 * Runs a program that should answer at once (`--version`, `--help`,
 * `scontrol ping`) and collects its output; never throws. It gets its own
 * process group, stdin closed, and if it runs past `timeoutMs` its whole
 * group is killed (a launcher's child with it: codex's native binary).
 */
export function runBriefly(file: string, args: string[], opts: {env: NodeJS.ProcessEnv; cwd: string; timeoutMs: number; ctx?: PlatformContext}): Promise<BriefRun> {
  const ctx = opts.ctx ?? currentPlatform()
  const launch = programLaunch(file, args, opts.env, ctx)
  const began = performance.now()
  return new Promise((resolve) => {
    const out: Buffer[] = []
    const err: Buffer[] = []
    let size = 0
    let timedOut = false
    let settled = false
    let timer: NodeJS.Timeout | undefined
    const finish = (code: number | null, error: string | null) => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      resolve({code, error, stdout: Buffer.concat(out).toString('utf8'), stderr: Buffer.concat(err).toString('utf8'), tookMs: Math.round(performance.now() - began), timedOut})
    }
    let child: ReturnType<typeof spawn>
    try {
      child = spawn(launch.file, launch.args, {
        cwd: opts.cwd,
        env: opts.env,
        stdio: ['ignore', 'pipe', 'pipe'],
        windowsVerbatimArguments: launch.verbatim,
        ...workerSpawnOptions(ctx),
      })
    } catch (error) {
      finish(null, (error as NodeJS.ErrnoException).code ?? (error as Error).message)
      return
    }
    let exited = false
    child.once('exit', () => (exited = true))
    timer = setTimeout(() => {
      timedOut = true
      signalChildGroup(child.pid, exited, 'SIGKILL', ctx)
      setTimeout(() => {
        child.stdout?.destroy()
        child.stderr?.destroy()
        finish(null, null)
      }, CLOSE_GRACE_MS).unref()
    }, opts.timeoutMs)
    const collect = (into: Buffer[]) => (chunk: Buffer) => {
      size += chunk.length
      if (size <= MAX_OUTPUT) into.push(chunk)
    }
    child.stdout!.on('data', collect(out))
    child.stderr!.on('data', collect(err))
    child.once('error', (error) => finish(null, (error as NodeJS.ErrnoException).code ?? error.message))
    child.once('close', (code) => finish(timedOut ? null : code, null))
  })
}
