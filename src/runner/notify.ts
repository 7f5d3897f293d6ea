// Notifications (`start --notify`, config.json's `notify`): when a task ends
// or needs a person — it waits on a usage limit, a budget drained it, it was
// lost — a small JSON event is posted to each URL, or shown on the desktop.
// Run by the status-hook supervisor (status-hooks.ts), never by the runner:
// a slow or dead endpoint delays nobody's task. A post is tried again with
// backoff on what may pass (no answer, 429, 5xx), a bounded number of times
// within the hook's timeout; a refusal (another 4xx) is not tried again.

import http from 'node:http'
import https from 'node:https'
import {hostname} from 'node:os'
import {DESKTOP_TARGET} from '../base/notify-target.js'
import {desktopNotifier} from '../platform/desktop-notify.js'
import {isFinalStatus} from '../state/record.js'
import type {StatusChange} from '../state/status-changes.js'
import {runHook, type HookOutcome} from './hook-run.js'

export const NOTIFY_ATTEMPTS = 5
export const NOTIFY_FIRST_DELAY_MS = 1000
const REQUEST_TIMEOUT_MS = 10_000

/** A change a notification is sent for: every end, and a pause on a usage limit. */
export const notifies = (change: Pick<StatusChange, 'status'>): boolean => isFinalStatus(change.status) || change.status === 'waiting'

/** Whether it asks for a person: a wait on a usage limit, a budget reached, a task lost; else it ended. */
export function needsAttention(change: Pick<StatusChange, 'status' | 'cause'>): boolean {
  return change.status === 'waiting' || change.status === 'lost' || change.cause === 'budget'
}

/** The JSON a URL receives. `text` is a line for people: Slack (and Discord's /slack endpoints) show it as the message. */
export interface NotifyEvent {
  source: 'drover'
  kind: 'ended' | 'attention'
  id: number
  name: string | null
  status: string
  previous: string | null
  cause: string | null
  reason: string | null
  exitCode: number | null
  run: number
  at: string
  host: string
  text: string
}

export function notifyEvent(change: StatusChange): NotifyEvent {
  const r = change.record
  const task = `task ${r.id}${r.name ? ` (${r.name})` : ''}`
  const text = `drover: ${task} ${change.status}${change.reason ? `: ${change.reason}` : ''}`
  return {
    source: 'drover',
    kind: needsAttention(change) ? 'attention' : 'ended',
    id: r.id,
    name: r.name,
    status: change.status,
    previous: change.previous,
    cause: change.cause,
    reason: change.reason,
    exitCode: r.exitCode,
    run: change.run,
    at: change.at,
    host: hostname(),
    text,
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** Sends one change to one target, within `timeoutMs` whatever the retries. */
export function sendNotification(target: string, change: StatusChange, opts: {timeoutMs: number; log: string; cwd: string; env: NodeJS.ProcessEnv}): Promise<HookOutcome> {
  const event = notifyEvent(change)
  if (target === DESKTOP_TARGET) {
    const shown = desktopNotifier(`drover: ${event.kind === 'attention' ? 'needs you' : event.status}`, event.text.replace(/^drover: /, ''))
    return runHook(shown.argv, {cwd: opts.cwd, env: {...opts.env, ...shown.env}, input: '', log: opts.log, timeoutMs: opts.timeoutMs})
  }
  return postWithRetries(target, JSON.stringify(event), opts.timeoutMs)
}

async function postWithRetries(url: string, body: string, timeoutMs: number): Promise<HookOutcome> {
  const deadline = Date.now() + timeoutMs
  let last = ''
  for (let attempt = 1; attempt <= NOTIFY_ATTEMPTS; attempt++) {
    const left = deadline - Date.now()
    if (left <= 0) break
    const answer = await post(url, body, Math.min(REQUEST_TIMEOUT_MS, left))
    if (answer.status !== null && answer.status >= 200 && answer.status < 300) return {ok: true, detail: {attempts: attempt, httpStatus: answer.status}}
    last = answer.status === null ? answer.error : `HTTP ${answer.status}`
    const again = answer.status === null || answer.status === 429 || answer.status >= 500
    if (!again) return {ok: false, detail: {reason: last, attempts: attempt, httpStatus: answer.status}}
    const delay = NOTIFY_FIRST_DELAY_MS * 2 ** (attempt - 1)
    if (attempt === NOTIFY_ATTEMPTS || Date.now() + delay >= deadline) return {ok: false, detail: {reason: `${last}, after ${attempt} attempt${attempt === 1 ? '' : 's'}`, attempts: attempt}}
    await sleep(delay)
  }
  return {ok: false, detail: {reason: `${last || 'no answer'}, timed out after ${Math.round(timeoutMs / 1000)} s`}}
}

function post(target: string, body: string, timeoutMs: number): Promise<{status: number; error?: undefined} | {status: null; error: string}> {
  return new Promise((resolve) => {
    const url = new URL(target)
    const client = url.protocol === 'https:' ? https : http
    const request = client.request(
      url,
      {method: 'POST', headers: {'content-type': 'application/json', 'content-length': Buffer.byteLength(body), 'user-agent': 'drover'}, timeout: timeoutMs},
      (response) => {
        response.resume() // the answer's body is not ours to read, only drained
        response.once('end', () => resolve({status: response.statusCode ?? 0}))
        response.once('error', () => resolve({status: response.statusCode ?? 0}))
      },
    )
    request.once('timeout', () => request.destroy(new Error(`no answer within ${Math.round(timeoutMs / 1000)} s`)))
    request.once('error', (error) => resolve({status: null, error: error.message}))
    request.end(body)
  })
}
