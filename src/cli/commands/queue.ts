import * as Args from '@oclif/core/args'
import * as Flags from '@oclif/core/flags'
import {BaseCommand} from '../base-command.js'
import {usageError, type QueueInfo} from '../../api/queues.js'
import {renderTable} from '../render/table.js'

const ACTIONS = ['set', 'pause', 'resume'] as const

export default class Queue extends BaseCommand {
  static override summary = 'Show queues, set their parallel limit, pause or resume them.'
  static override description = `A queue runs at most N of its tasks at once: \`start --queue NAME\` puts a task in it, and a task over the limit waits with the status "queued" (its place in line shown by list and status) until a slot frees. The next one in line — highest --priority first, then first come, first served — starts the moment a task of the queue ends. There is no daemon: the runner of the task that ended hands its slot on, and every drover command moves queues on as well (so a queue whose runner was killed continues at the next command).

Without arguments, prints each queue: its limit, how many tasks hold a slot (starting, running or stopping), how many wait, and whether it is paused. \`queue set NAME --parallel N\` creates the queue or changes its limit; a lower limit stops nothing, it applies as tasks end. A queue never set runs one task at a time. \`queue pause NAME\` starts nothing new from it (running tasks go on); \`queue resume NAME\` starts what fits at once. The settings live in the state dir (queues/NAME.json).`

  static override examples = [
    {description: 'Run at most 4 agents at a time', command: '<%= config.bin %> queue set agents --parallel 4'},
    {description: 'Queue a task in it', command: '<%= config.bin %> start --queue agents -- claude -p "fix issue 12"'},
    {description: 'See every queue', command: '<%= config.bin %> queue'},
    {description: 'Hold the queue while you look at something', command: '<%= config.bin %> queue pause agents'},
  ]

  static override usage = ['<%= command.id %>', '<%= command.id %> set NAME --parallel N', '<%= command.id %> pause NAME', '<%= command.id %> resume NAME']

  static override args = {
    action: Args.string({description: 'set, pause or resume (none: show every queue)', options: [...ACTIONS]}),
    name: Args.string({description: 'the queue (letters, digits, . _ -; starts with a letter)'}),
  }

  static override flags = {
    parallel: Flags.integer({description: 'with set: how many tasks of the queue may run at once (at least 1)'}),
  }

  async run(): Promise<QueueInfo[] | QueueInfo> {
    const {args, flags} = await this.parse(Queue)
    if (args.action === undefined) {
      if (flags.parallel !== undefined) throw usageError('--parallel goes with set: drover queue set NAME --parallel N')
      const drover = await this.drover(flags['state-dir'])
      const queues = await drover.queues()
      if (!this.jsonEnabled()) this.print(queues)
      return queues
    }
    if (args.name === undefined) throw usageError(`queue ${args.action} needs a queue name`)
    if (args.action === 'set') {
      if (flags.parallel === undefined) throw usageError('queue set needs --parallel N')
      if (flags.parallel < 1) throw usageError('--parallel must be at least 1 (use queue pause to start nothing)')
    } else if (flags.parallel !== undefined) throw usageError('--parallel goes with set')
    const drover = await this.drover(flags['state-dir'])
    const info =
      args.action === 'set'
        ? await drover.setQueue(args.name, {parallel: flags.parallel!})
        : args.action === 'pause'
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
    process.stdout.write(renderTable(columns, rows, process.stdout.isTTY ? process.stdout.columns : undefined) + '\n')
  }
}
