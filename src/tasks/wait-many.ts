// Waiting for many tasks at once (`drover wait`): one loop over the selected
// records, woken by fs.watch when a task.json is replaced (not by the output
// a busy task appends beside it) and by a poll as the safety net, reconciling
// now and then so a dead runner cannot make it hang. Waiting on 100 tasks is
// a hundred small reads every half second: next to no CPU.

import {DroverError, ExitCode} from '../base/errors.js'
import {signalNumber} from '../platform/platform.js'
import {isFinalStatus, taskExitCode, type TaskRecord} from '../state/record.js'
import {readRecord, taskPaths} from '../state/store.js'
import {watch, type FSWatcher} from 'node:fs'
import {reconcile} from './reconcile.js'

export const EXIT_TIMEOUT = 124
export const EXIT_INTERRUPTED = 130

const POLL_MS = 500
const RECONCILE_MS = 2000
const MIN_PASS_MS = 20

/** Sleeps until a poll interval passes or a watched folder's task.json is replaced. */
class RecordWakeup {
  private pending: (() => void) | null = null
  private readonly watchers: FSWatcher[] = []
  readonly wake = (): void => this.pending?.()

  constructor(dirs: string[]) {
    for (const dir of dirs) {
      try {
        const watcher = watch(dir, (_event, file) => {
          if (file === null || String(file) === 'task.json') this.wake()
        })
        watcher.on('error', () => watcher.close())
        this.watchers.push(watcher)
      } catch {
        // the poll covers it
      }
    }
  }

  sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.pending = null
        resolve()
      }, ms)
      this.pending = () => {
        clearTimeout(timer)
        this.pending = null
        resolve()
      }
    })
  }

  close(): void {
    for (const watcher of this.watchers) watcher.close()
  }
}

export interface WaitManyOptions {
  /** return as soon as one task has ended. */
  any?: boolean
  timeoutMs?: number
  signal?: AbortSignal
  /** called once per task, when it is seen final. */
  onEnd?: (record: TaskRecord) => void
}

export interface WaitManyResult {
  /** every selected task as last seen, in the order given. */
  records: TaskRecord[]
  /** the ended ones, in the order they ended (endedAt, then id). */
  ended: TaskRecord[]
  outcome: 'ended' | 'timeout' | 'interrupted'
}

export async function waitForMany(stateDir: string, ids: number[], opts: WaitManyOptions = {}): Promise<WaitManyResult> {
  const deadline = opts.timeoutMs === undefined ? Infinity : Date.now() + opts.timeoutMs
  const latest = new Map<number, TaskRecord>()
  const seenEnded = new Set<number>()
  const wakeup = new RecordWakeup(ids.map((id) => taskPaths(stateDir, id).dir))
  opts.signal?.addEventListener('abort', wakeup.wake)
  let lastReconcile = Date.now()
  try {
    for (;;) {
      const reconcileNow = Date.now() - lastReconcile >= RECONCILE_MS
      if (reconcileNow) lastReconcile = Date.now()
      for (const id of ids) {
        if (seenEnded.has(id)) continue
        const read = readRecord(stateDir, id)
        if (!read.ok) {
          if (read.missing) throw new DroverError(`task ${id} was removed while waiting for it`, ExitCode.notFound, {id, found: false})
          continue
        }
        let record = read.record
        if (!isFinalStatus(record.status) && reconcileNow) record = await reconcile(stateDir, record)
        latest.set(id, record)
        if (isFinalStatus(record.status)) {
          seenEnded.add(id)
          opts.onEnd?.(record)
        }
      }
      const done = opts.any ? seenEnded.size > 0 : seenEnded.size === ids.length
      const outcome = done ? 'ended' : opts.signal?.aborted ? 'interrupted' : Date.now() >= deadline ? 'timeout' : null
      if (outcome) {
        const records = ids.map((id) => latest.get(id)!).filter(Boolean)
        const ended = records.filter((r) => isFinalStatus(r.status)).sort(byEnd)
        return {records, ended, outcome}
      }
      await wakeup.sleep(Math.min(POLL_MS, Math.max(1, deadline - Date.now())))
      // Several records replaced at once wake us once.
      await new Promise((resolve) => setTimeout(resolve, MIN_PASS_MS))
    }
  } finally {
    opts.signal?.removeEventListener('abort', wakeup.wake)
    wakeup.close()
  }
}

/**
 * `drover wait`'s exit code: 124 on timeout, 130 when interrupted; else 0 when
 * every task waited for (with --any: the one that ended first) succeeded, and
 * otherwise the exit code of the first task, in the order they ended, that did
 * not succeed — its own exit code, 128 + the signal number, or 1 when it has
 * neither (skipped, cancelled before it ran, lost, a stop that exited 0).
 */
export function waitExitCode(result: WaitManyResult): number {
  if (result.outcome === 'timeout') return EXIT_TIMEOUT
  if (result.outcome === 'interrupted') return EXIT_INTERRUPTED
  const considered = result.ended
  const failed = considered.find((record) => record.status !== 'succeeded')
  if (!failed) return 0
  const code = taskExitCode(failed, signalNumber)
  return code === 0 ? 1 : code
}

/**
 * In the order they ended (ISO UTC times, so by code unit), then by id: not
 * localeCompare, whose first call sets up ICU's collation, 10 ms of a `wait`.
 */
function byEnd(a: TaskRecord, b: TaskRecord): number {
  const x = a.endedAt ?? ''
  const y = b.endedAt ?? ''
  return x < y ? -1 : x > y ? 1 : a.id - b.id
}
