// Whether a task can be resumed, and whether it was interrupted: read from the
// record alone, so `status`, `drain`'s hint and `resume --interrupted` agree and
// cost nothing to ask.

import {sessionRefusal} from './profiles.js'
import {profileOf} from './registry.js'
import type {TaskRecord} from '../state/record.js'

/** Why a task cannot be resumed, or null when it can. Reads only the record. */
export function resumeRefusal(record: TaskRecord): string | null {
  if (record.status === 'cancelled') return `task ${record.id} was cancelled, so it is not resumed; to run it again from the start: drover start ${record.id}`
  if (['starting', 'running', 'stopping'].includes(record.status)) {
    const hint = profileOf(record.agent) ? ` (\`drover resume ${record.id} --prompt "…"\` queues a follow-up for when this run ends)` : ''
    return `task ${record.id} is ${record.status}; it cannot be resumed while it runs${hint}`
  }
  if (record.status === 'queued') return `task ${record.id} is queued; it starts by itself when its turn comes`
  const session = sessionRefusal(record)
  return session === null ? null : `task ${record.id} cannot be resumed: ${session}`
}

/**
 * Tasks that were meant to be running and are not, through no one's choice: a
 * runner that vanished (crash, reboot), or a resume of one that could not
 * launch (the agent missing from PATH under cron). `resume --interrupted` takes
 * exactly these, so a failed attempt is tried again rather than dropped.
 */
export function wasInterrupted(record: TaskRecord): boolean {
  if (record.desired !== 'running') return false
  if (record.status === 'lost') return true
  const run = record.runs.at(-1)
  return record.status === 'failed' && record.worker === null && run?.resumed === true
}
