import {Flags} from '@oclif/core'
import {BaseCommand} from '../base-command.js'
import {usageError} from '../core/errors.js'
import {formatDuration} from '../core/parse.js'
import {isFinalStatus, TASK_STATUSES} from '../core/record.js'
import {loadTasks} from '../core/tasks.js'
import {painter, statusStyle} from '../render/color.js'
import {renderTable} from '../render/table.js'
import {commandLine, readJson, type CorruptTaskJson, type TaskJson} from '../render/task-json.js'
import {shortTime} from '../render/time.js'

const FILTERABLE = [...TASK_STATUSES, 'corrupt', 'active', 'final'] as const

export type ListResult = (TaskJson | CorruptTaskJson)[]

export default class List extends BaseCommand {
  static override summary = 'List tasks, oldest first.'
  static override description = `Shows every task in the state dir with its status as it truly is: a task whose runner vanished is shown as lost, never as a stale running. A task.json that cannot be read is listed as corrupt and the rest are still shown.

--status takes statuses separated by commas, plus "active" (starting, running, stopping) and "final" (every ended status).`

  static override examples = [
    {description: 'Everything', command: '<%= config.bin %> list'},
    {description: 'Ids of running tasks, for a script', command: '<%= config.bin %> list --status running -q'},
    {description: 'Failed tasks as JSON', command: '<%= config.bin %> list --status failed,lost --json'},
  ]

  static override flags = {
    status: Flags.string({description: `only tasks with these statuses (comma-separated: ${FILTERABLE.join(', ')})`, multiple: true}),
    quiet: Flags.boolean({char: 'q', description: 'print only the ids, one per line'}),
    'show-env': Flags.boolean({description: 'show -e values whose names look secret (hidden as *** by default)'}),
  }

  async run(): Promise<ListResult> {
    const {flags} = await this.parse(List)
    const wanted = parseStatusFilter(flags.status)
    const stateDir = await this.openStateDir(flags['state-dir'])
    const tasks = (await loadTasks(stateDir))
      .map((read) => readJson(read, {showEnv: flags['show-env']}))
      .filter((task) => wanted === null || wanted.has(task.status))
    if (this.jsonEnabled()) return tasks
    if (flags.quiet) {
      if (tasks.length > 0) process.stdout.write(tasks.map((t) => t.id).join('\n') + '\n')
      return tasks
    }
    if (tasks.length === 0) {
      if (process.stdout.isTTY) this.note('no tasks')
      return tasks
    }
    const paint = painter(this.color(flags.color))
    const rows = tasks.map((task) => {
      const style = statusStyle(task.status)
      const status = style ? paint(style, task.status) : task.status
      if (task.status === 'corrupt') return [String(task.id), '', status, '', '', '', (task as CorruptTaskJson).error]
      const t = task as TaskJson
      const runtime = t.runtimeMs
      return [
        String(t.id),
        t.name ?? '',
        status,
        t.pid !== null && (t.status === 'lost' || !isFinalStatus(t.status)) ? String(t.pid) : '',
        t.startedAt ? shortTime(t.startedAt) : '',
        runtime === null ? '' : formatDuration(runtime),
        commandLine(t),
      ]
    })
    const headers = ['ID', 'NAME', 'STATUS', 'PID', 'STARTED', 'RUNTIME', 'COMMAND']
    const width = process.stdout.isTTY ? process.stdout.columns : undefined
    process.stdout.write((await renderTable(headers.map((header) => ({header, flexible: header === 'COMMAND'})), rows, width)) + '\n')
    return tasks
  }
}

function parseStatusFilter(values: string[] | undefined): Set<string> | null {
  if (!values || values.length === 0) return null
  const wanted = new Set<string>()
  for (const value of values.flatMap((v) => v.split(',')).map((v) => v.trim()).filter(Boolean)) {
    if (!(FILTERABLE as readonly string[]).includes(value)) {
      throw usageError(`--status: unknown status '${value}' (one of: ${FILTERABLE.join(', ')})`)
    }
    if (value === 'active') for (const s of ['starting', 'running', 'stopping']) wanted.add(s)
    else if (value === 'final') for (const s of ['succeeded', 'failed', 'stopped', 'cancelled', 'drained', 'lost']) wanted.add(s)
    else wanted.add(value)
  }
  return wanted
}
