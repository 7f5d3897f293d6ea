// The queue part of the API: settings and the state of each queue, moving
// queues on, and checking what `start` was given for queues and dependencies.
// Every front-end reaches queues through here (and the Drover methods on it).

import type {QueueInfo} from '../tasks/queues.js'
import type {TaskJson} from './task-json.js'

export type {QueueInfo}

/** A live task of a queue, briefly: what `queue NAME`, `queue --json` and MCP's queue_status show. */
export interface QueueMember {
  id: number
  name: string | null
  status: TaskJson['status']
  priority: number
  /** place in line while it waits for a slot (1: next). */
  position: number | null
  reason: string | null
}

/** A queue with its live tasks: those holding a slot, then those waiting, next to start first. */
export type QueueDetail = QueueInfo & {runningTasks: QueueMember[]; queuedTasks: QueueMember[]}

/** Each queue's live tasks sorted into slot holders and the line; `live` are the live tasks of the state dir. */
export function queueDetails(queues: QueueInfo[], live: TaskJson[]): QueueDetail[] {
  const brief = (t: TaskJson): QueueMember => ({id: t.id, name: t.name, status: t.status, priority: t.priority, position: t.position, reason: t.reason})
  const byPlace = (a: TaskJson, b: TaskJson) => (a.position ?? Infinity) - (b.position ?? Infinity) || a.id - b.id
  return queues.map((q) => {
    const mine = live.filter((t) => t.queue === q.name)
    return {
      ...q,
      runningTasks: mine.filter((t) => t.status !== 'queued').map(brief),
      queuedTasks: mine.filter((t) => t.status === 'queued').sort(byPlace).map(brief),
    }
  })
}
export {usageError} from '../base/errors.js'

/** What `start` adds for queues and dependencies; refs are ids or names. */
export interface QueueStartOptions {
  /** wait for a slot in this queue (see `drover queue set`). */
  queue?: string
  /** higher starts earlier among the queued tasks of the queue (-999…999, default 0). */
  priority?: number
  /** start once these tasks all succeeded; if one does not, this task ends `skipped`. */
  after?: (number | string)[]
  /** start once these tasks all ended, whatever the outcome. */
  afterEnded?: (number | string)[]
}

/** The TaskSpec fields for queues and dependencies, checked: unknown tasks are a usage error (exit 2), before anything is written. */
export async function queueSpec(
  stateDir: string,
  o: QueueStartOptions,
): Promise<{queue: string | null; priority: number; after: number[]; afterEnded: number[]}> {
  const {checkPriority, queueForStart, resolveDependencies} = await import('../tasks/queues.js')
  return {
    queue: o.queue === undefined ? null : queueForStart(stateDir, o.queue),
    priority: checkPriority(o.priority ?? 0),
    after: resolveDependencies(stateDir, (o.after ?? []).map(String), '--after'),
    afterEnded: resolveDependencies(stateDir, (o.afterEnded ?? []).map(String), '--after-ended'),
  }
}

/** Moves every queue on (each drover command does this first). Never throws. */
export async function advanceQueues(stateDir: string): Promise<void> {
  const {advanceQuietly} = await import('../tasks/queues.js')
  await advanceQuietly(stateDir)
}

export async function listQueues(stateDir: string): Promise<QueueInfo[]> {
  const {listQueues: list} = await import('../tasks/queues.js')
  return list(stateDir)
}

/** Forgets an empty queue (exit 4 while it holds a task; 2 for an unknown one). */
export async function removeQueue(stateDir: string, name: string): Promise<QueueInfo> {
  const {removeQueue: remove} = await import('../tasks/queues.js')
  return remove(stateDir, name)
}

export async function configureQueue(stateDir: string, name: string, change: {parallel?: number; paused?: boolean}): Promise<QueueInfo> {
  const {configureQueue: configure} = await import('../tasks/queues.js')
  return configure(stateDir, name, change)
}
