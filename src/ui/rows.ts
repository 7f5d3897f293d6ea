// What the page shows of a task beyond its --json shape: the short outcome
// label and the one-line command the CLI's table shows, worded once (in the
// API), so the page and `drover list` always agree.

import {commandLine, type CorruptTaskJson, type TaskJson} from '../api/task-json.js'
import {outcomeLabel} from '../api/values.js'

export type TaskRow<T extends TaskJson | CorruptTaskJson = TaskJson | CorruptTaskJson> = T & {outcome: string; commandLine: string}

export function taskRow<T extends TaskJson | CorruptTaskJson>(task: T): TaskRow<T> {
  if (task.status === 'corrupt') return {...task, outcome: 'corrupt', commandLine: (task as CorruptTaskJson).error}
  const t = task as TaskJson
  return {
    ...task,
    outcome: outcomeLabel({status: t.status, reason: t.reason, exitCode: t.exitCode, signal: t.signal, forced: t.checkpoint?.forced}),
    commandLine: commandLine(t),
  }
}
