// The shapes the MCP tools take and return, as zod schemas: they validate a
// call's arguments and become the JSON Schemas a client shows its model. The
// result shapes are the API's (`--json`) objects, described loosely: the key
// fields are typed and the rest passes through, so a new field never breaks a
// client that validates structured output.

import * as z from 'zod'
import {AGENT_PROFILES, TASK_STATUSES} from '../api/values.js'

export const taskRef = z
  .union([z.number().int().positive(), z.string().min(1)], {error: 'expected a task id (a whole number from 1) or a task name (a string)'})
  .describe('a task id (e.g. 7) or the name it was started with (e.g. "fix-tests")')

const seconds = (what: string) => z.number().nonnegative().describe(what)
const positiveSeconds = (what: string) => z.number().positive().describe(what)

export const statusEnum = z.enum(TASK_STATUSES)

const nullableString = z.string().nullable()
const nullableNumber = z.number().nullable()

export const task = z.looseObject({
  id: z.number().int(),
  name: nullableString,
  status: statusEnum,
  reason: nullableString,
  exitCode: nullableNumber,
  signal: nullableString,
  pid: nullableNumber,
  command: z.array(z.string()),
  shell: nullableString,
  cwd: z.string(),
  agent: z.enum(AGENT_PROFILES),
  createdAt: z.string(),
  startedAt: nullableString,
  endedAt: nullableString,
  runtimeMs: nullableNumber,
  run: z.number().int(),
})

const corruptTask = z.object({id: z.number().int(), status: z.literal('corrupt'), error: z.string()})

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
    shell: z.string().optional().describe('a shell script run through $SHELL -c instead of `command` (pipes, &&, redirections); give exactly one of command or shell'),
    name: z.string().optional().describe('a unique name to refer to the task by (letters, digits, . _ -; starts with a letter)'),
    cwd: z.string().optional().describe('working directory (default: the directory the MCP server was started in)'),
    env: z.record(z.string(), z.string()).optional().describe('environment variables added for the task; their values are never shown back'),
    agent: z.enum(AGENT_PROFILES).optional().describe('agent profile for session tracking and resume (default: from the program name: claude, codex, else generic)'),
    timeoutSeconds: positiveSeconds('stop the task when it runs longer than this').optional(),
    idleTimeoutSeconds: positiveSeconds('stop the task when its output does not grow for this long').optional(),
    maxOutputBytes: z.number().int().nonnegative().optional().describe('stop the task when its output passes this many bytes (default 1 GiB; 0 for no limit)'),
    keepChildren: z.boolean().optional().describe('leave processes the command started running after it exits (default false)'),
  }),
  list_tasks: z.strictObject({
    status: z.array(statusEnum).optional().describe('only tasks in these statuses, e.g. ["running"]'),
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
      .describe('"transcript" (default): a claude or codex JSON event stream shown as what the agent said, the tools it called and their results, one line each; "raw": the log as written. Other tasks\' output is the same either way'),
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
  }),
  prune_tasks: z.strictObject({
    keep: z.number().int().nonnegative().optional().describe('keep the newest N ended tasks, remove the rest'),
    olderThanSeconds: seconds('remove tasks that ended more than this long ago').optional(),
    status: z.array(statusEnum).optional().describe('only tasks in these ended statuses'),
    includeCheckpoints: z.boolean().optional().describe('also remove drained and lost tasks that still have a checkpoint'),
    dryRun: z.boolean().optional().describe('report what would be removed and remove nothing'),
  }),
} as const

export const outputs = {
  start_task: z.object({task}),
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
  prune_tasks: z.looseObject({dryRun: z.boolean(), removed: z.array(z.looseObject({id: z.number().int()})), kept: z.number().int()}),
} as const

export type ToolName = keyof typeof inputs
export type ToolInput<N extends ToolName> = z.infer<(typeof inputs)[N]>
