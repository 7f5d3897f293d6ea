import * as Args from '@oclif/core/args'
import * as Flags from '@oclif/core/flags'
import {BaseCommand} from '../base-command.js'
import {DEFAULT_STOP_GRACE_MS, parseDuration} from '../../api/values.js'
import {controlExitCode, printControlReport, reportBatch, type ControlReport} from '../render/control-report.js'

export default class Stop extends BaseCommand {
  static override summary = 'Stop tasks gracefully; they can be started again or resumed.'
  static override description = `Writes STOP into each task's control file and sends SIGTERM to its whole process group at once; whatever is still alive after --time gets SIGKILL, including processes that left the group with setsid. With --wrap-up, WRAP_UP is written first and the agent gets --time to finish before that.

The task's runner carries the stop out, so it works from any shell; if the runner is gone and the worker still lives, drover checks the worker's identity (pid and start time) and stops it itself. A runner that is alive but does not take the request within 5 s (frozen by SIGSTOP, or wedged) gets SIGCONT, and after 5 s more is replaced by a new runner that adopts the worker and carries the stop out. The final status is "stopped" and the task stays stopped across reboots (resume --interrupted skips it). By default waits for the final status and prints it; Ctrl-C ends the wait, not the stop (exit 130).`

  static override examples = [
    {description: 'Stop task 3, allowing 10 s before SIGKILL', command: '<%= config.bin %> stop 3'},
    {description: 'Let an agent wrap up for 60 s first', command: '<%= config.bin %> stop --wrap-up --time 60 fix-tests'},
    {description: 'Stop everything that runs, without waiting', command: '<%= config.bin %> stop --all --no-wait'},
  ]

  static override usage = ['<%= command.id %> [FLAGS] TASK...', '<%= command.id %> [FLAGS] --all', '<%= command.id %> [FLAGS] --queue NAME', '<%= command.id %> [FLAGS] --group NAME']

  static override strict = false
  static override args = {task: Args.string({description: 'task ids or names (:latest for the newest task)'})}

  static override flags = {
    group: Flags.string({description: 'stop the running tasks of this group, and end its queued ones without starting them (NAME, or an id of one of its tasks)', helpValue: 'NAME'}),
    queue: Flags.string({description: 'stop the running tasks of this queue, and end its queued ones without starting them (clears a backlog)'}),
    all: Flags.boolean({char: 'a', description: 'stop every running task, and end every queued one without starting it'}),
    time: Flags.string({char: 't', description: `seconds (or a duration like 30s, 2m) between SIGTERM and SIGKILL (default ${DEFAULT_STOP_GRACE_MS / 1000}); bare seconds as in docker stop -t`}),
    'wrap-up': Flags.boolean({description: 'write WRAP_UP and wait --time before the STOP/SIGTERM step'}),
    wait: Flags.boolean({description: 'wait for the final status (--no-wait returns once the request is accepted)', allowNo: true, default: true}),
    quiet: Flags.boolean({char: 'q', description: 'print nothing unless something went wrong'}),
  }

  async run(): Promise<ControlReport> {
    const {argv, flags} = await this.parse(Stop)
    const graceMs = flags.time === undefined ? DEFAULT_STOP_GRACE_MS : parseDuration(flags.time, '--time', {allowZero: true, bareSeconds: true})
    const drover = await this.drover(flags['state-dir'])
    const accepted = new Set<number>()
    const batch = await drover.controlMany('stop', {tasks: argv as string[], all: flags.all, queue: flags.queue, group: flags.group}, {graceMs, wrapUp: flags['wrap-up']}, {wait: flags.wait, onAccepted: (id) => accepted.add(id)})
    const progress = flags.wait && process.stdout.isTTY === true && !this.jsonEnabled() && !flags.quiet
    const report = await reportBatch(batch, accepted, {wait: flags.wait, progress, verb: 'stopping', kind: 'stop'})
    if (!this.jsonEnabled()) printControlReport(report, {quiet: flags.quiet, printed: progress, verb: 'stop'})
    process.exitCode = controlExitCode(report, flags.wait)
    return report
  }
}
