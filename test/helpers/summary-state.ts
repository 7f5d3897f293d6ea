// State dirs whose ended tasks are in the summary, and the editing of a
// sidecar's header beside a segment: what the tests of the caches beside the
// segments (views, rows) start from and damage.

import {readdirSync, readFileSync, writeFileSync} from 'node:fs'
import path from 'node:path'
import {expect} from 'vitest'
import {liveDir, summaryDir} from '../../src/state/layout.js'
import {ensureStateDir} from '../../src/state/statedir.js'
import {loadRecentTasks} from '../../src/tasks/read.js'
import {makeTask} from '../fixtures/prune-state.js'
import {makeStateDir} from './cli.js'

/** `count` ended tasks, folded into the summary as the default list does. */
export async function endedTasks(count: number, dir = makeStateDir()): Promise<{dir: string; ids: number[]}> {
  ensureStateDir(dir)
  const ids = Array.from({length: count}, () => makeTask(dir, {status: 'failed'}))
  await loadRecentTasks(dir, 0)
  expect(readdirSync(liveDir(dir))).toEqual([])
  return {dir, ids}
}

/** The sidecars of one kind (views, rows) in summary/, by name. */
export const sidecarsOf = (dir: string, ext: string) => readdirSync(summaryDir(dir)).filter((n) => n.endsWith(`.${ext}`)).sort()

/** Where segment `seq`'s sidecar of that kind lies. */
export const sidecarFileOf = (dir: string, ext: string, seq = 1) => path.join(summaryDir(dir), `seg-${String(seq).padStart(12, '0')}.${ext}`)

/** Rewrites a packed sidecar's header (a line of JSON padded to 256 bytes) through `edit`, its length kept. */
export function editSidecarHeader(file: string, edit: (header: Record<string, unknown>) => void): void {
  const bytes = readFileSync(file)
  const header = JSON.parse(bytes.toString('utf8', 0, 256)) as Record<string, unknown>
  edit(header)
  const line = Buffer.alloc(256, 0x20)
  line.write(JSON.stringify(header))
  line[255] = 0x0a
  line.copy(bytes)
  writeFileSync(file, bytes)
}

/** A packed sidecar with its first two ids swapped (out of order), or cut short by `cut` bytes. */
export const damaged = {
  idsSwapped(b: Buffer, first: number, second: number): Buffer {
    const copy = Buffer.from(b)
    copy.writeDoubleLE(second, 256)
    copy.writeDoubleLE(first, 264)
    return copy
  },
  cut: (b: Buffer, bytes = 10) => b.subarray(0, b.length - bytes),
}

/**
 * Writes each harmed copy of a sidecar in its place (each harm must change
 * it), then lets `check` look at what readers make of it.
 */
export async function eachDamage(file: string, good: Buffer, harms: [string, (b: Buffer) => Buffer][], check: (what: string) => Promise<void>): Promise<void> {
  for (const [what, harm] of harms) {
    const harmed = harm(good)
    expect(harmed.equals(good), what).toBe(false)
    writeFileSync(file, harmed)
    await check(what)
    writeFileSync(file, good)
  }
}
