// The queue part of the API: settings and the state of each queue, moving
// queues on, and checking what `start` was given for queues and dependencies.
// Every front-end reaches queues through here (and the Drover methods on it).

import type {QueueInfo} from '../tasks/queues.js'

export type {QueueInfo}
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
  const {checkPriority, checkQueueName, resolveDependencies} = await import('../tasks/queues.js')
  return {
    queue: o.queue === undefined ? null : checkQueueName(o.queue),
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

export async function configureQueue(stateDir: string, name: string, change: {parallel?: number; paused?: boolean}): Promise<QueueInfo> {
  const {configureQueue: configure} = await import('../tasks/queues.js')
  return configure(stateDir, name, change)
}
