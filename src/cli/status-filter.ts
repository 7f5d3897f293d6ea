// `--status` as `list` and `top` take it: statuses separated by commas (the
// flag may repeat), plus `active` (a runner now) and `final` (every ended one).

import {FINAL_STATUSES, TASK_STATUSES, usageError, type TaskStatus} from '../api/values.js'

/** What --status active means: a task with a runner now (not one queued for its turn). */
const ACTIVE: readonly TaskStatus[] = ['starting', 'running', 'stopping', 'waiting']
export const FILTERABLE = [...TASK_STATUSES, 'corrupt', 'active', 'final'] as const

/** The statuses asked for, or null when --status was not given (exit 2 for an unknown one). */
export function parseStatusFilter(values: string[] | undefined): (TaskStatus | 'corrupt')[] | null {
  if (!values || values.length === 0) return null
  const wanted = new Set<TaskStatus | 'corrupt'>()
  for (const value of values.flatMap((v) => v.split(',')).map((v) => v.trim()).filter(Boolean)) {
    if (!(FILTERABLE as readonly string[]).includes(value)) {
      throw usageError(`--status: unknown status '${value}' (one of: ${FILTERABLE.join(', ')})`)
    }
    if (value === 'active') for (const s of ACTIVE) wanted.add(s)
    else if (value === 'final') for (const s of FINAL_STATUSES) wanted.add(s)
    else wanted.add(value as TaskStatus | 'corrupt')
  }
  return [...wanted]
}
