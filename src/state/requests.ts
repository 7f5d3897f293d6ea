// Requests: how any invocation asks a task's runner to act. A request is one
// small JSON file dropped atomically into the task's requests/ folder; only the
// runner acts on it, so the runner stays the single writer of the record.

import {lstatSync, mkdirSync, readdirSync, unlinkSync} from 'node:fs'
import path from 'node:path'
import {readOwnFile, safeUnlink, uniqueSuffix, writeFileAtomic, type TaskPaths} from './store.js'

export type RequestKind = 'stop' | 'cancel' | 'drain'

export interface StopRequest {
  kind: RequestKind
  /** unique per request; lets a requester tell its own request from others. */
  requestId: string
  at: string
  by: number
  /** stop: seconds between SIGTERM and SIGKILL; drain: wait for the worker after STOP. */
  graceMs: number
  /** stop --wrap-up: write WRAP_UP and wait graceMs before the STOP/SIGTERM step. */
  wrapUp?: boolean
  /** drain: after SIGTERM, how long until SIGKILL. */
  killAfterMs?: number
  /** drain: asked for to deliver a follow-up now (`resume --now`), so the run's end hands it on rather than parking the task. */
  followup?: boolean
}

export type NewRequest = Omit<StopRequest, 'requestId' | 'at' | 'by'>

export function dropRequest(paths: TaskPaths, request: NewRequest): StopRequest {
  const full: StopRequest = {
    ...request,
    // Sortable by time first, so the runner handles requests in arrival order.
    requestId: `${Date.now()}-${uniqueSuffix()}`,
    at: new Date().toISOString(),
    by: process.pid,
  }
  ownRequestsDir(paths)
  writeFileAtomic(path.join(paths.requests, `${full.requestId}.${full.kind}.json`), JSON.stringify(full) + '\n')
  return full
}

/**
 * Makes sure requests/ is a real folder of ours. One replaced by a symlink would
 * have requests written into, read from and deleted in whatever folder it names,
 * so the link is removed (never followed) and a private folder made in its place.
 */
function ownRequestsDir(paths: TaskPaths): void {
  const stats = lstatSync(paths.requests, {throwIfNoEntry: false})
  if (stats?.isDirectory()) return
  if (stats) unlinkSync(paths.requests)
  mkdirSync(paths.requests, {mode: 0o700})
}

/** Pending requests, oldest first. A file that does not parse is dropped: it cannot be acted on. */
export function readRequests(paths: TaskPaths): {file: string; request: StopRequest}[] {
  let names: string[]
  try {
    ownRequestsDir(paths)
    names = readdirSync(paths.requests)
  } catch {
    return []
  }
  const out: {file: string; request: StopRequest}[] = []
  for (const name of names.sort()) {
    if (name.startsWith('.') || !name.endsWith('.json')) continue
    const file = path.join(paths.requests, name)
    try {
      const request = wellFormed(JSON.parse(readOwnFile(file)), name)
      if (request) {
        out.push({file, request})
        continue
      }
    } catch {
      // unreadable or a planted symlink: fall through and discard
    }
    safeUnlink(file)
  }
  return out
}

const isWait = (v: unknown): v is number => Number.isSafeInteger(v) && (v as number) >= 0

/**
 * The request as the runner may act on it, or null. Only drover writes these files,
 * but a torn or hand-edited one must not give the runner a schedule it cannot keep:
 * a grace of Infinity or "x" would make a stop wait for ever.
 */
function wellFormed(value: unknown, name: string): StopRequest | null {
  if (typeof value !== 'object' || value === null) return null
  const r = value as Record<string, unknown>
  if (r.kind !== 'stop' && r.kind !== 'cancel' && r.kind !== 'drain') return null
  return {
    ...r,
    kind: r.kind,
    requestId: typeof r.requestId === 'string' && r.requestId !== '' ? r.requestId : name,
    at: typeof r.at === 'string' ? r.at : '',
    by: Number.isSafeInteger(r.by) ? (r.by as number) : 0,
    graceMs: isWait(r.graceMs) ? r.graceMs : 0,
    wrapUp: r.wrapUp === true,
    killAfterMs: isWait(r.killAfterMs) ? r.killAfterMs : undefined,
    followup: r.followup === true,
  }
}

export function clearRequests(paths: TaskPaths): void {
  for (const {file} of readRequests(paths)) safeUnlink(file)
}
