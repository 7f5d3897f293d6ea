// A --worktree task's changes as lines for the screen: what `drover diff
// --stat` says (branch, base, each file with lines added and removed), then
// the diff itself, cut to MAX_DIFF_BYTES (git computes it whole each time;
// the last line names the command that prints it all).

import type {Drover} from '../api/drover.js'
import {cleanLine} from './text.js'
import type {Paint} from './style.js'

/** The most of a diff the view holds: about 10,000 lines. */
export const MAX_DIFF_BYTES = 512 * 1024

export async function diffLines(drover: Drover, id: number, paint: Paint): Promise<string[]> {
  const [stat, {diff}] = await Promise.all([drover.diff(id, {stat: true}), drover.diff(id)])
  const lines = [paint('bold', `branch ${stat.branch} · base ${stat.base} (${stat.baseCommit.slice(0, 12)}) · ${stat.path}`)]
  for (const raw of stat.diff.replace(/\n$/, '').split('\n')) if (raw !== '') lines.push(cleanLine(raw))
  lines.push('')
  const bytes = Buffer.byteLength(diff)
  const shown = bytes > MAX_DIFF_BYTES ? Buffer.from(diff).subarray(0, MAX_DIFF_BYTES).toString('utf8') : diff
  if (shown.trim() === '') lines.push(paint('dim', '(no changes against the base)'))
  for (const raw of shown.replace(/\n$/, '').split('\n')) {
    const line = cleanLine(raw)
    if (line.startsWith('+++') || line.startsWith('---') || line.startsWith('diff ') || line.startsWith('index ')) lines.push(paint('bold', line))
    else if (line.startsWith('@@')) lines.push(paint('cyan', line))
    else if (line.startsWith('+')) lines.push(paint('green', line))
    else if (line.startsWith('-')) lines.push(paint('red', line))
    else lines.push(line)
  }
  if (bytes > MAX_DIFF_BYTES) lines.push(paint('dim', `… the first ${MAX_DIFF_BYTES / 1024} KiB of ${Math.round(bytes / 1024)} KiB: drover diff ${id} prints it all`))
  return lines
}
