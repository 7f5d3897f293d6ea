// Steps of the wall clock for chosen processes only: libfaketime, preloaded,
// shifts what a process (and everything it starts) reads from the clock by a
// fixed offset, while the rest of the machine keeps the real time. Debian's
// `faketime` package puts it in the multiarch lib folder; without it the
// chaos run has no clock steps (and says so at the start).

import {spawnSync} from 'node:child_process'
import {existsSync, readdirSync, rmSync} from 'node:fs'
import path from 'node:path'

function findLibfaketime(): string | null {
  const roots = ['/usr/lib', '/usr/local/lib', '/usr/lib64']
  for (const root of roots) {
    const candidates = [path.join(root, 'faketime')]
    try {
      for (const entry of readdirSync(root)) if (entry.endsWith('-linux-gnu')) candidates.push(path.join(root, entry, 'faketime'))
    } catch {
      // no such root
    }
    for (const dir of candidates) {
      const lib = path.join(dir, 'libfaketime.so.1')
      if (existsSync(lib)) return lib
    }
  }
  return null
}

const lib = process.platform === 'linux' ? findLibfaketime() : null

/**
 * libfaketime (0.9.10) gives a preloaded process that finds no
 * FAKETIME_SHARED a shared-memory area of its own, names it in
 * FAKETIME_SHARED for its descendants, and removes it when it exits. A
 * detached runner that a faked command started outlives that command, and
 * every process the runner starts afterwards (an exit hook) then fails
 * libfaketime's start-up ("sem_open failed") with exit 1: a hook that never
 * ran, blamed on drover (seed 7). So the whole run shares one area, made here
 * by a bash that execs rather than exits (no exit, no removal), and removed
 * when the run ends.
 */
function sharedArea(preload: string): string | null {
  const made = spawnSync('/bin/bash', ['-c', 'printf %s "$FAKETIME_SHARED"; exec /bin/true'], {
    env: {...process.env, LD_PRELOAD: preload, FAKETIME: '+0m'},
    encoding: 'utf8',
  })
  const names = made.stdout?.trim().split(' ') ?? []
  if (made.status !== 0 || names.length !== 2 || !names.every((name) => /^\/faketime_(sem|shm)_[0-9]+$/.test(name))) return null
  // POSIX names: a semaphore is /dev/shm/sem.<name>, a shared-memory object /dev/shm/<name>.
  process.on('exit', () => {
    rmSync(`/dev/shm/sem.${names[0].slice(1)}`, {force: true})
    rmSync(`/dev/shm/${names[1].slice(1)}`, {force: true})
  })
  return names.join(' ')
}

const area = lib ? sharedArea(lib) : null

/** Environment that runs a process with its clock `minutes` off; null when libfaketime is not installed. */
export const clockShifter: ((minutes: number) => Record<string, string>) | null = lib
  ? (minutes) => ({
      LD_PRELOAD: [lib, process.env.LD_PRELOAD].filter(Boolean).join(':'),
      FAKETIME: `${minutes > 0 ? '+' : ''}${minutes}m`,
      ...(area ? {FAKETIME_SHARED: area} : {}),
      // file times stay the kernel's: drover compares them with its own clock
      // the way it would after a real step
      NO_FAKE_STAT: '1',
    })
  : null
