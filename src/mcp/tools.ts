// The tools drover offers over MCP: for each, what a model reads (description,
// annotations), what it may pass and gets back (schemas.ts), and the one API
// call it makes. Which tools a server shows depends on --read-only and --allow.

import {DroverError, ExitCode, type Drover, type TaskJson, type TaskRef} from '../api/index.js'
import {FINAL_STATUSES, knownAgentNames} from '../api/values.js'
import * as z from 'zod'
import {inputs, outputs, type ToolInput, type ToolName} from './schemas.js'
import {fanOutOptions, startOptions} from './start.js'
import {waitTasks} from './wait.js'

export interface ToolContext {
  drover: Drover
  signal: AbortSignal
  /** reports progress to a client that asked for it (a no-op otherwise). */
  progress: (done: number, total: number | undefined, message: string) => Promise<void>
  /** the longest wait_tasks may block. */
  maxWaitMs: number
}

export interface ToolAnnotations {
  title: string
  readOnlyHint: boolean
  destructiveHint: boolean
  idempotentHint: boolean
  openWorldHint: boolean
}

export interface ToolDefinition<N extends ToolName = ToolName> {
  name: N
  description: string
  annotations: ToolAnnotations
  /** read: changes nothing; write: starts or stops tasks; prune: removes them (only with --allow prune). */
  access: 'read' | 'write' | 'prune'
  run: (args: ToolInput<N>, ctx: ToolContext) => Promise<Record<string, unknown>>
}

const PERSIST = 'Tasks run detached from this server: they keep running when the MCP client disconnects or this server exits; use stop_task, cancel_task or drain_tasks to end them.'

const annotate = (title: string, a: Partial<Omit<ToolAnnotations, 'title'>> = {}): ToolAnnotations => ({
  title,
  readOnlyHint: false,
  destructiveHint: false,
  idempotentHint: false,
  openWorldHint: false,
  ...a,
})
const reading = (title: string) => annotate(title, {readOnlyHint: true, idempotentHint: true})

const DEFAULT_LIST_LIMIT = 50
const DEFAULT_TAIL_LINES = 50
const DEFAULT_READ_BYTES = 16 * 1024
const DEFAULT_WAIT_MS = 30_000

const usageError = (message: string) => new DroverError(message, ExitCode.usage)
const ms = (seconds: number | undefined) => (seconds === undefined ? undefined : Math.round(seconds * 1000))
/** How long a waiting tool waits: `timeoutSeconds`, else 30 s, never past the server's cap. */
const waitMs = (timeoutSeconds: number | undefined, ctx: {maxWaitMs: number}) => Math.min(ms(timeoutSeconds) ?? DEFAULT_WAIT_MS, ctx.maxWaitMs)
const isFinal = (task: {status: string}) => (FINAL_STATUSES as readonly string[]).includes(task.status)

function define<N extends ToolName>(tool: ToolDefinition<N>): ToolDefinition<N> {
  return tool
}

export const TOOLS = [
  define({
    name: 'start_task',
    access: 'write',
    annotations: annotate('Start a background task', {openWorldHint: true}),
    description: `Start a command in the background under drover and return its task record at once (it does not wait for the command to finish). Use it to hand work to a sub-agent — \`agent\` and \`prompt\` (e.g. {"agent": "${knownAgentNames()[0]}", "prompt": "fix the failing tests"}): drover writes the agent's headless command (${knownAgentNames().join(', ')}), with \`extraArgs\` for the agent's own flags — or to run a long job (tests, builds) as \`command\`. A sub-agent runs unattended, with nobody to answer a permission prompt: give claude the tools it may use (extraArgs ["--allowedTools", "Bash,Edit"]) or a permission mode (["--permission-mode", "acceptEdits"], or the state dir's config.json agents.<name>.permissionMode). Give exactly one of \`prompt\` (with \`agent\`), \`command\` (argv, run without a shell) or \`shell\` (a script for $SHELL -c). To run many at once without overloading the machine, give them one \`queue\` (queue_status shows it); to run one after others, give \`after\`; to keep parallel agents on one repository apart, give each \`worktree: true\`; to bound an agent, give \`maxTurns\`, \`maxTokens\` or \`maxCostUsd\` (it is drained when its session reaches one). To have several agents try the same work and keep the best, give \`attempts\` (e.g. {"attempts": "claude:2,codex", "prompt": "…", "worktree": true, "check": "npm test"}): one task per attempt, in a group, each in its own worktree; compare them with compare_attempts and merge the best with merge_task. Durations are strings with a unit ("90s", "30m", "2h"). Returns {task} (with attempts also group, base and tasks, every attempt) with its id, name and status ("running", or "queued" while it waits for a slot or for \`after\`); a command that cannot be started (no such program, a bad cwd) is an error naming the task it recorded. Then follow it with read_output, wait for it with wait_tasks, end it with stop_task. ${PERSIST}`,
    async run(args, {drover}) {
      if (args.attempts !== undefined) {
        // a fan-out, checked whole as one start is: a refused call changes nothing on disk
        const started = await drover.fanOut(fanOutOptions(args))
        const failed = started.tasks.find((t) => t.status === 'failed' && t.pid === null)
        if (failed) throw new DroverError(`task ${failed.id} (${failed.name}) of group ${started.group} failed to start: ${failed.reason}`, ExitCode.failed, {id: failed.id, group: started.group})
        return {task: started.tasks[0], ...started}
      }
      // Checked whole before anything is written: a refused call changes nothing on disk.
      const task = await drover.start(startOptions(args))
      // As `drover start`: a run that never got a worker (no such program, a bad cwd) failed, exit 1.
      if (task.status === 'failed' && task.pid === null) throw new DroverError(`task ${task.id} failed to start: ${task.reason}`, ExitCode.failed, {id: task.id})
      return {task}
    },
  }),
  define({
    name: 'list_tasks',
    access: 'read',
    annotations: reading('List tasks'),
    description:
      'List drover tasks, newest last: their ids, names, statuses ("starting", "running", "stopping" while live; "succeeded", "failed", "stopped", "cancelled", "drained", "lost" once ended), exit codes and commands. Filter with `status`, e.g. ["running"]. Returns {tasks, total}. Tasks started by anyone on this state dir (the drover CLI, other agents) are listed too.',
    async run(args, {drover}) {
      return drover.listNewest({...(args.status ? {status: args.status} : {}), ...(args.group ? {group: args.group} : {}), limit: args.limit ?? DEFAULT_LIST_LIMIT})
    },
  }),
  define({
    name: 'get_task',
    access: 'read',
    annotations: reading('Get one task'),
    description:
      "Everything about one task: status, reason, exit code, runtime, its runs, the agent's session and usage (turns, cost, tokens) for an agent's task, whether its runner and worker are alive, and for a drained or interrupted task whether resume_task can continue it. Returns {task}.",
    async run(args, {drover}) {
      return {task: await drover.get(args.task)}
    },
  }),
  define({
    name: 'read_output',
    access: 'read',
    annotations: reading("Read a task's output"),
    description: `Read a task's output (stdout and stderr together) without waiting. Without a cursor it returns the last \`tail\` lines (default ${DEFAULT_TAIL_LINES}); pass cursor 0 to read from the beginning. Every result carries \`nextCursor\`: pass it as \`cursor\` in the next call to get only what was written since, with no line lost or repeated. \`more\` says output is already waiting beyond this page (call again at once); \`complete\` says the task has ended and everything has been read. The output of an agent's task (its JSON event stream: e.g. claude's --output-format stream-json, codex's --json) comes as a readable transcript (what the agent said, → tool calls, ← results, the final [result]) unless format is "raw". Returns {text, nextCursor, more, complete} with the task's status, at most maxBytes (default ${DEFAULT_READ_BYTES}) of raw log per call.`,
    async run(args, {drover}) {
      const tail = args.cursor === undefined ? (args.tail ?? DEFAULT_TAIL_LINES) : undefined
      const page = await drover.read(args.task, {offset: args.cursor, tail, maxBytes: args.maxBytes ?? DEFAULT_READ_BYTES, format: args.format ?? 'transcript'})
      return {id: page.id, status: page.status, offset: page.offset, nextCursor: page.end, size: page.size, text: page.text, more: page.more, complete: page.complete, reset: page.reset}
    },
  }),
  define({
    name: 'wait_tasks',
    access: 'read',
    annotations: reading('Wait for tasks to end'),
    description:
      'Block until the given tasks have ended (mode "all", the default) or until one of them has (mode "any"), or until timeoutSeconds passes (default 30; the server caps it, so for a long job call it again). Sends progress notifications while waiting. Returns {ended, pending, timedOut, tasks} with the current record of every task. A timeout does not stop anything: the tasks keep running.',
    async run(args, ctx) {
      return waitTasks(ctx, args.tasks, {mode: args.mode ?? 'all', timeoutMs: waitMs(args.timeoutSeconds, ctx), isFinal})
    },
  }),
  define({
    name: 'stop_task',
    access: 'write',
    annotations: annotate('Stop a task', {destructiveHint: true, idempotentHint: true}),
    description:
      'Stop a running task gracefully: STOP in its control file and SIGTERM to its whole process tree, SIGKILL after graceSeconds (default 10). With wrapUp an agent is first asked to finish its step. The task ends "stopped" and stays stopped; it can be continued with resume_task if it is an agent with a session. Waits for the final status unless wait is false. Returns {result} with accepted (false if it had already ended), status and a message.',
    async run(args, {drover}) {
      return {result: await drover.stop(args.task, {graceMs: ms(args.graceSeconds), wrapUp: args.wrapUp, wait: args.wait})}
    },
  }),
  define({
    name: 'cancel_task',
    access: 'write',
    annotations: annotate('Cancel a task', {destructiveHint: true, idempotentHint: true}),
    description:
      'Cancel a task now: SIGTERM to its whole process tree, SIGKILL after 2 s. Use it for work that went wrong and is not to be continued (a cancelled task is never resumed; prefer stop_task or drain_tasks to keep the work). Returns {result} with accepted, status and a message.',
    async run(args, {drover}) {
      return {result: await drover.cancel(args.task, {wait: args.wait})}
    },
  }),
  define({
    name: 'drain_tasks',
    access: 'write',
    annotations: annotate('Drain tasks to a checkpoint', {destructiveHint: true, idempotentHint: true}),
    description:
      'Checkpoint running tasks so they can be continued later: each gets STOP and up to graceSeconds (default 60) to save its work and exit, then SIGTERM and SIGKILL after killAfterSeconds. Give `tasks`, or all: true for every running task (e.g. before your own session ends). Each ends "drained"; resume_task continues an agent\'s session. Waits for all of them. Returns {results}.',
    async run(args, {drover}) {
      if ((args.tasks === undefined) === (args.all !== true)) throw usageError('give tasks, or all: true (not both)')
      // Every task is looked up before any is touched: a wrong name drains nothing.
      // As `drain --all`: live tasks and those waiting out a usage limit; queued ones hold no work to save.
      const targets = args.all ? (await drover.list({status: ['starting', 'running', 'stopping', 'waiting']})).map((t) => t.id) : await ids(drover, args.tasks!)
      const opts = {graceMs: ms(args.graceSeconds), killAfterMs: ms(args.killAfterSeconds)}
      return {results: await Promise.all(targets.map((id) => drover.drain(id, opts)))}
    },
  }),
  define({
    name: 'resume_task',
    access: 'write',
    annotations: annotate('Resume a task', {openWorldHint: true}),
    description: `Continue a drained, stopped or interrupted task as a new run: for an agent's task its own conversation continues (with \`prompt\` as the next message), anything else is started again. Refused (conflict) while the task runs (send_followup queues a message for when its run ends), when it has no session to continue, or when it was drained by its budget (its reason starts with budget:) until given a higher maxTurns, maxTokens or maxCostUsd. Returns {task} at once; follow it with read_output and wait_tasks. ${PERSIST}`,
    async run(args, {drover}) {
      const budget = {maxTurns: args.maxTurns, maxTokens: args.maxTokens, maxCostUsd: args.maxCostUsd}
      return {task: await drover.resume(args.task, {prompt: args.prompt, budget})}
    },
  }),
  define({
    name: 'send_followup',
    access: 'write',
    annotations: annotate('Send a follow-up to an agent', {openWorldHint: true}),
    description: `Tell an agent's task what to do next, in its own conversation. While its run is at work the message is queued: when the run ends well, drover continues the same session with it as the next run; several are delivered in order, one run each. now: true delivers it at the next safe point instead (the run is drained for it, then continued with it). A run that fails, is stopped or cancelled drops what is queued (get_task shows followups and droppedFollowups) unless keep: true. A task not at work (ended, drained) is resumed with the message at once. Refused (usage) for a task that runs no agent. Returns {id, queued, delivered, task} at once; wait_tasks waits for the task's last run. ${PERSIST}`,
    async run(args, {drover}) {
      return {...(await drover.followUp(args.task, {prompt: args.prompt, now: args.now, keep: args.keep, wait: false}))}
    },
  }),
  define({
    name: 'merge_task',
    access: 'write',
    annotations: annotate("Merge a task's branch", {destructiveHint: true}),
    description:
      "Bring an ended task's work (started with worktree) into the branch it started from, or into `into`: mode \"merge\" (default; a fast-forward when it can be), \"squash\" (one commit) or \"rebase\" (the branch onto the target, then a fast-forward). It is made in the checkout where the target branch is checked out. Refused (conflict, exit 4) while the task runs, when that checkout has uncommitted changes, or when the worktree holds work not committed (pass commit: true to commit it first). A conflict is left as git leaves it, for a person to resolve: the error names the files and how to undo it. The merge is recorded on the task (get_task: worktree.merged). Returns {id, branch, into, mode, commit, commits, fastForward, committedWork}.",
    async run(args, {drover}) {
      return {...(await drover.merge(args.task, {mode: args.mode, into: args.into, commit: args.commit}))}
    },
  }),
  define({
    name: 'queue_status',
    access: 'read',
    annotations: reading('Show queues'),
    description:
      'The queues tasks were started in (start_task with `queue`): for each, its limit (`parallel`, how many of its tasks run at once), whether it is paused, the tasks holding a slot (`runningTasks`) and those waiting their turn (`queuedTasks`, next to start first, with their place in line). Use it to see why a task is "queued" and how much work is still ahead. A queued task starts by itself when a slot frees; nothing needs to be called. Tasks waiting only for `after` are in no queue: list_tasks with status ["queued"] shows them. Returns {queues}.',
    async run(args, {drover}) {
      // the CLI's `queue NAME` and `queue --json`: one answer, from the API (an unknown queue is refused there)
      return {queues: await drover.queueDetails(args.queue)}
    },
  }),
  define({
    name: 'compare_attempts',
    access: 'read',
    annotations: reading('Compare the attempts of a group'),
    description:
      "A group's attempts side by side (start_task with attempts, or tasks given one group): for each its status, the agent's turns, tokens and cost, its runtime, what it changed in its worktree against the base commit (work: files, insertions, deletions, commits, uncommitted) and its check's result (check.result: passed or failed, exit code, the end of its output). With wait, it returns once every attempt has ended and been checked, or after timeoutSeconds (default 30; the server caps it: call again while settled is false). Pick one, merge it with merge_task (commit: true for work left uncommitted); the others' work can then be thrown away (drover rm --group GROUP --discard). Returns {group, base, sameBase, attempts, settled}.",
    async run(args, ctx) {
      // spread: an interface has no index signature, and a tool answers a plain record
      return {...(await ctx.drover.compare(String(args.group), {wait: args.wait, timeoutMs: waitMs(args.timeoutSeconds, ctx), signal: ctx.signal}))}
    },
  }),
  define({
    name: 'prune_tasks',
    access: 'prune',
    annotations: annotate('Remove ended tasks', {destructiveHint: true}),
    description:
      'Remove ended tasks and their output from the state dir by the rules given (keep the newest N, older than, statuses). Running tasks are never removed, nor drained ones with a checkpoint unless includeCheckpoints. Try dryRun first. Returns {removed, kept}: what was removed (or would be, with dryRun) and how many ended tasks were kept.',
    async run(args, {drover}) {
      if (args.keep === undefined && args.olderThanSeconds === undefined) throw usageError('say what to prune: keep N, olderThanSeconds (0 for every ended task), or both')
      const result = await drover.prune({
        keep: args.keep,
        olderThanMs: ms(args.olderThanSeconds),
        statuses: args.status,
        includeCheckpoints: args.includeCheckpoints,
        dryRun: args.dryRun ?? false,
      })
      return {...result}
    },
  }),
] as ToolDefinition[]

/** Task refs to ids, every one resolved first (exit 3 for the first unknown). */
async function ids(drover: Drover, refs: TaskRef[]): Promise<number[]> {
  const tasks = await Promise.all(refs.map((ref) => drover.get(ref)))
  return [...new Set(tasks.map((t: TaskJson) => t.id))]
}

export const toolSchemas = (name: ToolName) => ({input: inputs[name], output: outputs[name]})

export type JsonSchemaObject = {type: 'object'; properties?: Record<string, Record<string, unknown>>; required?: string[]; [key: string]: unknown}

const jsonSchema = (schema: z.ZodType, io: 'input' | 'output') => {
  const {$schema: _, ...rest} = z.toJSONSchema(schema, {target: 'draft-7', io}) as Record<string, unknown>
  return rest as JsonSchemaObject
}

/** A tool as `tools/list` shows it to a client. */
export function listedTool(tool: ToolDefinition) {
  const {input, output} = toolSchemas(tool.name)
  return {name: tool.name, title: tool.annotations.title, description: tool.description, inputSchema: jsonSchema(input, 'input'), outputSchema: jsonSchema(output, 'output'), annotations: tool.annotations}
}

/** The tools a server started with these options shows. */
export function toolsFor(opts: {readOnly: boolean; allow: readonly string[]}): ToolDefinition[] {
  return TOOLS.filter((tool) => (tool.access === 'read' ? true : tool.access === 'write' ? !opts.readOnly : !opts.readOnly && opts.allow.includes('prune')))
}
