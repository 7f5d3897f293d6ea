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

/** Where a process came from, for a violation's report: its task's run (from its environment), parent, group, state and age. */
export function describeProcess(pid: number): string {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    const env = readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0')
    const get = (key: string) => env.find((entry) => entry.startsWith(`${key}=`))?.slice(key.length + 1) ?? '-'
    const ticks = Number(fields[19])
    const uptime = Number(readFileSync('/proc/uptime', 'utf8').split(' ')[0])
    // clock ticks are 100 a second on Linux's common builds (getconf CLK_TCK)
    const age = (uptime - ticks / 100).toFixed(1)
    return `pid ${pid}: state ${fields[0]}, ppid ${fields[1]}, pgid ${fields[2]}, sid ${fields[3]}, started ${age} s ago, task ${get('DROVER_TASK_ID')} run ${get('DROVER_RUN')}`
  } catch (error) {
    return `pid ${pid}: ${(error as Error).message}`
  }
}
