// What front-ends need to show logs beyond the bytes: the exit code a follower
// ends with (the task's own), and where a run's output starts.

import type {TaskJson} from './task-json.js'

export {exitCodeOf} from './task-json.js'

/**
 * Where in output.log the output of the runs active since `sinceMs` (epoch
 * ms) begins: drover knows when each run started and ended, not when each
 * line was written. null when no run of the task was active since then.
 */
export function outputOffsetSince(task: Pick<TaskJson, 'runs'>, sinceMs: number): number | null {
  for (const run of task.runs) {
    const ended = run.endedAt === null ? Number.POSITIVE_INFINITY : Date.parse(run.endedAt)
    if (ended >= sinceMs) return run.outputOffset ?? 0
  }
  return null
}

export {parseDuration} from '../base/parse.js'
