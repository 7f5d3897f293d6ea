import * as Args from '@oclif/core/args'
import * as Flags from '@oclif/core/flags'
import {BaseCommand} from '../base-command.js'
import {controlExitCode, printControlReport, reportBatch, type ControlReport} from '../render/control-report.js'

export default class Cancel extends BaseCommand {
  static override summary = 'Abort tasks now; cancelled tasks are never resumed.'
  static override description = `Sends SIGTERM to each task's whole process tree and SIGKILL 2 s later. The final status is "cancelled": neither resume nor resume --interrupted brings the task back (use stop to pause work you mean to continue); start ID still runs it again from the start, as a new run. A task that is still starting is cancelled before its command runs. Acts at once on every task given, and by default waits for the final status; Ctrl-C ends the wait, not the cancel (exit 130).`

  static override examples = [
    {description: 'Abort a runaway agent', command: '<%= config.bin %> cancel 5'},
    {description: 'Abort two tasks and report as JSON', command: '<%= config.bin %> cancel 5 build-docs --json'},
  ]

  static override usage = ['<%= command.id %> [FLAGS] TASK...', '<%= command.id %> [FLAGS] --all', '<%= command.id %> [FLAGS] --queue NAME', '<%= command.id %> [FLAGS] --group NAME']

  static override strict = false
  static override args = {task: Args.string({description: 'task ids or names (:latest for the newest task)'})}

  static override flags = {
    group: Flags.string({description: 'cancel the running tasks of this group, and its queued ones before they start (NAME, or an id of one of its tasks)', helpValue: 'NAME'}),
    queue: Flags.string({description: 'cancel the running tasks of this queue, and its queued ones before they start (clears a backlog)'}),
    all: Flags.boolean({char: 'a', description: 'cancel every running task, and every queued one before it starts'}),
    wait: Flags.boolean({description: 'wait for the final status (--no-wait returns once the request is accepted)', allowNo: true, default: true}),
    quiet: Flags.boolean({char: 'q', description: 'print nothing unless something went wrong'}),
  }

  async run(): Promise<ControlReport> {
    const {argv, flags} = await this.parse(Cancel)
    const drover = await this.drover(flags['state-dir'])
    const accepted = new Set<number>()
    const batch = await drover.controlMany('cancel', {tasks: argv as string[], all: flags.all, queue: flags.queue, group: flags.group}, {graceMs: 0}, {wait: flags.wait, onAccepted: (id) => accepted.add(id)})
    const progress = flags.wait && process.stdout.isTTY === true && !this.jsonEnabled() && !flags.quiet
    const report = await reportBatch(batch, accepted, {wait: flags.wait, progress, verb: 'cancelling', kind: 'cancel'})
    if (!this.jsonEnabled()) printControlReport(report, {quiet: flags.quiet, printed: progress, verb: 'cancel'})
    process.exitCode = controlExitCode(report, flags.wait)
    return report
  }
}
