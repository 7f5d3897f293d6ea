// wait_tasks: waiting for several tasks at once, for all of them or the first
// to end, bounded by a timeout, with a progress notification each time one
// ends and a heartbeat between (so a client that resets its request timeout on
// progress never gives up on a long wait).

import type {TaskJson, TaskRef} from '../api/index.js'
import type {ToolContext} from './tools.js'

const HEARTBEAT_MS = 5000

export interface WaitResult extends Record<string, unknown> {
  ended: number[]
  pending: number[]
  timedOut: boolean
  tasks: TaskJson[]
}

export async function waitTasks(
  ctx: ToolContext,
  refs: TaskRef[],
  opts: {mode: 'all' | 'any'; timeoutMs: number; isFinal: (task: TaskJson) => boolean},
): Promise<WaitResult> {
  // Every task is looked up before waiting: an unknown one is an error at once.
  const found = await Promise.all(refs.map((ref) => ctx.drover.get(ref)))
  const ids = [...new Set(found.map((task) => task.id))]
  const latest = new Map<number, TaskJson>(found.map((task) => [task.id, task]))
  const ended = () => ids.filter((id) => opts.isFinal(latest.get(id)!))
  const done = () => (opts.mode === 'any' ? ended().length > 0 : ended().length === ids.length)
  if (done()) return result(ids, latest, ended(), false)

  // One abort ends every per-task wait: the client's cancel, the first end in
  // "any" mode, or the timeout (Drover.wait polls the signal, so each returns promptly).
  const stop = new AbortController()
  const abort = () => stop.abort()
  ctx.signal.addEventListener('abort', abort)
  const timer = setTimeout(abort, opts.timeoutMs)
  const started = Date.now()
  const heartbeat = setInterval(() => {
    void ctx.progress(ended().length, ids.length, `${ended().length} of ${ids.length} ended; waiting ${Math.round((Date.now() - started) / 1000)} s`)
  }, HEARTBEAT_MS)
  try {
    await Promise.all(
      ids.map(async (id) => {
        if (opts.isFinal(latest.get(id)!)) return
        const [task] = await ctx.drover.wait([id], {signal: stop.signal})
        latest.set(id, task)
        if (!opts.isFinal(task)) return
        await ctx.progress(ended().length, ids.length, `task ${id} ${task.status}`)
        if (done()) abort()
      }),
    )
  } finally {
    // One wait failing (a task removed meanwhile) must not leave the others polling.
    abort()
    clearTimeout(timer)
    clearInterval(heartbeat)
    ctx.signal.removeEventListener('abort', abort)
  }
  return result(ids, latest, ended(), !done())
}

function result(ids: number[], latest: Map<number, TaskJson>, ended: number[], timedOut: boolean): WaitResult {
  return {ended, pending: ids.filter((id) => !ended.includes(id)), timedOut, tasks: ids.map((id) => latest.get(id)!)}
}
