// `logs` for people and for several tasks at once: each task's output cut
// into lines, an agent's events rendered as a transcript (--pretty), every
// line prefixed with `[id name]` when there are several tasks (a colour each
// on a terminal) and with its time of arrival (--timestamps). Built on the
// API's follow(), one follower per task; with --all, tasks that start while
// following join in. The raw single-task `logs -f` keeps follow-stdout.ts.

import {statSync} from 'node:fs'
import type {Drover} from '../../api/drover.js'
import type {TaskDetailJson, TaskJson} from '../../api/task-json.js'
import {exitCodeOf} from '../../api/logs.js'
import {describeOutcome} from '../../api/values.js'
import {transcriptItems, transcriptLines} from '../../api/transcript.js'
import type {Paint, Style} from './color.js'

export interface FollowManyOptions {
  /** keep following until every task has ended (else print what is there and stop). */
  follow: boolean
  /** --all: tasks that start while following join in. */
  joinNew: boolean
  /** per task: render agents' events as a transcript. */
  pretty: (task: TaskJson) => boolean
  full: boolean
  timestamps: boolean
  /** prefix lines with `[id name]` (several tasks, or --all). */
  prefix: boolean
  paint: Paint
  /** where each task's output starts: a byte offset, or its last `tail` lines (default: the whole log). */
  startOf: (task: TaskJson) => {offset?: number; tail?: number}
}

const TASK_COLOURS: Style[] = ['cyan', 'yellow', 'green', 'magenta', 'blue', 'red']
const LIVE = new Set(['starting', 'running', 'stopping'])
const pad = (n: number, width = 2) => String(n).padStart(width, '0')
const clock = (d: Date) => `${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}.${pad(d.getMilliseconds(), 3)}`
// Lines already in the log when following began arrived at a time nobody noted.
const UNKNOWN_TIME = ' '.repeat(12)

function writeOut(text: string): Promise<void> {
  return new Promise((resolve, reject) => process.stdout.write(text, (error) => (error ? reject(error) : resolve())))
}

/** Follows (or prints) the tasks; resolves to the exit code: following, 0 when all succeeded, else the first failing task's own. */
export async function followMany(drover: Drover, tasks: TaskDetailJson[], opts: FollowManyOptions): Promise<number> {
  const abort = new AbortController()
  let interrupted = false
  const onInterrupt = () => {
    interrupted = true
    abort.abort()
  }
  process.once('SIGINT', onInterrupt)
  const ended = new Map<number, TaskJson | null>()
  const followers = new Map<number, Promise<void>>()
  let out: Promise<void> = Promise.resolve()
  const emit = (text: string) => (out = out.then(() => writeOut(text)))
  const width = () => Math.max(0, ...[...followers.keys()].map((id) => label(id).length))
  const labels = new Map<number, string>()
  const label = (id: number) => labels.get(id) ?? ''

  const add = (task: TaskDetailJson, start: {offset?: number; tail?: number}) => {
    if (followers.has(task.id)) return
    labels.set(task.id, `[${task.id}${task.name ? ` ${task.name}` : ''}]`)
    const colour = TASK_COLOURS[followers.size % TASK_COLOURS.length]
    const pretty = opts.pretty(task)
    const known = sizeOf(task.paths.output)
    let rest = ''
    const lineOut = (line: string, at: number) => {
      const rendered = pretty ? transcriptItems(task.agent, line).flatMap((item) => transcriptLines(item, {paint: opts.paint, full: opts.full})) : [line]
      // Without -f every line was there already and no time is known: no column of blanks then.
      const stamp = opts.timestamps && opts.follow ? `${opts.paint('dim', at < known ? UNKNOWN_TIME : clock(new Date()))} ` : ''
      const prefix = opts.prefix ? `${opts.paint(colour, label(task.id).padEnd(width()))} ` : ''
      for (const text of rendered) emit(`${prefix}${stamp}${text}\n`)
    }
    const endLine = (task: TaskJson, end: TaskJson) => {
      const stamp = opts.timestamps ? `${opts.paint('dim', clock(new Date()))} ` : ''
      const prefix = `${opts.paint(colour, label(task.id).padEnd(width()))} `
      const words = `── drover: task ${end.id} ended ${describeOutcome(end.status, end.reason)}`
      emit(`${prefix}${stamp}${opts.paint(end.status === 'succeeded' ? 'dim' : 'red', words)}\n`)
    }
    const run = async () => {
      if (!opts.follow) {
        const buffer = Buffer.from(await drover.logs(task.id, {tail: start.tail}))
        const from = Math.min(start.offset ?? 0, buffer.length)
        splitLines(buffer.subarray(from).toString('utf8'), from, lineOut, true)
        ended.set(task.id, task)
        return
      }
      const following = drover.follow(task.id, {...start, signal: abort.signal})
      for (;;) {
        const next = await following.next()
        if (next.done) {
          if (rest !== '') lineOut(rest, Number.POSITIVE_INFINITY)
          ended.set(task.id, next.value)
          // Among several tasks, each says how it ended where its output stops (as nq writes `[exited with status 3.]`).
          if (opts.prefix && next.value) endLine(task, next.value)
          return
        }
        const chunk = next.value
        rest = splitLines(rest + chunk.text, chunk.offset - Buffer.byteLength(rest), lineOut, false)
      }
    }
    followers.set(task.id, run())
  }

  try {
    for (const task of tasks) add(task, opts.startOf(task))
    if (opts.joinNew && opts.follow) void watchNew(drover, abort.signal, async (task, created) => {
      const detail = await drover.get(task.id)
      // A new task is followed from its start; one starting a new run, from where that run begins.
      add(detail, {offset: created ? 0 : sizeOf(detail.paths.output)})
    })
    // Followers join while we wait: loop until every one of them is done.
    for (;;) {
      const pending = [...followers.values()]
      await Promise.all(pending)
      if (followers.size === pending.length) break
    }
    await out
  } finally {
    process.removeListener('SIGINT', onInterrupt)
    abort.abort() // the watch for new tasks
  }
  const unended = [...followers.keys()].filter((id) => ended.get(id) === null)
  if (interrupted) {
    process.stderr.write(`\ndrover: stopped following; the tasks still run (drover stop ID to stop one)\n`)
    return 130
  }
  // Followed to its end, a task without one was removed meanwhile.
  if (unended.length > 0) {
    process.stderr.write(`drover: task${unended.length === 1 ? '' : 's'} ${unended.join(', ')} removed while following\n`)
    return 3
  }
  // Printing what is there says nothing of how the tasks end: like `logs` without -f, exit 0.
  if (!opts.follow) return 0
  const codes = [...ended.entries()].sort(([a], [b]) => a - b).map(([, task]) => exitCodeOf(task!))
  return codes.find((code) => code !== 0) ?? 0
}

function sizeOf(file: string): number {
  try {
    return statSync(file).size
  } catch {
    return 0
  }
}

/** Cuts text into lines, giving each with its byte offset; returns the unfinished rest (or flushes it). */
function splitLines(text: string, offset: number, line: (text: string, at: number) => void, flush: boolean): string {
  let at = offset
  const parts = text.split('\n')
  const rest = parts.pop() ?? ''
  for (const part of parts) {
    line(part, at)
    at += Buffer.byteLength(part) + 1
  }
  if (flush && rest !== '') {
    line(rest, at)
    return ''
  }
  return rest
}

/** Calls `join` for every task that starts (is created, or begins a new run) while following. */
async function watchNew(drover: Drover, signal: AbortSignal, join: (task: TaskJson, created: boolean) => Promise<void>): Promise<void> {
  try {
    for await (const event of drover.events({signal})) {
      if (event.type === 'created') await join(event.task, true).catch(() => {})
      else if (event.type === 'status' && LIVE.has(event.to)) await join(event.task, false).catch(() => {})
    }
  } catch {
    // the state dir went away: the followers say so
  }
}
