// Requests: how any invocation asks a task's runner to act. A request is one
// small JSON file dropped atomically into the task's requests/ folder; only the
// runner acts on it, so the runner stays the single writer of the record.

import {readdirSync} from 'node:fs'
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
  writeFileAtomic(path.join(paths.requests, `${full.requestId}.${full.kind}.json`), JSON.stringify(full) + '\n')
  return full
}

/** Pending requests, oldest first. A file that does not parse is dropped: it cannot be acted on. */
export function readRequests(paths: TaskPaths): {file: string; request: StopRequest}[] {
  let names: string[]
  try {
    names = readdirSync(paths.requests)
  } catch {
    return []
  }
  const out: {file: string; request: StopRequest}[] = []
  for (const name of names.sort()) {
    if (name.startsWith('.') || !name.endsWith('.json')) continue
    const file = path.join(paths.requests, name)
    try {
      const request = JSON.parse(readOwnFile(file)) as StopRequest
      if (request.kind === 'stop' || request.kind === 'cancel' || request.kind === 'drain') {
        out.push({file, request: {...request, graceMs: Number(request.graceMs) || 0}})
        continue
      }
    } catch {
      // unreadable or a planted symlink: fall through and discard
    }
    safeUnlink(file)
  }
  return out
}

export function clearRequests(paths: TaskPaths): void {
  for (const {file} of readRequests(paths)) safeUnlink(file)
}
