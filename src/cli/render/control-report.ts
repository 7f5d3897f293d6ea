// Showing a batch of stops, cancels or drains as it is carried out (the API
// sends the requests; this only watches them): listr2 progress on a terminal,
// plain lines otherwise, and what Ctrl-C means while waiting.

import type {ControlBatch, ControlResult} from '../../api/batch.js'
import {noSuchTask, type MissingRef} from '../../api/values.js'

export interface ControlReport {
  results: ControlResult[]
  missing: MissingRef[]
}

/** How long Ctrl-C waits for requests still being written, so none is left half made. */
const INTERRUPT_SETTLE_MS = 1000

/**
 * Waits for every task of the batch, with progress when `progress` is set.
 * `accepted` holds the ids whose request was taken (the API's onAccepted),
 * so Ctrl-C can say which requests carry on without this command.
 */
export async function reportBatch(
  batch: ControlBatch,
  accepted: ReadonlySet<number>,
  opts: {wait: boolean; progress: boolean; verb: string; kind: string},
): Promise<ControlReport> {
  const missing = batch.missing.map((id): MissingRef => ({id, found: false, ...(batch.didYouMean[id] ? {didYouMean: batch.didYouMean[id]} : {})}))
  const settled = new Set<number>()
  const control = async (task: ControlBatch['tasks'][number]) => {
    try {
      return await task.result
    } finally {
      settled.add(task.id)
    }
  }
  const waiting = opts.wait && batch.tasks.length > 0
  const interrupt = waiting ? onInterrupt(batch.tasks.map((task) => task.id), opts.kind, accepted, settled) : null
  try {
    if (!opts.progress || batch.tasks.length === 0) {
      return {results: await Promise.all(batch.tasks.map(control)), missing}
    }
    const {Listr} = await import('listr2')
    const results: ControlResult[] = []
    const items = new Map<number, {title: string}>()
    const list = new Listr(
      batch.tasks.map((task) => ({
        title: `task ${task.id}${task.name ? ` (${task.name})` : ''}: ${opts.verb}`,
        task: async (_ctx: unknown, item: {title: string}) => {
          items.set(task.id, item)
          const result = await control(task)
          results.push(result)
          item.title = result.message
        },
      })),
      // listr2's own Ctrl-C handler marks every task ✖ and exits 127; ours below says what really happens.
      {concurrent: true, exitOnError: false, registerSignalListeners: false, rendererOptions: {collapseErrors: false}},
    )
    interrupt?.beforeExit((carriesOn) => {
      for (const id of carriesOn) {
        const item = items.get(id)
        if (item) item.title = `task ${id}: ${opts.kind} requested; carries on`
      }
      // listr2 keeps its renderer private; ending it shows the last frame and the cursor again.
      ;(list as unknown as {renderer?: {end(): void}}).renderer?.end()
    })
    await list.run()
    results.sort((a, b) => a.id - b.id)
    return {results, missing}
  } finally {
    interrupt?.dispose()
  }
}

/**
 * Ctrl-C while waiting ends the wait, never the request: the runners carry
 * the stops on. Exit 130 (128 + SIGINT, what a shell reports for Ctrl-C) with
 * one line that says so and how to check, instead of a progress list of ✖.
 */
function onInterrupt(ids: number[], kind: string, accepted: ReadonlySet<number>, settled: Set<number>) {
  let beforeExit: (carriesOn: number[]) => void = () => {}
  const handler = async () => {
    const deadline = Date.now() + INTERRUPT_SETTLE_MS
    while (ids.some((id) => !accepted.has(id) && !settled.has(id)) && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 20))
    }
    const carriesOn = ids.filter((id) => accepted.has(id) && !settled.has(id))
    const unfinished = ids.filter((id) => !accepted.has(id) && !settled.has(id))
    beforeExit(carriesOn)
    const lines: string[] = []
    if (carriesOn.length > 0) {
      const check = carriesOn.length === 1 ? `drover status ${carriesOn[0]}` : 'drover list --status active'
      lines.push(`drover: interrupted; the ${kind} of task${carriesOn.length === 1 ? '' : 's'} ${carriesOn.join(', ')} carries on without this command (check: ${check})`)
    }
    if (unfinished.length > 0) {
      lines.push(`drover: interrupted before the ${kind} of task${unfinished.length === 1 ? '' : 's'} ${unfinished.join(', ')} was done; run it again (drover ${kind} ${unfinished.join(' ')})`)
    }
    if (lines.length === 0) lines.push('drover: interrupted')
    process.stderr.write(`${lines.join('\n')}\n`)
    process.exit(130)
  }
  process.once('SIGINT', handler)
  return {
    beforeExit: (fn: (carriesOn: number[]) => void) => {
      beforeExit = fn
    },
    dispose: () => process.removeListener('SIGINT', handler),
  }
}

/** Exit code: 3 if a ref named no task, 1 if a waited-for request did not end, else 0. */
export function controlExitCode(report: ControlReport, waited: boolean): number {
  if (report.missing.length > 0) return 3
  if (waited && report.results.some((r) => r.accepted && !r.final)) return 1
  return 0
}

/** Results on stdout, problems on stderr; "no tasks to stop" (the one spelling of nothing) when --all found none. */
export function printControlReport(report: ControlReport, opts: {quiet?: boolean; printed: boolean; verb: string}): void {
  if (!opts.printed && !opts.quiet) for (const r of report.results) process.stdout.write(`${r.message}\n`)
  if (!opts.quiet && report.results.length === 0 && report.missing.length === 0) process.stderr.write(`no tasks to ${opts.verb}\n`)
  for (const m of report.missing) process.stderr.write(`drover: ${noSuchTask(m)}\n`)
}
