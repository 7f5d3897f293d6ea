import * as Args from '@oclif/core/args'
import * as Flags from '@oclif/core/flags'
import {BaseCommand} from '../base-command.js'
import type {TaskJson} from '../../api/task-json.js'
import {commandLine} from '../../api/task-json.js'
import {DEFAULT_DRAIN_GRACE_MS, DEFAULT_DRAIN_KILL_AFTER_MS, describeOutcome, parseDuration} from '../../api/values.js'

export default class Attach extends BaseCommand {
  static override summary = "Take an agent over in this terminal, in its own conversation; quit to hand it back."
  static override description = `Runs the agent's interactive mode on the task's session, in the foreground on this terminal: claude --resume ID, codex resume --no-daemon ID, gemini --resume ID, qwen --resume ID, copilot --resume=ID, opencode --session ID — with the flags that shape the session (model, permissions or sandbox, extra directories) carried over from the task's command. A task at work is drained first, at its next safe point as drover drain does (--grace, --kill-after).

The session is a run of the task, recorded as attached (status, logs, --json's runs[].attached); drover is its runner while it lasts, so stop, cancel and drain from another shell reach it. Ctrl-C goes to the agent, as it would without drover, and a closed terminal ends the session only: either way the run is recorded and the task stays resumable. Follow-ups queued for the task wait meanwhile; \`drover resume TASK\` sends it back to the background (with the first of them, or --prompt "…").

Needs a terminal on stdin and stdout (exit 2 without one), and a task that runs an agent (exit 2 for any other command). A cancelled, queued or session-less task is refused (exit 4).`

  static override examples = [
    {description: 'Take over an agent that is stuck', command: '<%= config.bin %> attach fix-tests'},
    {description: 'Then send it back to work in the background', command: '<%= config.bin %> resume fix-tests --prompt "Carry on with the plan we agreed."'},
  ]

  static override args = {task: Args.string({description: 'task id or name (:latest for the newest task)', required: true})}

  static override flags = {
    grace: Flags.string({description: `a run at work is drained first: how long the agent gets after STOP, e.g. 90s (default ${DEFAULT_DRAIN_GRACE_MS / 1000}s)`}),
    'kill-after': Flags.string({description: `after SIGTERM, how long until SIGKILL (default ${DEFAULT_DRAIN_KILL_AFTER_MS / 1000}s)`}),
  }

  async run(): Promise<TaskJson> {
    const {args, flags} = await this.parse(Attach)
    const graceMs = flags.grace === undefined ? undefined : parseDuration(flags.grace, '--grace', {allowZero: true})
    const killAfterMs = flags['kill-after'] === undefined ? undefined : parseDuration(flags['kill-after'], '--kill-after', {allowZero: true})
    const drover = await this.drover(flags['state-dir'])
    // A closed terminal ends the session; nothing is said to it afterwards.
    let hungUp = false
    const onHangUp = () => (hungUp = true)
    process.on('SIGHUP', onHangUp)
    try {
      const task = await drover.attach(args.task, {
        graceMs,
        killAfterMs,
        onDraining: (t) => this.note(`drover: draining task ${t.id} at its next safe point first…`),
        onOpening: (t, argv) => this.note(`drover: task ${t.id}: ${commandLine({command: argv, shell: null})} (quit it to hand the task back)`),
      })
      if (!hungUp) this.note(`drover: task ${task.id}: the attached session ended ${describeOutcome(task.status, task.reason)}; drover resume ${task.id} [--prompt "…"] sends it back to the background`)
      return task
    } finally {
      process.off('SIGHUP', onHangUp)
    }
  }
}
