import {Args, Flags} from '@oclif/core'
import {BaseCommand} from '../base-command.js'
import type {ControlResult} from '../core/control.js'
import {parseDuration} from '../core/parse.js'
import type {Checkpoint} from '../core/record.js'
import {selectTasks} from '../core/select.js'
import {readRecord} from '../core/store.js'
import {DEFAULT_DRAIN_GRACE_MS, DEFAULT_DRAIN_KILL_AFTER_MS} from '../core/stop-plan.js'
import {controlAll, controlExitCode, printControlReport, type ControlReport} from '../render/control-report.js'

// The promise drain makes: it returns within grace + kill-after + this, whatever the workers do.
const DRAIN_BOUND_SLACK_MS = 2000

/** One task's outcome, with what it takes to continue it when it ended drained. */
export type DrainResult = ControlResult & {checkpoint: Checkpoint | null; resume: string | null}
export type DrainReport = Omit<ControlReport, 'results'> & {results: DrainResult[]}

export default class Drain extends BaseCommand {
  static override summary = 'Checkpoint running tasks so they can be resumed later.'
  static override description = `For every selected task at once: writes STOP into its control file and waits up to --grace for the worker to save what it has and exit, then SIGTERM to the whole tree, then SIGKILL after --kill-after. Returns within grace + kill-after + 2 s, whatever the workers do.

Each task ends "drained" with a checkpoint — its session dir, the agent's session id (claude, codex), and forced: true when it had to be killed — and drover prints how to resume it. Use it before a reboot or to free a machine without losing agents' work.`

  static override examples = [
    {description: 'Empty the machine before a reboot', command: '<%= config.bin %> drain --all'},
    {description: 'Give one agent 5 minutes to checkpoint', command: '<%= config.bin %> drain --grace 5m fix-tests'},
    {description: 'Drain and collect resume references as JSON', command: '<%= config.bin %> drain --all --json'},
  ]

  static override usage = ['<%= command.id %> [FLAGS] TASK...', '<%= command.id %> [FLAGS] --all']

  static override strict = false
  static override args = {task: Args.string({description: 'task ids or names'})}

  static override flags = {
    all: Flags.boolean({char: 'a', description: 'drain every running task'}),
    grace: Flags.string({description: `how long workers get to exit after STOP (default ${DEFAULT_DRAIN_GRACE_MS / 1000}s)`}),
    'kill-after': Flags.string({description: `after SIGTERM, how long until SIGKILL (default ${DEFAULT_DRAIN_KILL_AFTER_MS / 1000}s)`}),
    quiet: Flags.boolean({char: 'q', description: 'print nothing unless something went wrong'}),
  }

  async run(): Promise<DrainReport> {
    const {argv, flags} = await this.parse(Drain)
    const graceMs = flags.grace === undefined ? DEFAULT_DRAIN_GRACE_MS : parseDuration(flags.grace, '--grace', {allowZero: true})
    const killAfterMs =
      flags['kill-after'] === undefined ? DEFAULT_DRAIN_KILL_AFTER_MS : parseDuration(flags['kill-after'], '--kill-after', {allowZero: true})
    const stateDir = await this.openStateDir(flags['state-dir'])
    const selection = await selectTasks(stateDir, argv as string[], {all: flags.all, what: 'drain'})
    const progress = process.stdout.isTTY === true && !this.jsonEnabled() && !flags.quiet
    const report = await controlAll(
      stateDir,
      selection,
      {kind: 'drain', graceMs, killAfterMs},
      {wait: true, progress, verb: 'draining', timeoutMs: graceMs + killAfterMs + DRAIN_BOUND_SLACK_MS},
    )
    const drained: DrainReport = {...report, results: report.results.map((r) => withCheckpoint(stateDir, r, this.config.bin))}
    if (!this.jsonEnabled()) {
      printControlReport(report, {quiet: flags.quiet, printed: progress, verb: 'drain'})
      // The command ends the line, so it pastes as it is.
      if (!flags.quiet) for (const r of drained.results) if (r.resume) process.stdout.write(`  ${checkpointNote(r.checkpoint)}resume with: ${r.resume}\n`)
    }
    process.exitCode = controlExitCode(report, true)
    return drained
  }
}

function withCheckpoint(stateDir: string, result: ControlResult, bin: string): DrainResult {
  if (result.status !== 'drained') return {...result, checkpoint: null, resume: null}
  const read = readRecord(stateDir, result.id)
  return {...result, checkpoint: read.ok ? read.record.checkpoint : null, resume: `${bin} resume ${result.id}`}
}

function checkpointNote(checkpoint: Checkpoint | null): string {
  if (!checkpoint) return ''
  const notes = [checkpoint.sessionId ? `${checkpoint.profile} session ${checkpoint.sessionId}` : '', checkpoint.forced ? 'forced' : ''].filter(Boolean)
  return notes.length > 0 ? `(${notes.join(', ')}) ` : ''
}
