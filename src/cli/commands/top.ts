import * as Flags from '@oclif/core/flags'
import {BaseCommand} from '../base-command.js'
import {usageError} from '../../api/values.js'
import {FILTERABLE, parseStatusFilter} from '../status-filter.js'

export default class Top extends BaseCommand {
  static override summary = 'The tasks in a terminal, live: the list, the selected task’s output, and the actions at a key.'
  static override description = `Full screen on the terminal's alternate screen, given back as it was on every way out: q, Ctrl-C, a crash, SIGTERM, and SIGHUP when an ssh session drops.

The list shows each task's id, name, group (a fan-out's attempts share one), status (queued (#2 in q), waiting until 14:05, failed (2) …), queue, agent, turns, tokens and cost, runtime and command: the live tasks by id, then the ended ones, newest first. It changes as tasks start, change and end, from any shell, within a second. Under it, the selected task's output follows as it is written, the line being written included; for an agent's task the transcript, as logs --pretty shows it (p switches to the raw events). Enter opens the task full screen; v shows a --worktree task's diff --stat and diff.

Keys: ↑/↓ or j/k move, PgUp/PgDn, Home/End; Enter opens; / filters by name, command and status (Enter keeps, Esc clears); s stop, c cancel, d drain, r resume (with an optional message), f follow-up, F follow-up now, t attach (top steps aside for the agent's own session), m merge and x discard (an ended --worktree task's branch), a start again, w wrap-up stop — each asks y/n and the footer shows what it did; ? lists the keys; q quits and leaves every task running. --read-only has no actions; --mouse scrolls with the wheel.

It needs a terminal: with stdin or stdout not one, or TERM=dumb, it exits 2 (drover list and drover logs -f work in pipes). Colour follows --color/--no-color, else NO_COLOR and the terminal.`

  static override examples = [
    {description: 'Watch every task', command: '<%= config.bin %> top'},
    {description: 'Only the running ones, look but do not touch', command: '<%= config.bin %> top --status active --read-only'},
    {description: 'One queue', command: '<%= config.bin %> top --queue gpu'},
    {description: 'The attempts of one fan-out', command: '<%= config.bin %> top --group auth'},
  ]

  static override flags = {
    queue: Flags.string({description: 'only tasks in this queue'}),
    group: Flags.string({description: 'only the tasks of this group (NAME, or an id of one of its tasks)', helpValue: 'NAME'}),
    status: Flags.string({description: `only tasks with these statuses (comma-separated: ${FILTERABLE.join(', ')})`, multiple: true}),
    'read-only': Flags.boolean({description: 'no actions: only look'}),
    mouse: Flags.boolean({description: "scroll with the mouse wheel (the terminal's own text selection then needs Shift)"}),
  }

  async run(): Promise<void> {
    const {flags} = await this.parse(Top)
    if (this.jsonEnabled()) throw usageError('top is interactive and has no --json: drover list --json gives the tasks as JSON')
    const statuses = parseStatusFilter(flags.status)
    // The terminal UI loads here only: no other command pays for it.
    const {runTop} = await import('../../tui/index.js')
    const code = await runTop({
      stateDir: flags['state-dir'],
      color: this.color(flags.color),
      readOnly: flags['read-only'],
      statuses,
      queue: flags.queue ?? null,
      group: flags.group ?? null,
      mouse: flags.mouse,
    })
    // Exit for sure, as `drover ui` does: a follow winding down must not keep the process.
    process.exit(code)
  }
}
