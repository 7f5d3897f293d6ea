// The runner: one detached Node process per live run. It owns the worker —
// starts it in a process group of its own with output appended straight to
// output.log, watches requests and deadlines, carries out graded stops over the
// whole tree, and is the only writer of the task record while it lives.
// Node builtins only: this process is the product's per-task footprint.
// It is one class, longer than most files here, because its fields are one
// run's lifecycle (worker, plan, exit, record) that every step reads and
// changes; the parts that need none of that live beside it: how a run ended
// (run-outcome.ts), the output cap (output-cap.ts), the agent's stream
// (agent-stream.ts), the tree and its stops (process-tree.ts).

import type {ChildProcess} from 'node:child_process'
import {closeSync, existsSync, fstatSync, statSync, watch, writeSync, type FSWatcher} from 'node:fs'
import {currentPlatform, exitShowsSignal, isSameProcess, knownSelfStartTime, processStartTime, type ProcessIdentity} from '../platform/platform.js'
import {executeStopPlan, killTreeNow, ProcessTree, stopLeftovers, stopUnwatched, type StopOutcome} from '../process/process-tree.js'
import {runEnd} from './run-outcome.js'
import {beat, heartbeatMs} from './heartbeat.js'
import {hostname} from 'node:os'
import {OutputCapWatch} from './output-cap.js'
import {sessionBase} from '../agents/events.js'
import {budgetReached, runEnding} from '../agents/budget.js'
import {withDrainHooks} from '../agents/hooks.js'
import {AgentStream} from '../agents/stream.js'
import {profileOf} from '../agents/registry.js'
import {checkCwd, launchWorker, taskMark, workerEnv, type Launch} from '../process/worker.js'
import {refreshBase, summarizeWorktree} from '../process/worktree.js'
import {limitWaitUntil, waitForLimit} from './limit-wait.js'
import {isFinalStatus, transition, type AgentUsage, type EndCause, type EndingStatus, type TaskRecord, type TaskStatus} from '../state/record.js'
import {commitRecord, type Committed} from './commit-record.js'
import {StatusHookStarter} from './status-starter.js'
import {DiskReserve, diskFull} from './reserve.js'
import {settle} from './settle.js'
import type {LearnFlags} from './followup-run.js'
import {runHeader} from './run-header.js'
import {selfEntry, type RunnerEntry} from './exit-hooks.js'
import {holdStart, runTaken, type StartHold} from './start-claim.js'
import {readRequests, type StopRequest} from '../state/requests.js'
import {DEFAULT_STOP_GRACE_MS, planFor, supersedes, type StopCause, type StopPlan} from '../process/stop-plan.js'
import {engineStopGraceMs, learnKillWait} from './slurm-kill-wait.js'
import {
  appendEvent,
  createTaskLayout,
  openAppend,
  readOwnFile,
  readRecord,
  safeUnlink,
  sessionUuid,
  taskPaths,
  readTreeFile,
  writeFileAtomic,
  type TaskPaths,
} from '../state/store.js'

const TICK_MS = 250
// runner.json, control and tree.json describe live processes: no fsync (see writeFileAtomic).
const LIVE = {durable: false}
// While the worker lives, its descendants are remembered this often, so one
// that leaves its process group and session (setsid) is still stopped with it.
const TREE_SCAN_MS = 1000
// Where a scan starts a program (Windows: PowerShell, a few hundred ms of CPU
// each), an idle task may cost at most one per minute; a stop scans anew
// before it kills (process-tree.ts).
const COSTLY_TREE_SCAN_MS = 60_000
// Windows: a local runner beats too, so that readers know it lives from a
// fresh heartbeat and its pid, without asking PowerShell for start times.
const BEATS_LOCALLY = process.platform === 'win32'

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))

/**
 * starting: until the worker runs (or the run is left); supervising: the
 * worker runs; cleaning: its leftovers are being stopped, so a request
 * arriving now is answered by the final record; interrupting: the runner was
 * told to go (SIGTERM/SIGINT), so the end is recorded as lost and nothing
 * else; finished: the run's end is recorded, or left to whoever took the run.
 */
type RunnerPhase = 'starting' | 'supervising' | 'cleaning' | 'interrupting' | 'finished'

// Where the runner's own errors go: fd 2 is runner.log for a runner spawned for
// its task; a standby runner points this at runner.log once it has a task.
// Written with writeSync rather than process.stderr, whose stream machinery
// would stay resident in every runner.
let errorFd = 2

export function setRunnerErrorLog(fd: number): void {
  errorFd = fd
}

export function logRunnerError(text: string): void {
  try {
    writeSync(errorFd, text)
  } catch {
    // nowhere to say it: the record's reason still does
  }
}

export interface RunnerOptions {
  stateDir: string
  id: number
  /** fd the launcher waits on; closed once `running` (or the failure) is recorded. */
  readyFd?: number
  /**
   * Take over the live worker of a runner that died, instead of starting one:
   * watch its identity, follow its output, carry out requests and record its end.
   */
  adopt?: boolean
  /**
   * Placed by a batch scheduler on another host (Slurm): record the host,
   * keep a heartbeat, and take the scheduler's signals (USR1 before the time
   * limit: drain; TERM: stop) as requests.
   */
  remote?: boolean
  /**
   * An attached run (`drover attach`): this process is the runner, and the
   * worker is the agent's interactive session on its terminal, in its process
   * group. Nothing of the session goes to output.log, so no stream is read
   * and no timeout, idle timeout or output cap applies: a person is there.
   */
  terminal?: boolean
  /**
   * What the hook supervisors are started from: this bundle (default), or the
   * built runner when the runner runs inside another program (`drover
   * attach`'s, whose own entry is the CLI, which knows no supervisor flag).
   */
  entry?: RunnerEntry
}


export class Runner {
  private readonly paths: TaskPaths
  private record: TaskRecord
  private workerIdentity: ProcessIdentity | null = null
  private exit: {code: number | null; signal: NodeJS.Signals | null} | null = null
  private exitWaiters: (() => void)[] = []
  private plan: StopPlan | null = null
  private planChanged: (() => void) | null = null
  private tree: ProcessTree | null = null
  private watcher: FSWatcher | null = null
  private timer: NodeJS.Timeout | null = null
  private runStartedAt = 0
  private lastGrowthAt = 0
  private lastSize = 0
  /** output.log's size when this run began: the output cap is per run, not per task. */
  private runOutputStart = 0
  private agentStream: AgentStream | null = null
  private handled = new Set<string>()
  private handledFiles = new Set<string>()
  /** Where this runner is in its run's life: every step that must not happen twice or late asks this one field. */
  private phase: RunnerPhase = 'starting'
  /** the worker will stop on its own when told to (claude with drover's hook), so a drain waits for it. */
  private cooperative = false
  /** adopted from a dead runner: its end is seen by identity, with no exit status. */
  private adopted = false
  private outputCap: OutputCapWatch | null = null
  private lastTreeScan = 0
  /** added to the final reason: what the runner did beyond the plan (leftovers stopped, an overrun killed). */
  private reasonNotes: string[] = []
  /** The run is this runner's to write: its start hold found it still starting, or it was started to adopt the worker. */
  private ownsRun = false
  /** Ballast for writing the record on a full disk; made once main() has the task folder. */
  private reserve = DiskReserve.none()
  /** the supervisor of the exit hooks the run's end fired (a Slurm job waits for it before it ends). */
  hooks: ChildProcess | null = null
  /** The run's end opened the next run for a follow-up: this process goes on to run it (main.ts). */
  followupOpened = false
  /** drains asked for: to deliver a follow-up now (`resume --now`), and any other (the task is parked then). */
  private drains = {followup: false, other: false}

  /** starts the status hooks' supervisor once `start` has its answer. */
  private readonly statusStarter: StatusHookStarter
  /** what hook supervisors are started from (RunnerOptions.entry). */
  private readonly entry: RunnerEntry

  constructor(private readonly options: RunnerOptions) {
    this.entry = options.entry ?? selfEntry()
    this.statusStarter = new StatusHookStarter(options.stateDir, options.id, options.readyFd !== undefined, this.entry)
    this.paths = taskPaths(options.stateDir, options.id)
    const read = readRecord(options.stateDir, options.id)
    if (!read.ok) throw new Error(`runner cannot read task ${options.id}: ${read.error}`)
    this.record = read.record
  }

  private get run() {
    return this.record.runs.at(-1)!
  }

  /**
   * Writes the record, whose status was `from` (what this runner last wrote),
   * through the one writer (commit-record.ts); a change of status wants the
   * status hooks' supervisor, which starts once `start` has its answer (status-starter.ts).
   */
  private commit(next: TaskRecord, from: TaskStatus = this.record.status): Committed {
    this.record = next
    const committed = commitRecord(this.options.stateDir, next, from, {guard: (write) => this.reserve.write(write), fire: null})
    if (isFinalStatus(next.status)) this.reserve.release()
    if (committed.noted) this.statusStarter.want()
    return committed
  }

  private event(event: string, extra: Record<string, unknown> = {}): void {
    try {
      appendEvent(this.paths, {event, run: this.run.run, ...extra})
    } catch {
      // events are a journal for people; a full disk must not stop the runner
    }
  }

  private signalReady(): void {
    if (this.options.readyFd === undefined) return
    try {
      closeSync(this.options.readyFd)
    } catch {
      // the launcher may be gone already; nobody is waiting
    }
    this.options.readyFd = undefined
    this.statusStarter.answered()
  }

  /** The status hooks' supervisor last started (a Slurm job waits for it before it ends). */
  get statusHooks(): ChildProcess | null {
    return this.statusStarter.child
  }

  /** Resolves once the status hooks' supervisor this runner wants is started: before the runner exits. */
  statusHooksStarted(): Promise<void> {
    return this.statusStarter.started()
  }

  private heartbeat: NodeJS.Timeout | null = null

  private startHeartbeat(): void {
    const info = {host: hostname(), pid: process.pid, everyMs: heartbeatMs()}
    beat(this.paths.dir, info)
    this.heartbeat = setInterval(() => beat(this.paths.dir, info), info.everyMs)
  }

  /** The scheduler's warning before the time limit (sbatch --signal=B:USR1@N): checkpoint the agent while there is time. */
  drainFromEngine(): void {
    if (!this.workerIdentity || this.exit) return
    this.event('policy', {cause: 'drain', by: 'time limit ahead'})
    // The warning comes at least N seconds ahead (sbatch --signal=B:USR1@N): the whole drain must fit in them.
    const aheadMs = (this.record.slurm?.drainBeforeLimitS ?? 60) * 1000
    this.startPlan(planFor('drain', {graceMs: Math.floor(aheadMs / 2), killAfterMs: Math.floor(aheadMs / 4)}))
  }

  /** The scheduler ends the job (scancel, time limit, preemption): a graded stop, recorded as such. */
  stopFromEngine(): boolean {
    if (!this.workerIdentity || this.exit) return false
    this.event('policy', {cause: 'stop', by: 'scheduler SIGTERM'})
    if (!this.plan) this.reasonNotes.push('Slurm ended the job (scancel, its time limit or preemption)')
    // the whole stop within KillWait: Slurm kills this runner then, and what left the job's tree would outlive it
    this.startPlan(planFor('stop', {graceMs: engineStopGraceMs(this.killWaitMs, DEFAULT_STOP_GRACE_MS)}))
    return true
  }

  /** runner.json: who this runner is. On Windows the start time may be learnt only with the worker's (writeRunnerFile again). */
  private writeRunnerFile(startTime: string | null): void {
    const host = this.options.remote ? {host: hostname()} : {}
    this.runnerStartTime = startTime
    this.reserve.write(() => writeFileAtomic(this.paths.runner, JSON.stringify({pid: process.pid, startTime: startTime ?? 'unknown', ...host}) + '\n', LIVE))
  }

  private runnerStartTime: string | null = null
  /** Slurm's KillWait (remote runners), once the scheduler has said: the time a stop of its TERM has. */
  private killWaitMs: number | null = null

  /**
   * Windows: runner.json gets this runner's start time once a table read for
   * the tree named it (at the spawn; an adopting runner at its first scan),
   * so a command that must confirm the runner (to replace a wedged one) can.
   */
  private learnOwnStartTime(): void {
    if (this.runnerStartTime !== null || knownSelfStartTime() === null || this.phase === 'finished') return
    try {
      this.writeRunnerFile(knownSelfStartTime())
    } catch {
      // readers still see the heartbeat and the pid
    }
  }

  async main(): Promise<void> {
    // Windows: no PowerShell for it now; the table read when the worker is spawned names this process too.
    const me = BEATS_LOCALLY ? knownSelfStartTime() : processStartTime(process.pid)
    // The ballast first (an adopting runner rewrites the one its dead runner
    // left): on a full disk it makes room for runner.json, without which a
    // worker could not be adopted.
    this.reserve = DiskReserve.create(this.paths.dir)
    // Beating before runner.json names this runner: a reader that finds the file finds a fresh beat of its pid.
    if (this.options.remote || BEATS_LOCALLY) this.startHeartbeat()
    this.writeRunnerFile(me)
    if (this.options.remote) {
      this.record = {...this.record, host: hostname()}
      void learnKillWait().then((ms) => (this.killWaitMs = ms))
    }
    createTaskLayout(this.paths)
    if (this.options.adopt) {
      await this.adopt()
      return
    }
    writeFileAtomic(this.paths.control, '', LIVE)

    const hold = await holdStart(this.options.stateDir, this.options.id, this.record.runs.length)
    let started = false
    try {
      if (hold.taken) await this.leaveTakenRun(hold.taken)
      else {
        this.ownsRun = true
        started = await this.startRun(hold)
      }
    } finally {
      hold.release()
    }
    if (started) await this.supervise()
  }

  /** Under the start hold (start-claim.ts): the worker spawned and `running` recorded, or the run's end; true for the first. */
  private async startRun(hold: StartHold): Promise<boolean> {
    // A cancel that arrived while we were starting wins before the worker exists.
    const early = readRequests(this.paths).find(({request}) => request.kind === 'cancel')
    if (early) {
      this.handledFiles.add(early.file)
      this.finish('cancelled', {cause: 'cancel', reason: 'cancelled before the worker started'})
      return false
    }

    const cwdProblem = checkCwd(this.record.cwd)
    if (cwdProblem) {
      this.finish('failed', {cause: 'not-started', reason: cwdProblem})
      return false
    }

    const outFd = openAppend(this.paths.output)
    if (this.run.run > 1) writeSync(outFd, runHeader(this.run))
    this.runOutputStart = fstatSync(outFd).size
    // A new run consumes the last checkpoint, and turns, cost and tokens
    // describe this run, as the agent's own result event does; the session's
    // totals carry on from the runs before. The session id carries over too,
    // and this run's stream may replace it: a stale checkpoint must not send a
    // later resume back to an older conversation.
    if (this.run.run > 1) {
      const sessionId = this.record.agentInfo?.sessionId ?? this.record.checkpoint?.sessionId ?? null
      const session = this.record.agentInfo?.session ?? null
      this.record = {...this.record, checkpoint: null}
      if (!this.options.terminal) this.followAgent(this.runOutputStart, session, sessionId)
    } else {
      this.followAgent(this.runOutputStart, null, null)
    }
    this.lastSize = this.runOutputStart
    if (this.run.run === 1) this.baseAtStart()

    const started = this.options.terminal ? await this.spawnOnTerminal() : await this.spawnWorker(outFd)
    closeSync(outFd)
    const taken = hold.takenNow()
    if (taken) {
      await this.leaveTakenRun(taken)
      return false
    }
    if (!started.ok) {
      this.finish('failed', {cause: started.cause, reason: started.reason})
      return false
    }

    this.runStartedAt = Date.now()
    this.lastGrowthAt = this.runStartedAt
    const running = transition(this.record, {status: 'running'})
    running.runs[running.runs.length - 1] = {...running.runs.at(-1)!, outputOffset: this.runOutputStart}
    this.commit({...running, worker: this.workerIdentity})
    this.event('started', {pid: this.workerIdentity!.pid, command: started.argv})
    this.signalReady()
    return true
  }

  /** Another command ended this run before the runner could hold it: nothing is written, and a worker no record names is stopped. */
  private async leaveTakenRun(taken: TaskRecord): Promise<void> {
    this.phase = 'finished'
    this.event('taken', {status: taken.status, reason: taken.reason ?? null, runner: process.pid})
    // Not even --keep-children: the run these processes belong to never ran on record.
    if (this.workerIdentity && this.tree) {
      await stopUnwatched(this.workerIdentity, this.tree.identities(), taskMark(this.paths), (name, extra) => this.event(name, extra))
      await Promise.race([this.waitForExit(), sleep(2000)])
    }
    // The control file and requests may already be a newer run's; runner.json only while it still names this runner.
    if (this.namedInRunnerFile()) safeUnlink(this.paths.runner)
    this.signalReady()
  }

  private followAgent(offset: number, base: AgentUsage | null, sessionId: string | null): void {
    if (!profileOf(this.record.agent)) return
    // An agent that logs its tokens beside stdout (copilot) is followed there too, in the worker's environment.
    const usageLog = {env: workerEnv(this.options.stateDir, this.record, this.run, this.paths), since: Date.parse(this.run.startedAt ?? '') || Date.now()}
    this.agentStream = new AgentStream(this.paths.output, this.record.agent, offset, base, sessionId, usageLog)
    this.record = {...this.record, agentInfo: this.agentStream.current()}
  }

  /** From a running worker to its recorded end: requests, policies, the agent's stream. */
  private async supervise(): Promise<void> {
    this.phase = 'supervising'
    this.startOutputCap()
    this.watchRequests()
    this.timer = setInterval(() => this.tick(), TICK_MS)
    this.tick()
    await this.waitForExit()
    if (this.plan) await this.planDone
    this.outputCap?.stop()
    await this.stopLeftovers()
    await this.finishAfterExit()
  }

  /** tree.json: so that if this runner and the worker both vanish, reconcile can still stop what they leave. */
  private saveTree(): void {
    if (!this.tree || this.record.keepChildren) return
    try {
      writeFileAtomic(this.paths.tree, JSON.stringify(this.tree.identities()) + '\n', LIVE)
    } catch {
      // a full disk: the group is still found by its id
    }
  }

  /** No process of a task outlives its final status, unless the task was started with --keep-children. */
  private async stopLeftovers(): Promise<void> {
    if (!this.tree || this.record.keepChildren) return
    this.phase = 'cleaning'
    // What is left gets the grace the plan under way gave the worker after its TERM (`stop -t 1`, the
    // scheduler's KillWait: Slurm kills this runner when that runs out), else the usual one.
    const grace = this.plan?.steps.find((step) => step.signal === 'SIGTERM')?.waitMs
    const count = await stopLeftovers(this.tree, (name, extra) => this.event(name, extra), grace)
    if (count > 0) this.reasonNotes.push(`${count} leftover process${count === 1 ? '' : 'es'} stopped`)
  }

  private startOutputCap(): void {
    const cap = this.record.policies.maxOutputBytes
    if (cap === null || this.options.terminal) return
    this.outputCap = new OutputCapWatch(this.paths.output, this.runOutputStart, cap, {
      over: () => this.policyStop('output'),
      overrun: (bytes) => {
        // Still writing well past the cap after SIGTERM: the grace would only let it fill the disk.
        if (this.plan?.cause !== 'output' || this.exit) return
        this.event('signal', {signal: 'SIGKILL', overrunBytes: bytes})
        this.tree?.signal('SIGKILL')
        this.reasonNotes.push('killed at once: its output kept growing after SIGTERM')
      },
    }).start()
  }

  /**
   * The task's runner died and its worker lives on. This runner takes the
   * worker over where it is: the same record, the run's output read again from
   * where the run began (so turns and tool calls in flight are known), pending
   * requests acted on, and the end recorded — without an exit status, since
   * only a parent gets one.
   */
  private async adopt(): Promise<void> {
    const worker = this.record.worker
    this.adopted = true
    // the reconcile that started this runner holds the task lock for it
    this.ownsRun = true
    this.workerIdentity = worker
    if (worker === null || !isSameProcess(worker)) this.exit = {code: null, signal: null}
    // Not our child: its end is seen by its identity (on Windows: its pid gone, or a table showing another).
    this.tree = worker ? new ProcessTree(worker, 'identity', currentPlatform(), {group: true, marks: taskMark(this.paths)}) : null
    // what the runner before us had seen of the tree stays known
    this.tree?.remember(readTreeFile(this.paths))
    this.cooperative = profileOf(this.record.agent)?.drain === 'hook' && this.record.agentHooks && existsSync(this.paths.agentSettings)
    let size = 0
    try {
      size = statSync(this.paths.output).size
    } catch {
      // no output yet
    }
    this.runOutputStart = this.run.outputOffset ?? size
    this.lastSize = size
    this.followAgent(this.runOutputStart, sessionBase(this.record.agentInfo), this.record.agentInfo?.sessionId ?? null)
    this.runStartedAt = Date.parse(this.run.startedAt ?? '') || Date.now()
    this.lastGrowthAt = Date.now()
    this.event('adopted', {pid: worker?.pid ?? null})
    this.signalReady()
    await this.supervise()
  }

  private planDone: Promise<void> = Promise.resolve()

  private async spawnWorker(outFd: number): Promise<{ok: true; argv: string[]} | {ok: false; reason: string; cause: EndCause}> {
    const env = workerEnv(this.options.stateDir, this.record, this.run, this.paths)
    const command = this.run.command ?? [this.record.executable ?? this.record.command[0], ...this.record.command.slice(1)]
    const hooked = withDrainHooks(this.record, command, this.paths.agentSettings)
    if (hooked.note) this.event('agent-hooks', {note: hooked.note})
    this.cooperative = hooked.argv !== command && !command.includes('--bare') && !command.includes('--safe-mode')
    const argv = this.presetSession(hooked.argv)
    const launch = await launchWorker(argv, this.record.cwd, env, outFd)
    if (!launch.ok) return launch
    this.watchWorker(launch, true)
    this.saveTree()
    return {ok: true, argv}
  }

  /** The worker just launched, watched: its tree (`group`: its own process group, signalled as one) and its exit. */
  private watchWorker(launch: Extract<Launch, {ok: true}>, group: boolean): void {
    this.workerIdentity = launch.identity
    this.tree = new ProcessTree(launch.identity, () => this.exit !== null, currentPlatform(), {group, marks: taskMark(this.paths), ownChild: true})
    // The launch read the table (where that costs a program): it was this run's first scan.
    if (this.tree.costlyScans) this.lastTreeScan = Date.now()
    this.learnOwnStartTime()
    launch.child.once('exit', (code, signal) => {
      this.tree?.workerEnded(Date.now())
      this.exit = {code, signal}
      for (const wake of this.exitWaiters.splice(0)) wake()
    })
  }

  /** An attached run's worker: the command as the record has it, on this terminal, in this process's group (so never signalled as a group). */
  private async spawnOnTerminal(): Promise<{ok: true; argv: string[]} | {ok: false; reason: string; cause: EndCause}> {
    const argv = this.run.command ?? this.record.command
    const launch = await launchWorker(argv, this.record.cwd, workerEnv(this.options.stateDir, this.record, this.run, this.paths), 'terminal')
    if (!launch.ok) return launch
    this.watchWorker(launch, false)
    return {ok: true, argv}
  }

  /**
   * An agent that names its session only at the end (copilot) is given one
   * at launch, unless the command picks a session itself: a drain mid-turn
   * must still know what to resume.
   */
  private presetSession(argv: string[]): string[] {
    const profile = profileOf(this.record.agent)
    if (profile?.sessionSource !== 'preset' || !profile.presetSession || !this.agentStream || this.record.shell !== null) return argv
    const id = sessionUuid()
    const preset = profile.presetSession(argv, id)
    if (!preset) return argv
    this.agentStream.presetSession(id)
    this.record = {...this.record, agentInfo: this.agentStream.current()}
    return preset
  }

  private waitForExit(): Promise<void> {
    if (this.exit) return Promise.resolve()
    return new Promise((resolve) => this.exitWaiters.push(resolve))
  }

  private watchRequests(): void {
    try {
      // fs.watch can miss events or be unavailable (network file systems); the
      // tick polls the folder too, so this only makes requests faster.
      this.watcher = watch(this.paths.requests, () => this.checkRequests())
      this.watcher.on('error', () => this.watcher?.close())
    } catch {
      this.watcher = null
    }
  }

  private checkRequests(): void {
    for (const {file, request} of readRequests(this.paths)) {
      if (this.handled.has(request.requestId)) continue
      this.handled.add(request.requestId)
      this.handledFiles.add(file)
      this.event('request', {kind: request.kind, requestId: request.requestId, by: request.by})
      this.applyRequest(request)
    }
  }

  private applyRequest(request: StopRequest): void {
    if (request.kind === 'drain') this.drains[request.followup ? 'followup' : 'other'] = true
    const plan = planFor(request.kind, {
      graceMs: request.graceMs,
      wrapUp: request.wrapUp,
      killAfterMs: request.killAfterMs,
      requestId: request.requestId,
    })
    this.startPlan(plan)
  }

  private startPlan(plan: StopPlan): void {
    if (this.phase === 'cleaning' || this.phase === 'finished') return
    if (this.plan && !supersedes(plan, this.plan)) {
      this.plan.requestIds.push(...plan.requestIds)
      return
    }
    if (this.plan) plan.requestIds.unshift(...this.plan.requestIds)
    const replacing = this.plan !== null
    this.plan = plan
    if (plan.cause === 'stop' || plan.cause === 'cancel') this.record = {...this.record, desired: 'stopped'}
    if (this.record.status === 'running') this.commit(transition(this.record, {status: 'stopping'}))
    else this.commit(this.record)
    this.event('stopping', {cause: plan.cause})
    if (replacing) {
      this.planChanged?.()
      return
    }
    this.planDone = this.executePlan()
  }

  private async executePlan(): Promise<void> {
    this.stopResult = await executeStopPlan(this.tree!, {
      currentPlan: () => this.plan!,
      writeControl: (word) => this.writeControl(word),
      event: (name, extra) => this.event(name, extra),
      waitReplaced: (ms, gone) => this.waitTreeGone(ms, gone),
      safePoint: () => this.atSafePoint(),
    })
  }

  private stopResult: StopOutcome | null = null

  /**
   * An agent that cannot cooperate with a drain (codex; claude without
   * drover's hook) is at a safe point when no tool call of its own is running:
   * signalled there it loses at most the reply being written, never a tool's
   * work half done. A cooperative agent is left to end its turn itself.
   */
  private atSafePoint(): boolean {
    if (this.cooperative || !this.agentStream) return false
    try {
      this.readAgentOutput(statSync(this.paths.output).size)
    } catch {
      return false
    }
    return !this.agentStream.toolInFlight()
  }

  private waitTreeGone(ms: number, gone: () => boolean): Promise<'gone' | 'timeout' | 'replaced'> {
    return new Promise((resolve) => {
      const deadline = Date.now() + ms
      const check = () => {
        if (gone()) return finish('gone')
        if (Date.now() >= deadline) return finish('timeout')
        poll = setTimeout(check, 50)
      }
      let poll: NodeJS.Timeout = setTimeout(check, 0)
      const finish = (result: 'gone' | 'timeout' | 'replaced') => {
        clearTimeout(poll)
        this.planChanged = null
        resolve(result)
      }
      this.planChanged = () => finish('replaced')
    })
  }

  private writeControl(word: 'WRAP_UP' | 'STOP'): void {
    try {
      writeFileAtomic(this.paths.control, `${word}\n`, LIVE)
      this.event('control', {word})
    } catch {
      // the signal steps still follow
    }
  }

  private tick(): void {
    if (this.adopted && !this.exit && (this.workerIdentity === null || this.tree === null || this.tree.workerGone())) {
      this.exit = {code: null, signal: null}
      for (const wake of this.exitWaiters.splice(0)) wake()
    }
    if (this.phase === 'finished') return
    this.checkRequests()
    let size = this.lastSize
    try {
      size = statSync(this.paths.output).size
    } catch {
      // output.log removed under us: nothing to measure this tick. With the
      // whole task folder gone (its state dir deleted), no request can reach
      // this run and no end can be recorded: failing stops the worker's tree
      // and ends this runner, rather than leaving both behind unmanaged.
      if (!existsSync(this.paths.dir)) throw new Error(`task folder ${this.paths.dir} was removed while the task ran`)
    }
    const now = Date.now()
    const growth = size - this.lastSize
    if (size !== this.lastSize) {
      this.lastSize = size
      this.lastGrowthAt = now
    }
    this.readAgentOutput(size)
    if (this.exit) return
    this.checkBudget()
    const scanEvery = this.tree?.costlyScans ? COSTLY_TREE_SCAN_MS : TREE_SCAN_MS
    // An adopted worker's end is seen by identity: on Windows the periodic scan is what reads it.
    if ((!this.record.keepChildren || (this.adopted && this.tree?.costlyScans)) && now - this.lastTreeScan >= scanEvery) {
      this.lastTreeScan = now
      if (this.tree?.snapshot() && !this.record.keepChildren) this.saveTree()
      this.learnOwnStartTime()
    }
    // Earlier runs' output counts against nothing: otherwise a task stopped by the cap
    // (or restarted often) would be stopped again the moment each new run began.
    this.outputCap?.observe(size, growth)
    if (this.options.terminal) return
    const {timeoutMs, idleTimeoutMs} = this.record.policies
    if (timeoutMs !== null && now - this.runStartedAt >= timeoutMs) this.policyStop('timeout')
    else if (idleTimeoutMs !== null && now - this.lastGrowthAt >= idleTimeoutMs) this.policyStop('idle')
  }

  /** The session's usage reached --max-cost/--max-turns/--max-tokens: drain it, leaving a checkpoint. */
  private checkBudget(): void {
    if (this.plan || !this.agentStream || runEnding(this.record.agent, this.record.agentInfo?.lastEvent ?? null)) return
    const reached = budgetReached(this.record.policies, this.record.agentInfo?.session ?? null)
    if (!reached) return
    this.event('policy', {cause: 'budget', detail: reached})
    this.startPlan(planFor('budget', {detail: reached}))
  }

  private policyStop(cause: StopCause): void {
    if (this.plan) return
    this.event('policy', {cause})
    this.startPlan(planFor(cause))
  }

  /** Reads new output lines for the agent profile: session id, turns, cost, tools in flight. */
  private readAgentOutput(size: number): void {
    const read = this.agentStream?.read(size)
    if (!read) return
    this.record = {...this.record, agentInfo: read.info}
    if (read.persist) this.commit(this.record)
  }

  private async finishAfterExit(): Promise<void> {
    // A last read of the agent's stream (a program without a profile has none).
    if (this.agentStream) {
      try {
        this.readAgentOutput(statSync(this.paths.output).size)
      } catch {
        // no output to read
      }
    }
    const {checkpoint, status, ...outcome} = runEnd({
      record: this.record,
      exit: this.exit!,
      stop: this.stopResult,
      adopted: this.adopted,
      sessionDir: this.paths.session,
      diskFull: () => diskFull(this.paths.dir),
      exitShowsSignal: exitShowsSignal(),
    })
    const until = status === 'failed' && !this.stopResult ? limitWaitUntil(this.record) : null
    if (until !== null) {
      await this.waitForLimit(until, outcome)
      return
    }
    const extra = checkpoint ? {checkpoint} : {}
    // A run that went well hands on the follow-up queued first; one drained by a person's request parks the task instead.
    const wentWell = status === 'succeeded' || (status === 'drained' && outcome.cause === 'drain' && this.drains.followup && !this.drains.other)
    if (!wentWell) return this.finishHeld(() => this.finish(status, outcome, extra))
    if (status === 'drained') outcome.reason = 'drained to take a follow-up'
    // Loaded only here: learning an agent's grammar brings node:crypto, which a run that delivers nothing need not carry.
    const {learnFlags} = await import('../agents/flags-cache.js')
    await this.finishHeld(() => this.finish(status, outcome, extra, learnFlags))
  }

  /**
   * The run's end under the task lock, which the commands that queue or
   * withdraw a follow-up take too: one queued as the run ends is either seen
   * by this end or finds the task ended. A lock that cannot be had in time is
   * a stuck holder: the end is still this runner's to record.
   */
  private async finishHeld(end: () => void): Promise<void> {
    const {acquireLock, taskLockPath} = await import('../state/lock.js')
    let release: (() => void) | null = null
    try {
      release = await acquireLock(taskLockPath(this.options.stateDir, this.options.id), {waitMs: 10_000})
    } catch {
      // recorded without it
    }
    try {
      end()
    } finally {
      release?.()
    }
  }

  /** `--on-limit wait`: see limit-wait.ts. The timers of the run are done with; the wait polls itself. */
  private async waitForLimit(until: number, end: {cause: EndCause; reason: string; exitCode: number | null; signal: string | null}): Promise<void> {
    if (this.timer) clearInterval(this.timer)
    this.watcher?.close()
    await waitForLimit(
      {
        stateDir: this.options.stateDir,
        id: this.options.id,
        paths: this.paths,
        record: () => this.record,
        commit: (next, from) => this.commit(next, from),
        event: (name, extra) => this.event(name, extra),
        finish: (status, outcome, extra) => this.finish(status, outcome, extra),
        handled: (file) => this.handledFiles.add(file),
        logError: logRunnerError,
      },
      until,
      end,
    )
  }

  /** The run's end, through settle.ts (record, event, retry, queue bookkeeping, hooks), once. */
  private finish(
    status: EndingStatus,
    outcome: {cause: EndCause; reason: string; exitCode?: number | null; signal?: string | null},
    extra: Partial<TaskRecord> = {},
    deliverFollowup?: LearnFlags,
  ): void {
    // The runner itself was told to go: the worker's end it caused is that interruption's (lost), not a failure.
    if (this.phase === 'interrupting' || this.phase === 'finished') return
    this.phase = 'finished'
    this.stopWatching()
    // Cleaned up before the final status shows: from then on `start ID` may open a
    // new run, whose runner writes its own control file and gets its own requests.
    safeUnlink(this.paths.control)
    for (const file of this.handledFiles) safeUnlink(file)
    // Requests that arrived after the end are moot: the record answers them.
    for (const {file} of readRequests(this.paths)) safeUnlink(file)
    if (this.reasonNotes.length > 0) outcome = {...outcome, reason: `${outcome.reason}; ${this.reasonNotes.join('; ')}`}
    this.outputCap?.stop()
    const worktree = this.worktreeAtEnd()
    // A run that got through resets the backoff of usage-limit waits.
    const waits = status === 'succeeded' && this.record.limitWaits ? {limitWaits: 0} : {}
    const settled = settle(
      this.options.stateDir,
      this.record,
      {status, ...outcome, set: {...(worktree ? {worktree} : {}), ...waits, ...extra}},
      {entry: this.entry, commit: (next, from) => this.commit(next, from), deliverFollowup},
    )
    this.hooks = settled.hooks
    this.followupOpened = settled.delivered !== null
    // runner.json must outlive the final status (a reader in between would take the
    // task for lost), so it may already name the next run's runner: leave that one.
    // A follow-up's run is this process's own next run: it stays named.
    if (!this.followupOpened && this.namedInRunnerFile()) safeUnlink(this.paths.runner)
    this.signalReady()
  }

  private stopWatching(): void {
    if (this.timer) clearInterval(this.timer)
    if (this.heartbeat) clearInterval(this.heartbeat)
    this.watcher?.close()
  }

  /** A waiting task's worktree moves to what its base names now (refreshBase): recorded before the worker sees it. */
  private baseAtStart(): void {
    const worktree = this.record.worktree
    if (!worktree) return
    try {
      const moved = refreshBase(worktree)
      if (!moved) return
      this.commit({...this.record, worktree: moved})
      this.event('worktree-base', {base: worktree.base, from: worktree.baseCommit, to: moved.baseCommit})
    } catch (error) {
      this.event('worktree', {error: (error as Error).message})
    }
  }

  /** The worktree's summary against its base, as the run leaves it (what `status` shows). */
  private worktreeAtEnd(): TaskRecord['worktree'] {
    const worktree = this.record.worktree
    if (!worktree) return null
    try {
      return {...worktree, summary: summarizeWorktree(worktree)}
    } catch (error) {
      this.event('worktree', {error: (error as Error).message})
      return null
    }
  }

  private namedInRunnerFile(): boolean {
    try {
      return (JSON.parse(readOwnFile(this.paths.runner)) as {pid?: unknown}).pid === process.pid
    } catch {
      return false
    }
  }

  /** The runner itself was told to go (shutdown): pass it on and leave the task resumable. */
  async interrupted(signal: NodeJS.Signals): Promise<void> {
    if (this.phase === 'finished' || this.phase === 'interrupting') return
    this.phase = 'interrupting'
    if (this.workerIdentity && !this.exit) {
      this.tree?.snapshot()
      this.tree?.signal('SIGTERM')
      await Promise.race([this.waitForExit(), sleep(5000)])
    }
    // The run may have been left to another meanwhile (leaveTakenRun).
    if ((this.phase as RunnerPhase) === 'finished') return
    this.phase = 'finished'
    this.stopWatching()
    // Told to go before its start hold: the run may already have another's end (start-claim.ts).
    if (!this.ownsRun && runTaken(this.options.stateDir, this.options.id, this.record.runs.length)) return
    const settled = settle(
      this.options.stateDir,
      this.record,
      {status: 'lost', cause: 'runner-interrupted', reason: `runner interrupted by ${signal}`},
      {entry: this.entry, commit: (next, from) => this.commit(next, from)},
    )
    this.hooks = settled.hooks
    safeUnlink(this.paths.runner)
  }

  /** A bug in the runner must not leave the worker unwatched: stop it and say why. */
  fail(error: unknown): void {
    const message = error instanceof Error ? error.message : String(error)
    logRunnerError(`drover runner: ${error instanceof Error ? error.stack : message}\n`)
    // The worker it spawned, or the one it came to adopt (a runner that failed
    // before adopt() even began: found by chaos, seed 855709318, a full disk
    // refusing the adopting runner's runner.json) — its whole known tree, each
    // process checked against its start time, since an adopted one is not our child.
    const worker = this.workerIdentity ?? (this.options.adopt ? this.record.worker : null)
    if (worker && !this.exit && !this.record.keepChildren) {
      let tree = this.tree
      if (!tree) {
        tree = new ProcessTree(worker, 'identity', currentPlatform(), {group: true, marks: taskMark(this.paths)})
        tree.remember(readTreeFile(this.paths))
      }
      try {
        killTreeNow(tree)
      } catch {
        // best effort
      }
    }
    if (this.phase !== 'finished') {
      try {
        this.finish('failed', {cause: 'runner-error', reason: `runner error: ${message}`})
      } catch {
        // the record could not be written: reconcile will show it lost
      }
    }
    this.signalReady()
  }
}

