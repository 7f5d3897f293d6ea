// Running one hook — an exit hook, a status hook, a desktop notification —
// as drover runs them all: in a process group of its own (so its timeout
// stops what it started too), its input on stdin, its output appended to the
// task's hooks.log, stopped with SIGTERM at its timeout and SIGKILL 5 s later.

import {spawn} from 'node:child_process'
import {closeSync} from 'node:fs'
import {signalProcessGroup} from '../platform/platform.js'
import {openAppend} from '../state/store.js'

const KILL_AFTER_MS = 5000

/** What a hook did: ok (exit 0), or why not, with its exit code and signal, for the `hook`/`hook-failed` event. */
export interface HookOutcome {
  ok: boolean
  detail: Record<string, unknown>
}

/** hooks.log for appending, or nowhere when it cannot be opened (a full disk must not keep a hook from running). */
function openLog(file: string): number | 'ignore' {
  try {
    return openAppend(file)
  } catch {
    return 'ignore'
  }
}

export function runHook(
  argv: string[],
  o: {cwd: string; env: NodeJS.ProcessEnv; input: string; log: string; timeoutMs: number},
): Promise<HookOutcome> {
  return new Promise((resolve) => {
    const logFd = openLog(o.log)
    let child
    try {
      child = spawn(argv[0], argv.slice(1), {cwd: o.cwd, env: o.env, stdio: ['pipe', logFd, logFd], detached: true, windowsHide: true})
    } catch (error) {
      resolve({ok: false, detail: {reason: `could not start: ${(error as Error).message}`}})
      return
    } finally {
      if (logFd !== 'ignore') closeSync(logFd)
    }
    // A hook that never reads its stdin closes the pipe early: that is its choice, not a failure.
    child.stdin?.on('error', () => {})
    child.stdin?.end(o.input)
    let timedOut = false
    const term = setTimeout(() => {
      timedOut = true
      if (child.pid) signalProcessGroup(child.pid, 'SIGTERM')
    }, o.timeoutMs)
    const kill = setTimeout(() => child.pid && signalProcessGroup(child.pid, 'SIGKILL'), o.timeoutMs + KILL_AFTER_MS)
    const done = (detail: Record<string, unknown>, ok: boolean) => {
      clearTimeout(term)
      clearTimeout(kill)
      resolve({ok, detail})
    }
    child.once('error', (error) => done({reason: `could not start: ${error.message}`}, false))
    child.once('exit', (code, signal) => {
      if (timedOut) done({reason: `timed out after ${Math.round(o.timeoutMs / 1000)} s`, exitCode: code, signal}, false)
      else done({exitCode: code, signal}, code === 0)
    })
  })
}
