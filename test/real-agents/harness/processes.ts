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

/** Live (not zombie) processes whose command line and environment (its variables each ending in \0) `match`. */
function scan(match: (cmdline: string, environ: string) => boolean): ProcessEntry[] {
  const found: ProcessEntry[] = []
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name) || Number(name) === process.pid) continue
    const stat = read(`/proc/${name}/stat`)
    if (!stat) continue
    const state = stat.slice(stat.lastIndexOf(')') + 2).split(' ')[0]
    if (state === 'Z' || state === 'X') continue
    const cmdline = (read(`/proc/${name}/cmdline`) ?? '').replace(/\0/g, ' ').trim()
    if (match(cmdline, (read(`/proc/${name}/environ`) ?? '') + '\0')) found.push({pid: Number(name), cmdline})
  }
  return found
}

/** Live (not zombie) processes whose environment names `stateDir` or whose command line holds `marker`. */
export function processesOf(stateDir: string, marker?: string): ProcessEntry[] {
  const needle = `DROVER_STATE_DIR=${stateDir}\0`
  return scan((cmdline, environ) => environ.includes(needle) || (marker !== undefined && cmdline.includes(marker)))
}

/** Live processes of one task: in an environment that names both `stateDir` and the task, as the worker's does and everything it starts inherits. */
export function processesOfTask(stateDir: string, id: number): ProcessEntry[] {
  const [dir, task] = [`DROVER_STATE_DIR=${stateDir}\0`, `\0DROVER_TASK_ID=${id}\0`]
  return scan((_, environ) => environ.includes(dir) && ('\0' + environ).includes(task))
}

/** SIGKILLs whatever of a task is still running: the last resort of afterEach. */
export function killProcessesOf(stateDir: string, marker?: string): void {
  killAll(processesOf(stateDir, marker))
}

/** SIGKILLs each of `processes`; one that ended meanwhile is no error. */
export function killAll(processes: ProcessEntry[]): void {
  for (const p of processes) {
    try {
      process.kill(p.pid, 'SIGKILL')
    } catch {
      // gone already
    }
  }
}
