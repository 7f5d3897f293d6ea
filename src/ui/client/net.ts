// Talking to the dashboard's server: JSON reads, POSTed actions carrying the
// CSRF token from the page, and the live feeds.

import {meta} from './dom.js'

const csrf = meta('drover-csrf')
export const readOnly = meta('drover-read-only') === 'true'

/** drover's statuses, which of them are final, and its agents' names (from its registry, `generic` last), as the server put them in the page. */
export const TASK_STATUSES = meta('drover-statuses').split(',')
export const AGENT_NAMES = meta('drover-agents').split(',')
/** Whether drover reads a task's output as its agent's events: not for `generic`, nor for an agent a newer drover started that this one does not know. */
export const readsAgentEvents = (agent: string) => agent !== 'generic' && AGENT_NAMES.includes(agent)
export const FINAL_STATUSES = meta('drover-final-statuses').split(',')
export const isFinal = (status: string) => FINAL_STATUSES.includes(status)

export interface AgentUsage {
  turns: number
  costUsd: number | null
  inputTokens: number | null
  outputTokens: number | null
}

export interface RunEntry {
  run: number
  startedAt: string | null
  endedAt: string | null
  status: string
  exitCode: number | null
  signal: string | null
  reason: string | null
  resumed: boolean
  /** what a resumed agent was told this run; the follow-up it delivered; a session a person had in a terminal. */
  prompt?: string | null
  followup?: number | null
  attached?: boolean
}

/** A follow-up queued for an agent (`drover followups`), and one dropped. */
export interface Followup {
  n: number
  prompt: string
  at: string
  now: boolean
  keep: boolean
}

export interface DroppedFollowup {
  n: number
  prompt: string
  droppedAt: string
  reason: string
}

/** A task as the server sends it: its --json shape plus the outcome label and the command on one line. */
export interface Task {
  id: number
  name: string | null
  /** the group it is in (a fan-out's attempts share one), or null. */
  group: string | null
  status: string
  outcome: string
  commandLine: string
  reason: string | null
  exitCode: number | null
  pid: number | null
  command: string[]
  shell: string | null
  cwd: string
  agent: string
  /** the queue it waits in or holds a slot of, its place in line while queued. */
  queue: string | null
  position: number | null
  worktree: {branch: string; base: string; baseCommit: string; path: string; merged?: {into: string; mode: string; commit: string; commits: number; at: string} | null} | null
  createdAt: string
  startedAt: string | null
  endedAt: string | null
  runs: RunEntry[]
  agentInfo: (AgentUsage & {session: AgentUsage | null; error: string | null; sessionId: string | null}) | null
  error?: string
}

/** A queue as the queue view shows it: settings, counts, and its live tasks (slot holders, then the waiting in line). */
export interface Queue {
  name: string
  parallel: number
  paused: boolean
  running: number
  waiting: number
  tasks: Task[]
}

export type TaskDetail = Task & {outputBytes: number | null; resume: string | null; resumeRefused: string | null; followups: Followup[]; droppedFollowups: DroppedFollowup[]}

export interface OutputPage {
  offset: number
  end: number
  size: number
  text: string
  more: boolean
  complete: boolean
  /** the offset asked for was past the end (the log was replaced): the page starts again at 0. */
  reset: boolean
}

/** A refused request, with its HTTP status: a page tells a task removed under it (404) from other failures. */
export class HttpError extends Error {
  constructor(
    message: string,
    readonly status: number,
  ) {
    super(message)
  }
}

async function answer<T>(response: Response): Promise<T> {
  const body = (await response.json().catch(() => ({error: response.statusText}))) as T & {error?: string}
  if (!response.ok) throw new HttpError(body.error ?? `HTTP ${response.status}`, response.status)
  return body
}

export async function getJson<T>(url: string): Promise<T> {
  return answer<T>(await fetch(url, {credentials: 'same-origin'}))
}

export async function post<T>(url: string, body: unknown = {}): Promise<T> {
  return answer<T>(
    await fetch(url, {
      method: 'POST',
      credentials: 'same-origin',
      headers: {'Content-Type': 'application/json', 'X-CSRF-Token': csrf},
      body: JSON.stringify(body),
    }),
  )
}

/** Shows in the header whether the live feed is connected. */
export function setLive(state: 'live' | 'reconnecting' | 'ended'): void {
  const node = document.getElementById('live')
  if (!node) return
  node.textContent = state
  node.className = `live ${state}`
}
