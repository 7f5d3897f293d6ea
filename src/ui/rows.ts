// What the page shows of a task beyond its --json shape: the short outcome
// label the CLI's table shows, worded once (api/values), so the page and
// `drover list` always agree.

import type {CorruptTaskJson, TaskJson} from '../api/task-json.js'
import {outcomeLabel} from '../api/values.js'

export type TaskRow<T extends TaskJson | CorruptTaskJson = TaskJson | CorruptTaskJson> = T & {outcome: string}

export function describeOutcomeOf<T extends TaskJson | CorruptTaskJson>(task: T): TaskRow<T> {
  if (task.status === 'corrupt') return {...task, outcome: `corrupt: ${(task as CorruptTaskJson).error}`}
  const t = task as TaskJson
  return {...task, outcome: outcomeLabel({status: t.status, reason: t.reason, exitCode: t.exitCode, signal: t.signal, forced: t.checkpoint?.forced})}
}
