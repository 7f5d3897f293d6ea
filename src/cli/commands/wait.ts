import * as Args from '@oclif/core/args'
import * as Flags from '@oclif/core/flags'
import {BaseCommand} from '../base-command.js'
import type {TaskJson, TaskStatus} from '../../api/index.js'

// Listed here rather than imported: the command's flags must load without the API.
const STATUSES = ['queued', 'starting', 'running', 'stopping', 'succeeded', 'failed', 'stopped', 'cancelled', 'drained', 'lost', 'skipped']

/** How often the progress rows re-read their task's status. */
const PROGRESS_REFRESH_MS = 1000

export default class Wait extends BaseCommand {
  static override summary = 'Wait until tasks have ended; exit 0 if all succeeded.'
  static override description = `Blocks until every selected task has reached a final status (with --any: until the first one has). The selection is fixed when wait starts: the tasks named (ids or names), or with --all every task not ended yet, with --queue NAME the queue's current batch (its live tasks and those that ran alongside them since the queue was last empty, so a failure just before wait began still counts; an unknown queue is refused), with --group NAME every task of that group, ended ones too (a fan-out's attempts), with --status S those in that status now (--queue or --group and --status combine: their tasks in that status).

Exit code: 0 when every task waited for succeeded (with --any: the one that ended first). Otherwise the exit code of the first task, in the order they ended, that did not succeed: its own exit code, 128 + the signal number when a signal ended it, or 1 when it has neither (skipped, cancelled or stopped before it ran, lost). 124 when --timeout passed first, 130 on Ctrl-C (which ends the wait, never the tasks), 3 for an unknown task.

On a terminal it shows live progress, a row per task with its name and what it does now (running, queued and for what, waiting for a usage limit); piped, it prints one line per task as it ends; with --json it prints the final records (as list --json) once done.`

  static override examples = [
    {description: 'Wait for three tasks', command: '<%= config.bin %> wait 4 5 build'},
    {description: 'Wait for everything in a queue, at most an hour', command: '<%= config.bin %> wait --queue agents --timeout 1h'},
    {description: 'Go on when the first of them is done', command: '<%= config.bin %> wait --any 4 5'},
    {description: "Every attempt of a fan-out", command: '<%= config.bin %> wait --group auth'},
  ]

  static override usage = ['<%= command.id %> [FLAGS] TASK...', '<%= command.id %> [FLAGS] --all|--queue NAME|--group NAME|--status S']

  static override strict = false
  static override args = {task: Args.string({description: 'task ids or names (:latest for the newest task)'})}

  static override flags = {
    all: Flags.boolean({char: 'a', description: 'every task that has not ended yet'}),
    queue: Flags.string({description: "the queue's current batch: its live tasks and those that ran alongside them"}),
    group: Flags.string({description: 'every task of this group, ended ones too (NAME, or an id of one of its tasks)', helpValue: 'NAME'}),
    status: Flags.string({description: 'the tasks in this status now (repeatable, or comma-separated)', multiple: true}),
    any: Flags.boolean({description: 'return when the first task ends'}),
    timeout: Flags.string({description: 'give up after this long (e.g. 90s, 30m) and exit 124'}),
  }

  async run(): Promise<TaskJson[]> {
    const {argv, flags} = await this.parse(Wait)
    const api = await import('../../api/wait.js')
    const timeoutMs = flags.timeout === undefined ? undefined : api.parseDuration(flags.timeout, '--timeout')
    const status = flags.status?.flatMap((s) => s.split(',')).map((s) => s.trim()).filter(Boolean)
    for (const s of status ?? []) if (!STATUSES.includes(s)) throw api.usageError(`--status: unknown status '${s}' (one of: ${STATUSES.join(', ')})`)
    const drover = await this.drover(flags['state-dir'])
    const selection = {tasks: argv as string[], all: flags.all || undefined, queue: flags.queue, group: flags.group, status: status as TaskStatus[] | undefined}
    const ids = await api.selectForWait(drover.stateDir, selection)
    if (ids.length === 0) {
      if (!this.jsonEnabled()) this.note('drover: nothing to wait for')
      return []
    }
    const abort = new AbortController()
    const onSigint = () => abort.abort()
    process.on('SIGINT', onSigint)
    try {
      const line = (task: TaskJson) => `task ${task.id}${task.name ? ` (${task.name})` : ''} ${api.describeOutcome(task.status, task.reason)}`
      const progress = process.stdout.isTTY === true && !this.jsonEnabled()
      const ended = new Map<number, (task: TaskJson | null) => void>()
      const onEnd = (task: TaskJson) => {
        if (progress) ended.get(task.id)?.(task)
        else if (!this.jsonEnabled()) process.stdout.write(`${line(task)}\n`)
      }
      // A paused queue starts none of these until resumed: a wait that would otherwise look hung says so.
      const queued = (await drover.list({status: ['queued']})) as TaskJson[]
      const paused = new Map<string, number[]>()
      for (const t of queued) if (t.queuePaused && ids.includes(t.id)) paused.set(t.queue!, [...(paused.get(t.queue!) ?? []), t.id])
      for (const [queue, held] of paused) {
        if (!this.jsonEnabled()) this.note(`drover: queue ${queue} is paused: ${held.length === 1 ? 'task' : 'tasks'} ${held.join(', ')} will not start until drover queue resume ${queue}`)
      }
      // On stderr, so a script sees what it waits for (and a pipe reads only the outcomes).
      if (!progress) this.note(`drover: waiting for ${ids.length === 1 ? 'task' : 'tasks'} ${ids.join(', ')}${flags.any ? ' (until the first ends)' : ''}`)
      const waiting = api.waitTasks(drover.stateDir, ids, {any: flags.any, timeoutMs, signal: abort.signal, onEnd})
      const result = progress ? await this.withProgress(ids, ended, waiting, line, (id) => drover.get(id)) : await waiting
      if (!this.jsonEnabled()) {
        const open = result.tasks.filter((t) => !result.endedOrder.includes(t.id)).map((t) => t.id)
        if (result.outcome === 'timeout') this.note(`drover: timed out; still not ended: ${open.join(', ')}`)
        if (result.outcome === 'interrupted') this.note(`drover: stopped waiting; the tasks carry on (${open.join(', ')} not ended)`)
      }
      process.exitCode = result.exitCode
      return result.tasks
    } finally {
      process.off('SIGINT', onSigint)
    }
  }

  private async withProgress<T extends {tasks: TaskJson[]}>(
    ids: number[],
    ended: Map<number, (task: TaskJson | null) => void>,
    waiting: Promise<T>,
    line: (task: TaskJson) => string,
    peek: (id: number) => Promise<TaskJson>,
  ): Promise<T> {
    const [{Listr}, {progressTitle}] = await Promise.all([import('listr2'), import('../render/wait-progress.js')])
    const settled = new Map<number, Promise<TaskJson | null>>()
    for (const id of ids) settled.set(id, new Promise((resolve) => ended.set(id, resolve)))
    const list = new Listr(
      ids.map((id) => ({
        title: `task ${id}`,
        task: async (_ctx: unknown, item: {title: string; skip: (message?: string) => void}) => {
          // Each row names its task and says what it is doing now (running, queued and for what, waiting for a limit), re-read every second until it ends.
          let done = false
          const end = settled.get(id)!.finally(() => (done = true))
          while (!done) {
            const now = await peek(id).catch(() => null)
            if (now && !done) item.title = progressTitle(now)
            await Promise.race([end, new Promise((resolve) => setTimeout(resolve, PROGRESS_REFRESH_MS))])
          }
          const task = await end
          if (task === null) item.skip(`task ${id}: not ended`)
          else if (task.status === 'succeeded') item.title = line(task)
          else throw new Error(line(task))
        },
      })),
      {concurrent: true, exitOnError: false, registerSignalListeners: false, rendererOptions: {collapseErrors: false}},
    )
    const shown = list.run().catch(() => {})
    const result = await waiting
    for (const resolve of ended.values()) resolve(null)
    await shown
    return result
  }
}
