// Follow-ups for every front-end: a prompt sent to an agent's task — queued
// when its run is at work, delivered by its runner when the run ends well (or
// at the next safe point, `now`), or taken at once by a task that is not at
// work — and the queue listed and withdrawn. Shapes here are the --json ones.

import type {DroppedFollowup, TaskRecord} from '../state/record.js'
import {followupJson, taskJson, type TaskJson} from './task-json.js'

/** A follow-up still to deliver, as every front-end shows it. */
export interface FollowupJson {
  /** its number in the task: what `withdraw` names. */
  n: number
  prompt: string
  /** when it was queued (ISO). */
  at: string
  /** delivered at the next safe point (the run drained for it), ahead of the others. */
  now: boolean
  /** kept queued if the run fails or is stopped (dropped otherwise). */
  keep: boolean
}

export type {DroppedFollowup}

export interface SendFollowupOptions {
  prompt: string
  now?: boolean
  keep?: boolean
  /** `now`: the agent's time to end its turn after STOP (default 60 s), then after SIGTERM until SIGKILL (10 s). */
  graceMs?: number
  killAfterMs?: number
  /** `now`: wait until its run has begun (default true); the longest wait is the drain's own. */
  wait?: boolean
}

/** SendFollowupOptions' keys, checked at run time. */
export const SEND_FOLLOWUP_SHAPE = {prompt: 'string', now: 'boolean', keep: 'boolean', graceMs: 'number', killAfterMs: 'number', wait: 'boolean'} as const

/**
 * What a prompt sent to a task became: `queued` (the follow-up, for a run at
 * work) or null (the task was not at work: `task` is the run it opened).
 * `delivered`: its run has begun (a `now` one waited for; one taken at once).
 */
export interface FollowupSent {
  id: number
  queued: FollowupJson | null
  delivered: boolean
  task: TaskJson
}

/** `drover followups TASK`: what waits to be delivered, and what was dropped (latest last). */
export interface FollowupsJson {
  id: number
  status: TaskJson['status']
  pending: FollowupJson[]
  dropped: DroppedFollowup[]
}

export interface WithdrawnJson {
  id: number
  withdrawn: FollowupJson[]
  pending: FollowupJson[]
}

export async function sendFollowup(stateDir: string, record: TaskRecord, opts: SendFollowupOptions): Promise<FollowupSent> {
  const {checkShape} = await import('./option-shapes.js')
  checkShape(opts, SEND_FOLLOWUP_SHAPE, 'followUp option')
  const {usageError} = await import('../base/errors.js')
  if (typeof opts.prompt !== 'string' || opts.prompt.trim() === '') throw usageError('a follow-up needs some text')
  const {sendFollowup: send, waitForDelivery} = await import('../tasks/followups.js')
  const sent = await send(stateDir, record, opts)
  if ('resumed' in sent) return {id: record.id, queued: null, delivered: true, task: taskJson(sent.resumed, {stateDir})}
  const queued = followupJson(sent.queued)
  if (!queued.now || opts.wait === false || sent.record.status === 'queued') return {id: record.id, queued, delivered: false, task: taskJson(sent.record, {stateDir})}
  const {scheduleMs} = await import('../tasks/control.js')
  const bound = scheduleMs({kind: 'drain', graceMs: opts.graceMs ?? 60_000, killAfterMs: opts.killAfterMs ?? 10_000}) + 15_000
  const after = await waitForDelivery(stateDir, record.id, queued.n, bound)
  return {id: record.id, queued, delivered: after.runs.some((r) => r.followup === queued.n), task: taskJson(after, {stateDir})}
}

export async function followupsOf(stateDir: string, record: TaskRecord): Promise<FollowupsJson> {
  const {listFollowups} = await import('../tasks/followups.js')
  return {id: record.id, status: taskJson(record).status, pending: listFollowups(stateDir, record).map(followupJson), dropped: record.droppedFollowups ?? []}
}

/** `which`: numbers, or 'all'. A number not pending is refused (3 never queued, 4 delivered or dropped) and nothing is withdrawn. */
export async function withdrawFollowups(stateDir: string, record: TaskRecord, which: number[] | 'all'): Promise<WithdrawnJson> {
  const {listFollowups, withdrawFollowups: withdraw} = await import('../tasks/followups.js')
  const withdrawn = await withdraw(stateDir, record, which === 'all' ? null : which)
  return {id: record.id, withdrawn: withdrawn.map(followupJson), pending: listFollowups(stateDir, record).map(followupJson)}
}
