import * as Flags from '@oclif/core/flags'
import {BaseCommand} from '../base-command.js'
import {DEFAULT_RECENT} from '../../api/drover.js'
import {usageError} from '../../api/values.js'
import {FILTERABLE, parseStatusFilter} from '../status-filter.js'
import {type CorruptTaskJson, type TaskJson} from '../../api/task-json.js'
import {TaskTable} from '../render/list-view.js'
import {terminalWidth} from '../render/table.js'

export type ListResult = (TaskJson | CorruptTaskJson)[]

export default class List extends BaseCommand {
  static override summary = 'List the live tasks and the newest ended ones, oldest first.'
  static override description = `Shows tasks with their status as it truly is: a task whose runner vanished is shown as lost, never as a stale running; an ended task shows how it ended (failed (3), stopped, failed (timeout) …). A task.json that cannot be read is listed as corrupt and the rest are still shown.

The table shows every live task and the ${DEFAULT_RECENT} newest ended ones; a line on stderr counts the ones left out. --last N shows N ended ones, --all every task. -q and --json list every task unless --last is given, so scripts see them all.

On a terminal the table fits its width: long names and commands are cut with …, and on a narrow one the PID, RUNTIME and STARTED columns go. Piped, every value is whole.

A task of a group (start --group, a fan-out's attempts) shows it in the GROUP column, which appears when a task listed has one; --group NAME lists that group alone.

--status takes statuses separated by commas, plus "active" (starting, running, stopping) and "final" (every ended status).`

  static override examples = [
    {description: 'What runs now, and what just ended', command: '<%= config.bin %> list'},
    {description: 'Every task', command: '<%= config.bin %> list --all'},
    {description: 'Ids of running tasks, for a script', command: '<%= config.bin %> list --status running -q'},
    {description: 'Failed tasks as JSON', command: '<%= config.bin %> list --status failed,lost --json'},
    {description: 'The attempts of one fan-out', command: '<%= config.bin %> list --group auth'},
  ]

  // list draws once; what people expect of --follow (or -f, --watch) is elsewhere
  static override flagHints = Object.fromEntries(
    ['--follow', '-f', '--watch', '-w'].map((flag) => [flag, 'list shows the tasks once; follow a task\'s output with drover logs -f TASK, or watch every task live with drover top']),
  )

  static override flags = {
    status: Flags.string({description: `only tasks with these statuses (comma-separated: ${FILTERABLE.join(', ')})`, multiple: true}),
    queue: Flags.string({description: 'only the tasks of this queue'}),
    group: Flags.string({description: 'only the tasks of this group (NAME, or an id of one of its tasks)', helpValue: 'NAME'}),
    all: Flags.boolean({char: 'a', description: 'show every task, not only the live and the newest ended ones'}),
    last: Flags.integer({description: `show the live tasks and the N newest ended ones (default ${DEFAULT_RECENT} in the table, all with -q and --json)`, min: 0}),
    quiet: Flags.boolean({char: 'q', description: 'print only the ids, one per line (every task unless --last)'}),
    'show-env': Flags.boolean({description: 'show -e values and credentials in URLs of the command (masked as *** by default)'}),
  }

  async run(): Promise<ListResult | number[] | undefined> {
    const {flags} = await this.parse(List)
    if (flags.all && flags.last !== undefined) throw usageError('give --all or --last N, not both')
    const wanted = parseStatusFilter(flags.status)
    const drover = await this.drover(flags['state-dir'])
    // What scripts read (-q, --json) stays complete unless they ask for less.
    const forScripts = this.jsonEnabled() || flags.quiet
    const last = flags.all ? null : (flags.last ?? (forScripts ? null : DEFAULT_RECENT))
    const filter = {status: wanted ?? undefined, queue: flags.queue, group: flags.group, showEnv: flags['show-env']}
    // Every task for a script: the index's stored views written out as they are, never parsed into objects here.
    // (On a terminal the objects go to logJson, which indents them for a person.)
    if (last === null && this.jsonEnabled() && !process.stdout.isTTY) {
      await drover.listJson(filter, (chunk) => process.stdout.write(chunk))
      process.stdout.write('\n')
      return undefined
    }
    if (last === null && flags.quiet) {
      const ids = await drover.listIds(filter)
      if (ids.length > 0) process.stdout.write(ids.join('\n') + '\n')
      return ids
    }
    if (this.jsonEnabled() || flags.quiet) {
      const {tasks} = last === null ? {tasks: await drover.list(filter)} : await drover.recent({...filter, last})
      if (flags.quiet && !this.jsonEnabled() && tasks.length > 0) process.stdout.write(tasks.map((t) => t.id).join('\n') + '\n')
      return tasks
    }
    // The table shows a few fields of each task: rows, which the index keeps without parsing them whole.
    const table = new TaskTable({color: this.color(flags.color), width: terminalWidth()})
    let hidden = 0
    if (last === null) await drover.eachRowCells(filter, (cells) => table.addCells(cells))
    else {
      const recent = await drover.recentRows({...filter, last})
      for (const task of recent.tasks) table.add(task)
      hidden = recent.hidden
    }
    if (table.size > 0) process.stdout.write(table.render() + '\n')
    else if (hidden === 0) {
      const what = [wanted === null ? '' : ` with status ${[...(flags.status ?? [])].join(',')}`, flags.queue === undefined ? '' : ` in queue ${flags.queue}`, flags.group === undefined ? '' : ` in group ${flags.group}`].join('')
      // Named, with where the path came from: cron's bare environment reads the default dir of whoever runs it.
      const {stateDirMissing, stateDirSource, stateDirSourceText} = await import('../../api/paths.js')
      const absent = stateDirMissing(drover.stateDir) ? '; it does not exist yet' : ''
      this.note(`no tasks${what} in ${drover.stateDir} (${stateDirSourceText(stateDirSource(flags['state-dir']))}${absent})`)
    }
    // On stderr, so a pipe reads the table alone; the command at the end pastes as it is.
    if (hidden > 0) this.note(`${hidden} older ended task${hidden === 1 ? '' : 's'} not shown (--last N shows more); every task: ${this.config.bin} list --all`)
    return undefined
  }
}
