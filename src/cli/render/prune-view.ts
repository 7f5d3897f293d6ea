// How `drover prune` reports: one line per task removed (or that would be),
// a summary with the bytes reclaimed, and a listr2 progress display for long
// prunes on a terminal. Cron sees plain, colourless lines.

import {formatBytes, type PruneResult} from '../../api/values.js'
import {statusStyle, type Paint} from './color.js'
import {shortTime} from './time.js'

/** Past this many removals on a terminal, a progress display beats a screenful of lines. */
export const PROGRESS_THRESHOLD = 50

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`

/** One line per task removed (or that would be), shared with `rm`. */
export function removedLines(result: PruneResult, paint: Paint): string[] {
  const verb = result.dryRun ? 'would remove' : 'removed'
  return result.removed.map((task) => {
    const style = statusStyle(task.status)
    const status = style ? paint(style, task.status) : task.status
    const name = task.name ? ` (${task.name})` : ''
    const ended = task.endedAt ? `, ended ${shortTime(task.endedAt)}` : ''
    return `${verb} task ${task.id}${name}: ${status}${ended}, ${formatBytes(task.bytes)}${worktreeText(task.worktree)}`
  })
}

function worktreeText(w: PruneResult['removed'][number]['worktree']): string {
  if (!w) return ''
  const parts = [w.worktreeRemoved ? `worktree ${w.path}` : '', w.branchDeleted ? `branch ${w.branch}` : ''].filter(Boolean)
  return (parts.length > 0 ? `, with its ${parts.join(' and ')}` : '') + (w.note ? ` (${w.note})` : '')
}

export function pruneLines(result: PruneResult, paint: Paint, opts: {perTask: boolean}): string[] {
  const lines: string[] = opts.perTask ? removedLines(result, paint) : []
  for (const skip of result.skipped) lines.push(paint('dim', `kept task ${skip.id}: ${skip.reason}`))
  for (const bad of result.corrupt) lines.push(`kept corrupt task ${bad.id} (--include-corrupt removes it): ${bad.error}`)
  if (result.debris.length > 0) {
    lines.push(`${result.dryRun ? 'would clear' : 'cleared'} ${plural(result.debris.length, 'leftover')} in tasks/: ${result.debris.join(', ')}`)
  }
  const kept = `${plural(result.kept, 'task')} kept`
  if (result.removed.length === 0) lines.push(`no tasks to prune; ${kept}`)
  else if (result.dryRun) {
    lines.push(`dry run: would remove ${plural(result.removed.length, 'task')}, reclaiming ${formatBytes(result.bytesReclaimed)}; ${kept}; nothing was changed`)
  } else lines.push(`removed ${plural(result.removed.length, 'task')}, reclaimed ${formatBytes(result.bytesReclaimed)}; ${kept}`)
  return lines
}

/**
 * Runs the removal phase under a listr2 progress line. listr2 (through
 * colorette) decides colour once, at import, from the environment: so when
 * drover's own rules say no colour, NO_COLOR is set before the import.
 */
export async function withProgress(
  count: number,
  color: boolean,
  removeAll: (step: () => void) => Promise<void>,
): Promise<void> {
  if (!color) process.env.NO_COLOR = '1'
  const {Listr} = await import('listr2')
  const list = new Listr(
    [
      {
        title: `Removing ${plural(count, 'task')}`,
        task: async (_ctx, task) => {
          let done = 0
          await removeAll(() => {
            done++
            task.output = `${done}/${count}`
          })
          task.title = `Removed ${plural(count, 'task')}`
        },
      },
    ],
    {exitOnError: true, rendererOptions: {collapseSubtasks: false}},
  )
  await list.run()
}
