// The executor seam: where a task's runner is placed, and how drover reaches
// it from outside. The runner itself (runner.ts) is the same everywhere — it
// owns the worker, carries out requests from the task folder and records the
// end; an executor only places it, observes it, signals it and ends it. The
// local executor (a detached process on this machine) is the one built; a
// batch scheduler (Slurm: sbatch, squeue, scancel --signal, scancel) is the
// next, and a Kubernetes Job per task could follow (docs/decisions/0002-the-executor-seam.md).

import {currentPlatform, isSameProcess, type PlatformContext, type ProcessSignal} from '../platform/platform.js'
import type {EngineWait, ExecutorName, TaskRecord} from '../state/record.js'

/** Whether the task's runner is there: running, still starting up (no identity recorded yet), or gone. */
export type RunnerPresence = 'alive' | 'starting' | 'gone'

export interface ExecutorCapabilities {
  /** a new runner can take over a live worker whose runner died (the worker is on this machine). */
  adopt: boolean
  /** drover can check the worker's identity and stop its tree itself when its runner is gone. */
  directControl: boolean
  /** a runner can be booted before its task is known, overlapping `start`'s own start-up. */
  standby: boolean
}

export interface Executor {
  readonly name: string
  readonly capabilities: ExecutorCapabilities
  /**
   * Places a runner for the task and resolves once it has recorded `running`
   * or the failure — or, with `adopt`, has taken over the live worker; with
   * `detach`, once it is placed (a queue's hand-off: the runner records its
   * own start, and whoever advanced the queue does not wait for it). A batch
   * scheduler may instead resolve `{queued: true}`: the job waits for
   * resources, and its runner records `running` when it starts.
   */
  submit(stateDir: string, id: number, opts?: {adopt?: boolean; detach?: boolean}): Promise<void | {queued: true}>
  /** Whether the task's runner is there, judged by what the executor can see (never a bare pid). */
  observe(stateDir: string, record: TaskRecord): RunnerPresence
  /**
   * Sends a signal to the task's runner after checking it is still that
   * runner; false when it is gone. The runner answers SIGTERM and SIGINT by
   * stopping its task and recording it; SIGCONT wakes a frozen one.
   */
  signal(stateDir: string, id: number, signal: ProcessSignal): boolean
  /**
   * Ends the runner's placement now (the local executor: SIGKILL to the
   * runner, identity checked). Its worker is left as it is: the next
   * reconcile adopts it or stops it, so there is still one writer.
   */
  cancel(stateDir: string, id: number): boolean
  /**
   * What the engine says about the task's placement: the sentence for its
   * reason (`queued in Slurm: job 42 pending (Resources)`, or how it ended),
   * and, while the job still waits in the engine's own queue, that wait as
   * data. Only executors with an engine of their own have one.
   */
  explain?(stateDir: string, record: TaskRecord): EngineNote | null
}

/** An engine's word on a placement: a sentence for people, and a wait in its queue as data. */
export interface EngineNote {
  reason: string
  /** set while the job waits in the engine's own queue: which engine, and its word for why (`Resources`). */
  waiting: EngineWait | null
}

/**
 * What each executor can do, as data: the runner's own code (a queue's
 * hand-off) asks it without loading the executors themselves into its bundle.
 */
export const EXECUTOR_CAPABILITIES: Readonly<Record<ExecutorName, ExecutorCapabilities>> = {
  local: {adopt: true, directControl: true, standby: true},
  // the worker is on another host: no adoption, no pid checked or signalled here, no standby
  slurm: {adopt: false, directControl: false, standby: false},
}

/** The capabilities of the executor a record names (records from before executors were named are local). */
export const capabilitiesOf = (record: Pick<TaskRecord, 'executor'>): ExecutorCapabilities => EXECUTOR_CAPABILITIES[record.executor] ?? EXECUTOR_CAPABILITIES.local

/**
 * Whether the worker a record names is still the live process drover started:
 * only where the executor lets drover check it (a pid recorded on another host
 * names nothing here, so it is never alive to drover).
 */
export function workerAliveHere(record: TaskRecord, ctx: PlatformContext = currentPlatform()): boolean {
  return record.worker !== null && capabilitiesOf(record).directControl && isSameProcess(record.worker, ctx)
}

/**
 * A run handed to an engine that still waits there for resources: `starting`
 * in the record (its placement exists; the runner records `running` when it
 * starts), shown as `queued` with the engine's wait, which reconcile puts in
 * the record it returns (engineWait, never written).
 */
export function isEngineQueued(record: Pick<TaskRecord, 'status' | 'executor' | 'engineWait'>): boolean {
  return record.status === 'starting' && record.executor !== 'local' && record.engineWait != null
}
