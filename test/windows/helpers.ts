// Plumbing of the Windows suite: whether a recorded process still lives
// (asked of Windows itself, not only of drover's own query), cleaning up what
// a test started, and starting drover on the guest "machine" a reboot test
// kills whole (only under Wine: scripts/test-windows.mjs provides it).

import {existsSync, readdirSync, readFileSync, rmSync} from 'node:fs'
import path from 'node:path'

import {processStartTime, type ProcessIdentity} from '../../src/platform/platform.js'
import {FINAL_STATUSES} from '../../src/state/record.js'
import {BIN, readTask, waitFor} from '../helpers/cli.js'

/**
 * Whether this very process (pid and start time) is still running. Windows
 * answers first (process.kill(pid, 0) opens the process); a pid it still knows
 * is compared by start time, since Windows reuses pids at once.
 */
export function alive(identity: ProcessIdentity): boolean {
  try {
    process.kill(identity.pid, 0)
  } catch {
    return false
  }
  return processStartTime(identity.pid) === identity.startTime
}

/** The task's record once its status is final (polled slowly: each read is a Windows file open under Wine). */
export const waitFinal = (dir: string, id: number, timeout = 60_000) =>
  waitFor(() => (FINAL_STATUSES as readonly string[]).includes(readTask(dir, id).status) && readTask(dir, id), {timeout, interval: 200, message: `task ${id} to end`})

/** The identity of a running pid, failing the test when Windows cannot tell its start time. */
export function identityOf(pid: number): ProcessIdentity {
  const startTime = processStartTime(pid)
  if (startTime === null) throw new Error(`no start time for pid ${pid}: is it running, and does powershell.exe answer?`)
  return {pid, startTime}
}

const readJson = (file: string): any => {
  try {
    return JSON.parse(readFileSync(file, 'utf8'))
  } catch {
    return null
  }
}

/** Ends every process recorded in these state dirs (runner, worker, the tree seen) and removes the dirs. */
export function cleanUp(stateDirs: string[]): void {
  for (const dir of stateDirs.splice(0)) {
    const tasks = path.join(dir, 'tasks')
    for (const entry of existsSync(tasks) ? readdirSync(tasks) : []) {
      const folder = path.join(tasks, entry)
      const recorded: ProcessIdentity[] = [readJson(path.join(folder, 'runner.json')), readJson(path.join(folder, 'task.json'))?.worker, ...(readJson(path.join(folder, 'tree.json')) ?? [])]
      for (const identity of recorded) {
        if (!identity?.pid || !identity.startTime || !alive(identity)) continue
        try {
          process.kill(identity.pid, 'SIGKILL')
        } catch {
          // gone meanwhile
        }
      }
    }
    rmSync(dir, {recursive: true, force: true, maxRetries: 10, retryDelay: 200})
  }
}

/** What scripts/test-windows.mjs hands the suite for the reboot test; null elsewhere (a real Windows machine). */
export function guestMachine(): {bridge: string; wine64: string; nodeExe: string; prefix: string; shared: string} | null {
  const env = process.env
  if (!env.DROVER_TEST_WINE_HOST_RUN || !env.DROVER_TEST_WINE_GUEST_PREFIX || !env.DROVER_TEST_WINE64 || !env.DROVER_TEST_WINE_NODE || !env.DROVER_TEST_WINE_SHARED_TMP) return null
  return {bridge: env.DROVER_TEST_WINE_HOST_RUN, wine64: env.DROVER_TEST_WINE64, nodeExe: env.DROVER_TEST_WINE_NODE, prefix: env.DROVER_TEST_WINE_GUEST_PREFIX, shared: env.DROVER_TEST_WINE_SHARED_TMP}
}

/** A Windows path on Wine's Z: drive as the Linux side names it. */
export const linuxPath = (winPath: string) => winPath.replace(/^[zZ]:/, '').replaceAll('\\', '/')

let calls = 0

/**
 * Runs a Linux command from this Windows process through the host bridge
 * (scripts/windows/wine.mjs): Node cannot wait for a Linux child, so the
 * bridge writes its exit status to a file this polls. Resolves to the status
 * and the command's output.
 */
export async function hostRun(guest: NonNullable<ReturnType<typeof guestMachine>>, command: string[], env: Record<string, string> = {}, timeout = 60_000): Promise<{status: number; output: string}> {
  const {spawn} = await import('node:child_process')
  const done = path.win32.join(guest.shared, `host-run-${process.pid}-${++calls}`)
  const child = spawn(guest.bridge, [linuxPath(done), ...command], {detached: true, stdio: 'ignore', env: {...process.env, ...env}})
  child.on('error', () => {}) // reported below by the missing done file
  child.unref()
  const status = await waitFor(() => existsSync(done) && readFileSync(done, 'utf8').trim(), {timeout, interval: 100, message: `host command ${command.join(' ')}`})
  const output = existsSync(`${done}.log`) ? readFileSync(`${done}.log`, 'utf8') : ''
  return {status: Number(status), output}
}

/** `drover ARGS…` on the guest machine (its own wineserver), with stdout and the exit status. */
export async function guestDrover(guest: NonNullable<ReturnType<typeof guestMachine>>, stateDir: string, args: string[], env: Record<string, string> = {}) {
  const out = path.win32.join(guest.shared, `guest-drover-${process.pid}-${++calls}.out`)
  // node.exe's output must go to a file (never a pipe to a Linux program): the shell redirects it.
  const script = '"$@" > "$DROVER_TEST_OUT" 2>&1'
  const result = await hostRun(guest, ['sh', '-c', script, 'sh', guest.wine64, guest.nodeExe, BIN, ...args], {
    ...env,
    WINEPREFIX: guest.prefix,
    DROVER_STATE_DIR: stateDir,
    NO_COLOR: '1',
    DROVER_TEST_OUT: linuxPath(out),
  })
  const stdout = existsSync(out) ? readFileSync(out, 'utf8') : ''
  return {exitCode: result.status, stdout: stdout + result.output}
}
