// Stopping tasks from any shell: drop a request for the task's runner and
// (optionally) wait for the final status. When the runner is gone but the
// worker still lives, the command carries out the graded stop itself — only
// after checking the worker is still the process we started.

import {readFileSync} from 'node:fs'
import {currentPlatform, identityState, isSameProcess} from '../platform/platform.js'
import {taskMark} from '../process/worker.js'
import {drainCheckpoint, executeStopPlan, ProcessTree} from '../process/process-tree.js'
import {executorOf, reconcile, runnerState, workerAlive} from './reconcile.js'
import {isEngineQueued, type Executor} from '../runner/executor.js'
import {describeOutcome} from './outcome.js'
import {isFinalStatus, type TaskRecord, type TaskStatus} from '../state/record.js'
import {dropRequest, type NewRequest, type StopRequest} from '../state/requests.js'
import {planFor, stopEndCause, stopReason} from '../process/stop-plan.js'
import {appendEvent, fileSize, readRecord, safeUnlink, taskPaths, writeFileAtomic} from '../state/store.js'
import {waitForFinal} from './wait.js'
import {runnerEntry} from '../runner/local-executor.js'
import {settleTask} from '../runner/settle.js'

export interface ControlResult {
  id: number
  /** the request was taken (or acted on directly); false when there was nothing to stop. */
  accepted: boolean
  /** how it was handled. */
  via: 'runner' | 'direct' | 'none'
  status: TaskStatus
  reason: string | null
  exitCode: number | null
  /** the final status was waited for. */
  final: boolean
  message: string
}

export interface ControlOptions {
  wait: boolean
  /** extra time to wait beyond the request's own schedule. */
  slackMs?: number
  /** hard bound on the wait, overriding schedule + slack (drain promises one). */
  timeoutMs?: number
  /** called when the request is accepted (before waiting), for progress display. */
  onAccepted?: (id: number) => void
}

/** The longest a request's schedule can take before the tree is surely gone. */
export function scheduleMs(request: NewRequest): number {
  const plan = planFor(request.kind, {graceMs: request.graceMs, wrapUp: request.wrapUp, killAfterMs: request.killAfterMs})
  return plan.steps.reduce((sum, step) => sum + step.waitMs, 0)
}

const result = (record: TaskRecord, fields: Pick<ControlResult, 'accepted' | 'via' | 'final' | 'message'>): ControlResult => ({
  id: record.id,
  status: record.status,
  reason: record.reason,
  exitCode: record.exitCode,
  ...fields,
})

export async function requestControl(stateDir: string, start: TaskRecord, request: NewRequest, opts: ControlOptions): Promise<ControlResult> {
  let record = await reconcile(stateDir, start)
  if (record.status === 'queued') {
    const queued = await controlQueued(stateDir, record, request)
    if (queued.result) return queued.result
    record = queued.record
  }
  if (isFinalStatus(record.status)) {
    if (workerAlive(record) && record.status === 'lost') return actDirectly(stateDir, record, request)
    if (record.status === 'lost' && request.kind !== 'drain') return settleLost(stateDir, record, request)
    return result(record, {accepted: false, via: 'none', final: true, message: finalMessage(record)})
  }
  const paths = taskPaths(stateDir, record.id)
  if (record.status === 'starting' && !executorOf(record).capabilities.adopt) {
    // As for a task queued here: nothing runs to drain while the job waits in the engine's queue.
    if (request.kind === 'drain' && isEngineQueued(record)) {
      const message = `task ${record.id} is ${record.reason}: nothing runs to drain, so it stays queued (cancel or stop ends it)`
      return result(record, {accepted: false, via: 'none', final: false, message})
    }
    const withdrawn = request.kind === 'drain' ? null : await withdrawQueued(stateDir, record, request)
    if (withdrawn) return withdrawn
  }
  const eventsBefore = fileSize(paths.events) ?? 0
  const dropped = dropRequest(paths, request)
  opts.onAccepted?.(record.id)
  if (!opts.wait) {
    return result(record, {accepted: true, via: 'runner', final: false, message: `task ${record.id}: ${request.kind} requested`})
  }
  const deadline = Date.now() + (opts.timeoutMs ?? scheduleMs(request) + (opts.slackMs ?? 5000) + 2 * PICKUP_MS)
  await ensureTaken(stateDir, record, dropped, eventsBefore, deadline)
  // The runner acts within a tick and then follows the schedule; if it dies
  // meanwhile, waitForFinal's reconcile turns the task lost and we take over.
  const ended = await waitForFinal(stateDir, record.id, {timeoutMs: Math.max(0, deadline - Date.now())})
  if (ended.status === 'lost' && workerAlive(ended)) return actDirectly(stateDir, ended, request)
  // Lost meanwhile with nothing left to stop (a Slurm job ended by scancel when
  // its runner would not take the request): the stop or cancel still counts.
  if (ended.status === 'lost' && request.kind !== 'drain') return settleLost(stateDir, ended, request, ended.reason)
  if (!isFinalStatus(ended.status)) {
    return result(ended, {accepted: true, via: 'runner', final: false, message: `task ${record.id} did not end in time (still ${ended.status})`})
  }
  return result(ended, {accepted: true, via: 'runner', final: true, message: `task ${record.id} ${outcomeText(ended)}`})
}

/** How long a live runner has to take a request (it does within a tick) before drover wakes it, and again before it replaces it. */
export const PICKUP_MS = 5000

/**
 * A runner that is alive but does not take the request — frozen by SIGSTOP
 * (a suspended session, a cgroup freezer) or wedged — would leave the task
 * running however long we wait. So: SIGCONT through its executor; if it still
 * has not taken it, end that runner (identity checked) and reconcile, which
 * adopts the live worker with a new runner that finds the request waiting.
 * A runner still starting is left alone: it reads every request when it is up.
 */
async function ensureTaken(stateDir: string, record: TaskRecord, request: StopRequest, eventsFrom: number, deadline: number): Promise<void> {
  const executor = executorOf(record)
  const paths = taskPaths(stateDir, record.id)
  const requestId = request.requestId
  for (const step of ['wake', 'replace', 'end'] as const) {
    if (step === 'end' && executor.capabilities.adopt) return
    const until = Math.min(deadline, Date.now() + PICKUP_MS)
    if (await pickedUp(stateDir, record.id, requestId, eventsFrom, until)) return
    if (Date.now() >= deadline) return
    const read = readRecord(stateDir, record.id)
    // a runner still starting (launching the worker, learning an agent's flags) reads every request once it is up
    if (!read.ok || isFinalStatus(read.record.status) || read.record.status === 'starting' || executor.observe(stateDir, read.record) !== 'alive') return
    if (step === 'wake') {
      if (executor.signal(stateDir, record.id, 'SIGCONT')) appendEvent(paths, {event: 'runner-woken', run: read.record.runs.length, requestId})
    } else if (!executor.capabilities.adopt) {
      // Nobody here can take the worker over: a stop or cancel goes through the
      // scheduler instead — SIGTERM to the runner alone (it stops its tree and
      // records it), then the job's end. A drain is left to its runner.
      if (request.kind === 'drain') return
      const ended = step === 'replace' ? executor.signal(stateDir, record.id, 'SIGTERM') : executor.cancel(stateDir, record.id)
      if (ended) appendEvent(paths, {event: step === 'replace' ? 'runner-signalled' : 'placement-cancelled', run: read.record.runs.length, requestId, executor: executor.name})
    } else if (step === 'replace' && executor.cancel(stateDir, record.id)) {
      appendEvent(paths, {event: 'runner-replaced', run: read.record.runs.length, requestId, reason: `it did not take the request within ${(2 * PICKUP_MS) / 1000}s`})
      await waitUntilGone(executor, stateDir, read.record)
      await reconcile(stateDir, read.record)
    }
  }
}

/** Whether the runner has logged taking `requestId` (or the task has ended), waiting until `until`. */
async function pickedUp(stateDir: string, id: number, requestId: string, eventsFrom: number, until: number): Promise<boolean> {
  const paths = taskPaths(stateDir, id)
  const taken = (line: string) => {
    try {
      const event = JSON.parse(line) as {event?: unknown; requestId?: unknown}
      return event.event === 'request' && event.requestId === requestId
    } catch {
      return false
    }
  }
  for (;;) {
    if (readFrom(paths.events, eventsFrom).split('\n').some(taken)) return true
    const read = readRecord(stateDir, id)
    if (!read.ok || isFinalStatus(read.record.status)) return true
    if (Date.now() >= until) return false
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}

/**
 * A task whose job still waits in a scheduler's queue has no runner to ask:
 * the placement is withdrawn (scancel) and the run recorded cancelled or
 * stopped. null when the job started meanwhile: then its runner takes the request.
 */
async function withdrawQueued(stateDir: string, record: TaskRecord, request: NewRequest): Promise<ControlResult | null> {
  const executor = executorOf(record)
  const status = request.kind === 'cancel' ? 'cancelled' : 'stopped'
  const {settled} = await settleTask(
    stateDir,
    record.id,
    (current) => {
      if (current.status !== 'starting' || executor.observe(stateDir, current) !== 'starting') return null
      if (!executor.explain?.(stateDir, current)?.waiting || !executor.cancel(stateDir, record.id)) return null
      // The job may have started between the look and the scancel: a runner that recorded its start first wins;
      // one still waiting for this lock finds the run withdrawn and leaves (runner/start-claim.ts).
      const again = readRecord(stateDir, record.id)
      if (!again.ok || again.record.status !== 'starting') return null
      return {status, cause: request.kind === 'cancel' ? 'cancel' : 'stop', reason: `${status} by request while queued`, set: {desired: 'stopped'}}
    },
    {entry: runnerEntry(), waitMs: 10_000},
  )
  if (!settled) return null
  return result(settled.record, {accepted: true, via: 'direct', final: true, message: `task ${record.id} ${status} (it was still queued)`})
}

/** SIGKILL is delivered at once, but the pid lingers until its parent reaps it; adoption must see the runner gone. */
async function waitUntilGone(executor: Executor, stateDir: string, record: TaskRecord): Promise<void> {
  const until = Date.now() + 2000
  while (executor.observe(stateDir, record) === 'alive' && Date.now() < until) await new Promise((resolve) => setTimeout(resolve, 20))
}

function readFrom(file: string, offset: number): string {
  try {
    return readFileSync(file).subarray(offset).toString('utf8')
  } catch {
    return ''
  }
}

/**
 * A queued task has no runner to ask: stop and cancel end it without it ever
 * starting; a drain leaves it queued (it holds no work to checkpoint, and it
 * carries on by itself after a reboot). If a queue started it meanwhile, the
 * request goes to its runner as for any running task.
 */
async function controlQueued(stateDir: string, record: TaskRecord, request: NewRequest): Promise<{result?: ControlResult; record: TaskRecord}> {
  if (request.kind === 'drain') {
    const message = `task ${record.id} is queued: nothing runs to drain, so it stays queued (cancel or stop ends it)`
    return {result: result(record, {accepted: false, via: 'none', final: false, message}), record}
  }
  const {endQueued} = await import('./queues.js')
  const ended = await endQueued(stateDir, record, request.kind)
  if (ended) return {result: result(ended, {accepted: true, via: 'direct', final: true, message: `task ${ended.id} ${outcomeText(ended)}`}), record: ended}
  const read = readRecord(stateDir, record.id)
  return {record: read.ok ? await reconcile(stateDir, read.record) : record}
}

function finalMessage(record: TaskRecord): string {
  return `task ${record.id} already ended: ${outcomeText(record)}${strangerNote(record)}`
}

/**
 * A lost task's recorded pid now naming someone else's process is worth
 * saying: it was left alone. Only where the pid is this machine's: a Slurm
 * worker's pid is a node's, and whatever holds that number here is no news.
 */
function strangerNote(record: TaskRecord): string {
  const worker = record.worker
  const here = executorOf(record).capabilities.directControl
  const stranger = here && record.status === 'lost' && worker !== null && identityState(worker) === 'other' && processExists(worker.pid)
  return stranger ? `; pid ${worker!.pid} now belongs to another process (different start time), not signalled` : ''
}

// "stopped (stopped by request)" says it twice: the reason is shown for what it adds to the status.
const outcomeText = (record: TaskRecord) => describeOutcome(record.status, record.reason)

function processExists(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM'
  }
}

/**
 * A lost task whose worker is gone too: nothing to signal, but the user's
 * intent still counts — a stopped or cancelled task must not come back with
 * `resume --interrupted` after the next reboot.
 */
async function settleLost(stateDir: string, lost: TaskRecord, request: NewRequest, lostReason: string | null = null): Promise<ControlResult> {
  const status = request.kind === 'cancel' ? 'cancelled' : 'stopped'
  let note = ''
  const {current, settled} = await settleTask(
    stateDir,
    lost.id,
    (record) => {
      if (record.status !== 'lost' || workerAlive(record)) return null
      note = strangerNote(record)
      const reason = lostReason ? `${status} by request (${lostReason})` : `${status} by request (runner and worker were already gone)`
      return {status, cause: request.kind === 'cancel' ? 'cancel' : 'stop', reason, set: {desired: 'stopped'}}
    },
    {entry: runnerEntry(), waitMs: 10_000},
  )
  if (!settled) {
    const now = current ?? lost
    return result(now, {accepted: false, via: 'none', final: isFinalStatus(now.status), message: finalMessage(now)})
  }
  const how = lostReason ? `its runner was ended without taking the request: ${lostReason}` : 'was lost; nothing was running'
  return result(settled.record, {accepted: true, via: 'direct', final: true, message: `task ${lost.id} ${status} (${how})${note}`})
}

/**
 * The runner is gone and its worker lives on: stop the tree ourselves, under
 * the task lock so two commands never both do it, then record the outcome.
 */
async function actDirectly(stateDir: string, lost: TaskRecord, request: NewRequest): Promise<ControlResult> {
  const paths = taskPaths(stateDir, lost.id)
  let refusal: TaskRecord | null = null
  const {settled} = await settleTask(
    stateDir,
    lost.id,
    async (record) => {
      if (record.status !== 'lost' || runnerState(stateDir, record) === 'alive' || !isSameProcess(record.worker!)) {
        refusal = record
        return null
      }
      const worker = record.worker!
      appendEvent(paths, {event: 'request', kind: request.kind, direct: true, run: record.runs.length})
      const tree = new ProcessTree(worker, 'identity', currentPlatform(), {group: true, marks: taskMark(paths)})
      const plan = planFor(request.kind, {graceMs: request.graceMs, wrapUp: request.wrapUp, killAfterMs: request.killAfterMs})
      const outcome = await executeStopPlan(tree, {
        currentPlan: () => plan,
        writeControl: (word) => {
          try {
            // Temp + rename replaces a symlink planted on the path instead of writing through it.
            writeFileAtomic(paths.control, `${word}\n`, {durable: false})
          } catch {
            // the signals still follow
          }
        },
        event: (name, extra) => appendEvent(paths, {event: name, run: record.runs.length, ...extra}),
      })
      return {
        status: plan.status,
        cause: stopEndCause(outcome.plan, outcome.killedAfterMs),
        reason: `${stopReason(outcome.plan, outcome.killedAfterMs)} (runner was gone)`,
        set: {
          desired: plan.cause === 'drain' ? record.desired : 'stopped',
          checkpoint: plan.cause === 'drain' ? drainCheckpoint(record, paths.session, outcome) : record.checkpoint,
        },
      }
    },
    {entry: runnerEntry(), waitMs: scheduleMs(request) + 10_000, after: () => safeUnlink(paths.control)},
  )
  if (!settled) {
    const record: TaskRecord = refusal ?? lost
    return result(record, {accepted: false, via: 'none', final: isFinalStatus(record.status), message: finalMessage(record)})
  }
  return result(settled.record, {accepted: true, via: 'direct', final: true, message: `task ${lost.id} ${outcomeText(settled.record)}`})
}
