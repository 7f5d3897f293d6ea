// Finding every process that belongs to a drover task, whatever it did to
// escape its process group: claude's Bash tool starts commands with setsid and
// codex runs them inside bwrap. drover gives the worker DROVER_STATE_DIR, and
// everything the agent starts inherits it; a marker in a tool command catches
// a child whose environment an agent filtered.

import {readdirSync, readFileSync} from 'node:fs'

export interface ProcessEntry {
  pid: number
  cmdline: string
}

function read(file: string): string | null {
  try {
    return readFileSync(file, 'latin1')
  } catch {
    return null
  }
}

/** Live (not zombie) processes whose environment names `stateDir` or whose command line holds `marker`. */
export function processesOf(stateDir: string, marker?: string): ProcessEntry[] {
  const found: ProcessEntry[] = []
  const needle = `DROVER_STATE_DIR=${stateDir}\0`
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name) || Number(name) === process.pid) continue
    const stat = read(`/proc/${name}/stat`)
    if (!stat) continue
    const state = stat.slice(stat.lastIndexOf(')') + 2).split(' ')[0]
    if (state === 'Z' || state === 'X') continue
    const cmdline = (read(`/proc/${name}/cmdline`) ?? '').replace(/\0/g, ' ').trim()
    const environ = read(`/proc/${name}/environ`) ?? ''
    if ((environ + '\0').includes(needle) || (marker && cmdline.includes(marker))) found.push({pid: Number(name), cmdline})
  }
  return found
}

/** SIGKILLs whatever of a task is still running: the last resort of afterEach. */
export function killProcessesOf(stateDir: string, marker?: string): void {
  for (const p of processesOf(stateDir, marker)) {
    try {
      process.kill(p.pid, 'SIGKILL')
    } catch {
      // gone already
    }
  }
}
