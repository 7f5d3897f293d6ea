// A task's events journal as a timeline: each thing that happened to it —
// created, started, a stop asked for, the signal sent, how it exited, a
// queue's hand-off, a hook — with its time, its run and its facts, read
// again whenever the page refreshes the task.

import {el} from './dom.js'
import {getJson} from './net.js'

interface JournalEntry {
  ts: string
  event: string
  run?: number
  [fact: string]: unknown
}

/** Facts every entry has, or that say nothing to a person. */
const LEFT_OUT = new Set(['ts', 'event', 'run', 'requestId', 'by'])

export class JournalView {
  readonly root = el('table', {className: 'journal', attrs: {id: 'journal'}})
  private shown = 0
  /** the run whose end awaitEnd looks for. */
  private awaiting: number | null = null

  constructor(private readonly id: number) {}

  async refresh(): Promise<JournalEntry[]> {
    const entries = await getJson<JournalEntry[]>(`/api/tasks/${this.id}/journal`)
    // the journal only grows: redraw when it did (or when it was cut to its newest entries)
    if (entries.length === this.shown && this.shown < 500) return entries
    this.shown = entries.length
    this.root.replaceChildren(
      el('tbody', {},
        ...entries.map((entry) =>
          el(
            'tr',
            {className: `event-${entry.event}`},
            el('td', {className: 'time'}, new Date(entry.ts).toLocaleTimeString()),
            el('td', {className: 'run'}, entry.run === undefined ? '' : `run ${entry.run}`),
            el('td', {className: 'event'}, entry.event),
            el('td', {className: 'facts'}, factsOf(entry)),
          ),
        ),
      ),
    )
    return entries
  }

  /**
   * Once the task shows ended: a run's end is written to its record first and
   * to the journal just after, so a refresh at the end may come between the
   * two, and no later change of the task would bring another. Looks again for
   * a few seconds until the journal says how `run` ended.
   */
  awaitEnd(run: number): void {
    if (this.awaiting !== null && this.awaiting >= run) return
    this.awaiting = run
    const ended = (entries: JournalEntry[]) => entries.some((e) => e.event === 'exit' && (e.run === undefined || e.run >= run))
    let tries = 0
    const look = () =>
      void this.refresh()
        .then((entries) => {
          if (!ended(entries) && ++tries < 30 && this.awaiting === run) setTimeout(look, 300)
        })
        .catch(() => {})
    look()
  }
}

function factsOf(entry: JournalEntry): string {
  return Object.entries(entry)
    .filter(([key, value]) => !LEFT_OUT.has(key) && value !== null && value !== undefined)
    .map(([key, value]) => `${key} ${typeof value === 'string' ? value : Array.isArray(value) ? value.map(String).map(shellWord).join(' ') : JSON.stringify(value)}`)
    .join(' · ')
}

/** An argv word as a shell would need it, so `-p 'fix the test'` reads as one argument. */
const shellWord = (word: string) => (/^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`)
