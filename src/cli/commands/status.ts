import * as Args from '@oclif/core/args'
import * as Flags from '@oclif/core/flags'
import {BaseCommand} from '../base-command.js'
import {exitCodeOf, type TaskDetailJson} from '../../api/task-json.js'
import {readsAgentEvents} from '../../api/values.js'
import {painter} from '../render/color.js'
import {renderStatus} from '../render/status-view.js'

export default class Status extends BaseCommand {
  static override summary = 'Show everything known about one task.'
  static override description = `Status, reason, exit code, command, cwd, runs, the agent's session and progress, the task's files, and — when it failed — the last lines of its output. An unknown id or name exits 3.

With --wait, waits until the task reaches a final status and exits with the task's own exit code (128 + signal number when a signal ended it).`

  static override examples = [
    {description: 'What is task 3 doing?', command: '<%= config.bin %> status 3'},
    {description: 'By name, as JSON', command: '<%= config.bin %> status fix-tests --json'},
    {description: 'Block a script until the task ends, then use its exit code', command: '<%= config.bin %> status --wait 3 && echo passed'},
  ]

  static override args = {task: Args.string({description: 'task id or name (:latest for the newest task)', required: true})}

  static override flags = {
    wait: Flags.boolean({char: 'w', description: "wait for the task to end and exit with its exit code"}),
    lines: Flags.integer({char: 'n', description: 'output lines to show for a failed task', default: 10, min: 0}),
    'show-env': Flags.boolean({description: 'show -e values and credentials in URLs of the command (masked as *** by default)'}),
  }

  async run(): Promise<TaskDetailJson> {
    const {args, flags} = await this.parse(Status)
    const drover = await this.drover(flags['state-dir'])
    const detail = await drover.get(args.task, {wait: flags.wait, showEnv: flags['show-env']})
    if (!this.jsonEnabled()) {
      // An agent's output is its event stream: what went wrong is in its error
      // and its stderr lines, not in a 3 KB init event — so more lines are read for it.
      const shown = ['failed', 'lost'].includes(detail.status) && flags.lines > 0
      const tail = shown ? await drover.logs(detail.id, {tail: readsAgentEvents(detail.agent) ? 200 : flags.lines}) : ''
      process.stdout.write(renderStatus(detail, {paint: painter(this.color(flags.color)), tailLines: flags.lines, tail}))
    }
    if (flags.wait) process.exitCode = exitCodeOf(detail)
    return detail
  }
}
