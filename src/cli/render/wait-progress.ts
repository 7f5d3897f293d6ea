// The row `wait` shows on a terminal for a task not ended yet: its id and
// name, and what it is doing now in a few words — running, queued and for
// what, waiting for a usage limit and until when.

import type {TaskJson} from '../../api/task-json.js'
import {localTimesIn, shortTime} from './time.js'

export function progressTitle(task: TaskJson, now = new Date()): string {
  const who = `task ${task.id}${task.name ? ` (${task.name})` : ''}`
  switch (task.status) {
    case 'queued': {
      // a queued task's reason says what it waits for: "waiting for a slot in queue agents"
      const what = task.reason ? localTimesIn(task.reason).replace(/^waiting for /, '') : null
      return `${who}: queued${what ? `, waiting for ${what}` : ''}${task.position !== null ? ` (#${task.position} in line)` : ''}`
    }
    case 'waiting':
      return `${who}: waiting for its usage limit to lift${task.waitUntil ? `; resumes ${shortTime(task.waitUntil, now)}` : ''}`
    case 'starting':
    case 'running':
    case 'stopping':
      return `${who}: ${task.status}${task.pid !== null ? ` (pid ${task.pid})` : ''}`
    default:
      return `${who}: ${task.status}`
  }
}
