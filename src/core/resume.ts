// `resume`: a new run that continues a task's persisted session — the agent's
// own conversation for claude and codex, the session dir for anything else.

import {conflictError} from './errors.js'
import {startNewRun} from './launch.js'
import {DEFAULT_RESUME_PROMPT, ResumeRefused, resumeCommand} from './profiles.js'
import type {TaskRecord} from './record.js'

export {DEFAULT_RESUME_PROMPT}

/** Why a task cannot be resumed, or null when it can. */
export function resumeRefusal(record: TaskRecord): string | null {
  if (record.status === 'cancelled') return `task ${record.id} was cancelled, so it is not resumed; to run it again from the start: drover start ${record.id}`
  if (['starting', 'running', 'stopping'].includes(record.status)) return `task ${record.id} is ${record.status}; it cannot be resumed while it runs`
  try {
    resumeCommand(record, DEFAULT_RESUME_PROMPT)
    return null
  } catch (error) {
    if (error instanceof ResumeRefused) return `task ${record.id} has no session to continue: ${error.message}`
    throw error
  }
}

export async function resumeTask(stateDir: string, id: number, prompt: string): Promise<TaskRecord> {
  return startNewRun(stateDir, id, {
    resumed: true,
    prepare(record) {
      const refusal = resumeRefusal(record)
      if (refusal) throw conflictError(refusal, {id: record.id, status: record.status})
      return record.agent === 'generic' ? null : resumeCommand(record, prompt).command
    },
  })
}
