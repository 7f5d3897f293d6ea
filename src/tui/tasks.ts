// The tasks `top` shows, kept from the API's events: what each row says
// (worded by the API, as `list` words it), which rows pass the filters, and
// their order — live tasks by id, then the ended ones, newest end first.
// Rows are built when a task changes, not on every frame, so a frame at
// 10,000 tasks costs what its visible rows cost.

import type {CorruptTaskJson, TaskJson} from '../api/task-json.js'
import type {AgentUsage} from '../api/values.js'
import type {TaskEvent} from '../api/drover.js'
import {commandLine, runUsageIfResumed, sessionUsage} from '../api/task-json.js'
import {formatDuration, GENERIC_AGENT, isFinalStatus, outcomeLabel, type TaskStatus} from '../api/values.js'

export type AnyTask = TaskJson | CorruptTaskJson

export interface Row {
  id: number
  task: AnyTask
  live: boolean
  name: string
  /** the outcome as `list` words it, or `waiting until 14:05` for a task waiting out a usage limit. */
  status: string
  /** the status word alone, for colour. */
  statusWord: TaskStatus | 'corrupt'
  /** the task's group (a fan-out's attempts share one), or empty. */
  group: string
  queue: string
  agent: string
  /** the session's turns, tokens and cost (as `list` shows them, across resumes). */
  turns: string
  usage: string
  /** a resumed task's figures for this run alone (`50 turns · 9.1k $0.10`), else empty: the preview's title says both. */
  thisRun: string
  command: string
  /** what `/` matches: name, command and status, lower-cased. */
  haystack: string
  /** for the order of ended rows. */
  endedAt: number
}

export interface TaskFilter {
  statuses: readonly (TaskStatus | 'corrupt')[] | null
  queue: string | null
  /** only the tasks of this group (its name). */
  group?: string | null
}

const hhmm = (iso: string) => {
  const d = new Date(iso)
  return `${String(d.getHours()).padStart(2, '0')}:${String(d.getMinutes()).padStart(2, '0')}`
}

/** 12345 → `12.3k`, 4_500_000 → `4.5M`. */
export function shortCount(n: number): string {
  if (n < 1000) return String(n)
  if (n < 1_000_000) return `${(n / 1000).toFixed(n < 10_000 ? 1 : 0)}k`
  return `${(n / 1_000_000).toFixed(1)}M`
}

export function rowOf(task: AnyTask): Row {
  if (task.status === 'corrupt') {
    const error = (task as CorruptTaskJson).error
    return {id: task.id, task, live: false, name: '', status: 'corrupt', statusWord: 'corrupt', group: '', queue: '', agent: '', turns: '', usage: '', thisRun: '', command: error, haystack: `corrupt ${error}`.toLowerCase(), endedAt: 0}
  }
  const t = task as TaskJson
  const label =
    t.status === 'waiting' && t.waitUntil
      ? `waiting until ${hhmm(t.waitUntil)}`
      : outcomeLabel({status: t.status, engineWait: t.engineWait, cause: t.cause, exitCode: t.exitCode, signal: t.signal, forced: t.checkpoint?.forced, queue: t.queue, position: t.position, attempt: t.attempt, retryMax: t.retryMax, retryAt: t.retryAt})
  const info = t.agentInfo ? sessionUsage(t.agentInfo) : null
  const run = t.agentInfo ? runUsageIfResumed(t.agentInfo) : null
  const command = commandLine(t)
  return {
    id: t.id,
    task: t,
    live: !isFinalStatus(t.status),
    name: t.name ?? '',
    status: label,
    statusWord: t.status,
    group: t.group ?? '',
    queue: t.queue ?? '',
    agent: t.agent === GENERIC_AGENT ? '' : t.agent,
    turns: info ? String(info.turns) : '',
    usage: usageText(info),
    thisRun: run ? [`${run.turns} turn${run.turns === 1 ? '' : 's'}`, usageText(run)].filter(Boolean).join(' · ') : '',
    command,
    haystack: `${t.name ?? ''}\n${t.group ?? ''}\n${command}\n${label}`.toLowerCase(),
    endedAt: t.endedAt ? Date.parse(t.endedAt) : 0,
  }
}

/** Tokens and cost, `11k $0.13`; empty without either. */
function usageText(u: AgentUsage | null): string {
  const tokens = u && (u.inputTokens !== null || u.outputTokens !== null) ? (u.inputTokens ?? 0) + (u.outputTokens ?? 0) : null
  return [tokens !== null ? shortCount(tokens) : '', u?.costUsd != null ? `$${u.costUsd.toFixed(2)}` : ''].filter(Boolean).join(' ')
}

/** How long the task has run, now: a live task's clock keeps going between its record's writes. */
export function runtimeOf(row: Row, now: number): string {
  if (row.task.status === 'corrupt') return ''
  const t = row.task as TaskJson
  if (!t.startedAt) return ''
  if (row.live && t.status !== 'queued') return formatDuration(Math.max(0, now - Date.parse(t.startedAt)))
  return t.runtimeMs === null ? '' : formatDuration(t.runtimeMs)
}

/** Live rows by id, then ended rows newest end first (ties by id, newest first). */
export function compareRows(a: Row, b: Row): number {
  if (a.live !== b.live) return a.live ? -1 : 1
  if (a.live) return a.id - b.id
  return b.endedAt - a.endedAt || b.id - a.id
}

export class TaskTable {
  private readonly rows = new Map<number, Row>()
  private ordered: Row[] | null = null
  private shown: Row[] | null = null
  private search = ''

  constructor(private readonly filter: TaskFilter) {}

  /** Applies one event; returns whether anything a view shows changed. */
  apply(event: TaskEvent): boolean {
    if (event.type === 'removed') return this.remove(event.id)
    this.put(event.task)
    return true
  }

  put(task: AnyTask): void {
    const row = rowOf(task)
    if (!this.passes(row)) {
      this.remove(task.id)
      return
    }
    this.rows.set(task.id, row)
    this.ordered = null
  }

  remove(id: number): boolean {
    if (!this.rows.delete(id)) return false
    this.ordered = null
    return true
  }

  get(id: number): Row | undefined {
    return this.rows.get(id)
  }

  /** The `/` filter: rows whose name, command or status holds the text (any case). */
  setSearch(text: string): void {
    const search = text.toLowerCase()
    if (search === this.search) return
    this.search = search
    this.shown = null
  }

  /** The rows shown, in order. */
  visible(): Row[] {
    if (!this.ordered) {
      this.ordered = [...this.rows.values()].sort(compareRows)
      this.shown = null
    }
    if (!this.shown) this.shown = this.search === '' ? this.ordered : this.ordered.filter((row) => row.haystack.includes(this.search))
    return this.shown
  }

  /** Counts for the header: all rows (before the `/` filter) by status word. */
  counts(): Map<string, number> {
    const counts = new Map<string, number>()
    for (const row of this.rows.values()) counts.set(row.statusWord, (counts.get(row.statusWord) ?? 0) + 1)
    return counts
  }

  get size(): number {
    return this.rows.size
  }

  private passes(row: Row): boolean {
    if (this.filter.statuses && !this.filter.statuses.includes(row.statusWord)) return false
    if (this.filter.queue !== null && (row.task as TaskJson).queue !== this.filter.queue) return false
    if (this.filter.group && row.group !== this.filter.group) return false
    return true
  }
}
