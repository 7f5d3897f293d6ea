// The queue view's data: each queue's settings and counts from the API, with
// the live tasks in it — those holding a slot, then those waiting, in the
// order they will start — so the page draws a queue from one answer.

import type {Drover} from '../api/drover.js'
import type {QueueInfo} from '../api/queues.js'
import type {TaskJson} from '../api/task-json.js'
import {taskRow, type TaskRow} from './rows.js'

export type QueueView = QueueInfo & {tasks: TaskRow<TaskJson>[]}

export async function queueViews(drover: Drover): Promise<QueueView[]> {
  // last: 0 reads the live tasks only: ended ones hold no slot and wait for none.
  const [queues, {tasks}] = await Promise.all([drover.queues(), drover.recent({last: 0})])
  const live = tasks.filter((task): task is TaskJson => task.status !== 'corrupt' && (task as TaskJson).queue !== null)
  return queues.map((queue) => ({
    ...queue,
    tasks: live
      .filter((task) => task.queue === queue.name)
      .sort((a, b) => lineOrder(a) - lineOrder(b) || a.id - b.id)
      .map(taskRow),
  }))
}

/** Slot holders first (0), then the waiting by their place in line; a task waiting on something else than a slot last. */
function lineOrder(task: TaskJson): number {
  if (task.status !== 'queued') return 0
  return task.position ?? Number.MAX_SAFE_INTEGER
}
