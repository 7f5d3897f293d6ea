// One frame of `top` as text lines, exactly the terminal's height and never
// wider than it: the header, the list and the preview pane (or a task full
// screen, its diff, or the help), and the footer — keys, a question, or what
// the last action did. Pure: the same input draws the same frame.

import {headerLine, rowLine, type Layout} from './columns.js'
import type {Row} from './tasks.js'
import {cut, displayWidth, wrap} from './text.js'
import type {Paint} from './style.js'
import {paneTop, type ActionName, type ViewState} from './view.js'

export interface ScreenInput {
  width: number
  height: number
  paint: Paint
  now: number
  rows: readonly Row[]
  layout: Layout
  view: ViewState
  readOnly: boolean
  /** the first line: what is shown and the counts. */
  title: string
  /** the pane under the list (or the whole body for a task, its diff): a title and its lines. */
  pane: {title: string; lines: readonly string[]}
}

/** The keys, as the footer and `?` list them. */
export const KEYS: {key: string; what: string; action?: boolean}[] = [
  {key: '↑/↓ j/k', what: 'move'},
  {key: 'PgUp/PgDn Home/End', what: 'page, first, last'},
  {key: 'Enter', what: 'open the task full screen (q or Esc back)'},
  {key: '/', what: 'filter by name, command, status (Enter keeps, Esc clears)'},
  {key: 's', what: 'stop (graceful: SIGTERM, then SIGKILL)', action: true},
  {key: 'c', what: 'cancel (never resumed)', action: true},
  {key: 'd', what: 'drain (checkpoint, resume later)', action: true},
  {key: 'r', what: 'resume, with an optional message', action: true},
  {key: 'a', what: 'start again (a new run)', action: true},
  {key: 'w', what: 'wrap-up stop (asks the agent to finish first)', action: true},
  {key: 'f', what: "follow-up: a message for an agent, delivered when its run ends well (at once if it is not at work)", action: true},
  {key: 'F', what: 'follow-up now: the run is drained at a safe point for it', action: true},
  {key: 't', what: "take over in this terminal (attach): top steps aside for the agent's own interactive session, and comes back when you quit it", action: true},
  {key: 'm', what: "merge an ended --worktree task's branch into the branch it started from", action: true},
  {key: 'x', what: 'discard: remove the task with its worktree and branch, unmerged commits named', action: true},
  {key: 'v', what: "the worktree's diff (--worktree tasks)"},
  {key: 'p', what: "an agent's transcript, or its raw events"},
  {key: '?', what: 'this help'},
  {key: 'q', what: 'quit (tasks keep running)'},
]

// Help and quit come before the action keys: with every action the line is
// longer than a 120-column terminal, and what it cuts `?` lists.
const SHORT_KEYS = (readOnly: boolean) =>
  [
    '↑↓ move',
    '⏎ open',
    '/ filter',
    '? help',
    'q quit',
    ...(readOnly ? [] : ['s stop', 'c cancel', 'd drain', 'r resume', 'f follow-up', 't attach', 'm merge', 'x discard', 'a again', 'w wrap-up']),
    'v diff',
    'p raw',
  ].join('  ')

/** How many rows the list gets in the list view; the preview pane gets the rest. */
export function listHeightFor(height: number): number {
  const body = Math.max(0, height - 4) // title, column header, pane title, footer
  return Math.max(Math.min(3, body), Math.floor(body * 0.45))
}

/** How many lines the pane gets in the current mode. */
export function paneHeightFor(height: number, mode: ViewState['mode']): number {
  return mode === 'list' ? Math.max(0, height - 4 - listHeightFor(height)) : Math.max(0, height - 2)
}

const MESSAGE_PROMPTS: Partial<Record<ActionName, string>> = {
  resume: 'resume message (Enter: the default, Esc: back)',
  followup: 'follow-up (Enter: send, Esc: back)',
  'followup-now': 'follow-up now, the run drained for it (Enter: send, Esc: back)',
}

export function footerLine(view: ViewState, readOnly: boolean, paint: Paint): string {
  if (view.confirm) return paint('bold', `${view.confirm.label}? (y/n)`)
  if (view.input?.kind === 'filter') return `/${view.input.text}\u001B[7m \u001B[27m`
  if (view.input?.kind === 'message') return `${MESSAGE_PROMPTS[view.input.action ?? 'resume']}: ${view.input.text}\u001B[7m \u001B[27m`
  if (view.footer) {
    const {text, tone} = view.footer
    return tone === 'error' ? paint('red', text) : tone === 'ok' ? paint('green', text) : text
  }
  if (view.mode === 'task' || view.mode === 'diff') return paint('dim', `↑↓ PgUp/PgDn scroll  End follow  ${view.mode === 'task' ? 'p raw  ' : ''}q/Esc back`)
  const keys = SHORT_KEYS(readOnly)
  return paint('dim', view.filter ? `filter: ${view.filter}  ·  ${keys}` : keys)
}

/**
 * The help, wrapped to the width: each key's words in a column beside it, or
 * under it where the window is too narrow for both; taller than the window,
 * it scrolls (helpScroll), and the footer says how.
 */
export function helpLines(readOnly: boolean, width: number, paint: Paint): string[] {
  const keys = KEYS.filter((k) => !readOnly || !k.action)
  const keyWidth = Math.max(...keys.map((k) => displayWidth(k.key)))
  const beside = width - keyWidth - 4 >= 24
  const lines = [paint('bold', 'Keys'), '']
  for (const k of keys) {
    if (beside) {
      const what = wrap(k.what, width - keyWidth - 4)
      lines.push(`  ${k.key.padEnd(keyWidth)}  ${what[0]}`, ...what.slice(1).map((more) => ' '.repeat(keyWidth + 4) + more))
    } else lines.push(`  ${k.key}`, ...wrap(k.what, width - 6).map((more) => '      ' + more))
  }
  lines.push('')
  for (const note of [readOnly ? 'Read-only: no actions.' : 'Every action asks y/n first; the footer shows what it did.', 'Tasks run under their own runners: quitting top leaves them running.']) {
    lines.push(...wrap(note, width))
  }
  return lines
}

/** Lines the help's body gets: all but the title and the footer. */
export const helpHeightFor = (height: number): number => Math.max(0, height - 2)

export function renderScreen(input: ScreenInput): string[] {
  const {width, height, paint, view} = input
  const lines: string[] = [paint('bold', view.mode === 'task' || view.mode === 'diff' ? input.pane.title : input.title)]
  let footer = footerLine(view, input.readOnly, paint)
  if (view.mode === 'help') {
    const help = helpLines(input.readOnly, width, paint)
    const shown = helpHeightFor(height)
    const top = Math.min(view.helpScroll, Math.max(0, help.length - shown))
    lines.push(...help.slice(top, top + shown))
    if (!view.confirm && !view.input && !view.footer) {
      const more = help.length > shown ? `${top + shown < help.length ? '↓ more  ' : ''}↑↓ PgUp/PgDn scroll  other keys: back` : 'any key: back'
      footer = paint('dim', more)
    }
  } else if (view.mode === 'list') {
    const listHeight = listHeightFor(height)
    lines.push(headerLine(input.layout, paint))
    const shown = input.rows.slice(view.scroll, view.scroll + listHeight)
    for (const row of shown) lines.push(rowLine(row, input.layout, {selected: row.id === view.selected, now: input.now, paint}))
    if (input.rows.length === 0) lines.push(paint('dim', view.filter ? `  no task matches /${view.filter}` : '  no tasks'))
    while (lines.length < 2 + listHeight) lines.push('')
    lines.push(paneTitle(input.pane.title, width, paint))
    pushPane(lines, input, paneHeightFor(height, 'list'))
  } else {
    pushPane(lines, input, paneHeightFor(height, view.mode))
  }
  while (lines.length < height - 1) lines.push('')
  lines.length = Math.max(0, height - 1)
  lines.push(footer)
  return lines.slice(0, height).map((line) => cut(line, width))
}

/** `── title ────…` across the width. */
function paneTitle(title: string, width: number, paint: Paint): string {
  const head = cut(`── ${title} `, width)
  return paint('dim', head + '─'.repeat(Math.max(0, width - displayWidth(head))))
}

function pushPane(lines: string[], input: ScreenInput, height: number): void {
  if (height <= 0) return
  const all = input.pane.lines
  const top = paneTop(input.view.paneScroll, all.length, height)
  for (let i = top; i < Math.min(all.length, top + height); i++) lines.push(all[i])
}
