// A task's worktree on its page: the branch, its base and what changed
// (files, lines added and removed, commits, uncommitted work), then the diff
// against the base with added and removed lines coloured. Lines go in as
// text; runs of lines of one kind share one node, so ten thousand lines are
// a few hundred nodes. The server sends at most the first ~512 KiB; the page
// says when the diff is longer and names the command that prints it all.

import {el, formatCount, formatTime, setChildren} from './dom.js'
import {getJson} from './net.js'

interface WorktreeView {
  worktree: {
    branch: string
    base: string
    baseCommit: string
    path: string
    present: boolean
    baseDirty: boolean
    summary: {head: string; commits: number; filesChanged: number; insertions: number; deletions: number; uncommitted: boolean; at: string} | null
  }
  diff: string
  diffBytes: number
  truncated: boolean
  diffError: string | null
}

type LineKind = 'file' | 'meta' | 'hunk' | 'add' | 'del' | 'context'

export class DiffView {
  readonly root = el('section', {className: 'worktree', attrs: {id: 'worktree'}})
  private loading: Promise<void> | null = null

  constructor(private readonly id: number) {}

  /** Reads the worktree again (git runs on the server); a refresh asked while one runs waits for it. */
  refresh(): Promise<void> {
    this.loading ??= getJson<WorktreeView>(`/api/tasks/${this.id}/worktree`)
      .then((view) => this.draw(view))
      .catch((error: Error) => this.root.replaceChildren(el('h2', {}, 'Worktree'), el('p', {className: 'error'}, error.message)))
      .finally(() => (this.loading = null))
    return this.loading
  }

  private draw(view: WorktreeView): void {
    const {worktree, diff} = view
    const s = worktree.summary
    const again = el('button', {attrs: {type: 'button', id: 'diff-refresh'}, on: {click: () => void this.refresh()}}, 'refresh')
    setChildren(
      this.root,
      el('h2', {}, 'Worktree ', again),
      el(
        'dl',
        {className: 'facts', attrs: {id: 'worktree-summary'}},
        ...fact('Branch', worktree.branch),
        ...fact('Base', `${worktree.base} (${worktree.baseCommit.slice(0, 12)})${worktree.baseDirty ? ', its uncommitted changes left out' : ''}`),
        ...fact('Path', worktree.present ? worktree.path : `${worktree.path} (gone)`),
        ...(s
          ? [
              ...fact('Files changed', String(s.filesChanged)),
              ...fact('Lines', `+${formatCount(s.insertions)} −${formatCount(s.deletions)}`),
              ...fact('Commits', String(s.commits)),
              ...fact('Uncommitted', s.uncommitted ? 'yes' : 'no'),
              ...fact('As of', formatTime(s.at)),
            ]
          : []),
      ),
      view.truncated
        ? el('p', {className: 'hint', attrs: {id: 'diff-truncated'}}, `The diff is ${formatCount(view.diffBytes)} bytes: the first ${formatCount(new TextEncoder().encode(diff).length)} are shown. drover diff ${this.id} prints it all.`)
        : null,
      view.diffError ? el('p', {className: 'error'}, view.diffError) : null,
      diff === '' && !view.diffError ? el('p', {className: 'hint'}, 'No changes against the base.') : el('pre', {className: 'diff', attrs: {id: 'diff', tabindex: '0'}}, ...renderDiff(diff)),
    )
  }
}

/**
 * The patch as runs of same-kind lines. The file header (from `diff --git`
 * to the first `@@`) is told apart by position, not by its first character:
 * inside a hunk, `+++ x` is an added line that starts with `++`.
 */
export function renderDiff(diff: string): HTMLElement[] {
  const runs: HTMLElement[] = []
  let kind: LineKind | null = null
  let text = ''
  let inHunk = false
  const flush = () => {
    if (kind && text) runs.push(el('span', {className: `diff-${kind}`}, text))
    text = ''
  }
  for (const line of diff.split(/(?<=\n)/)) {
    let next: LineKind
    if (line.startsWith('diff --git ')) (inHunk = false), (next = 'file')
    else if (line.startsWith('@@')) (inHunk = true), (next = 'hunk')
    else if (!inHunk) next = 'meta'
    else if (line.startsWith('+')) next = 'add'
    else if (line.startsWith('-')) next = 'del'
    else next = 'context'
    if (next !== kind) flush(), (kind = next)
    text += line
  }
  flush()
  return runs
}

function fact(name: string, value: string): HTMLElement[] {
  return value ? [el('dt', {}, name), el('dd', {}, value)] : []
}
