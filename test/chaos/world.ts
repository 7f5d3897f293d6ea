// What the chaos run knows independently of drover: every operation it made
// and how it ended (the history printed on a violation), which task each
// start made and which marker process it planted, which tasks a prune or rm
// said it removed, and which tasks the run itself stopped.

import {spawn} from 'node:child_process'
import path from 'node:path'
import {fileURLToPath} from 'node:url'
import type {ProcessIdentity} from '../../src/platform/platform.js'
import {clockShifter} from './clock.js'

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..')
export const BIN = path.join(ROOT, 'bin', 'run.js')
export const FIXTURES = path.join(ROOT, 'test', 'fixtures')

/** The first argument of every marker process: `sleep 7777.<run><n>`, found by its command line. */
export const MARKER_PREFIX = '7777.'

export interface HistoryEntry {
  round: number
  actor: string
  op: string
  args: string[]
  /** exit code, or the signal the run sent it mid-way. */
  outcome?: string
  ms?: number
  /** the clock the command ran with, when shifted (e.g. "+20m"). */
  clock?: string
}

const line = (e: HistoryEntry) => `round ${e.round} ${e.actor}: ${e.clock ? `[clock ${e.clock}] ` : ''}drover ${e.args.join(' ')} → ${e.outcome ?? 'in flight'}${e.ms === undefined ? '' : ` (${e.ms} ms)`}`

export interface CliRun {
  exitCode: number | null
  signal: NodeJS.Signals | null
  stdout: string
  stderr: string
}

export class World {
  readonly history: HistoryEntry[] = []
  /** task id → the marker its start planted (null for tasks without one). */
  readonly markers = new Map<number, string | null>()
  /** task id → createdAt the first time it was seen: an id seen again with another is a reused id. */
  readonly firstSeen = new Map<number, string>()
  /** ids a finished prune or rm reported removed. */
  readonly removed = new Set<number>()
  /**
   * task id → its files as they were right before a prune or rm that could
   * remove it, taken only for tasks with a marker child alive then: once the
   * folder is gone, a child that outlives it can still be traced to its run.
   */
  readonly trail = new Map<number, {at: number; record: string; events: string}>()
  /** set while a prune or rm was killed mid-way: a task that had ended may have gone without a report. */
  uncertainRemoval = false
  /** ids the run stopped or cancelled on purpose and has not started or resumed since. */
  readonly stoppedOnPurpose = new Set<number>()
  /** live processes that are not drover's, planted in fabricated records: never to be signalled. */
  readonly strangers: {identity: ProcessIdentity; exited: string | null}[] = []
  /** the drover commands in flight, so a fault can kill one mid-way. */
  readonly inFlight = new Set<ReturnType<typeof spawn>>()
  /** task id → the queue it was started in. */
  readonly queueOf = new Map<number, string>()
  /** tasks started with an --on-exit hook that appends "id status" to hookLog. */
  readonly hooked = new Set<number>()
  /** the highest parallel limit each queue was ever given (a queue never set runs one). */
  readonly queueLimits = new Map<string, number>()
  /** what the sampler saw go over a queue's limit, for the checker to report. */
  readonly samplerViolations: string[] = []
  /** tasks the checker saw starting with no runner, and when (the checker's clock). */
  readonly startingSince = new Map<number, number>()
  /** "id/run" of the runs whose dependencies the sampler checked while they ran. */
  readonly dependencyChecked = new Set<string>()
  /** clock steps injected so far: from the first, recorded times of different processes are not comparable. */
  clockSteps = 0
  /** minutes the wall clock of commands started now is off by (0: the real clock). */
  clockShift = 0
  /** records the `list` invariant compared with the listing, and those it skipped as rewritten while listed. */
  listCompared = 0
  /** of those, the ones a segment held an entry for, with no live hint: what the index could say. */
  listIndexed = 0
  listMoved = 0
  operations = 0
  faults = 0
  private markerSeq = 0
  /**
   * This run's markers: the family's prefix and this process's pid. Two runs
   * on one machine (a long one beside `npm test`'s own) must never take each
   * other's markers for their own tasks' children: once they did, and a
   * queue seemed to run tasks that had been pruned an hour before.
   */
  readonly markerPrefix = `${MARKER_PREFIX}${String(process.pid).padStart(7, '0')}`

  constructor(
    readonly stateDir: string,
    readonly seed: number,
    /** where the runs' --on-exit hooks append one line each. */
    readonly hookLog: string,
  ) {}

  nextMarker(): string {
    this.markerSeq++
    return `${this.markerPrefix}${String(this.markerSeq).padStart(6, '0')}1`
  }

  /** Runs one drover command as a child process, recorded in the history. */
  drover(round: number, actor: string, args: string[], env: Record<string, string> = {}, timeoutMs = 60_000, onSpawn?: (child: ReturnType<typeof spawn>) => void): Promise<CliRun> {
    const shift = this.clockShift !== 0 && clockShifter ? clockShifter(this.clockShift) : {}
    const entry: HistoryEntry = {round, actor, op: args[0], args, clock: shift.FAKETIME}
    this.history.push(entry)
    this.operations++
    const started = Date.now()
    return new Promise((resolve) => {
      const child = spawn(process.execPath, [BIN, ...args], {
        env: {...process.env, DROVER_STATE_DIR: this.stateDir, NO_COLOR: '1', ...env, ...shift},
        stdio: ['ignore', 'pipe', 'pipe'],
      })
      this.inFlight.add(child)
      onSpawn?.(child)
      let stdout = ''
      let stderr = ''
      child.stdout.on('data', (chunk) => (stdout += chunk))
      child.stderr.on('data', (chunk) => (stderr += chunk))
      const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs)
      child.on('close', (exitCode, signal) => {
        clearTimeout(timer)
        this.inFlight.delete(child)
        entry.outcome = signal ? signal : String(exitCode)
        entry.ms = Date.now() - started
        resolve({exitCode, signal, stdout, stderr})
      })
    })
  }

  /** The last `count` history entries, one line each. */
  recent(count: number): string[] {
    return this.history.slice(-count).map(line)
  }

  /**
   * Every entry of the whole run naming one of `ids` — as an argument, or by
   * the marker its start planted — at most `count` of them, newest last: a
   * violation about a task started 700 rounds ago is then followed from its start.
   */
  naming(ids: number[], count: number): string[] {
    const words = new Set(ids.map(String))
    for (const id of ids) {
      const marker = this.markers.get(id)
      if (marker) words.add(marker)
    }
    const names = (e: HistoryEntry) => e.args.some((arg) => arg.split(/[\s,]+/).some((word) => words.has(word)))
    return this.history.filter(names).slice(-count).map(line)
  }
}
