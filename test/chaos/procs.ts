// What the chaos run reads of the process table, by identity rather than by
// bare pid: a start time from /proc, a task's marker processes found by their
// command line, and whether a process is frozen.

import {readdirSync, readFileSync} from 'node:fs'
import {processStartTime, type ProcessIdentity} from '../../src/platform/platform.js'

export function alive(identity: ProcessIdentity | null | undefined): boolean {
  return !!identity && processStartTime(identity.pid) === identity.startTime && state(identity.pid) !== 'Z'
}

/** The one-letter state of /proc/<pid>/stat (R, S, T, Z …), or null when gone. */
export function state(pid: number): string | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[0]
  } catch {
    return null
  }
}

/** Every live process whose argv holds an argument starting with `prefix`, with that argument. */
export function processesByPrefix(prefix: string): {pid: number; arg: string}[] {
  const found: {pid: number; arg: string}[] = []
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue
    let argv: string[]
    try {
      argv = readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0')
    } catch {
      continue
    }
    const arg = argv.find((a) => a.startsWith(prefix))
    if (arg !== undefined && state(Number(entry)) !== 'Z') found.push({pid: Number(entry), arg})
  }
  return found
}

export function kill(pid: number, signal: NodeJS.Signals): boolean {
  try {
    process.kill(pid, signal)
    return true
  } catch {
    return false
  }
}
