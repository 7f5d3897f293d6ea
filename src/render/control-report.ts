// Running one kind of request (stop, cancel, drain) over many tasks at once
// and reporting it: listr2 progress on a terminal, plain lines otherwise.

import {requestControl, type ControlOptions, type ControlResult} from '../core/control.js'
import type {NewRequest} from '../core/requests.js'
import type {Selection} from '../core/select.js'

export interface ControlReport {
  results: ControlResult[]
  missing: {id: string; found: false}[]
}

/** Requests go out to every task at once, not one after another: ten stops take one grace, not ten. */
export async function controlAll(
  stateDir: string,
  selection: Selection,
  request: NewRequest,
  opts: ControlOptions & {progress: boolean; verb: string},
): Promise<ControlReport> {
  const missing = selection.missing.map((id) => ({id, found: false as const}))
  if (!opts.progress || selection.tasks.length === 0) {
    const results = await Promise.all(selection.tasks.map((task) => requestControl(stateDir, task, request, opts)))
    return {results, missing}
  }
  const {Listr} = await import('listr2')
  const results: ControlResult[] = []
  const list = new Listr(
    selection.tasks.map((task) => ({
      title: `task ${task.id}${task.name ? ` (${task.name})` : ''}: ${opts.verb}`,
      task: async (_ctx: unknown, item: {title: string}) => {
        const result = await requestControl(stateDir, task, request, opts)
        results.push(result)
        item.title = result.message
      },
    })),
    {concurrent: true, exitOnError: false, rendererOptions: {collapseErrors: false}},
  )
  await list.run()
  results.sort((a, b) => a.id - b.id)
  return {results, missing}
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
  for (const m of report.missing) process.stderr.write(`drover: no such task: ${m.id}\n`)
}
