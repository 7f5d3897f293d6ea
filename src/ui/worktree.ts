// A task's worktree for its page: the summary (branch, base, files changed,
// lines added and removed) and the diff against the base, cut to a size a
// page renders at once. git computes the whole diff every time (the worktree
// changes under a running agent, so pages of an earlier diff would not fit
// together); the page says when it shows only the start and names the
// command that prints it all.

import type {Drover} from '../api/drover.js'
import type {WorktreeStatus} from '../api/worktrees.js'

/** The most of a diff one answer carries: about 10,000 lines, drawn in well under a frame budget's worth of nodes. */
export const MAX_DIFF_BYTES = 512 * 1024

export interface WorktreeView {
  worktree: WorktreeStatus
  /** the start of the diff, whole lines, at most MAX_DIFF_BYTES. */
  diff: string
  /** the whole diff's size in bytes; more than diff's when it was cut. */
  diffBytes: number
  truncated: boolean
  /** why there is no diff (the worktree and its branch are gone), or null. */
  diffError: string | null
}

export async function worktreeView(drover: Drover, id: number, maxBytes = MAX_DIFF_BYTES): Promise<WorktreeView> {
  const worktree = await drover.worktree(id)
  let whole = ''
  let diffError: string | null = null
  try {
    whole = (await drover.diff(id)).diff
  } catch (error) {
    diffError = (error as Error).message
  }
  const diffBytes = Buffer.byteLength(whole)
  const diff = diffBytes > maxBytes ? headLines(whole, maxBytes) : whole
  return {worktree, diff, diffBytes, truncated: diff.length < whole.length, diffError}
}

/** The whole lines that fit in `maxBytes` bytes of `text` (one cut line when even the first does not fit). */
export function headLines(text: string, maxBytes: number): string {
  const head = Buffer.from(text).subarray(0, maxBytes).toString('utf8').replace(/\uFFFD$/, '')
  const newline = head.lastIndexOf('\n')
  return newline === -1 ? head : head.slice(0, newline + 1)
}
