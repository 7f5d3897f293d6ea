// The shapes the MCP tools take and return, as zod schemas: they validate a
// call's arguments and become the JSON Schemas a client shows its model. The
// result shapes are the API's (`--json`) objects, described loosely: the key
// fields are typed and the rest passes through, so a new field never breaks a
// client that validates structured output.

import * as z from 'zod'
import {AGENT_NAMES, agentsThat, GENERIC_AGENT, headlessForms, knownAgentNames, TASK_STATUSES} from '../api/values.js'

export const taskRef = z
  .union([z.number().int().positive(), z.string().min(1)], {error: 'expected a task id (a whole number from 1) or a task name (a string)'})
  .describe('a task id (e.g. 7), the name it was started with (e.g. "fix-tests"), or ":latest" for the newest task')

const seconds = (what: string) => z.number().nonnegative().describe(what)
// As the CLI's duration flags: a string with its unit. A bare number is refused
// (is 30 seconds or minutes?), here by the schema and, as a string, by parseDuration.
const DOLLARS = 'expected an amount of US dollars above 0, e.g. 2.5'
const dollars = (what: string) => z.number({error: DOLLARS}).positive({error: DOLLARS}).describe(what)
const duration = (what: string) =>
  z.string({error: 'expected a duration with its unit, as a string: e.g. "90s", "30m", "2h", "1h30m" (a bare number has no unit)'}).describe(`${what}: a duration with its unit, e.g. "90s", "30m", "2h", "1h30m"`)

export const statusEnum = z.enum(TASK_STATUSES)

const nullableString = z.string().nullable()
const nullableNumber = z.number().nullable()

export const task = z.looseObject({
  id: z.number().int(),
  name: nullableString,
  status: statusEnum,
  reason: nullableString,
  cause: nullableString.describe('why the run ended or paused (exit, signal, timeout, stop, drain, budget, runner-lost, …); null while it runs'),
  exitCode: nullableNumber,
  signal: nullableString,
  pid: nullableNumber,
  command: z.array(z.string()),
  shell: nullableString,
  cwd: z.string(),
  // any name: a task started by a newer drover may name an agent this one does not know (it is handled as generic)
  agent: z.string(),
  createdAt: z.string(),
  startedAt: nullableString,
  endedAt: nullableString,
  runtimeMs: nullableNumber,
  run: z.number().int(),
})

const corruptTask = z.object({id: z.number().int(), status: z.literal('corrupt'), error: z.string()})

const queuedTask = z.looseObject({
  id: z.number().int(),
  name: nullableString,
  status: statusEnum,
  priority: z.number().int(),
  position: nullableNumber.describe('1-based place in the line while queued'),
  reason: nullableString.describe('while queued: what it waits for'),
})

const controlResult = z.looseObject({
  id: z.number().int(),
  accepted: z.boolean().describe('false when there was nothing to act on (the task had already ended)'),
  status: statusEnum,
  reason: nullableString,
  exitCode: nullableNumber,
  final: z.boolean().describe('the task has reached its final status'),
  message: z.string(),
})

export const inputs = {
  start_task: z.strictObject({
    command: z
      .array(z.string())
      .min(1)
      .optional()
      .describe('the program and its arguments, run directly (no shell), e.g. ["claude", "-p", "fix the failing tests", "--output-format", "stream-json", "--verbose"]'),
    shell: z.string().optional().describe('a shell script run through $SHELL -c instead of `command` (pipes, &&, redirections); give exactly one of command, shell or prompt'),
    prompt: z
      .string()
      .min(1)
      .optional()
      .describe(
        `with agent, instead of command: what the agent is to do. drover writes that agent's headless command itself (${headlessForms().map((f) => f.command).join('; ')}), with the model, permission mode and flags the state dir's config.json gives under agents.<name>, and starts it exactly as if it had been given as command; the task's "built" says how it was written`,
      ),
    extraArgs: z
      .array(z.string())
      .optional()
      .describe('with prompt: the agent\'s own flags, added at the end as given, e.g. ["--model", "sonnet"] or ["--allowedTools", "Bash,Edit"]; the first must be a flag'),
    name: z.string().optional().describe('a unique name to refer to the task by (letters, digits, . _ -; starts with a letter)'),
    attempts: z
      .union([z.number().int().min(1).max(32), z.string().min(1)], {error: 'expected a number of attempts of `agent`, or attempts by agent such as "claude:2,codex"'})
      .optional()
      .describe(
        'with prompt and worktree: true, a fan-out — the same prompt given several times, each attempt a task of its own in its own worktree from one base commit, all in one group: a number (that many attempts of `agent`), or "claude:2,codex" (two of claude, one of codex; then leave out agent). Each attempt is named GROUP-AGENT-N; budgets, onLimit, queue, after and check apply to each. Returns {group, base, tasks}; compare the attempts with compare_attempts, merge the best with merge_task',
      ),
    group: z.string().min(1).optional().describe('put the task in this group (a name as a task\'s); with attempts, the group\'s name (default g<first id>). list_tasks and compare_attempts take it'),
    check: z
      .string()
      .min(1)
      .optional()
      .describe("a shell command run in the task's cwd (its worktree) once a run has ended (not when cancelled), e.g. \"npm test\": its exit code and the end of its output are recorded on the task (check.result) and shown by compare_attempts. Default: the state dir's config.json check, for a task with a worktree"),
    checkTimeout: duration('stop the check when it runs longer than this (default "10m")').optional(),
    cwd: z.string().optional().describe('working directory (default: the directory the MCP server was started in)'),
    env: z.record(z.string(), z.string()).optional().describe('environment variables added for the task; their values are never shown back'),
    agent: z
      .enum(AGENT_NAMES as [string, ...string[]])
      .optional()
      .describe(`agent profile for session tracking and resume (default: from the program name: ${knownAgentNames().join(', ')}, else ${GENERIC_AGENT}); with prompt, the agent to write the command for`),
    timeout: duration('stop the task (gracefully, like stop_task) when it runs longer than this').optional(),
    idleTimeout: duration('stop the task when its output does not grow for this long').optional(),
    maxOutputBytes: z.number().int().nonnegative().optional().describe('stop the task when its output passes this many bytes (default 1 GiB; 0 for no limit)'),
    keepChildren: z.boolean().optional().describe('leave processes the command started running after it exits (default false)'),
    queue: z
      .string()
      .min(1)
      .optional()
      .describe('run in this queue: while the queue already runs its limit of tasks (1 unless set with `drover queue set NAME --parallel N`), the task waits with status "queued" and starts by itself when a slot frees. See queue_status'),
    priority: z.number().int().min(-999).max(999).optional().describe('in its queue, start before tasks of lower priority (-999 to 999; default 0, first come first served among equals)'),
    after: z
      .array(taskRef)
      .min(1)
      .optional()
      .describe('start only once these tasks (ids or names) have all succeeded; meanwhile the task is "queued". If one of them fails or is stopped, this task ends "skipped" and never runs'),
    afterEnded: z.array(taskRef).min(1).optional().describe('start only once these tasks have all ended, whatever their outcome'),
    worktree: z
      .union([z.boolean(), z.string().min(1)], {error: 'expected true or a branch name'})
      .optional()
      .describe(
        'run in a new git worktree of the repository `cwd` is in, on a new branch: true for the branch drover/<id>-<name>, or the new branch\'s name. It starts from the commit `base` (default HEAD): uncommitted changes of the repository are NOT carried. Lets several agents work on one repository without touching each other\'s files; get_task shows what the task changed when it ends',
      ),
    base: z.string().min(1).optional().describe('with worktree: the commit, branch or tag the new branch starts from (default HEAD)'),
    existingBranch: z.boolean().optional().describe('with worktree set to a branch name: run on that branch, which exists already, as it is'),
    maxTurns: z.number().int().min(1).optional().describe(`${agentsThat((a) => a.reports.turns).join(', ')}: drain the task after this many model turns of its session (counted across resumes); resume_task with a higher maxTurns continues it`),
    maxTokens: z.number().int().min(1).optional().describe(`${agentsThat((a) => a.reports.tokens).join(', ')}: drain the task once its session used this many tokens, input plus output (counted across resumes)`),
    maxCostUsd: dollars(`${agentsThat((a) => a.reports.cost).join(', ')}: drain the task once its session has cost this many US dollars (as the agent reports it)`).optional(),
    onLimit: z
      .enum(['fail', 'wait'])
      .optional()
      .describe(`${knownAgentNames().join(', ')}: when the agent stops on its provider's usage limit, "fail" (default) or "wait" until the limit lifts and then resume its conversation (status "waiting" meanwhile)`),
    retry: z.number().int().min(0).optional().describe('try a failed run (non-zero exit or a signal) again up to this many times; never after stop, cancel, drain or a limit'),
    retryDelay: duration('with retry: wait this long before the first retry, doubling each time (default "1s")').optional(),
    retryOnTimeout: z.boolean().optional().describe('with retry: also retry a run stopped by `timeout`'),
    ifAbsent: z.boolean().optional().describe('with name: if a task of that name is queued or running, return it instead of an error, with reused: true (start work only once)'),
    notify: z
      .array(z.string().min(1))
      .optional()
      .describe('tell of the end, or of a need for attention (waiting on a usage limit, a budget reached, lost): http(s) URLs get a small JSON event posted (Slack takes its `text`), "desktop" shows a desktop notification; [] for none (default: the state dir\'s config.json notify)'),
  }),
  list_tasks: z.strictObject({
    status: z.array(statusEnum).optional().describe('only tasks in these statuses, e.g. ["running"]'),
    group: z.string().min(1).optional().describe('only the tasks of this group (its name, or an id of one of its tasks as a string)'),
    limit: z.number().int().positive().max(1000).optional().describe('at most this many, the newest (default 50)'),
  }),
  get_task: z.strictObject({task: taskRef}),
  read_output: z.strictObject({
    task: taskRef,
    cursor: z.number().int().nonnegative().optional().describe('byte offset to read from: the `nextCursor` of your previous read_output call'),
    tail: z.number().int().nonnegative().optional().describe('without a cursor: start at the last N lines (default 50; use cursor 0 for the whole output)'),
    maxBytes: z.number().int().positive().max(1024 * 1024).optional().describe('at most this many bytes of the raw log (default 16384)'),
    format: z
      .enum(['transcript', 'raw'])
      .optional()
      .describe('"transcript" (default): an agent\'s JSON event stream shown as what the agent said, the tools it called and their results, one line each; "raw": the log as written. Other tasks\' output is the same either way'),
  }),
  wait_tasks: z.strictObject({
    tasks: z.array(taskRef).min(1).describe('the tasks to wait for'),
    mode: z.enum(['all', 'any']).optional().describe('"all" (default): return when every task has ended; "any": as soon as one has'),
    timeoutSeconds: seconds('give up waiting after this long (default 30; capped by the server); the tasks keep running').optional(),
  }),
  stop_task: z.strictObject({
    task: taskRef,
    graceSeconds: seconds('time between SIGTERM and SIGKILL (default 10)').optional(),
    wrapUp: z.boolean().optional().describe('ask an agent to wrap up (WRAP_UP) and give it graceSeconds first'),
    wait: z.boolean().optional().describe('wait for the final status (default true)'),
  }),
  cancel_task: z.strictObject({task: taskRef, wait: z.boolean().optional().describe('wait for the final status (default true)')}),
  drain_tasks: z.strictObject({
    tasks: z.array(taskRef).min(1).optional().describe('the tasks to drain; or give all: true'),
    all: z.boolean().optional().describe('drain every running task'),
    graceSeconds: seconds('how long each worker gets to save its work and exit after STOP (default 60)').optional(),
    killAfterSeconds: seconds('after SIGTERM, how long until SIGKILL (default 10)').optional(),
  }),
  resume_task: z.strictObject({
    task: taskRef,
    prompt: z.string().min(1).optional().describe('what to tell the agent when its session continues (default: carry on where you left off)'),
    maxTurns: z.number().int().min(1).optional().describe("a new budget for the session's total model turns (the turns so far count): needed to resume a task drained by its budget"),
    maxTokens: z.number().int().min(1).optional().describe("a new budget for the session's total tokens (the tokens so far count)"),
    maxCostUsd: dollars(`a new budget for the session's total cost in US dollars (${agentsThat((a) => a.reports.cost).join(', ')})`).optional(),
  }),
  send_followup: z.strictObject({
    task: taskRef,
    prompt: z.string().min(1).describe("what the agent should do next: the next message of its conversation"),
    now: z.boolean().optional().describe('deliver it at the next safe point: the run at work is drained for it (as drain_tasks does), then continued with it. Default: when the run ends well'),
    keep: z.boolean().optional().describe('keep it queued if the run fails or is stopped (by default it is dropped then, the drop recorded)'),
  }),
  merge_task: z.strictObject({
    task: taskRef,
    mode: z
      .enum(['merge', 'squash', 'rebase'])
      .optional()
      .describe('"merge" (default: git\'s merge, a fast-forward when it can be), "squash" (one commit of all the work), or "rebase" (the branch onto the target, then a fast-forward)'),
    into: z.string().min(1).optional().describe('the branch to merge into (default: the branch the task started from)'),
    commit: z.boolean().optional().describe('commit the work the worktree holds uncommitted first (one commit), rather than refuse'),
  }),
  queue_status: z.strictObject({
    queue: z.string().min(1).optional().describe('only this queue'),
  }),
  compare_attempts: z.strictObject({
    group: z
      .union([z.string().min(1), z.number().int().positive()])
      .describe('the group: its name (the `group` start_task returned), or the id of one of its tasks'),
    wait: z.boolean().optional().describe('wait until every attempt has ended and its check is done (up to timeoutSeconds)'),
    timeoutSeconds: seconds('with wait: give up waiting after this long (default 30; capped by the server) and return them as they are').optional(),
  }),
  prune_tasks: z.strictObject({
    keep: z.number().int().nonnegative().optional().describe('keep the newest N ended tasks, remove the rest'),
    olderThanSeconds: seconds('remove tasks that ended more than this long ago').optional(),
    status: z.array(statusEnum).optional().describe('only tasks in these ended statuses'),
    includeCheckpoints: z.boolean().optional().describe('also remove drained and lost tasks that still have a checkpoint'),
    dryRun: z.boolean().optional().describe('report what would be removed and remove nothing'),
  }),
} as const

const attempt = z.looseObject({
  id: z.number().int(),
  name: nullableString,
  agent: z.string(),
  status: statusEnum,
  turns: nullableNumber,
  inputTokens: nullableNumber,
  outputTokens: nullableNumber,
  costUsd: nullableNumber,
  runtimeMs: nullableNumber,
  work: z
    .looseObject({files: z.number().int(), insertions: z.number().int(), deletions: z.number().int(), commits: z.number().int(), uncommitted: z.boolean()})
    .nullable()
    .describe("what it changed in its worktree against the base commit; null without a worktree"),
  check: z
    .looseObject({command: z.string(), result: z.looseObject({status: z.enum(['running', 'passed', 'failed']), exitCode: nullableNumber, output: z.string()}).nullable()})
    .nullable()
    .describe("its check and the result for its last run (output: the last 8 KiB it wrote); null without a check"),
  settled: z.boolean().describe('ended, and its check done'),
})

export const outputs = {
  start_task: z.object({
    task: task.describe('the task started; with attempts, the first attempt'),
    group: z.string().optional().describe('with attempts: the group the attempts are in'),
    base: z.looseObject({ref: z.string(), commit: z.string(), branch: nullableString}).optional().describe('with attempts: the commit every worktree started from'),
    tasks: z.array(task).optional().describe('with attempts: the attempts, in the order started'),
  }),
  list_tasks: z.object({tasks: z.array(z.union([task, corruptTask])), total: z.number().int().describe('tasks matching before the limit')}),
  get_task: z.object({task: task.extend({runnerAlive: z.boolean(), workerAlive: z.boolean(), resume: nullableString, resumeRefused: nullableString})}),
  read_output: z.object({
    id: z.number().int(),
    status: statusEnum,
    offset: z.number().int().describe('byte offset where `text` starts'),
    nextCursor: z.number().int().describe('pass as `cursor` to read on from here'),
    size: z.number().int().describe('bytes of output so far'),
    text: z.string(),
    more: z.boolean().describe('more output is already there: call again with nextCursor'),
    complete: z.boolean().describe('the task has ended and all its output has been read'),
    reset: z.boolean().describe('the cursor was past the end of the output (it was replaced): reading restarted at 0'),
  }),
  wait_tasks: z.object({
    ended: z.array(z.number().int()).describe('ids of the tasks that have ended'),
    pending: z.array(z.number().int()).describe('ids of the tasks still running'),
    timedOut: z.boolean(),
    tasks: z.array(task),
  }),
  stop_task: z.object({result: controlResult}),
  cancel_task: z.object({result: controlResult}),
  drain_tasks: z.object({results: z.array(controlResult)}),
  resume_task: z.object({task}),
  send_followup: z.object({
    id: z.number().int(),
    queued: z
      .object({n: z.number().int().describe("its number in the task"), prompt: z.string(), at: z.string(), now: z.boolean(), keep: z.boolean()})
      .nullable()
      .describe('the follow-up queued for the run at work; null when the task was not at work and was resumed with the message at once'),
    delivered: z.boolean().describe('a run with the message has begun (at once for a task not at work)'),
    task,
  }),
  merge_task: z.object({
    id: z.number().int(),
    branch: z.string(),
    into: z.string(),
    mode: z.enum(['merge', 'squash', 'rebase']),
    checkout: z.string().describe('the checkout the merge was made in'),
    commit: z.string().describe('the tip of `into` after the merge'),
    commits: z.number().int().describe("the branch's commits brought in (0: the target had them all)"),
    fastForward: z.boolean(),
    committedWork: nullableString.describe('the commit made of the uncommitted work first (commit: true), or null'),
  }),
  queue_status: z.object({
    queues: z.array(
      z.looseObject({
        name: z.string(),
        parallel: z.number().int().describe('how many of its tasks may run at once'),
        paused: z.boolean().describe('a paused queue starts nothing new'),
        running: z.number().int().describe('tasks holding a slot (starting, running, stopping)'),
        waiting: z.number().int().describe('tasks waiting for a slot'),
        runningTasks: z.array(queuedTask).describe('the tasks holding a slot'),
        queuedTasks: z.array(queuedTask).describe('the tasks waiting, next to start first'),
      }),
    ),
  }),
  compare_attempts: z.looseObject({
    group: z.string(),
    base: z.looseObject({ref: z.string(), commit: z.string(), branch: nullableString}).nullable(),
    sameBase: z.boolean(),
    attempts: z.array(attempt),
    settled: z.boolean().describe('every attempt ended and checked: the table will not change by itself'),
  }),
  prune_tasks: z.looseObject({dryRun: z.boolean(), removed: z.array(z.looseObject({id: z.number().int()})), kept: z.number().int()}),
} as const

export type ToolName = keyof typeof inputs
export type ToolInput<N extends ToolName> = z.infer<(typeof inputs)[N]>
