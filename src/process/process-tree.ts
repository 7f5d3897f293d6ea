// A worker's whole process tree, and carrying out a graded stop on it. Used by
// the runner (which sees the worker exit directly) and by commands that must
// act themselves when the runner is gone (which check identity instead).

import {
  currentPlatform,
  identityInTable,
  identityState,
  isSameProcess,
  pidExists,
  processEnvHas,
  processTable,
  terminateConfirmed,
  descendantsInTable,
  type IdentityState,
  type ProcessTable,
  listDescendants,
  listGroupMembers,
  listProcessesWithEnv,
  signalIdentity,
  startedNoEarlierThan,
  signalProcessGroup,
  type PlatformContext,
  type ProcessIdentity,
} from '../platform/platform.js'
import type {Checkpoint, DrainMode, TaskRecord} from '../state/record.js'
import {RUNNER_MARK} from './boot-env.js'
import {CANCEL_GRACE_MS, DEFAULT_STOP_GRACE_MS, type StopPlan} from './stop-plan.js'

const SCAN_INTERVAL_MS = 250
// Windows: a table of processes costs a PowerShell start (a few hundred ms of
// CPU), so one read serves every identity checked within this long.
const WIN_TABLE_MS = 1000
// ms from 1601-01-01 (FILETIME's epoch) to 1970-01-01.
const FILETIME_UNIX_EPOCH_MS = 11_644_473_600_000n

export class ProcessTree {
  /** every process ever seen in the tree, with its start time, so a pid reused later is never signalled. */
  private readonly known = new Map<number, ProcessIdentity>()

  constructor(
    readonly worker: ProcessIdentity,
    /**
     * whether the worker itself has ended; 'identity' for a worker that is not
     * the caller's child: then it has ended once its pid is no longer its own.
     */
    exited: (() => boolean) | 'identity',
    /** injected in tests to drive the Windows mapping (taskkill) from any OS. */
    private readonly ctx: PlatformContext = currentPlatform(),
    /**
     * `group: false` when the worker may be long gone: its pid (= its group
     * id) may name someone else's group by now, so the group is neither
     * listed nor signalled — only identities known to be the task's are.
     */
    private readonly opts: {group: boolean; marks?: Record<string, string>; ownChild?: boolean} = {group: true},
  ) {
    this.known.set(worker.pid, worker)
    this.workerExited = exited === 'identity' ? () => this.exitedByIdentity() : exited
  }

  private readonly workerExited: () => boolean
  /** when the caller saw its own child exit (ms): bounds which of the pid's orphans are its. */
  private endedAt: number | null = null

  /** The caller's own child exited now (its exit event). */
  workerEnded(atMs: number): void {
    this.endedAt = atMs
  }

  /**
   * Windows, after the own child exited: its children live on with its pid as
   * their ParentProcessId, which the periodic scan (once a minute) may never
   * have seen. One table finds them: a process whose parent pid is the
   * worker's and that started between the worker's start and its exit can
   * only be the worker's child — one of a later owner of the pid started
   * after the exit — and so are their descendants.
   */
  private orphansOfEndedWorker(): void {
    if (this.endedAt === null || !/^\d+$/.test(this.worker.startTime)) return
    // a table read during a stop a moment ago already shows them
    const table = this.freshTable(WIN_TABLE_MS)
    if (table === null) return
    const from = BigInt(this.worker.startTime)
    const until = (BigInt(this.endedAt) + FILETIME_UNIX_EPOCH_MS) * 10_000n
    for (const [pid, row] of table) {
      const start = BigInt(row.startTime)
      if (row.ppid !== this.worker.pid || pid === this.worker.pid || start < from || start > until) continue
      this.known.set(pid, {pid, startTime: row.startTime})
      for (const identity of descendantsInTable(pid, table)) this.known.set(identity.pid, identity)
    }
  }

  /**
   * Elsewhere a start time is read for the price of a file read. Windows: a
   * pid that no longer exists, or a table already read that shows someone
   * else under it — no program is started to ask while waiting; the next
   * forced scan (before a SIGKILL) reads a table, which then shows it.
   */
  private exitedByIdentity(): boolean {
    if (this.ctx.os !== 'win32') return !isSameProcess(this.worker, this.ctx)
    if (!pidExists(this.worker.pid, this.ctx)) return true
    return this.table !== null && identityInTable(this.worker, this.table) !== 'same'
  }

  private lastScan = 0
  private table: ProcessTable | null = null
  private tableAt = -Infinity

  /**
   * Where reading the process table means starting a program (Windows:
   * PowerShell), the tree is scanned only when asked outright (the runner's
   * slow periodic scan, a SIGKILL about to go out), never while waiting.
   */
  get costlyScans(): boolean {
    return this.ctx.os === 'win32'
  }

  private freshTable(maxAgeMs: number): ProcessTable | null {
    if (Date.now() - this.tableAt >= maxAgeMs) {
      this.table = processTable(this.ctx)
      this.tableAt = Date.now()
    }
    return this.table
  }

  /**
   * The worker is the caller's own child (the runner that spawned it) and has
   * not been reaped: its pid cannot name anyone else — on Windows a pid is not
   * reused while a handle to the process is open, and Node holds the child's
   * until it reports the exit — so its identity needs no query.
   */
  private ownWorker(identity: ProcessIdentity): boolean {
    return this.opts.ownChild === true && identity === this.worker && !this.workerExited()
  }

  /**
   * Who this process is now. Windows: a pid that no longer exists is gone
   * without starting any program; one that does is looked up in a table read
   * at most WIN_TABLE_MS ago, which serves the whole tree at once.
   */
  private stateOf(identity: ProcessIdentity): IdentityState {
    if (this.ctx.os !== 'win32') return identityState(identity, this.ctx)
    if (this.ownWorker(identity)) return 'same'
    if (!pidExists(identity.pid, this.ctx)) return 'gone'
    return identityInTable(identity, this.freshTable(WIN_TABLE_MS))
  }

  private alive(identity: ProcessIdentity): boolean {
    return this.stateOf(identity) === 'same'
  }

  /**
   * Remembers the current descendants, so ones that leave the group (setsid)
   * can still be swept. A scan reads the whole process table (a few ms), so
   * while waiting it runs at most every SCAN_INTERVAL_MS; `force` scans now.
   */
  snapshot(force = true): boolean {
    if (this.workerExited()) return false
    if (!force && this.costlyScans) return false
    const now = Date.now()
    if (!force && now - this.lastScan < SCAN_INTERVAL_MS) return false
    this.lastScan = now
    let grew = false
    let found: ProcessIdentity[]
    if (this.costlyScans) {
      const table = this.freshTable(0)
      found = table ? descendantsInTable(this.worker.pid, table) : []
    } else {
      // a runner met is left out, with all below it, and forgotten if it was seen before it became one
      const prune = (pid: number) => {
        if (!this.isRunner(pid)) return false
        this.known.delete(pid)
        return true
      }
      found = listDescendants(this.worker.pid, this.ctx, prune)
    }
    for (const identity of found) {
      const had = this.known.get(identity.pid)
      if (had?.startTime !== identity.startTime) grew = true
      this.known.set(identity.pid, identity)
    }
    return grew
  }

  /**
   * A runner of drover's own (its boot environment holds RUNNER_MARK): one
   * started from inside this task owns a task of its own, and neither it nor
   * anything below it is this task's. Linux only; elsewhere a boot
   * environment is not readable cheaply, and none is told apart.
   */
  private isRunner(pid: number): boolean {
    return pid !== this.worker.pid && processEnvHas(pid, RUNNER_MARK, this.ctx)
  }

  /**
   * A process first seen between its fork and its exec still had its
   * parent's environment: whether it became a runner is asked again before
   * anything is signalled.
   */
  private dropRunners(): void {
    if (this.ctx.os !== 'linux') return
    for (const pid of this.known.keys()) if (this.isRunner(pid)) this.known.delete(pid)
  }

  /** The processes of the tree that are still the very ones seen (one table read on Windows). */
  live(): ProcessIdentity[] {
    return [...this.known.values()].filter((identity) => this.alive(identity))
  }

  /** Whether the worker has ended, as far as can be told without starting a program now (see exitedByIdentity). */
  workerGone(): boolean {
    return this.workerExited()
  }

  /** Every process seen in the tree (the worker first): what the runner keeps in tree.json. */
  identities(): ProcessIdentity[] {
    return [...this.known.values()]
  }

  /** Processes seen by someone else (a runner that is gone, through tree.json), joined to the tree. */
  remember(identities: readonly ProcessIdentity[]): void {
    for (const identity of identities) if (!this.known.has(identity.pid)) this.known.set(identity.pid, identity)
  }

  /**
   * After the worker exited: what is left of its tree — members of its group
   * or session (re-parented, so no longer its descendants) and descendants
   * seen while it lived that are still the same processes. They join the tree,
   * so a stop plan reaches them. Returns the live ones.
   */
  leftovers(): ProcessIdentity[] {
    if (this.costlyScans) this.orphansOfEndedWorker()
    this.dropRunners()
    if (this.opts.group) for (const identity of listGroupMembers(this.worker.pid, this.ctx)) this.known.set(identity.pid, identity)
    // Whatever still carries the task's mark in its environment is the task's, however it left the tree.
    if (this.opts.marks) {
      for (const identity of listProcessesWithEnv(this.opts.marks, this.ctx)) {
        if (startedNoEarlierThan(identity.startTime, this.worker.startTime)) this.known.set(identity.pid, identity)
      }
    }
    return [...this.known.values()].filter((identity) => identity.pid !== this.worker.pid && this.alive(identity))
  }

  gone(): boolean {
    if (!this.workerExited()) return false
    for (const identity of this.known.values()) {
      if (identity.pid !== this.worker.pid && this.alive(identity)) return false
    }
    return true
  }

  /** The whole group at once, then each known member that left it — each checked against its start time. */
  signal(signal: 'SIGTERM' | 'SIGKILL'): void {
    if (this.costlyScans) return this.signalByTable(signal)
    this.dropRunners()
    if (this.opts.group && (!this.workerExited() || this.groupMayLive())) {
      try {
        signalProcessGroup(this.worker.pid, signal, this.ctx)
      } catch {
        // EPERM from a member that changed credentials: the sweep below still tries
      }
    }
    for (const identity of this.known.values()) {
      if (identity.pid === this.worker.pid && this.workerExited()) continue
      try {
        signalIdentity(identity, signal, this.ctx)
      } catch {
        // not ours to signal any more
      }
    }
  }

  /**
   * Windows. SIGTERM has no meaning for the windowless, console-less
   * processes drover starts (taskkill without /F refuses them), so nothing is
   * started for it: the control file's word is the graceful request. SIGKILL
   * ends each process of the tree whose identity is confirmed — the own child
   * by its handle, the others by a table read this moment — with
   * TerminateProcess, no program started per process. Without a table (the
   * query failed) no one unconfirmed is touched; only a live own child's tree
   * is still reached, through taskkill /T on its pid, which cannot be anyone
   * else's.
   */
  private signalByTable(signal: 'SIGTERM' | 'SIGKILL'): void {
    if (signal !== 'SIGKILL') return
    const existing = [...this.known.values()].filter((identity) => this.ownWorker(identity) || pidExists(identity.pid, this.ctx))
    if (existing.length === 0) return
    // Only the own child left: its handle confirms it, no table is needed.
    const table = existing.every((identity) => this.ownWorker(identity)) && this.known.size === 1 ? null : this.freshTable(WIN_TABLE_MS)
    if (table === null && this.known.size > 1 && this.ownWorker(this.worker)) {
      try {
        signalProcessGroup(this.worker.pid, 'SIGKILL', this.ctx)
      } catch {
        // the worker itself is still ended below
      }
    }
    for (const identity of existing) {
      const confirmed = this.ownWorker(identity) || identityInTable(identity, table) === 'same'
      if (!confirmed) continue
      try {
        terminateConfirmed(identity, this.ctx)
      } catch {
        // not ours to end (access denied), or gone meanwhile
      }
    }
  }

  /** SIGKILL to anything of the tree still alive. */
  sweep(): void {
    if (this.costlyScans) return this.signalByTable('SIGKILL')
    this.dropRunners()
    for (const identity of this.known.values()) {
      if (identity.pid === this.worker.pid && this.workerExited()) continue
      try {
        if (isSameProcess(identity, this.ctx)) signalIdentity(identity, 'SIGKILL', this.ctx)
      } catch {
        // already gone or not ours
      }
    }
  }

  // After the leader exits, its pid (= pgid) stays reserved while any group
  // member lives, so the group id cannot name a stranger's group yet.
  private groupMayLive(): boolean {
    for (const identity of this.known.values()) if (identity.pid !== this.worker.pid && this.alive(identity)) return true
    return false
  }
}

export interface StopOutcome {
  plan: StopPlan
  /** ms from the start of the stop until SIGKILL was needed, or null. */
  killedAfterMs: number | null
  /** a signal had to be sent (the worker did not stop on the control word alone). */
  forced: boolean
  /** the first signal went out at a safe point, not because a step's time ran out. */
  atSafePoint: boolean
  /** ms from the start of the stop until the tree was gone (or the plan gave up). */
  tookMs: number
}

/** The checkpoint a drain leaves: what resume continues, and how the worker was ended. */
export function drainCheckpoint(record: TaskRecord, sessionDir: string, outcome: StopOutcome): Checkpoint {
  const mode = drainMode(outcome)
  return {
    profile: record.agent,
    sessionId: record.agentInfo?.sessionId ?? null,
    sessionDir,
    forced: mode === 'forced',
    mode,
    tookMs: outcome.tookMs,
    at: new Date().toISOString(),
  }
}

/** How a drain ended its worker, for the checkpoint. */
export function drainMode(outcome: StopOutcome): DrainMode {
  if (!outcome.forced) return 'cooperative'
  return outcome.atSafePoint && outcome.killedAfterMs === null ? 'safe-point' : 'forced'
}

export interface StopHooks {
  writeControl: (word: 'WRAP_UP' | 'STOP') => void
  event?: (name: string, extra: Record<string, unknown>) => void
  /** the plan to follow now; a stronger request may replace it mid-way. */
  currentPlan: () => StopPlan
  /** resolves 'replaced' early when currentPlan() changed. */
  waitReplaced?: (ms: number, gone: () => boolean) => Promise<'gone' | 'timeout' | 'replaced'>
  /** whether the worker is at a safe point to be signalled (see StopStep.untilSafePoint). */
  safePoint?: () => boolean
}

const POLL_MS = 50

function waitGone(ms: number, gone: () => boolean): Promise<'gone' | 'timeout'> {
  return new Promise((resolve) => {
    const deadline = Date.now() + ms
    const check = () => {
      if (gone()) return resolve('gone')
      if (Date.now() >= deadline) return resolve('timeout')
      setTimeout(check, POLL_MS)
    }
    check()
  })
}

/** Runs the plan's steps until the tree is gone; a replaced plan restarts from its own first step. */
export async function executeStopPlan(tree: ProcessTree, hooks: StopHooks): Promise<StopOutcome> {
  const began = Date.now()
  let killedAt: number | null = null
  let forced = false
  let safe = false
  let atSafePoint = false
  let plan = hooks.currentPlan()
  let step = 0
  while (step < plan.steps.length) {
    const current = plan.steps[step]
    if (!tree.costlyScans || current.signal === 'SIGKILL') tree.snapshot()
    if (current.control) hooks.writeControl(current.control)
    if (current.signal) {
      if (!forced) atSafePoint = safe
      forced = true
      if (current.signal === 'SIGKILL') killedAt = Date.now()
      hooks.event?.('signal', {signal: current.signal, ...(safe && current.signal === 'SIGTERM' ? {safePoint: true} : {})})
      tree.signal(current.signal)
    }
    const gone = () => {
      tree.snapshot(false)
      return tree.gone()
    }
    const safePoint = () => current.untilSafePoint === true && hooks.safePoint?.() === true
    const wake = () => gone() || safePoint()
    const outcome = hooks.waitReplaced ? await hooks.waitReplaced(current.waitMs, wake) : await waitGone(current.waitMs, wake)
    if (outcome === 'gone' && tree.gone()) break
    if (outcome === 'replaced') {
      plan = hooks.currentPlan()
      step = 0
      continue
    }
    // Woken at a safe point: the next step's signal goes out now, not when the time runs out.
    safe = outcome === 'gone'
    step++
  }
  tree.sweep()
  return {plan, killedAfterMs: killedAt === null ? null : killedAt - began, forced, atSafePoint, tookMs: Date.now() - began}
}

/** A worker's leftovers get the graded stop of `stop`, without the control word (the worker that reads it is gone). */
const leftoverPlan = (graceMs: number): StopPlan => ({
  cause: 'stop',
  status: 'stopped',
  requestIds: [],
  steps: [
    {signal: 'SIGTERM', waitMs: graceMs},
    {signal: 'SIGKILL', waitMs: 5000},
  ],
})

/**
 * After the worker exited: stops what is left of its tree (background jobs,
 * an agent's MCP servers and shells) so that no process of a task outlives
 * its final status. Returns how many there were.
 */
export async function stopLeftovers(tree: ProcessTree, event: (name: string, extra: Record<string, unknown>) => void, graceMs = DEFAULT_STOP_GRACE_MS): Promise<number> {
  const left = tree.leftovers()
  if (left.length === 0) return 0
  event('leftovers', {count: left.length, pids: left.map((p) => p.pid)})
  const plan = leftoverPlan(graceMs)
  await executeStopPlan(tree, {currentPlan: () => plan, writeControl: () => {}, event})
  return left.length
}

/**
 * The whole tree killed at once, without waiting: its group, the processes
 * seen in it, and whatever carries the task's mark — a child that left the
 * group and session before anyone looked is found only by that. Two passes,
 * so that what a member forked while the first ran is reached too. For a
 * runner about to exit on an error: it cannot wait out a grace, and once it
 * is gone nobody would stop what it left (found by chaos, seed 28013543: a
 * full disk refused the record of `running` a millisecond after the spawn).
 */
export function killTreeNow(tree: ProcessTree): void {
  for (let pass = 0; pass < 2; pass++) {
    tree.snapshot()
    // joins the group's members and the marked processes to the tree
    tree.leftovers()
    tree.signal('SIGKILL')
  }
}

/** A live worker nobody can watch any more: SIGTERM to its tree, SIGKILL after the grace `cancel` gives. */
const UNWATCHED_PLAN: StopPlan = {
  cause: 'cancel',
  status: 'lost',
  requestIds: [],
  steps: [
    {signal: 'SIGTERM', waitMs: CANCEL_GRACE_MS},
    {signal: 'SIGKILL', waitMs: 5000},
  ],
}

/**
 * A worker that lives on after its runner died and no new runner could take
 * it over (the replacement died too, or could not start): it would run with
 * nobody to record its end, so its whole tree — the worker's group, what the
 * dead runner saw (tree.json), what carries the task's mark — is stopped
 * before the task is recorded lost. Returns how many processes were alive.
 */
export async function stopUnwatched(
  worker: ProcessIdentity,
  seen: readonly ProcessIdentity[],
  marks: Record<string, string>,
  event: (name: string, extra: Record<string, unknown>) => void,
  ctx: PlatformContext = currentPlatform(),
): Promise<number> {
  const tree = new ProcessTree(worker, 'identity', ctx, {group: true, marks})
  tree.remember(seen)
  tree.snapshot()
  // leftovers() joins the group's members and the marked processes to the tree
  tree.leftovers()
  const alive = tree.live()
  event('unwatched', {count: alive.length, pids: alive.map((p) => p.pid)})
  await executeStopPlan(tree, {currentPlan: () => UNWATCHED_PLAN, writeControl: () => {}, event})
  return alive.length
}

/** Enough for a tree that forks while it is stopped: each pass after the first finds only what the one before missed. */
const MARKED_PASSES = 5

/**
 * A run whose runner died after spawning the worker but before recording it:
 * there is no identity to start from, only the task's mark, which every
 * process of the worker's tree inherited. Those still alive get SIGTERM, and
 * SIGKILL after up to 2 s — each checked against its start time. A process
 * found alive may fork while it is being stopped (a shell between two
 * commands, or one that ignores SIGTERM for the 2 s), and its children carry
 * the mark from the fork on: so the table is read again after each pass,
 * until a pass finds no one (at most MARKED_PASSES). Returns how many there
 * were (none where the platform cannot read another process's environment).
 */
export async function stopMarked(
  marks: Record<string, string>,
  event: (name: string, extra: Record<string, unknown>) => void,
  ctx: PlatformContext = currentPlatform(),
): Promise<number> {
  const stopped = new Set<string>()
  for (let pass = 0; pass < MARKED_PASSES; pass++) {
    const found = listProcessesWithEnv(marks, ctx)
    if (found.length === 0) break
    event('leftovers', {count: found.length, pids: found.map((p) => p.pid)})
    const send = (signal: 'SIGTERM' | 'SIGKILL') => {
      for (const identity of found) {
        try {
          if (isSameProcess(identity, ctx)) signalIdentity(identity, signal, ctx)
        } catch {
          // gone, or not ours to signal any more
        }
      }
    }
    send('SIGTERM')
    const until = Date.now() + 2000
    while (Date.now() < until && found.some((identity) => isSameProcess(identity, ctx))) await new Promise((resolve) => setTimeout(resolve, 50))
    send('SIGKILL')
    for (const identity of found) stopped.add(`${identity.pid}/${identity.startTime}`)
  }
  return stopped.size
}
