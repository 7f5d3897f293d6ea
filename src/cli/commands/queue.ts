import * as Args from '@oclif/core/args'
import * as Flags from '@oclif/core/flags'
import {BaseCommand} from '../base-command.js'
import {usageError, type QueueDetail, type QueueInfo} from '../../api/queues.js'
import type {TaskJson} from '../../api/task-json.js'
import {renderTable, terminalWidth} from '../render/table.js'

const ACTIONS = ['set', 'pause', 'resume', 'rm', 'show', 'move'] as const

export default class Queue extends BaseCommand {
  static override summary = 'Show queues and their tasks, set their parallel limit, pause, resume or remove them.'
  static override description = `A queue runs at most N of its tasks at once: \`start --queue NAME\` puts a task in it, and a task over the limit waits with the status "queued" (its place in line shown by list and status) until a slot frees. The next one in line — highest --priority first, then first come, first served — starts the moment a task of the queue ends. There is no daemon: the runner of the task that ended hands its slot on, and every drover command moves queues on as well (so a queue whose runner was killed continues at the next command).

Without arguments, prints each queue: its limit, how many tasks hold a slot (starting, running or stopping), how many wait, and whether it is paused. \`queue NAME\` (or \`queue show NAME\`, for a queue named like a verb) lists its live tasks: those holding a slot, then the line in the order they start. \`queue set NAME --parallel N\` creates the queue or changes its limit; a lower limit stops nothing, it applies as tasks end. A queue never set runs one task at a time. \`queue pause NAME\` starts nothing new from it (running tasks go on); \`queue resume NAME\` starts what fits at once. \`queue rm NAME\` forgets a queue that holds no live task. \`queue move TASK\` changes a queued task's place while it waits: --priority N, --first (ahead of every task waiting in its queue, as tsp -u), and/or --to QUEUE (another queue; it keeps its priority unless given one). pause, resume, rm and show refuse a queue that does not exist (exit 2, with the name meant). The settings live in the state dir (queues/NAME.json).

--json prints every queue with its live tasks: [{name, parallel, paused, running, waiting, runningTasks, queuedTasks}], each task {id, name, status, priority, position, reason}; \`queue NAME --json\` that one queue.`

  static override examples = [
    {description: 'Run at most 4 agents at a time', command: '<%= config.bin %> queue set agents --parallel 4'},
    {description: 'Queue a task in it', command: '<%= config.bin %> start --queue agents -- claude -p "fix issue 12"'},
    {description: 'See every queue', command: '<%= config.bin %> queue'},
    {description: "A queue's tasks, in the order they start", command: '<%= config.bin %> queue agents'},
    {description: 'Hold the queue while you look at something', command: '<%= config.bin %> queue pause agents'},
    {description: 'Run a waiting task next', command: '<%= config.bin %> queue move fix-12 --first'},
  ]

  static override usage = [
    '<%= command.id %>',
    '<%= command.id %> NAME',
    '<%= command.id %> set NAME --parallel N',
    '<%= command.id %> pause NAME',
    '<%= command.id %> resume NAME',
    '<%= command.id %> rm NAME',
    '<%= command.id %> move TASK [--priority N|--first] [--to QUEUE]',
  ]

  static override args = {
    action: Args.string({description: 'set, pause, resume, rm or show; or a queue\'s name to list its tasks (none: show every queue)'}),
    name: Args.string({description: 'the queue (letters, digits, . _ -; starts with a letter); with move, the task (id or name)'}),
  }

  static override flags = {
    parallel: Flags.integer({description: 'with set: how many tasks of the queue may run at once (at least 1)'}),
    priority: Flags.integer({description: 'with move: the queued task\'s new priority (-999 to 999; higher starts first)'}),
    first: Flags.boolean({description: 'with move: ahead of every task waiting in its queue (the highest priority there plus one)'}),
    to: Flags.string({description: 'with move: wait in this queue instead'}),
  }

  async run(): Promise<QueueDetail[] | QueueDetail | QueueInfo | TaskJson> {
    const {args, flags} = await this.parse(Queue)
    const verb = (ACTIONS as readonly string[]).includes(args.action ?? '') ? (args.action as (typeof ACTIONS)[number]) : undefined
    if (verb !== 'move' && (flags.priority !== undefined || flags.first || flags.to !== undefined)) throw usageError('--priority, --first and --to go with move: drover queue move TASK --first')
    if (verb === 'move') {
      if (args.name === undefined) throw usageError('queue move needs a task: drover queue move TASK --priority N|--first [--to QUEUE]')
      if (flags.parallel !== undefined) throw usageError('--parallel goes with set')
      const drover = await this.drover(flags['state-dir'])
      const task = await drover.moveQueued(args.name, {priority: flags.priority, first: flags.first || undefined, queue: flags.to})
      if (!this.jsonEnabled()) {
        const where = task.status === 'queued' ? `#${task.position ?? '?'} in ${task.queue}, priority ${task.priority}` : `${task.status} now, in ${task.queue}`
        process.stdout.write(`task ${task.id}${task.name ? ` (${task.name})` : ''}: ${where}\n`)
      }
      return task
    }
    if (args.action === undefined || verb === undefined || verb === 'show') {
      if (flags.parallel !== undefined) throw usageError('--parallel goes with set: drover queue set NAME --parallel N')
      // `queue NAME`: one queue's tasks; a second word after a name is a typo of a verb
      const one = verb === 'show' ? args.name : args.action
      if (verb === 'show' && one === undefined) throw usageError('queue show needs a queue name')
      if (verb === undefined && args.name !== undefined) throw usageError(`unknown queue action '${args.action}' (use set, pause, resume, rm or show)`)
      const drover = await this.drover(flags['state-dir'])
      const queues = await drover.queueDetails(one)
      if (one !== undefined) {
        if (!this.jsonEnabled()) this.printMembers(queues[0])
        return queues[0]
      }
      if (!this.jsonEnabled()) this.print(queues)
      return queues
    }
    if (args.name === undefined) throw usageError(`queue ${verb} needs a queue name`)
    if (verb === 'set') {
      if (flags.parallel === undefined) throw usageError('queue set needs --parallel N')
      if (flags.parallel < 1) throw usageError('--parallel must be at least 1 (use queue pause to start nothing)')
    } else if (flags.parallel !== undefined) throw usageError('--parallel goes with set')
    const drover = await this.drover(flags['state-dir'], {create: verb === 'set'})
    if (verb === 'rm') {
      const removed = await drover.removeQueue(args.name)
      if (!this.jsonEnabled()) process.stdout.write(`removed queue ${removed.name}\n`)
      return removed
    }
    const info =
      verb === 'set'
        ? await drover.setQueue(args.name, {parallel: flags.parallel!})
        : verb === 'pause'
          ? await drover.pauseQueue(args.name)
          : await drover.resumeQueue(args.name)
    if (!this.jsonEnabled()) this.print([info])
    return info
  }

  private print(queues: QueueInfo[]): void {
    if (queues.length === 0) {
      this.note('no queues (create one with: drover queue set NAME --parallel N)')
      return
    }
    const columns = ['QUEUE', 'PARALLEL', 'RUNNING', 'WAITING', 'STATE'].map((header) => ({header}))
    const rows = queues.map((q) => [q.name, String(q.parallel), String(q.running), String(q.waiting), q.paused ? 'paused' : 'active'])
    process.stdout.write(renderTable(columns, rows, terminalWidth()) + '\n')
  }

  /** One queue: a line of its settings, then its live tasks, slot holders first, then the line. */
  private printMembers(q: QueueDetail): void {
    process.stdout.write(`queue ${q.name}: ${q.paused ? 'paused, ' : ''}${q.running} of ${q.parallel} running, ${q.waiting} waiting\n`)
    const members = [...q.runningTasks, ...q.queuedTasks]
    if (members.length === 0) return
    const columns = [{header: 'ID'}, {header: 'NAME'}, {header: 'STATUS'}, {header: 'PLACE'}, {header: 'PRIORITY'}, {header: 'WAITING FOR', shrink: true}]
    const rows = members.map((t) => [
      String(t.id),
      t.name ?? '',
      t.status,
      t.position === null ? '' : `#${t.position}`,
      String(t.priority),
      t.status === 'queued' ? (t.reason ?? '').replace(/^waiting for /, '') : '',
    ])
    process.stdout.write(renderTable(columns, rows, terminalWidth()) + '\n')
  }
}
