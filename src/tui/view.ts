// What the screen is showing, apart from the tasks themselves: which task is
// selected, how far the list and the pane are scrolled, which view is open,
// and what the footer asks or says. Plain data and pure moves on it, so the
// keys' effects are unit-tested without a terminal.

import type {Row} from './tasks.js'

export type Mode = 'list' | 'task' | 'diff' | 'help'

export interface Footer {
  text: string
  tone: 'info' | 'ok' | 'error'
}

/** An action waiting for y/n (and for resume and a follow-up, first its message). */
export interface Pending {
  action: ActionName
  id: number
  label: string
  message?: string
}

export type ActionName = 'stop' | 'cancel' | 'drain' | 'resume' | 'again' | 'wrap-up' | 'followup' | 'followup-now' | 'attach' | 'merge' | 'discard'

export interface ViewState {
  mode: Mode
  /** the selected task's id (it stays selected as rows move around it). */
  selected: number | null
  /** index of the list's first shown row. */
  scroll: number
  /** the pane's first shown line, or null when it follows the newest. */
  paneScroll: number | null
  /** the `/` text, applied as typed. */
  filter: string
  /** a line being typed in the footer: the filter, or the message of resume or a follow-up (`action`). */
  input: {kind: 'filter' | 'message'; text: string; action?: ActionName} | null
  confirm: Pending | null
  footer: Footer | null
  /** show agents' raw event stream instead of the transcript. */
  raw: boolean
  /** the help's first shown line: it scrolls where the window is shorter than it. */
  helpScroll: number
}

export function initialView(): ViewState {
  return {mode: 'list', selected: null, scroll: 0, paneScroll: null, filter: '', input: null, confirm: null, footer: null, raw: false, helpScroll: 0}
}

/** The selected row's index among `rows`, or -1. */
export function selectedIndex(rows: readonly Row[], view: ViewState): number {
  if (view.selected === null) return -1
  // the common case first: the row is where the scroll window is
  for (let i = view.scroll; i < Math.min(rows.length, view.scroll + 200); i++) if (rows[i].id === view.selected) return i
  return rows.findIndex((row) => row.id === view.selected)
}

/**
 * Keeps the selection valid and visible: the first row when nothing (or a
 * task no longer shown) was selected — at the same index, so the cursor does
 * not jump when its task leaves the list — and the list scrolled to it.
 */
export function settle(view: ViewState, rows: readonly Row[], listHeight: number, previousIndex = -1): ViewState {
  let index = selectedIndex(rows, view)
  let selected = view.selected
  if (index === -1) {
    index = rows.length === 0 ? -1 : Math.min(Math.max(previousIndex, 0), rows.length - 1)
    selected = index === -1 ? null : rows[index].id
  }
  const scroll = scrollFor(view.scroll, index, rows.length, listHeight)
  return selected === view.selected && scroll === view.scroll ? view : {...view, selected, scroll}
}

function scrollFor(scroll: number, index: number, count: number, height: number): number {
  if (height <= 0 || index < 0) return 0
  let s = scroll
  if (index < s) s = index
  if (index >= s + height) s = index - height + 1
  return Math.max(0, Math.min(s, Math.max(0, count - height)))
}

/** Moves the selection by `delta` rows (clamped), or to the first or last row. */
export function moveSelection(view: ViewState, rows: readonly Row[], listHeight: number, to: number | 'first' | 'last'): ViewState {
  if (rows.length === 0) return view
  const current = Math.max(0, selectedIndex(rows, view))
  const index = to === 'first' ? 0 : to === 'last' ? rows.length - 1 : Math.max(0, Math.min(rows.length - 1, current + to))
  return {...view, selected: rows[index].id, scroll: scrollFor(view.scroll, index, rows.length, listHeight), paneScroll: null}
}

/** Scrolls a pane of `total` lines shown `height` at a time; null means following the end. */
export function scrollPane(paneScroll: number | null, total: number, height: number, to: number | 'first' | 'last'): number | null {
  const bottom = Math.max(0, total - height)
  if (to === 'last') return null
  const from = paneScroll ?? bottom
  const next = to === 'first' ? 0 : Math.max(0, Math.min(bottom, from + to))
  return next >= bottom ? null : next
}

/** The help's first line after a scroll by `to` (clamped): `total` lines shown `height` at a time. */
export function scrollHelp(helpScroll: number, total: number, height: number, to: number | 'first' | 'last'): number {
  const bottom = Math.max(0, total - height)
  return to === 'first' ? 0 : to === 'last' ? bottom : Math.max(0, Math.min(bottom, helpScroll + to))
}

/** Where the pane shows from: its scroll, or the end when following. */
export function paneTop(paneScroll: number | null, total: number, height: number): number {
  return paneScroll ?? Math.max(0, total - height)
}
