import {Args, Flags} from '@oclif/core'
import {BaseCommand} from '../base-command.js'
import type {ControlResult} from '../../tasks/control.js'
import {formatDuration, parseDuration} from '../../base/parse.js'

import {sessionRefusal} from '../../agents/profiles.js'
import type {Checkpoint, DrainMode} from '../../state/record.js'
import {selectTasks} from '../../tasks/select.js'
import {readRecord} from '../../state/store.js'
import {DEFAULT_DRAIN_GRACE_MS, DEFAULT_DRAIN_KILL_AFTER_MS} from '../../process/stop-plan.js'
import {controlAll, controlExitCode, printControlReport, type ControlReport} from '../render/control-report.js'

// The promise drain makes: it returns within grace + kill-after + this, whatever the workers do.
const DRAIN_BOUND_SLACK_MS = 2000

/**
 * One task's outcome, with what it takes to continue it when it ended drained:
 * `resume` is the command that continues it, or null with `resumeRefused`
 * saying why it cannot be (no session yet, a run that saved none).
 */
export type DrainResult = ControlResult & {checkpoint: Checkpoint | null; resume: string | null; resumeRefused: string | null}
export type DrainReport = Omit<ControlReport, 'results'> & {results: DrainResult[]}

export default class Drain extends BaseCommand {
  static override summary = 'Checkpoint running tasks so they can be resumed later.'
  static override description = `For every selected task at once: writes STOP into its control file and waits up to --grace for the worker to save what it has and exit, then SIGTERM to the whole tree, then SIGKILL after --kill-after. Returns within grace + kill-after + 2 s, whatever the workers do; Ctrl-C ends the wait, not the drain (exit 130).

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
      if (!flags.quiet) for (const r of drained.results) if (r.checkpoint) process.stdout.write(`  ${checkpointLine(r)}\n`)
    }
    process.exitCode = controlExitCode(report, true)
    return drained
  }
}

function withCheckpoint(stateDir: string, result: ControlResult, bin: string): DrainResult {
  if (result.status !== 'drained') return {...result, checkpoint: null, resume: null, resumeRefused: null}
  const read = readRecord(stateDir, result.id)
  if (!read.ok) return {...result, checkpoint: null, resume: null, resumeRefused: read.error}
  // The same check `resume` makes: a hint printed here is one that works.
  const refusal = sessionRefusal(read.record)
  return {...result, checkpoint: read.record.checkpoint, resume: refusal ? null : `${bin} resume ${result.id}`, resumeRefused: refusal}
}

const HOW: Record<DrainMode, string> = {cooperative: 'ended on its own', 'safe-point': 'signalled between tool calls', forced: 'forced'}

/** One line per drained task, the command to paste last. */
function checkpointLine(r: DrainResult): string {
  const c = r.checkpoint!
  const facts = [c.sessionId ? `${c.profile} session ${c.sessionId}` : '', `${HOW[c.mode]}${c.tookMs !== null ? ` after ${formatDuration(c.tookMs)}` : ''}`]
  const head = `task ${r.id}: ${facts.filter(Boolean).join(', ')}`
  return r.resume ? `${head}; resume with: ${r.resume}` : `${head}; not resumable: ${r.resumeRefused}`
}
