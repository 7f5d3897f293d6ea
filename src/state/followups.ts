// Follow-ups: prompts queued for an agent that is still at work, delivered one
// run each, in order, when a run ends well. Each is one small JSON file in the
// task's followups/ folder, numbered from 1 per task (`last` keeps the highest
// number handed out, so a number is never given twice). Any drover command
// adds or withdraws one under the task lock; the task's runner takes them
// under the same lock as it records a run's end (runner/followup-run.ts), so a
// follow-up is delivered once, dropped once or withdrawn, never two of these.

import {lstatSync, mkdirSync, readdirSync, unlinkSync} from 'node:fs'
import path from 'node:path'
import {DIR_MODE} from './layout.js'
import type {TaskRecord} from './record.js'
import {readOwnFile, writeFileAtomic, type TaskPaths} from './store.js'

export interface Followup {
  /** its number in the task (1, 2, …): what `drover followups` lists and `--withdraw` names. */
  n: number
  prompt: string
  /** when it was queued, and by which process. */
  at: string
  by: number
  /** delivered at the next safe point (the run is drained for it), ahead of the others. */
  now: boolean
  /** kept queued when the run fails or is stopped, instead of dropped. */
  keep: boolean
}

export type NewFollowup = Pick<Followup, 'prompt' | 'now' | 'keep'>

const FILE = /^(\d{1,9})\.json$/
const LAST = 'last'
const fileOf = (paths: TaskPaths, n: number) => path.join(paths.followups, `${String(n).padStart(6, '0')}.json`)

/** Queues a follow-up. The caller holds the task lock. */
export function addFollowup(paths: TaskPaths, wanted: NewFollowup): Followup {
  ownFolder(paths)
  const n = Math.max(lastNumber(paths), ...numbersOnDisk(paths), 0) + 1
  const followup: Followup = {n, prompt: wanted.prompt, at: new Date().toISOString(), by: process.pid, now: wanted.now, keep: wanted.keep}
  writeFileAtomic(path.join(paths.followups, LAST), `${n}\n`)
  writeFileAtomic(fileOf(paths, n), JSON.stringify(followup) + '\n')
  return followup
}

/**
 * The follow-ups still to deliver, in delivery order: those asked for now
 * first, then by number. With the record, one it already names as delivered
 * or dropped (its writer died before removing the file) is left out.
 */
export function pendingFollowups(paths: TaskPaths, record?: TaskRecord): Followup[] {
  const done = record ? settledNumbers(record) : new Set<number>()
  const out: Followup[] = []
  for (const n of numbersOnDisk(paths)) {
    if (done.has(n)) continue
    const followup = readFollowup(paths, n)
    if (followup) out.push(followup)
  }
  return out.sort((a, b) => Number(b.now) - Number(a.now) || a.n - b.n)
}

/** Takes follow-up `n` off the queue: false when it is not there (delivered, dropped or withdrawn already). */
export function removeFollowup(paths: TaskPaths, n: number): boolean {
  try {
    unlinkSync(fileOf(paths, n))
    return true
  } catch {
    return false
  }
}

/** The numbers the record shows as done with: delivered by a run, or dropped. */
function settledNumbers(record: TaskRecord): Set<number> {
  const done = new Set<number>()
  for (const run of record.runs) if (run.followup != null) done.add(run.followup)
  for (const dropped of record.droppedFollowups ?? []) done.add(dropped.n)
  return done
}

function numbersOnDisk(paths: TaskPaths): number[] {
  let names: string[]
  try {
    names = readdirSync(paths.followups)
  } catch {
    return []
  }
  return names.flatMap((name) => {
    const m = FILE.exec(name)
    return m ? [Number(m[1])] : []
  })
}

function lastNumber(paths: TaskPaths): number {
  try {
    const n = Number(readOwnFile(path.join(paths.followups, LAST)).trim())
    return Number.isSafeInteger(n) && n > 0 ? n : 0
  } catch {
    return 0
  }
}

/** One follow-up as the runner may act on it, or null: a torn or hand-edited file is not delivered. */
function readFollowup(paths: TaskPaths, n: number): Followup | null {
  try {
    const v = JSON.parse(readOwnFile(fileOf(paths, n))) as Record<string, unknown>
    if (typeof v.prompt !== 'string' || v.prompt === '') return null
    return {n, prompt: v.prompt, at: typeof v.at === 'string' ? v.at : '', by: Number.isSafeInteger(v.by) ? (v.by as number) : 0, now: v.now === true, keep: v.keep === true}
  } catch {
    return null
  }
}

/** followups/ as a real folder of ours: a symlink in its place is removed, never followed (as requests/). */
function ownFolder(paths: TaskPaths): void {
  const stats = lstatSync(paths.followups, {throwIfNoEntry: false})
  if (stats?.isDirectory()) return
  if (stats) unlinkSync(paths.followups)
  mkdirSync(paths.followups, {mode: DIR_MODE})
}
