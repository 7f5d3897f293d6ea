import * as Args from '@oclif/core/args'
import * as Flags from '@oclif/core/flags'
import {BaseCommand} from '../base-command.js'
import {DEFAULT_DRAIN_GRACE_MS, DEFAULT_DRAIN_KILL_AFTER_MS, formatDuration, parseDuration, type DrainMode} from '../../api/values.js'
import type {DrainResult} from '../../api/batch.js'
import {controlExitCode, printControlReport, reportBatch, type ControlReport} from '../render/control-report.js'

// The promise drain makes: it returns within grace + kill-after + this, whatever the workers do.
const DRAIN_BOUND_SLACK_MS = 2000

export type DrainReport = Omit<ControlReport, 'results'> & {results: DrainResult[]}

export default class Drain extends BaseCommand {
  static override summary = 'Checkpoint running tasks so they can be resumed later.'
  static override description = `For every selected task at once: writes STOP into its control file and waits up to --grace for the worker to save what it has and exit, then SIGTERM to the whole tree, then SIGKILL after --kill-after. Returns within grace + kill-after + 2 s, whatever the workers do; Ctrl-C ends the wait, not the drain (exit 130).

Each task ends "drained" with a checkpoint — its session dir, an agent's session id, and forced: true when it had to be killed — and drover prints how to resume it. Use it before a reboot or to free a machine without losing agents' work.`

  static override examples = [
    {description: 'Empty the machine before a reboot', command: '<%= config.bin %> drain --all'},
    {description: 'Give one agent 5 minutes to checkpoint', command: '<%= config.bin %> drain --grace 5m fix-tests'},
    {description: 'Drain and collect resume references as JSON', command: '<%= config.bin %> drain --all --json'},
  ]

  static override usage = ['<%= command.id %> [FLAGS] TASK...', '<%= command.id %> [FLAGS] --all', '<%= command.id %> [FLAGS] --queue NAME', '<%= command.id %> [FLAGS] --group NAME']

  static override strict = false
  static override args = {task: Args.string({description: 'task ids or names (:latest for the newest task)'})}

  static override flags = {
    group: Flags.string({description: 'drain the running tasks of this group (NAME, or an id of one of its tasks; its queued ones stay queued)', helpValue: 'NAME'}),
    queue: Flags.string({description: 'drain the running tasks of this queue (its queued ones stay queued)'}),
    all: Flags.boolean({char: 'a', description: 'drain every running task (queued tasks stay queued: nothing of theirs runs, and they carry on after a reboot)'}),
    grace: Flags.string({description: `how long workers get to exit after STOP, e.g. 90s or 5m (default ${DEFAULT_DRAIN_GRACE_MS / 1000}s)`}),
    'kill-after': Flags.string({description: `after SIGTERM, how long until SIGKILL, e.g. 30s (default ${DEFAULT_DRAIN_KILL_AFTER_MS / 1000}s)`}),
    quiet: Flags.boolean({char: 'q', description: 'print nothing unless something went wrong'}),
  }

  async run(): Promise<DrainReport> {
    const {argv, flags} = await this.parse(Drain)
    const graceMs = flags.grace === undefined ? DEFAULT_DRAIN_GRACE_MS : parseDuration(flags.grace, '--grace', {allowZero: true})
    const killAfterMs =
      flags['kill-after'] === undefined ? DEFAULT_DRAIN_KILL_AFTER_MS : parseDuration(flags['kill-after'], '--kill-after', {allowZero: true})
    const drover = await this.drover(flags['state-dir'])
    const accepted = new Set<number>()
    const batch = await drover.controlMany(
      'drain',
      {tasks: argv as string[], all: flags.all, queue: flags.queue, group: flags.group},
      {graceMs, killAfterMs},
      {wait: true, timeoutMs: graceMs + killAfterMs + DRAIN_BOUND_SLACK_MS, onAccepted: (id) => accepted.add(id)},
    )
    const progress = process.stdout.isTTY === true && !this.jsonEnabled() && !flags.quiet
    const report = await reportBatch(batch, accepted, {wait: true, progress, verb: 'draining', kind: 'drain'})
    const drained: DrainReport = {...report, results: await Promise.all(report.results.map((r) => drover.drainResult(r)))}
    if (!this.jsonEnabled()) {
      printControlReport(report, {quiet: flags.quiet, printed: progress, verb: 'drain'})
      if (!flags.quiet) for (const r of drained.results) if (r.checkpoint) process.stdout.write(`  ${checkpointLine(r)}\n`)
    }
    process.exitCode = controlExitCode(report, true)
    return drained
  }
}

const HOW: Record<DrainMode, string> = {cooperative: 'ended on its own', 'safe-point': 'signalled between tool calls', forced: 'forced'}

/** One line per drained task, the command to paste last. */
function checkpointLine(r: DrainResult): string {
  const c = r.checkpoint!
  const facts = [c.sessionId ? `${c.profile} session ${c.sessionId}` : '', `${HOW[c.mode]}${c.tookMs !== null ? ` after ${formatDuration(c.tookMs)}` : ''}`]
  const head = `task ${r.id}: ${facts.filter(Boolean).join(', ')}`
  return r.resume ? `${head}; resume with: ${r.resume}` : `${head}; not resumable: ${r.resumeRefused}`
}
