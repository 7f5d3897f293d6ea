import {Args, Flags} from '@oclif/core'
import {BaseCommand} from '../base-command.js'
import {DroverError, ExitCode} from '../../base/errors.js'
import {signalNumber} from '../../platform/platform.js'
import {isFinalStatus, taskExitCode} from '../../state/record.js'
import {readRunnerIdentity, workerAlive} from '../../tasks/reconcile.js'
import {isSameProcess} from '../../platform/platform.js'
import {loadTask} from '../../tasks/read.js'
import {waitForFinal} from '../../tasks/wait.js'
import {painter} from '../render/color.js'
import {renderStatus} from '../render/status-view.js'
import {taskDetailJson, type TaskDetailJson} from '../../api/task-json.js'

export default class Status extends BaseCommand {
  static override summary = 'Show everything known about one task.'
  static override description = `Status, reason, exit code, command, cwd, runs, the agent's session and progress, the task's files, and — when it failed — the last lines of its output. An unknown id or name exits 3.

With --wait, waits until the task reaches a final status and exits with the task's own exit code (128 + signal number when a signal ended it).`

  static override examples = [
    {description: 'What is task 3 doing?', command: '<%= config.bin %> status 3'},
    {description: 'By name, as JSON', command: '<%= config.bin %> status fix-tests --json'},
    {description: 'Block a script until the task ends, then use its exit code', command: '<%= config.bin %> status --wait 3 && echo passed'},
  ]

  static override args = {task: Args.string({description: 'task id or name', required: true})}

  static override flags = {
    wait: Flags.boolean({char: 'w', description: "wait for the task to end and exit with its exit code"}),
    lines: Flags.integer({char: 'n', description: 'output lines to show for a failed task', default: 10, min: 0}),
    'show-env': Flags.boolean({description: 'show -e values and credentials in URLs of the command (masked as *** by default)'}),
  }

  async run(): Promise<TaskDetailJson> {
    const {args, flags} = await this.parse(Status)
    const stateDir = await this.openStateDir(flags['state-dir'])
    let read = await loadTask(stateDir, args.task)
    if (!read.ok) throw new DroverError(`task ${read.id} is corrupt: ${read.error}`, ExitCode.failed, {id: read.id, found: true, status: 'corrupt', error: read.error})
    if (flags.wait && !isFinalStatus(read.record.status)) {
      read = {...read, record: await waitForFinal(stateDir, read.record.id)}
    }
    const record = read.record
    const runner = readRunnerIdentity(stateDir, record.id)
    const live = {runnerAlive: runner !== null && isSameProcess(runner), workerAlive: workerAlive(record)}
    const detail = taskDetailJson(stateDir, record, live, {showEnv: flags['show-env']})
    if (!this.jsonEnabled()) {
      process.stdout.write(renderStatus(detail, {paint: painter(this.color(flags.color)), tailLines: flags.lines}))
    }
    if (flags.wait) process.exitCode = taskExitCode(record, signalNumber)
    return detail
  }
}
