// The Drover class: one state dir's tasks, for every front-end (the CLI, a
// user's Node script, the MCP server). Every result is the same plain object
// `--json` prints (one definition, in task-json.ts), and every error a
// DroverError carrying the documented exit code. Modules that only some calls
// need are imported in those calls, so opening a state dir stays cheap.

import {DroverError, ExitCode, usageError, type MissingRef} from '../base/errors.js'
import {isFinalStatus, type TaskRecord, type TaskStatus} from '../state/record.js'
import type {RequestKind} from '../state/requests.js'
import {ensureStateDir, markStateFormat, resolveStateDir, stateDirMissing} from '../state/statedir.js'
import {readStateConfig} from '../state/config.js'
import {fileSize, listTaskIds, readEvents, readRecord, taskPaths, type RecordRead} from '../state/store.js'
import {textAt, textOf} from '../state/index.js'
import {runnerAlive, workerAliveShown} from '../runner/executors.js'
import {memoryFileSystem} from '../platform/platform.js'
import type {PruneOptions, PruneResult} from '../tasks/prune-rules.js'
import {DEFAULT_LAST, isEntry, loadNewestTasks, loadRecentTasks, loadTask, loadTaskIds, loadTasks, loadTaskViews, newestEnded} from '../tasks/read.js'
import {TasksListing} from '../state/index-listing.js'
import type {EventOptions, TaskEvent} from './events.js'
import type {ControlBatch, ControlManyOptions, ControlRequest, ControlResult, DrainResult, ResumeManyOptions, ResumeResult, TaskSelection} from './batch.js'
import type {FollowOutputOptions, FollowResult, OutputFrom} from './output.js'
import type {OutputPage, PageOptions} from './output-page.js'
import type {PreparedStart, StartOptions} from './start-options.js'
import type {FanOutOptions, FanOutResult, PreparedFanOut} from './fanout.js'
import type {CompareOptions, ComparisonJson} from './compare.js'
import type {QueueDetail, QueueInfo} from './queues.js'
import type {QueueMove} from '../tasks/queue-move.js'
import type {Budget} from './budget.js'
import type {FollowupSent, FollowupsJson, SendFollowupOptions, WithdrawnJson} from './followups.js'
import type {AttachOptions} from './attach.js'
import type {DiffOptions, DiffResult, PairDiffResult, WorktreeStatus} from './worktrees.js'
import type {MergeOptions, MergeResult} from './merge.js'
import type {WaitOptions, WaitResult, WaitSelection} from './wait.js'
import type {UsagePoint} from './usage.js'
import {newestEndedRows, viewRow, type TaskRow} from './task-row.js'
import {CELL, CELL_COUNT, cellsOf, indexRender, rowCells} from './row-cells.js'
import {ChunkedWriter} from './chunked-writer.js'
import {readJson, shownStatus, taskDetailJson, taskJson, type CorruptTaskJson, type TaskDetailJson, type TaskJson} from './task-json.js'

/** `start`'s answer: the task, and whether `ifAbsent` reused a live one of that name instead of starting it. */
export type StartedTaskJson = TaskJson & {reused: boolean}

/** A task named by its id or by the `name` it was started with. */
export type TaskRef = number | string

/** A chunk of a task's output, with the byte offsets a reader can resume from. */
export interface OutputChunk {
  id: number
  /** byte offset of the chunk's first byte in output.log. */
  offset: number
  /** offset just past it: pass it as `offset` to read on from here. */
  end: number
  text: string
}

export type {EventOptions, TaskEvent} from './events.js'

/**
 * One line of a task's events journal (events.ndjson): when, which run, what
 * happened (`created`, `started`, `request`, `signal`, `exit`, `dequeued`,
 * `hook`, `lost`, …) and that event's own facts.
 */
export interface JournalEntry {
  ts: string
  event: string
  run?: number
  [fact: string]: unknown
}

/** Which tasks `list` returns: by status (`corrupt` for unreadable records); `showEnv` unmasks secrets. */
export interface ListFilter {
  status?: readonly (TaskStatus | 'corrupt')[]
  /** only the tasks of this queue (refused, exit 2, when there is no such queue). */
  queue?: string
  /** only the tasks of this group: its name, or a task (id, `:latest`) standing for the group it is in. */
  group?: string
  showEnv?: boolean
}

/** `drover rm`'s --json shape: prune's, plus the refs that named no task. */
export type RmResult = PruneResult & {missing: MissingRef[]}

/** How many ended tasks `recent` shows by default (the `list` table's default). */
export const DEFAULT_RECENT = DEFAULT_LAST

/**
 * Opens a state dir: `dir`, else `$DROVER_STATE_DIR`, else the per-OS
 * default. It is created (0700) when missing unless `create: false` (then
 * exit 5) or `look` (then it is read as an empty one and nothing is made:
 * a look through a mistyped --state-dir leaves no new dir behind); an
 * unsafe one (another user's, group- or world-writable, not a directory)
 * or one written by a newer drover (its format file) throws a DroverError
 * with exit 5.
 */
export async function openStateDir(dir?: string, opts: {create?: boolean; look?: boolean} = {}): Promise<Drover> {
  const stateDir = await resolveStateDir(dir)
  if (opts.look && stateDirMissing(stateDir)) return new Drover(stateDir)
  const {marked} = ensureStateDir(stateDir, opts)
  // No daemon moves queues on: every opening does (a slot freed by a runner that died, a retry that is due).
  const {advanceQueues} = await import('./queues.js')
  await advanceQueues(stateDir)
  return new Drover(stateDir, {formatMarked: marked})
}

const OPEN_BRACKET = Buffer.from('[')
const CLOSE_BRACKET = Buffer.from(']')
const COMMA = Buffer.from(',')

/** A filter on live statuses alone: the live tasks (found through the live index) are all it can keep, however many ended. */
async function liveStatusesOnly(filter: ListFilter): Promise<boolean> {
  return filter.status !== undefined && (await import('../tasks/live-tasks.js')).onlyLiveStatuses(filter.status)
}

/** Whether a task of this status, queue and group (null: none, or corrupt) passes the filter's --status, --queue and --group (resolved). */
function passes(filter: ListFilter): (status: TaskStatus | 'corrupt', queue: string | null, group: string | null) => boolean {
  const wanted = filter.status
  return (status, queue, group) =>
    (!wanted || wanted.includes(status)) &&
    (filter.queue === undefined || (status !== 'corrupt' && queue === filter.queue)) &&
    (filter.group === undefined || (status !== 'corrupt' && group === filter.group))
}

function viewKept(filter: ListFilter): (task: TaskRow | CorruptTaskJson) => boolean {
  const pass = passes(filter)
  return (task) => (task.status === 'corrupt' ? pass('corrupt', null, null) : pass(task.status, (task as TaskRow).queue, (task as TaskRow).group ?? null))
}

/** Whether a filter keeps fewer than every task. */
const filters = (filter: ListFilter) => filter.status !== undefined || filter.queue !== undefined || filter.group !== undefined

/** One state dir's tasks. Every method acts directly on the files; there is no daemon. */
export class Drover {
  /**
   * tasks/ as last listed: a long-lived Drover (the dashboard's server, MCP's)
   * lists 100,000 folders again only when tasks/ changed (index-listing.ts).
   */
  private readonly listing: TasksListing

  /**
   * Whether the state dir has its format file. One of drover 0.1.0 has none
   * and is read as format 1; it gets one at the first call here that wrote
   * in it (`wrote`), never from a look — a look changes nothing on disk —
   * nor from a refused call, which must change nothing either.
   */
  private formatMarked: boolean

  /**
   * @param stateDir an absolute path already checked by openStateDir
   * @param opts.formatMarked the dir has its format file already (what openStateDir found)
   */
  constructor(readonly stateDir: string, opts: {formatMarked?: boolean} = {}) {
    this.listing = new TasksListing(stateDir)
    this.formatMarked = opts.formatMarked ?? false
  }

  /**
   * Why Slurm's compute nodes may not see this state dir, when that shows
   * from here: it lives in this machine's memory (tmpfs, ramfs). Null when
   * nothing shows; a shared file system is not something a path can prove.
   */
  unsharedStateDir(): string | null {
    const fs = memoryFileSystem(this.stateDir)
    return fs
      ? `state dir ${this.stateDir} is on ${fs}, in this machine's memory: Slurm's compute nodes cannot read it unless this machine is the only node (a job that cannot is recorded failed)`
      : null
  }

  /**
   * Starts a task and resolves once it runs (or failed to start: `status`
   * failed with `pid` null), with its record; `reused` is true when
   * `ifAbsent` found a queued or running task of that name and returned it.
   */
  async start(options: StartOptions | PreparedStart): Promise<StartedTaskJson> {
    // The state dir's config.json gives the defaults neither an option nor the environment gave (the executor, Slurm's).
    const prepared = 'prepared' in options ? options : (await import('./start-options.js')).prepareStart(options, readStateConfig(this.stateDir))
    const [{queueSpec}, {startTask}] = await Promise.all([import('./queues.js'), import('../tasks/launch.js')])
    // dependencies name tasks of this state dir: unknown ones are refused (exit 2) before anything is written
    const spec = {...prepared.spec, ...(await queueSpec(this.stateDir, prepared.queue))}
    const {record, reused} = await startTask(this.stateDir, spec)
    if (!reused) this.wrote()
    return {...this.json(record), reused}
  }

  /**
   * Starts a fan-out: one task per attempt (`claude:2,codex`), each with the
   * agent's command written from the prompt, in a worktree of its own from
   * one base commit, all in one group (named GROUP-AGENT-N); resolves once
   * each runs (or is queued, or failed to start). Checked whole first (a
   * usage error, exit 2, writes nothing). Compare them with `compare`.
   */
  async fanOut(options: FanOutOptions | PreparedFanOut): Promise<FanOutResult> {
    const prepared = 'preparedFanOut' in options ? options : (await import('./fanout.js')).prepareFanOut(options, readStateConfig(this.stateDir))
    const [{queueSpec}, {startFanOut}] = await Promise.all([import('./queues.js'), import('../tasks/fanout.js')])
    // dependencies name tasks of this state dir: unknown ones are refused (exit 2) before anything is written
    const queue = await queueSpec(this.stateDir, prepared.queue)
    const started = await startFanOut(this.stateDir, prepared.plan, queue)
    this.wrote()
    return {group: started.group, base: started.base, tasks: started.records.map((record) => this.json(record))}
  }

  /**
   * A group's attempts side by side (`drover compare`): status, turns,
   * tokens, cost, runtime, the work in each worktree against the base, and
   * each check's result. `ref` is the group's name or a task of it; with
   * `wait`, once every attempt has ended and its check is done.
   */
  async compare(ref: string, opts: CompareOptions = {}): Promise<ComparisonJson> {
    const {compareGroup} = await import('./compare.js')
    return compareGroup(this.stateDir, ref, opts)
  }

  /** Each queue: its limit, tasks holding a slot, tasks waiting, paused. */
  async queues(): Promise<QueueInfo[]> {
    const {listQueues} = await import('./queues.js')
    return listQueues(this.stateDir)
  }

  /** Each queue (or the one named, refused when unknown) with its live tasks: those holding a slot, and the line in start order. */
  async queueDetails(name?: string): Promise<QueueDetail[]> {
    const [{queueDetails}, {requireQueue}] = await Promise.all([import('./queues.js'), import('../tasks/queues.js')])
    if (name !== undefined) requireQueue(this.stateDir, name, 'see them all with: drover queue')
    const [queues, live] = await Promise.all([this.queues(), this.list({status: ['queued', 'starting', 'running', 'stopping', 'waiting']})])
    const tasks = live.filter((t): t is TaskJson => t.status !== 'corrupt')
    return queueDetails(queues.filter((q) => name === undefined || q.name === name), tasks)
  }

  /** Sets a queue's parallel limit (creating the queue); a raised limit starts waiting tasks at once. */
  async setQueue(name: string, opts: {parallel: number}): Promise<QueueInfo> {
    const {configureQueue} = await import('./queues.js')
    return this.wrote(await configureQueue(this.stateDir, name, {parallel: opts.parallel}))
  }

  /**
   * A queued task's new place: `priority`, `first` (ahead of every task waiting
   * in its queue) or another `queue`. Only while it waits (exit 4 otherwise);
   * the queue then moves on, so a task moved to a free slot starts.
   */
  async moveQueued(ref: TaskRef, move: QueueMove): Promise<TaskJson> {
    const {checkShape} = await import('./option-shapes.js')
    checkShape(move, {priority: 'number', first: 'boolean', queue: 'string'}, 'moveQueued option')
    const [{moveQueued}, {advanceQueues}] = await Promise.all([import('../tasks/queue-move.js'), import('./queues.js')])
    const moved = this.wrote(await moveQueued(this.stateDir, String(ref), move))
    await advanceQueues(this.stateDir)
    return this.json(await this.record(moved.id))
  }

  /** Forgets a queue that holds no task (a conflict, exit 4, while it does). */
  async removeQueue(name: string): Promise<QueueInfo> {
    const {removeQueue} = await import('./queues.js')
    return this.wrote(await removeQueue(this.stateDir, name))
  }

  /** A paused queue starts nothing new; its running tasks go on (an unknown queue is refused, exit 2). */
  async pauseQueue(name: string): Promise<QueueInfo> {
    const {configureQueue} = await import('./queues.js')
    return this.wrote(await configureQueue(this.stateDir, name, {paused: true}))
  }

  /** A paused queue starts its waiting tasks again, as slots allow. */
  async resumeQueue(name: string): Promise<QueueInfo> {
    const {configureQueue} = await import('./queues.js')
    return this.wrote(await configureQueue(this.stateDir, name, {paused: false}))
  }

  /**
   * Waits until every selected task has ended (with `any`, the first), as
   * `drover wait` does; the result carries its exit code. Unknown refs throw
   * exit 3; the selection is fixed when the call starts.
   */
  async waitFor(selection: WaitSelection, opts: WaitOptions = {}): Promise<WaitResult> {
    const {selectForWait, waitTasks} = await import('./wait.js')
    return waitTasks(this.stateDir, await selectForWait(this.stateDir, selection), opts)
  }

  /**
   * Starts an ended task again as a new run with the same command, cwd and
   * env. `offset` is where this run's output begins in the log.
   */
  async startAgain(ref: TaskRef): Promise<{task: TaskJson; offset: number}> {
    const {findTaskToRestart, restartTask} = await import('../tasks/restart.js')
    const previous = findTaskToRestart(this.stateDir, String(ref))
    const offset = fileSize(taskPaths(this.stateDir, previous.id).output) ?? 0
    const task = this.json(this.wrote(await restartTask(this.stateDir, String(ref))))
    return {task, offset}
  }

  /** Every task, oldest first, reconciled; unreadable records as `{id, status: 'corrupt', error}`. */
  async list(filter: ListFilter = {}): Promise<(TaskJson | CorruptTaskJson)[]> {
    filter = await this.resolved(filter)
    const keep = await this.listPredicate(filter)
    if (filter.showEnv || (await liveStatusesOnly(filter))) {
      const reads = (await this.candidates(filter)).filter((read) => keep?.(read) ?? true)
      return reads.map((read) => readJson(read, {showEnv: filter.showEnv, stateDir: this.stateDir}))
    }
    // An ended task's stored view parses to what taskJson makes of its record, without decoding the record.
    const tasks = (await loadTaskViews(this.stateDir, indexRender)).map((item) =>
      isEntry(item) ? (JSON.parse(textOf(item, 'view')!.toString('utf8')) as TaskJson) : readJson(item, {stateDir: this.stateDir}),
    )
    return filters(filter) ? tasks.filter(viewKept(filter)) : tasks
  }

  /**
   * `list(filter)` as compact JSON — the same bytes JSON.stringify would make
   * — handed to `write` in pieces of about a megabyte: without a filter, an
   * ended task is the view the index stores, copied as it is, so 100,000 of
   * them are neither parsed nor rendered again (nor held whole in memory twice).
   * Tasks whose views lie side by side, comma between, in one segment's view
   * column (state/index-format.ts) go out as one slice of it, without a copy.
   */
  async listJson(filter: ListFilter, write: (chunk: Buffer) => void): Promise<void> {
    if (filters(filter) || filter.showEnv) return write(Buffer.from(JSON.stringify(await this.list(filter))))
    const items = await loadTaskViews(this.stateDir, indexRender)
    const out = new ChunkedWriter(write)
    out.put(OPEN_BRACKET)
    for (let k = 0; k < items.length; ) {
      if (k > 0) out.put(COMMA)
      const item = items[k++]
      if (!isEntry(item)) {
        out.put(Buffer.from(JSON.stringify(readJson(item, {stateDir: this.stateDir}))))
        continue
      }
      const views = item.segment.columns.view!
      let last = item.k
      for (; k < items.length; k++) {
        const next = items[k]
        if (!isEntry(next) || next.segment !== item.segment || next.k !== last + 1) break
        last = next.k
      }
      out.put(views.bytes, textAt(item, 'view'), views.ends[last])
    }
    out.put(CLOSE_BRACKET)
    out.flush()
  }

  /**
   * `list(filter)` with only what a table row shows of each task (TaskRow; a
   * TaskJson for a task not indexed): an ended task's row is cut out of
   * the view the index stores instead of parsing all of it (task-row.ts).
   */
  async listRows(filter: ListFilter = {}): Promise<(TaskRow | CorruptTaskJson)[]> {
    const rows: (TaskRow | CorruptTaskJson)[] = []
    await this.eachRow(filter, (row) => rows.push(row))
    return rows
  }

  /**
   * listRows one row at a time, oldest first: a caller that keeps less than
   * the row (a table keeps its cells) lets 100,000 of them go as it goes.
   */
  async eachRow(filter: ListFilter, visit: (row: TaskRow | CorruptTaskJson) => void): Promise<void> {
    if (filter.showEnv) return (await this.list(filter)).forEach((task) => visit(task))
    filter = await this.resolved(filter)
    await this.listPredicate(filter) // refuses an unknown queue
    const kept = viewKept(filter)
    const items = await loadTaskViews(this.stateDir, indexRender)
    for (let k = 0; k < items.length; k++) {
      const item = items[k]
      const row = isEntry(item) ? viewRow(item) : readJson(item, {stateDir: this.stateDir})
      if (kept(row)) visit(row)
    }
  }

  /**
   * eachRow as the cells of a table row (row-cells.ts), oldest first: an
   * ended task's come from the rows the index keeps (state/index.ts), made
   * with the views, so `list --all` at 100,000 tasks cuts no row out of a
   * view.
   */
  async eachRowCells(filter: ListFilter, visit: (cells: string[]) => void): Promise<void> {
    if (filter.showEnv) return (await this.list(filter)).forEach((task) => visit(cellsOf(task)))
    filter = await this.resolved(filter)
    await this.listPredicate(filter) // refuses an unknown queue
    // no filter: no test a row (of 100,000) need pass
    const pass = filters(filter) ? passes(filter) : null
    const items = await loadTaskViews(this.stateDir, indexRender, true)
    for (let k = 0; k < items.length; k++) {
      const item = items[k]
      let cells = isEntry(item) ? rowCells(item) : cellsOf(readJson(item, {stateDir: this.stateDir}))
      // a line that does not split into this task's row: the record says
      if (cells === null || cells.length !== CELL_COUNT || cells[CELL.id] !== String(item.id)) cells = cellsOf(readJson(readRecord(this.stateDir, item.id), {stateDir: this.stateDir}))
      if (pass === null || pass(cells[CELL.status] as TaskStatus | 'corrupt', cells[CELL.queue] || null, cells[CELL.group] || null)) visit(cells)
    }
  }

  /**
   * `recent(opts)` as rows: with a status or queue filter every task is
   * looked at, so they come from the stored views as in listRows rather
   * than from every record decoded.
   */
  async recentRows(opts: ListFilter & {last?: number} = {}): Promise<{tasks: (TaskRow | CorruptTaskJson)[]; hidden: number}> {
    if (opts.showEnv || !filters(opts)) return this.recent(opts)
    return newestEndedRows(await this.listRows(opts), opts.last ?? DEFAULT_RECENT)
  }

  /** The ids `list(filter)` would show, without rendering a task that has no filter to pass. */
  async listIds(filter: ListFilter = {}): Promise<number[]> {
    if (filters(filter)) return (await this.list(filter)).map((task) => task.id)
    return loadTaskIds(this.stateDir, indexRender)
  }

  /**
   * The newest `limit` tasks a filter keeps, oldest first, and how many it
   * keeps in all: one page (MCP's list_tasks) without shaping every task.
   */
  async listNewest(filter: ListFilter & {limit: number}): Promise<{tasks: (TaskJson | CorruptTaskJson)[]; total: number}> {
    filter = await this.resolved(filter)
    const keep = await this.listPredicate(filter)
    if (!keep) {
      // every task: only the page's records are read
      const {reads, total} = await loadNewestTasks(this.stateDir, filter.limit, {ids: this.listing.ids().ids})
      return {tasks: reads.map((read) => readJson(read, {showEnv: filter.showEnv, stateDir: this.stateDir})), total}
    }
    const reads = (await this.candidates(filter)).filter(keep)
    const page = reads.slice(Math.max(0, reads.length - filter.limit))
    return {tasks: page.map((read) => readJson(read, {showEnv: filter.showEnv, stateDir: this.stateDir})), total: reads.length}
  }

  /** What a filter can keep: a filter on live statuses alone reads only the live tasks (through the live index), however many ended. */
  private async candidates(filter: ListFilter): Promise<RecordRead[]> {
    if (await liveStatusesOnly(filter)) return (await import('../tasks/live-tasks.js')).loadLiveTasks(this.stateDir)
    return loadTasks(this.stateDir, {render: indexRender})
  }

  /** The filter's test of one record, or null when it keeps everything; an unknown queue is refused. */
  private async listPredicate(filter: ListFilter): Promise<((read: RecordRead) => boolean) | null> {
    const {status, queue, group} = filter
    if (queue !== undefined) (await import('../tasks/queues.js')).requireQueue(this.stateDir, queue, 'see them all with: drover queue')
    if (!filters(filter)) return null
    return (read) =>
      (!status || status.includes(read.ok ? shownStatus(read.record) : 'corrupt')) &&
      (queue === undefined || (read.ok && read.record.queue === queue)) &&
      (group === undefined || (read.ok && read.record.group === group))
  }

  /** The filter with its group resolved: a task standing for its group (an id, `:latest`) becomes the group's name. */
  private async resolved<F extends ListFilter>(filter: F): Promise<F> {
    if (filter.group === undefined) return filter
    const {resolveGroup} = await import('../tasks/groups.js')
    return {...filter, group: resolveGroup(this.stateDir, filter.group)}
  }

  /**
   * A group's tasks, oldest first, reconciled: `ref` is its name, or a task
   * (id, `:latest`) standing for the group it is in. Not found (exit 3) when
   * no task is in it.
   */
  async group(ref: string): Promise<{group: string; tasks: TaskJson[]}> {
    const {groupTasks, resolveGroup} = await import('../tasks/groups.js')
    const group = resolveGroup(this.stateDir, ref)
    return {group, tasks: (await groupTasks(this.stateDir, group)).map((record) => this.json(record))}
  }

  /**
   * The live tasks and the `last` newest ended ones (corrupt ones count as
   * ended), oldest first, with how many were left out. Reads only what it
   * shows when no status filter is given, so it stays fast with 10,000 tasks.
   */
  async recent(opts: ListFilter & {last?: number} = {}): Promise<{tasks: (TaskJson | CorruptTaskJson)[]; hidden: number}> {
    opts = await this.resolved(opts)
    const last = opts.last ?? DEFAULT_RECENT
    const keep = await this.listPredicate(opts)
    const {reads, hidden} = keep ? newestEnded((await this.candidates(opts)).filter(keep), last) : await loadRecentTasks(this.stateDir, last, {render: indexRender, ids: this.listing.ids().ids})
    return {tasks: reads.map((read) => readJson(read, {showEnv: opts.showEnv, stateDir: this.stateDir})), hidden}
  }

  /**
   * One task, as `status --json` shows it; with `wait`, once it has ended.
   * Throws exit 3 for an unknown task, exit 1 for a corrupt record.
   */
  async get(ref: TaskRef, opts: {wait?: boolean; showEnv?: boolean; signal?: AbortSignal} = {}): Promise<TaskDetailJson> {
    let record = await this.record(ref)
    if (opts.wait && !isFinalStatus(record.status)) {
      const {waitForFinal} = await import('../tasks/wait.js')
      record = await waitForFinal(this.stateDir, record.id, {until: (r) => isFinalStatus(r.status) || opts.signal?.aborted === true})
    }
    // A runner on another host is judged by its heartbeat and the scheduler, never by a pid here (runner/executors).
    const runnerLives = runnerAlive(this.stateDir, record.id, record)
    const live = {runnerAlive: runnerLives, workerAlive: workerAliveShown(record, runnerLives)}
    return taskDetailJson(this.stateDir, record, live, {showEnv: opts.showEnv})
  }

  /** The task's output so far: whole, its last `tail` lines, or from byte `offset`. Works for a corrupt record too. */
  async logs(ref: TaskRef, from: OutputFrom = {}): Promise<string> {
    return (await this.output(ref, from)).data.toString('utf8')
  }

  /** Where reading `from` starts in a task's output: its id (even for a corrupt record) and the byte offset. */
  async outputStart(ref: TaskRef, from: OutputFrom = {}): Promise<{id: number; offset: number}> {
    const {outputTaskId, startOffset} = await import('./output.js')
    const id = await outputTaskId(this.stateDir, String(ref))
    return {id, offset: await startOffset(this.stateDir, id, from)}
  }

  /**
   * One page of the task's output from a byte cursor (or its last `tail`
   * lines), with the cursor to read on from; never waits — for clients that
   * poll (MCP), where `follow` would hold a call open.
   */
  async read(ref: TaskRef, opts: PageOptions = {}): Promise<OutputPage> {
    const {readOutputPage} = await import('../tasks/output-page.js')
    return readOutputPage(this.stateDir, await this.record(ref), opts)
  }

  /** Like `logs`, as bytes, with the task's id and the offset they start at. */
  async output(ref: TaskRef, from: OutputFrom = {}): Promise<{id: number; offset: number; data: Buffer}> {
    const {id, offset} = await this.outputStart(ref, from)
    const {readOutput} = await import('./output.js')
    return {id, offset, data: readOutput(this.stateDir, id, offset)}
  }

  /** An agent's task's turns, tokens and cost turn by turn, read from its event stream (empty for other tasks). */
  async usage(ref: TaskRef): Promise<UsagePoint[]> {
    const {usageSeries} = await import('../tasks/usage-series.js')
    return usageSeries(this.stateDir, await this.record(ref))
  }

  /** Like `output`, as a stream for large logs; it errors with ENOENT when the task has written nothing yet. */
  async outputStream(ref: TaskRef, from: OutputFrom = {}): Promise<{id: number; offset: number; stream: NodeJS.ReadableStream}> {
    const {id, offset} = await this.outputStart(ref, from)
    const {outputStream} = await import('./output.js')
    return {id, offset, stream: outputStream(this.stateDir, id, offset)}
  }

  /**
   * Follows the output as it is written, handing each chunk (bytes, with its
   * offset) to `write`, until the task ends, is removed, or `signal` aborts.
   * What the CLI's `logs -f` is built on; `follow` is the iterator form.
   */
  async followOutput(ref: TaskRef, opts: FollowOutputOptions): Promise<FollowResult> {
    const {id, offset} = await this.outputStart(ref, opts)
    const {followOutput} = await import('./output.js')
    return followOutput(this.stateDir, id, offset, opts)
  }

  /**
   * The task's output as it is written, until the task ends: from `offset`
   * (default the start of the log), or its last `tail` lines. Returns the
   * final record when the task ended, null when `signal` aborted or the task
   * was removed. A chunk may end mid-line.
   */
  async *follow(ref: TaskRef, opts: OutputFrom & {signal?: AbortSignal} = {}): AsyncGenerator<OutputChunk, TaskJson | null> {
    const {id, offset} = await this.outputStart(ref, opts)
    const {followOutput} = await import('./output.js')
    const queue: OutputChunk[] = []
    let wake: (() => void) | null = null
    let done: {end?: FollowResult; error?: unknown} | null = null
    const following = followOutput(this.stateDir, id, offset, {
      signal: opts.signal,
      write: (chunk, start) => {
        queue.push({id, offset: start, end: start + chunk.length, text: chunk.toString('utf8')})
        wake?.()
      },
    }).then(
      (end) => (done = {end}),
      (error: unknown) => (done = {error}),
    )
    void following.finally(() => wake?.())
    for (;;) {
      while (queue.length > 0) yield queue.shift()!
      if (done) {
        const finished = done as {end?: FollowResult; error?: unknown}
        if (finished.error) throw finished.error
        return finished.end?.outcome === 'ended' ? finished.end.task : null
      }
      await new Promise<void>((resolve) => (wake = resolve))
      wake = null
    }
  }

  /** Waits until every task given has ended (or `timeoutMs` passed, or `signal` aborted); resolves with their records. */
  async wait(refs: TaskRef[], opts: {timeoutMs?: number; signal?: AbortSignal} = {}): Promise<TaskJson[]> {
    const records = await Promise.all(refs.map((ref) => this.record(ref)))
    const {waitForFinal} = await import('../tasks/wait.js')
    const ended = await Promise.all(
      records.map((record) =>
        waitForFinal(this.stateDir, record.id, {
          timeoutMs: opts.timeoutMs,
          until: (r) => isFinalStatus(r.status) || opts.signal?.aborted === true,
        }),
      ),
    )
    return ended.map((record) => this.json(record))
  }

  /** Graceful stop of the whole tree: STOP, SIGTERM, SIGKILL after `graceMs` (default 10 s). Waits for the end unless `wait: false`. */
  stop(ref: TaskRef, opts: {graceMs?: number; wrapUp?: boolean; wait?: boolean} = {}): Promise<ControlResult> {
    return this.controlOne(ref, 'stop', {graceMs: opts.graceMs ?? 10_000, wrapUp: opts.wrapUp}, opts.wait)
  }

  /** SIGTERM now, SIGKILL after 2 s; the task is never resumed. */
  cancel(ref: TaskRef, opts: {wait?: boolean} = {}): Promise<ControlResult> {
    return this.controlOne(ref, 'cancel', {graceMs: 0}, opts.wait)
  }

  /** STOP and up to `graceMs` (default 60 s) to checkpoint, then signals; ends `drained` with a checkpoint `resume` continues. */
  async drain(ref: TaskRef, opts: {graceMs?: number; killAfterMs?: number; wait?: boolean} = {}): Promise<DrainResult> {
    const result = await this.controlOne(ref, 'drain', {graceMs: opts.graceMs ?? 60_000, killAfterMs: opts.killAfterMs ?? 10_000}, opts.wait)
    return this.drainResult(result)
  }

  /**
   * Stop, cancel or drain many tasks at once (ids and names, or `all` that
   * run): every request goes out together; each handle's `result` settles
   * when that task's request is done. Refs that name no task come back in
   * `missing`; a malformed ref throws exit 2 before any request is made.
   */
  async controlMany(kind: RequestKind, selection: TaskSelection, request: ControlRequest, opts: ControlManyOptions = {}): Promise<ControlBatch> {
    const {controlMany} = await import('./batch.js')
    const batch = await controlMany(this.stateDir, kind, selection, request, opts)
    return {...batch, tasks: batch.tasks.map((task) => ({...task, result: task.result.then((result) => this.accepted(result))}))}
  }

  /** A drain's result with the checkpoint and the command that resumes it (or why it cannot be). */
  async drainResult(result: ControlResult): Promise<DrainResult> {
    const {drainResult} = await import('./batch.js')
    return drainResult(this.stateDir, result)
  }

  /** A new run that continues the task's session (an agent's own conversation). */
  async resume(ref: TaskRef, opts: {prompt?: string; budget?: Partial<Budget>} = {}): Promise<TaskJson> {
    const {resumeTask} = await import('../tasks/resume.js')
    const record = await this.record(ref)
    return this.json(this.wrote(await resumeTask(this.stateDir, record, opts.prompt, {budget: opts.budget})))
  }

  /**
   * Tells an agent what to do next: queued as a follow-up while its run is at
   * work (delivered in its own run when this one ends well, or at the next
   * safe point with `now`), a new run at once when the task is not at work.
   * A task that runs no agent is refused (exit 2).
   */
  async followUp(ref: TaskRef, opts: SendFollowupOptions): Promise<FollowupSent> {
    const {sendFollowup} = await import('./followups.js')
    return this.wrote(await sendFollowup(this.stateDir, await this.record(ref), opts))
  }

  /** The follow-ups queued for a task, in delivery order, and those dropped. */
  async followups(ref: TaskRef): Promise<FollowupsJson> {
    const {followupsOf} = await import('./followups.js')
    return followupsOf(this.stateDir, await this.record(ref))
  }

  /**
   * Takes an agent over on this process's terminal: a run at work is drained
   * at a safe point, then the agent's interactive mode runs in the foreground
   * on the same session, recorded as an attached run; resolves with the task
   * once the person quits it (the task stays resumable). Refused without a
   * terminal on stdin and stdout, and for a task that runs no agent (exit 2).
   */
  async attach(ref: TaskRef, opts: AttachOptions = {}): Promise<TaskJson> {
    const {attach, checkAttach} = await import('./attach.js')
    await checkAttach(ref, opts)
    return this.json(this.wrote(await attach(this.stateDir, await this.record(ref), opts)))
  }

  /** Withdraws queued follow-ups by number, or all of them. */
  async withdrawFollowups(ref: TaskRef, which: number[] | 'all'): Promise<WithdrawnJson> {
    const {withdrawFollowups} = await import('./followups.js')
    return this.wrote(await withdrawFollowups(this.stateDir, await this.record(ref), which))
  }

  /** The task's worktree against the commit it started from (`start --worktree` tasks only). */
  async diff(ref: TaskRef, opts: DiffOptions = {}): Promise<DiffResult> {
    const {taskDiff} = await import('./worktrees.js')
    return taskDiff(await this.record(ref), opts)
  }

  /** Where two tasks' work differs (`drover diff A B`): from `a`'s worktree to `b`'s, both of one repository. */
  async diffTasks(a: TaskRef, b: TaskRef, opts: DiffOptions = {}): Promise<PairDiffResult> {
    const {taskPairDiff} = await import('./worktrees.js')
    return taskPairDiff(await this.record(a), await this.record(b), opts)
  }

  /**
   * Brings an ended --worktree task's branch into the branch it started from
   * (or `into`): a merge, a squash or a rebase. Refused (exit 4) while the task
   * lives, when the target's checkout has uncommitted changes or the worktree
   * work not committed; a conflict is left as git leaves it, exit 4. The merge
   * is recorded on the task (worktree.merged, a `merged` event).
   */
  async merge(ref: TaskRef, opts: MergeOptions = {}): Promise<MergeResult> {
    const {checkMergeOptions, mergeResult} = await import('./merge.js')
    checkMergeOptions(opts)
    return this.wrote(await mergeResult(this.stateDir, await this.record(ref), opts))
  }

  /** The task's events journal, oldest first; with `last`, only the newest `last` entries. */
  async journal(ref: TaskRef, opts: {last?: number} = {}): Promise<JournalEntry[]> {
    const entries = readEvents(taskPaths(this.stateDir, (await this.record(ref)).id)) as JournalEntry[]
    return opts.last === undefined ? entries : entries.slice(Math.max(0, entries.length - opts.last))
  }

  /** The task's worktree: branch, base, and files changed with lines added and removed, read from git now. */
  async worktree(ref: TaskRef): Promise<WorktreeStatus> {
    const {taskWorktree} = await import('./worktrees.js')
    return taskWorktree(await this.record(ref))
  }

  /** Resumes many tasks at once: named ones, `all` (drained and interrupted), or `interrupted` (after a reboot). */
  async resumeMany(opts: ResumeManyOptions): Promise<ResumeResult> {
    const {resumeMany} = await import('./batch.js')
    const result = await resumeMany(this.stateDir, opts)
    return result.resumed.length > 0 ? this.wrote(result) : result
  }

  /** Removes ended tasks by the rules given (see `drover prune`). */
  async prune(options: PruneOptions): Promise<PruneResult> {
    const {prune} = await import('../tasks/prune.js')
    return this.removed(await prune(this.stateDir, options))
  }

  /**
   * Removes the named ended tasks. A live one is skipped (in `skipped`),
   * refs that name no task come back in `missing`; every ref is checked
   * before anything is removed. `force`: a worktree with uncommitted changes
   * goes too, discarding them (a branch with unmerged commits stays). `discard`: the
   * worktree and its branch go whatever they hold; the unmerged commits
   * deleted are named in each removal's worktree.discarded. `group`: every
   * task of that group instead of refs (its name, or a task of it).
   */
  async rm(refs: TaskRef[], opts: {dryRun?: boolean; includeWorktrees?: boolean; force?: boolean; discard?: boolean; group?: string} = {}): Promise<RmResult> {
    const {findTask} = await import('../tasks/lookup.js')
    const ids = new Set<number>()
    const missing: RmResult['missing'] = []
    if (opts.group !== undefined) {
      if (refs.length > 0) throw usageError('give task ids or --group, not both')
      // every task of the group: the ended ones go, a live one is skipped as any live task is
      for (const task of (await this.group(opts.group)).tasks) ids.add(task.id)
    }
    for (const ref of refs) {
      try {
        ids.add(findTask(this.stateDir, String(ref)).id)
      } catch (error) {
        if (!(error instanceof DroverError) || error.exitCode !== ExitCode.notFound) throw error
        missing.push(error.data as unknown as MissingRef)
      }
    }
    const dryRun = opts.dryRun ?? false
    if (ids.size === 0) {
      return {dryRun, removed: [], kept: listTaskIds(this.stateDir).length, skipped: [], errors: [], bytesReclaimed: 0, debris: [], corrupt: [], missing}
    }
    const {prune} = await import('../tasks/prune.js')
    // a task just ended by stop or cancel: its runner may still be on its way out
    if (!dryRun) await (await import('../tasks/removal.js')).finalRunnersGone(this.stateDir, [...ids])
    return {...this.removed(await prune(this.stateDir, {ids: [...ids], dryRun, includeWorktrees: opts.discard ? 'discard' : opts.force ? 'force' : opts.includeWorktrees})), missing}
  }

  /**
   * Changes in the state dir as they happen, until `signal` aborts: tasks
   * created, status changes, ends and removals. Built on the same wake-up as
   * `logs -f` (fs.watch plus a poll), so nothing is missed, only coalesced.
   * With `initial`, the first look reports every task already there as
   * `created` (a view can start from the events alone, with no gap between
   * a listing and the watch); with `updates`, a task whose record changed
   * without a change of status (an agent's turns and tokens, a new pid) is
   * reported as `updated`. `onReady` is called once the first look is done
   * (after its `created` events, with `initial`).
   */
  async *events(opts: EventOptions = {}): AsyncGenerator<TaskEvent> {
    const {watchEvents} = await import('./events.js')
    yield* watchEvents(this.stateDir, opts)
  }

  /**
   * Gives the state dir its format file once a call has written in it (see
   * formatMarked); passes `result` through. Called after the writing, so a
   * refusal (thrown before anything is written) leaves no format file either;
   * hence no promise may pass (its call may still be refused).
   */
  private wrote<T>(result: T extends PromiseLike<unknown> ? never : T): T
  private wrote(): void
  private wrote<T>(result?: T): T | undefined {
    if (!this.formatMarked) this.formatMarked = markStateFormat(this.stateDir)
    return result
  }

  /** A stop's, cancel's or drain's result, once a request was taken: then it wrote (wrote); a task already ended was not asked. */
  private accepted(result: ControlResult): ControlResult {
    return result.accepted ? this.wrote(result) : result
  }

  /** A prune's result, once it removed something: then it wrote (wrote). */
  private removed(result: PruneResult): PruneResult {
    return !result.dryRun && result.removed.length > 0 ? this.wrote(result) : result
  }

  /** The --json shape, with what only the state dir knows (a queued task's place in line). */
  private json(record: TaskRecord): TaskJson {
    return taskJson(record, {stateDir: this.stateDir})
  }

  private async record(ref: TaskRef): Promise<TaskRecord> {
    const read = await loadTask(this.stateDir, String(ref))
    if (!read.ok) throw new DroverError(`task ${read.id} ${read.newer ? 'cannot be read' : 'is corrupt'}: ${read.error}`, ExitCode.failed, {id: read.id, found: true, status: 'corrupt', error: read.error})
    return read.record
  }

  private async controlOne(ref: TaskRef, kind: RequestKind, request: ControlRequest, wait = true): Promise<ControlResult> {
    const [record, {requestControl, scheduleMs}] = await Promise.all([this.record(ref), import('../tasks/control.js')])
    const newRequest = {kind, ...request}
    return this.accepted(await requestControl(this.stateDir, record, newRequest, {wait, timeoutMs: scheduleMs(newRequest) + 5000}))
  }
}
