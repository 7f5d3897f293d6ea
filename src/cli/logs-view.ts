// Which tasks `logs` shows to people, and how: named ones or --all (the live
// tasks, and with --since those that ended within it), as a transcript for
// agents (--pretty, the default on a terminal) or raw, prefixed when several.
// The output itself is follow-many.ts's; the single raw log stays logs.ts's.

import {statSync} from 'node:fs'
import type {Drover} from '../api/drover.js'
import {parseSince, readsAgentEvents, usageError, type TaskStatus} from '../api/values.js'
import type {TaskDetailJson, TaskJson} from '../api/task-json.js'
import {outputOffsetSince} from '../api/logs.js'
import {followMany} from './render/follow-many.js'
import type {Paint} from './render/color.js'

export interface LogsViewFlags {
  follow: boolean
  all: boolean
  group?: string
  pretty: boolean
  raw: boolean
  full: boolean
  timestamps: boolean
  since?: string
  tail?: number | 'all'
  offset?: number
}

// A queued task is live too: `logs -f --all` that left it out would end with
// the running one and miss the queued one's run (as `stop --all` includes it).
const LIVE: TaskStatus[] = ['queued', 'starting', 'running', 'stopping', 'waiting']

/**
 * The stderr line for following a task that has not started (queued) or
 * sleeps (waiting for a usage limit): what it waits for, so an empty screen
 * is explained. null for a task that runs or ended.
 */
export function notStartedNote(task: Pick<TaskJson, 'id' | 'name' | 'status' | 'reason'>): string | null {
  if (task.status !== 'queued' && task.status !== 'waiting') return null
  const who = `task ${task.id}${task.name ? ` (${task.name})` : ''}`
  const why = task.reason ? `: ${task.reason}` : ''
  return `drover: ${who} is ${task.status}${why}; its output follows once it ${task.status === 'queued' ? 'starts' : 'resumes'}`
}

function sizeOf(file: string): number {
  try {
    return statSync(file).size
  } catch {
    return 0
  }
}

/**
 * Whether this `logs` call is for the people's view; else the raw single-task
 * path serves it, as it always has: piped, or a terminal showing a job that is
 * not an agent.
 */
export async function wantsLogsView(drover: Drover, refs: string[], flags: LogsViewFlags, tty: boolean): Promise<boolean> {
  if (refs.length !== 1 || flags.all || flags.group !== undefined || flags.pretty || flags.timestamps || flags.full || flags.since !== undefined) return true
  if (!tty || flags.raw) return false
  try {
    return readsAgentEvents((await drover.get(refs[0])).agent)
  } catch {
    return false // the raw path reports the unknown task as it always has
  }
}

export async function logsView(drover: Drover, refs: string[], flags: LogsViewFlags, opts: {json: boolean; tty: boolean; paint: Paint}): Promise<number> {
  const group = flags.group !== undefined
  if ([refs.length > 0, flags.all, group].filter(Boolean).length > 1) throw usageError(`give ${[refs.length > 0 && 'task ids', flags.all && '--all', group && '--group'].filter(Boolean).join(' or ')}, not both`)
  if (!flags.all && !group && refs.length === 0) throw usageError('no task given: name a task (or several with -f), or --all or --group NAME')
  if (opts.json && (refs.length > 1 || flags.all || group || flags.pretty || flags.timestamps)) {
    throw usageError('--json streams one task\'s raw output: leave out --pretty, --timestamps, --all, --group and further tasks')
  }
  if (flags.pretty && flags.raw) throw usageError('give --pretty or --raw, not both')
  if (flags.since !== undefined && (flags.tail !== undefined || flags.offset !== undefined)) throw usageError('give --since or -n/--offset, not both')
  const sinceMs = flags.since === undefined ? null : parseSince(flags.since)
  // A line's time is noted as it arrives: what was written before is shown without one.
  if (flags.timestamps && !flags.follow) process.stderr.write('drover: note: --timestamps shows the time of lines that arrive while following (-f); the lines already written have none\n')
  let tasks: TaskDetailJson[]
  if (flags.all) {
    // Without --since only live tasks are wanted: the API finds them without reading every ended one.
    const listed = (await drover.list(sinceMs === null ? {status: LIVE} : {})).filter((t): t is TaskJson => t.status !== 'corrupt')
    const wanted = listed.filter((t) => LIVE.includes(t.status) || (sinceMs !== null && t.endedAt !== null && Date.parse(t.endedAt) >= sinceMs))
    tasks = await Promise.all(wanted.map((t) => drover.get(t.id)))
    if (tasks.length === 0 && !flags.follow) process.stderr.write('no live tasks (running, queued or waiting)\n')
  } else if (group) {
    // every task of the group, ended ones too: a fan-out's attempts side by side, prefixed
    tasks = await Promise.all((await drover.group(flags.group!)).tasks.map((t) => drover.get(t.id)))
  } else {
    tasks = await Promise.all(refs.map((ref) => drover.get(ref)))
  }
  const tail = flags.tail === 'all' ? undefined : flags.tail
  if (flags.follow) {
    for (const task of tasks) {
      const note = notStartedNote(task)
      if (note) process.stderr.write(`${note}\n`)
    }
  }
  return followMany(drover, tasks, {
    follow: flags.follow,
    joinNew: flags.all,
    pretty: (task) => flags.pretty || (!flags.raw && opts.tty && readsAgentEvents(task.agent)),
    full: flags.full,
    timestamps: flags.timestamps,
    prefix: tasks.length > 1 || flags.all || group,
    paint: opts.paint,
    startOf: (task) => {
      // A task with no run since then shows only what comes next.
      if (sinceMs !== null) return {offset: outputOffsetSince(task, sinceMs) ?? sizeOf((task as TaskDetailJson).paths.output)}
      return flags.offset !== undefined ? {offset: flags.offset} : {tail}
    },
  })
}
