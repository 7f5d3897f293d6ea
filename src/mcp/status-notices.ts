// Status changes told to the MCP client as they happen: MCP has no event of
// its own for "something changed in the world", so each change of a task's
// status is a log message (notifications/message, logger "drover") whose
// `data` is the change: {event: "status", id, name, status, previous, reason,
// cause}. Its level says how much it asks of a person — a task waiting on a
// usage limit, lost, failed or drained by its budget is a warning, another
// end a notice, the rest info — so a client's logging/setLevel picks what it
// hears. Watched from the client's initialisation on, at a slower pace than
// a screen's (a notice a second late costs nothing); changes between two
// looks come as one (starting → failed), so every end is told, not every
// step to it — the status hooks (start --on-status) hear of each.

import type {Server} from '@modelcontextprotocol/sdk/server/index.js'
import type {LoggingLevel} from '@modelcontextprotocol/sdk/types.js'
import type {Drover, TaskJson} from '../api/index.js'
import {isFinalStatus} from '../api/values.js'

const POLL_MS = 1000

export interface StatusNotice {
  event: 'status'
  id: number
  name: string | null
  status: string
  previous: string | null
  reason: string | null
  cause: string | null
}

export function noticeLevel(task: Pick<TaskJson, 'status' | 'cause'>): LoggingLevel {
  if (task.status === 'waiting' || task.status === 'lost' || task.status === 'failed' || task.cause === 'budget') return 'warning'
  return isFinalStatus(task.status) ? 'notice' : 'info'
}

export function watchStatusNotices(server: Server, drover: Drover): {close: () => void} {
  const stop = new AbortController()
  void (async () => {
    try {
      for await (const event of drover.events({signal: stop.signal, pollMs: POLL_MS})) {
        // an end comes as a change of status too (its `ended` event would tell it twice)
        if (event.type !== 'status' && event.type !== 'created') continue
        const {task} = event
        const previous = event.type === 'status' ? event.from : null
        const data: StatusNotice = {event: 'status', id: task.id, name: task.name, status: task.status, previous, reason: task.reason, cause: task.cause}
        await server.sendLoggingMessage({level: noticeLevel(task), logger: 'drover', data}).catch(() => {})
      }
    } catch {
      // the state dir went away: nothing more to tell
    }
  })()
  return {close: () => stop.abort()}
}
