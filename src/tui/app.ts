// `top` running: the tasks from the API's events, the selected task's output
// from its follow(), keys from the terminal, and a frame drawn whenever any
// of them changed — only the lines that differ from the last frame are
// written, so an idle screen costs nothing and a busy one little.

import type {Drover, TaskEvent} from '../api/drover.js'
import type {TaskJson} from '../api/task-json.js'
import {GENERIC_AGENT, isFinalStatus, readsAgentEvents, type TaskStatus} from '../api/values.js'
import {ACTION_KEYS, ACTION_PROGRESS, ACTION_VERBS, DONE_AT_ONCE, MESSAGE_ACTIONS, runAction} from './actions.js'
import {layout, naturalWidths, type Layout} from './columns.js'
import {diffLines} from './diff-view.js'
import {Follower} from './follower.js'
import {parseKeys, type Key} from './keys.js'
import {helpHeightFor, helpLines, listHeightFor, paneHeightFor, renderScreen} from './screen.js'
import {painter, type Paint} from './style.js'
import {TaskTable, type Row} from './tasks.js'
import {takeOver} from './take-over.js'
import type {Terminal} from './terminal.js'
import {displayWidth} from './text.js'
import {initialView, moveSelection, scrollHelp, scrollPane, selectedIndex, settle, type ActionName, type ViewState} from './view.js'

export interface TopOptions {
  color: boolean
  readOnly: boolean
  statuses: readonly (TaskStatus | 'corrupt')[] | null
  queue: string | null
  /** only the tasks of this group (its name). */
  group?: string | null
}

/** Output arriving redraws at most this often; keys redraw at once. */
const OUTPUT_FRAME_MS = 40
/** A newly selected task's output is followed once the selection rests this long (not for every row passed). */
const SELECT_SETTLE_MS = 60
/** Ended tasks the early look shows at least (more on a taller terminal). */
const EARLY_ENDED = 50
/** The footer's message gives way to the keys after this long. */
const MESSAGE_MS = 8000

export class TopApp {
  private readonly table: TaskTable
  private readonly paint: Paint
  private view: ViewState = initialView()
  private follower: Follower | null = null
  private followTimer: NodeJS.Timeout | null = null
  private diff: {id: number; lines: string[]} | null = null
  private frame: string[] = []
  private frameSize = ''
  private drawTimer: NodeJS.Timeout | null = null
  private messageTimer: NodeJS.Timeout | null = null
  private ticker: NodeJS.Timeout | null = null
  private readonly aborter = new AbortController()
  private ready = false
  /** the header's counts from the early look, until the first look over every task is done. */
  private early: {live: number; queued: number; ended: number} | null = null
  /** the layout of the rows last drawn, and the rows it was measured on. */
  private measured: {rows: readonly Row[]; width: number; layout: Layout} | null = null
  /** actions sent, whose outcome the footer reports when the task's status changes. */
  private readonly awaiting = new Map<number, ActionName>()
  private lastIndex = -1
  private finish: (code: number) => void = () => {}

  constructor(
    private readonly drover: Drover,
    private readonly terminal: Terminal,
    private readonly options: TopOptions,
  ) {
    this.table = new TaskTable({statuses: options.statuses, queue: options.queue, group: options.group ?? null})
    this.paint = painter(options.color)
  }

  /** Runs until q, Ctrl-C or a signal; resolves with the exit code. */
  run(): Promise<number> {
    return new Promise<number>((resolve) => {
      this.finish = (code) => {
        this.stop()
        resolve(code)
      }
      this.terminal.open((code) => this.finish(code))
      process.stdin.on('data', (data: string) => this.onKeys(parseKeys(data)))
      process.stdout.on('resize', () => this.draw(true))
      // A live task's runtime moves every second; the frame diff writes only what changed.
      this.ticker = setInterval(() => this.draw(), 1000)
      void this.watch()
      this.draw(true)
    })
  }

  private stop(): void {
    this.aborter.abort()
    this.follower?.stop()
    for (const timer of [this.followTimer, this.drawTimer, this.messageTimer]) if (timer) clearTimeout(timer)
    if (this.ticker) clearInterval(this.ticker)
    this.terminal.close()
  }

  private async watch(): Promise<void> {
    try {
      // Until the first look over every task is done (seconds at 100,000), the frame shows `list`'s own view.
      const shownEarly = this.options.statuses === null && this.options.queue === null && !this.options.group ? await this.earlyLook() : []
      const reported = new Set<number>()
      const onReady = () => {
        // what the early look showed and the watch did not find is gone
        for (const id of shownEarly) if (!reported.has(id)) this.table.remove(id)
        this.early = null
        this.ready = true
        this.draw()
      }
      const events = this.drover.events({signal: this.aborter.signal, initial: true, updates: true, onReady})
      for await (const event of events) {
        if (!this.ready) reported.add(event.id)
        this.onEvent(event)
      }
    } catch (error) {
      if (!this.aborter.signal.aborted) this.say(`watching the state dir failed: ${(error as Error).message}`, 'error')
    }
  }

  /**
   * The live tasks and the newest ended ones that fill the list, with how
   * many tasks there are in all, drawn at once; the ids it showed.
   */
  private async earlyLook(): Promise<number[]> {
    // a failure here is the watch's own first look's to report
    const recent = await this.drover.recent({last: Math.max(EARLY_ENDED, listHeightFor(this.terminal.height))}).catch(() => null)
    if (!recent || this.aborter.signal.aborted) return []
    const {tasks, hidden} = recent
    for (const task of tasks) this.table.put(task)
    const counts = this.headerCounts()
    this.early = {...counts, ended: counts.ended + hidden}
    this.draw()
    return tasks.map((task) => task.id)
  }

  private onEvent(event: TaskEvent): void {
    if (event.type === 'ended') return // its `status` event came just before
    this.table.apply(event)
    if (event.type === 'removed') {
      if (this.view.selected === event.id) this.lastIndex = Math.max(0, this.lastIndex)
      return this.schedule()
    }
    const action = this.awaiting.get(event.id)
    if (action && event.type === 'status') {
      // every step shows (`stopping`), until the one the action was for: an end, or for resume and again a run
      const starts = action === 'resume' || action === 'again'
      const done = isFinalStatus(event.to) || (starts && event.to !== 'starting')
      if (done) this.awaiting.delete(event.id)
      const failed = starts && isFinalStatus(event.to)
      // a run that began says what began it (`resumed`, as the action's own reply says), not only the status it is in
      const began = starts && done && !failed ? `${action === 'resume' ? 'resumed' : 'started again'}: run ${event.task.run}, ` : ''
      this.say(`task ${event.id} ${began}${this.table.get(event.id)?.status ?? event.to}`, failed ? 'error' : 'ok')
    }
    // The selected task started a new run: follow its output again.
    if (event.id === this.view.selected && this.follower && !this.follower.live && !isFinalStatus(event.task.status)) this.followSelected(0)
    this.schedule()
  }

  // ── keys ──────────────────────────────────────────────────────────────

  private onKeys(keys: Key[]): void {
    for (const key of keys) this.onKey(key)
    this.draw()
  }

  private onKey(key: Key): void {
    const v = this.view
    if (key.name === 'ctrl-c') return this.finish(130)
    if (key.name === 'ctrl-l') return this.draw(true)
    if (v.confirm) return this.onConfirm(key)
    if (v.input) return this.onInput(key)
    if (v.mode === 'help') return this.onHelpKey(key)
    if (v.footer && key.name === 'escape') return this.set({footer: null})
    const ch = key.name === 'char' ? key.ch : ''
    if (v.mode === 'task' || v.mode === 'diff') return this.onPaneKey(key, ch)
    const rows = this.table.visible()
    const height = listHeightFor(this.terminal.height)
    const move = (to: number | 'first' | 'last') => {
      this.view = moveSelection(this.view, rows, height, to)
      this.followSelected()
    }
    if (key.name === 'up' || ch === 'k') move(-1)
    else if (key.name === 'down' || ch === 'j') move(1)
    else if (key.name === 'pageup') move(-height)
    else if (key.name === 'pagedown') move(height)
    else if (key.name === 'home' || ch === 'g') move('first')
    else if (key.name === 'end' || ch === 'G') move('last')
    else if (key.name === 'wheel') move(key.delta)
    else if (key.name === 'enter' && v.selected !== null) this.set({mode: 'task', paneScroll: null})
    else if (ch === '/') this.set({input: {kind: 'filter', text: v.filter}})
    else if (key.name === 'escape' && v.filter) this.setFilter('')
    else if (ch === 'q') this.finish(0)
    else if (ch === '?') this.set({mode: 'help', helpScroll: 0})
    else this.onCommonKey(ch)
  }

  /** Keys the list and the full-screen task share. */
  private onCommonKey(ch: string): void {
    if (ch === 'p') {
      this.set({raw: !this.view.raw})
      this.followSelected(0)
    } else if (ch === 'v') void this.openDiff()
    else if (ACTION_KEYS[ch]) this.ask(ACTION_KEYS[ch])
  }

  /** The help scrolls where the window is shorter than it; any other key goes back. */
  private onHelpKey(key: Key): void {
    const ch = key.name === 'char' ? key.ch : ''
    const total = helpLines(this.options.readOnly, this.terminal.width, this.paint).length
    const height = helpHeightFor(this.terminal.height)
    const to = scrollTarget(key, ch, height)
    if (to !== null) this.set({helpScroll: scrollHelp(this.view.helpScroll, total, height, to)})
    else this.set({mode: 'list'})
  }

  private onPaneKey(key: Key, ch: string): void {
    const v = this.view
    const height = paneHeightFor(this.terminal.height, v.mode)
    const total = this.paneLines().length
    const to = scrollTarget(key, ch, height)
    if (key.name === 'escape' || ch === 'q') this.set({mode: 'list', paneScroll: null})
    else if (to !== null) this.set({paneScroll: scrollPane(v.paneScroll, total, height, to)})
    else if (ch === '?') this.set({mode: 'help', helpScroll: 0})
    else if (v.mode === 'task') this.onCommonKey(ch)
  }

  private onInput(key: Key): void {
    const input = this.view.input!
    if (key.name === 'escape') {
      this.set({input: null})
      if (input.kind === 'filter') this.setFilter('')
      return
    }
    if (key.name === 'enter') {
      this.set({input: null})
      if (input.kind === 'message' && input.action !== 'resume' && input.text.trim() === '') return this.say('not sent: a follow-up needs some text', 'error')
      if (input.kind === 'message' && this.view.confirm === null) this.confirmResume(input.text)
      return
    }
    let text = input.text
    if (key.name === 'backspace') text = [...text].slice(0, -1).join('')
    else if (key.name === 'ctrl-u') text = ''
    else if (key.name === 'char') text += key.ch
    else return
    this.set({input: {...input, text}})
    if (input.kind === 'filter') this.setFilter(text)
  }

  private setFilter(text: string): void {
    this.table.setSearch(text)
    this.set({filter: text})
  }

  // ── actions ───────────────────────────────────────────────────────────

  private selectedRow(): Row | undefined {
    return this.view.selected === null ? undefined : this.table.get(this.view.selected)
  }

  private ask(action: ActionName): void {
    if (this.options.readOnly) return this.say('read-only: no actions (top was started with --read-only)', 'error')
    const row = this.selectedRow()
    if (!row) return
    const label = `${ACTION_VERBS[action]} task ${row.id}${row.name ? ` (${row.name})` : ''}`
    // what is for an agent's conversation is refused before a word is typed for a task that runs none
    if ((MESSAGE_ACTIONS.has(action) && action !== 'resume') || action === 'attach') {
      if (!row.agent) return this.say(`task ${row.id} runs no agent: ${action === 'attach' ? 'there is no session to take over' : 'follow-ups are for agents'}`, 'error')
    }
    this.pending = {action, id: row.id, label}
    if (MESSAGE_ACTIONS.has(action)) this.set({input: {kind: 'message', text: '', action}, footer: null})
    else this.set({confirm: this.pending, footer: null})
  }

  private pending: ViewState['confirm'] = null

  private confirmResume(message: string): void {
    if (!this.pending) return
    const text = message.trim()
    this.set({confirm: {...this.pending, message: text === '' ? undefined : text, label: `${this.pending.label}${text ? ` with "${text}"` : ''}`}})
  }

  private onConfirm(key: Key): void {
    const pending = this.view.confirm!
    this.set({confirm: null})
    if (key.name !== 'char' || (key.ch !== 'y' && key.ch !== 'Y')) return this.say(`not done: ${pending.label}`, 'info')
    this.say(`${ACTION_PROGRESS[pending.action]} task ${pending.id}…`, 'info')
    if (pending.action === 'attach') return void this.takeOver(pending.id)
    const atOnce = DONE_AT_ONCE.has(pending.action)
    if (!atOnce) this.awaiting.set(pending.id, pending.action)
    runAction(this.drover, pending.action, pending.id, pending.message).then(
      (message) => {
        // the status event may have come first and said how it ended: keep that
        if (atOnce || this.awaiting.has(pending.id)) this.say(message, 'ok')
        this.draw()
      },
      (error: unknown) => {
        this.awaiting.delete(pending.id)
        this.say(`${pending.label}: ${(error as Error).message}`, 'error')
        this.draw()
      },
    )
  }

  /** `attach` from top (take-over.ts): nothing is drawn while the session has the terminal. */
  private async takeOver(id: number): Promise<void> {
    const end = await takeOver(this.drover, this.terminal, id, (on) => (this.suspended = !on))
    if (end === 'hung-up') return this.finish(129)
    this.say(end.text, end.tone)
    this.draw(true)
  }

  /** While another program has the terminal (attach): nothing is drawn. */
  private suspended = false

  private say(text: string, tone: 'info' | 'ok' | 'error'): void {
    this.set({footer: {text, tone}})
    if (this.messageTimer) clearTimeout(this.messageTimer)
    this.messageTimer = setTimeout(() => {
      if (this.view.footer?.text === text) {
        this.set({footer: null})
        this.draw()
      }
    }, MESSAGE_MS)
  }

  private async openDiff(): Promise<void> {
    const row = this.selectedRow()
    if (!row) return
    if (row.task.status === 'corrupt' || !(row.task as TaskJson).worktree) return this.say(`task ${row.id} has no worktree (only tasks started with --worktree have a diff)`, 'error')
    try {
      this.diff = {id: row.id, lines: await diffLines(this.drover, row.id, this.paint)}
      this.set({mode: 'diff', paneScroll: 0})
    } catch (error) {
      this.say(`diff of task ${row.id}: ${(error as Error).message}`, 'error')
    }
    this.draw()
  }

  // ── the selected task's output ────────────────────────────────────────

  /** Follows the selected task's output, once the selection has rested (at once with 0). */
  private followSelected(delay = SELECT_SETTLE_MS): void {
    if (this.followTimer) clearTimeout(this.followTimer)
    this.followTimer = setTimeout(() => {
      this.followTimer = null
      const row = this.selectedRow()
      const pretty = row !== undefined && row.task.status !== 'corrupt' && readsAgentEvents((row.task as TaskJson).agent) && !this.view.raw
      if (this.follower && this.follower.id === row?.id && this.follower.pretty === pretty && (this.follower.live || isFinalStatus(row.task.status as TaskStatus))) return
      this.follower?.stop()
      this.follower = row ? new Follower(this.drover, row.id, pretty, (row.task as TaskJson).agent ?? GENERIC_AGENT, this.paint, () => this.schedule()) : null
      this.draw()
    }, delay)
  }

  private paneLines(): readonly string[] {
    if (this.view.mode === 'diff') return this.diff?.lines ?? []
    const f = this.follower
    if (!f || f.id !== this.view.selected) return []
    if (f.error) return [this.paint('red', f.error)]
    const lines = f.pane.view()
    return lines.length === 0 ? [this.paint('dim', f.live ? '(no output yet)' : '(no output)')] : lines
  }

  private paneTitle(row: Row | undefined): string {
    if (!row) return 'no task selected'
    if (this.view.mode === 'diff') return `task ${row.id}${row.name ? ` ${row.name}` : ''} · diff against its base`
    const agent = row.agent ? ` · ${row.agent} ${this.follower?.pretty ? 'transcript (p: raw)' : 'raw (p: transcript)'}` : ''
    // the row's figures are the session's; a resumed task's title says so, and what this run added
    const session = [row.turns ? `${row.turns} turns` : '', row.usage].filter(Boolean).join(' · ')
    const facts = [row.status, row.thisRun && session ? `session ${session}` : session, row.thisRun ? `this run ${row.thisRun}` : ''].filter(Boolean).join(' · ')
    const dropped = this.follower && this.follower.pane.dropped > 0 ? ` · last ${this.follower.pane.length} lines` : ''
    return `${row.id}${row.name ? ` ${row.name}` : ''} · ${facts}${agent}${dropped}`
  }

  // ── drawing ───────────────────────────────────────────────────────────

  private set(change: Partial<ViewState>): void {
    this.view = {...this.view, ...change}
  }

  /** A redraw soon: output and events coalesce into one frame. */
  private schedule(): void {
    if (!this.drawTimer) this.drawTimer = setTimeout(() => this.draw(), OUTPUT_FRAME_MS)
  }

  private headerCounts(): {live: number; queued: number; ended: number} {
    const counts = this.table.counts()
    const live = ['starting', 'running', 'stopping', 'waiting'].reduce((n, s) => n + (counts.get(s) ?? 0), 0)
    const queued = counts.get('queued') ?? 0
    return {live, queued, ended: this.table.size - live - queued}
  }

  private title(): string {
    const {live, queued, ended} = this.ready || !this.early ? this.headerCounts() : this.early
    const scope = [this.options.group ? `group ${this.options.group}` : '', this.options.queue !== null ? `queue ${this.options.queue}` : '', this.options.statuses ? `status ${this.options.statuses.join(',')}` : '', this.options.readOnly ? 'read-only' : '']
      .filter(Boolean)
      .join(' · ')
    const counted = `${live} live · ${queued} queued · ${ended} ended`
    const facts = this.ready ? counted : this.early ? `${counted} · reading older tasks…` : 'reading tasks…'
    return `drover top · ${facts}${scope ? ` · ${scope}` : ''} · ${this.drover.stateDir}`
  }

  /** Draws the frame; `full` clears the screen first (a resize, Ctrl-L). */
  draw(full = false): void {
    if (this.drawTimer) {
      clearTimeout(this.drawTimer)
      this.drawTimer = null
    }
    if (this.aborter.signal.aborted || this.suspended) return
    const width = this.terminal.width
    const height = this.terminal.height
    const rows = this.table.visible()
    const before = this.view.selected
    this.view = settle(this.view, rows, listHeightFor(height), this.lastIndex)
    this.lastIndex = selectedIndex(rows, this.view)
    if (this.view.selected !== before || (this.view.selected !== null && !this.follower && !this.followTimer)) this.followSelected(0)
    if (!this.measured || this.measured.rows !== rows || this.measured.width !== width) this.measured = {rows, width, layout: layout(naturalWidths(rows), width)}
    const row = this.selectedRow()
    const lines = renderScreen({
      width,
      height,
      paint: this.paint,
      now: Date.now(),
      rows,
      layout: this.measured.layout,
      view: this.view,
      readOnly: this.options.readOnly,
      title: this.title(),
      pane: {title: this.paneTitle(row), lines: this.paneLines()},
    })
    this.write(lines, width, height, full)
  }

  private write(lines: string[], width: number, height: number, full: boolean): void {
    const size = `${width}x${height}`
    if (size !== this.frameSize) full = true
    this.frameSize = size
    let out = full ? '\u001B[H\u001B[2J' : ''
    for (let i = 0; i < lines.length; i++) {
      if (!full && this.frame[i] === lines[i]) continue
      out += `\u001B[${i + 1};1H${lines[i]}${displayWidth(lines[i]) < width ? '\u001B[K' : ''}`
    }
    this.frame = lines
    // synchronized update: terminals that know it show the frame at once, the others ignore it
    if (out !== '') this.terminal.write(`\u001B[?2026h${out}\u001B[?2026l`)
  }
}

/** Where a key scrolls a pane or the help of `height` lines (less's keys and the wheel), or null for a key that does not scroll. */
function scrollTarget(key: Key, ch: string, height: number): number | 'first' | 'last' | null {
  if (key.name === 'up' || ch === 'k') return -1
  if (key.name === 'down' || ch === 'j') return 1
  if (key.name === 'pageup') return -height
  if (key.name === 'pagedown' || ch === ' ') return height
  if (key.name === 'home' || ch === 'g') return 'first'
  if (key.name === 'end' || ch === 'G') return 'last'
  if (key.name === 'wheel') return key.delta
  return null
}
