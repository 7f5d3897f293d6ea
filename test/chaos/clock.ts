// Steps of the wall clock for chosen processes only: libfaketime, preloaded,
// shifts what a process (and everything it starts) reads from the clock by a
// fixed offset, while the rest of the machine keeps the real time. Debian's
// `faketime` package puts it in the multiarch lib folder; without it the
// chaos run has no clock steps (and says so at the start).

import {existsSync, readdirSync} from 'node:fs'
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

/** Environment that runs a process with its clock `minutes` off; null when libfaketime is not installed. */
export const clockShifter: ((minutes: number) => Record<string, string>) | null = lib
  ? (minutes) => ({
      LD_PRELOAD: [lib, process.env.LD_PRELOAD].filter(Boolean).join(':'),
      FAKETIME: `${minutes > 0 ? '+' : ''}${minutes}m`,
      // file times stay the kernel's: drover compares them with its own clock
      // the way it would after a real step
      NO_FAKE_STAT: '1',
    })
  : null
