// Drover.events(): the changes in a state dir as they happen, for every
// watcher (top, the dashboard, MCP's subscriptions). One pass looks at what
// may have changed since the last (watch-look.ts); the first pass takes the
// ended tasks the derived index holds from their stored views, so a watcher over
// 100,000 tasks starts without reading 100,000 records.

import {statSync} from 'node:fs'
import path from 'node:path'
import {FINAL_STATUSES, isFinalStatus, type TaskRecord, type TaskStatus} from '../state/record.js'
import {readRecord, taskPaths} from '../state/store.js'
import {planTaskReads, renderedText, type TaskPlan} from '../state/index.js'
import {Wakeup} from '../tasks/wakeup.js'
import {WatchLook} from '../tasks/watch-look.js'
import {reconcile} from '../tasks/reconcile.js'
import {shownStatus, taskJson, type TaskJson} from './task-json.js'
import {indexRender} from './row-cells.js'
import {viewRow} from './task-row.js'

/** A change seen in the state dir: a task appeared, changed status, or went away. */
export type TaskEvent =
  | {type: 'created'; id: number; task: TaskJson}
  | {type: 'status'; id: number; from: TaskStatus; to: TaskStatus; task: TaskJson}
  | {type: 'ended'; id: number; task: TaskJson}
  /** only with `events({updates: true})`: the record changed, its status did not. */
  | {type: 'updated'; id: number; task: TaskJson}
  | {type: 'removed'; id: number}

export interface EventOptions {
  signal?: AbortSignal
  pollMs?: number
  initial?: boolean
  updates?: boolean
  onReady?: () => void
}

/** Tasks a pass looks at between two turns of the event loop. */
const YIELD_EVERY = 64

/** The stamp of a task the first pass took from the index: its record not looked at yet. */
const FROM_INDEX = 'index'

export async function* watchEvents(stateDir: string, opts: EventOptions = {}): AsyncGenerator<TaskEvent> {
  const tasks = path.join(stateDir, 'tasks')
  const wakeup = new Wakeup().watch([tasks])
  // which folders and records each pass must look at: not the ended tasks that cannot have changed
  const look = new WatchLook(stateDir)
  opts.signal?.addEventListener('abort', wakeup.wake)
  // Per task: its shown status, the record file's identity (inode, size,
  // mtime) when last read, the record of a live task as read, and with
  // `updates` the record as reconciled. A file unchanged is not read again:
  // an ended task is skipped (at 10,000 tasks a stat each is a small part of
  // reading and checking each record every wake-up), a live one is checked
  // from the record read before (its runner may have died meanwhile).
  const known = new Map<number, {status: TaskStatus; stamp: string | null; read: TaskRecord | null; body: string | null}>()
  const stampOf = (id: number) => {
    const stat = statSync(taskPaths(stateDir, id).record, {throwIfNoEntry: false})
    return stat ? `${stat.ino}:${stat.size}:${stat.mtimeMs}` : null
  }
  // Ids present at the last pass, those not seen ended, and folders without a readable record (a start filling one).
  let present = new Set<number>()
  const open = new Set<number>()
  const unread = new Set<number>()
  let first = true
  const json = (record: TaskRecord): TaskJson => taskJson(record, {stateDir})
  try {
    while (!opts.signal?.aborted) {
      const passBegan = performance.now()
      const {ids: listed, hinted, hints, relisted} = look.next()
      // The first pass takes the ended tasks the index holds from it (in tasks/, no hint: its rules, state/index.ts).
      const plan = first ? indexPlan(stateDir, listed) : null
      // The same folders as before: only tasks not seen ended, hinted ones and unread folders can have changed.
      const partial = hinted !== null && !relisted
      // (a partial pass starts from the ids present last time; a full one finds them all again)
      const ids = partial ? present : new Set<number>()
      const dropped: number[] = []
      if (!partial) unread.clear()
      const candidates = partial ? new Set([...open, ...unread, ...[...hinted].filter((id) => present.has(id))]) : listed
      let sinceYield = 0
      for (const id of candidates) {
        // The look is synchronous file work: at 10,000 tasks, let the caller's
        // other work (a key press, a redraw) in every few hundred tasks.
        if (++sinceYield === YIELD_EVERY) {
          sinceYield = 0
          await new Promise((resolve) => setImmediate(resolve))
        }
        const before = known.get(id)
        // ended, and no run opened since (its hint comes first): unchanged
        if (hinted && before && FINAL_STATUSES.includes(before.status) && !hinted.has(id)) {
          ids.add(id)
          continue
        }
        const entry = plan?.entryFor(id)
        const view = entry ? renderedText(entry, 'view', indexRender.version) : null
        if (entry && view) {
          const task = opts.initial ? (JSON.parse(view.toString('utf8')) as TaskJson) : null
          known.set(id, {status: task?.status ?? viewRow(entry).status, stamp: FROM_INDEX, read: null, body: null})
          ids.add(id)
          if (task) yield {type: 'created', id, task}
          continue
        }
        const stamp = stampOf(id)
        // A sweep comes to a task taken from the index: still without a hint, its record is the one indexed, so only its stamp is new.
        if (before?.stamp === FROM_INDEX && !hints.has(id) && stamp !== null) {
          before.stamp = stamp
          ids.add(id)
          continue
        }
        if (before && stamp !== null && stamp === before.stamp && FINAL_STATUSES.includes(before.status)) {
          ids.add(id)
          continue
        }
        const unchanged = before?.read && stamp !== null && stamp === before.stamp ? before.read : null
        const read = unchanged ? {ok: true as const, record: unchanged} : readRecord(stateDir, id)
        if (!read.ok) {
          if (partial && ids.delete(id)) dropped.push(id)
          unread.add(id)
          continue
        }
        unread.delete(id)
        ids.add(id)
        const record = isFinalStatus(read.record.status) ? read.record : await reconcile(stateDir, read.record)
        const status = shownStatus(record)
        if (FINAL_STATUSES.includes(status)) open.delete(id)
        else open.add(id)
        const body = !opts.updates ? null : unchanged && record === unchanged ? before!.body : JSON.stringify(record)
        known.set(id, {status, stamp, read: isFinalStatus(read.record.status) ? null : read.record, body})
        if (first && !opts.initial) continue
        if (before === undefined) yield {type: 'created', id, task: json(record)}
        else if (before.status !== status) yield {type: 'status', id, from: before.status, to: status, task: json(record)}
        else if (opts.updates && body !== before.body) yield {type: 'updated', id, task: json(record)}
        // a task first seen already ended (created and over between two looks) ends too; one found there at the start does not
        if ((before === undefined ? !first : before.status !== status) && FINAL_STATUSES.includes(status)) yield {type: 'ended', id, task: json(record)}
      }
      for (const id of partial ? dropped : [...known.keys()]) {
        if (ids.has(id) || !known.has(id)) continue
        known.delete(id)
        open.delete(id)
        yield {type: 'removed', id}
      }
      present = ids
      if (first) opts.onReady?.()
      first = false
      // A look that took long (thousands of tasks, a slow disk) waits longer
      // for the next, so watching costs at most about a fifth of a core.
      await wakeup.sleep(Math.max(opts.pollMs ?? 250, 4 * (performance.now() - passBegan)))
    }
  } finally {
    wakeup.close()
  }
}

/** The index's plan for the first pass, or null when it holds nothing to use: its views only, all the pass takes of an entry. */
function indexPlan(stateDir: string, ids: Float64Array): TaskPlan | null {
  const plan = planTaskReads(stateDir, ids, ['view'], indexRender.version)
  return plan.used > 0 ? plan : null
}
