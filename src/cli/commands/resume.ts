import * as Args from '@oclif/core/args'
import * as Flags from '@oclif/core/flags'
import {BaseCommand} from '../base-command.js'
import {DEFAULT_RESUME_PROMPT, ExitCode, isFinalStatus, noSuchTask, parseCount, usageError} from '../../api/values.js'
import type {ResumeResult} from '../../api/batch.js'
import type {FollowupSent} from '../../api/followups.js'
import {parseCost} from '../../api/budget.js'

export default class Resume extends BaseCommand {
  static override summary = 'Continue a task where it left off: a drained, stopped or lost one, or an agent that finished (a follow-up).'
  static override description = `Starts a new run that continues the task's checkpoint, in its original working directory. An agent's own conversation continues, with the original flags kept, e.g.:
- claude: claude -p --resume <session id> "<prompt>" with the original flags (output format, model, permissions);
- codex: codex exec --json resume <thread id> "<prompt>";
anything else (generic, or an agent this drover does not know) runs the same command again, with DROVER_RESUME=1 and the same DROVER_SESSION_DIR.

A task drained by its budget (reason "budget: …") is refused until given a higher one: resume --max-cost, --max-turns or --max-tokens sets the new limit for the session's total, which counts what every run before spent.

An agent task that succeeded (or failed, or was stopped) is resumed too: that is the ordinary follow-up, its conversation continued with --prompt "…" in the same session; \`status\` shows the line.

An agent still at work takes --prompt as a queued follow-up: when its run ends well, drover resumes the same session with it as the next run; several queue up and are delivered in order, one run each. --now delivers it at the next safe point instead (the run is drained for it, as \`drain\` does, then resumed with it). A run that fails, is stopped or cancelled drops the follow-ups queued (the drop is recorded); --keep keeps this one queued through a failure or a stop, for the next \`drover resume\`. \`drover followups TASK\` lists and withdraws them. A task that runs no agent takes no prompt (exit 2).

--interrupted resumes every lost task that was meant to be running (its runner vanished in a crash or reboot), but not tasks stopped on purpose: put it in an @reboot crontab line. A task that is running, was cancelled, or has no session to continue is refused with exit 4.`

  static override examples = [
    {description: 'Continue a drained agent', command: '<%= config.bin %> resume 7'},
    {description: 'A follow-up to an agent that finished', command: '<%= config.bin %> resume 7 --prompt "Good. Now add tests for it."'},
    {description: 'Continue with new instructions', command: '<%= config.bin %> resume fix-tests --prompt "Now also update the changelog."'},
    {description: 'Queue a follow-up for an agent still at work', command: '<%= config.bin %> resume 7 --prompt "Then run the linter and fix what it finds."'},
    {description: 'Deliver it at the next safe point', command: '<%= config.bin %> resume 7 --now --prompt "Stop there: the API changed, read docs/api.md first."'},
    {description: 'After a reboot (crontab)', command: '@reboot <%= config.bin %> resume --interrupted -q'},
  ]

  static override usage = ['<%= command.id %> [FLAGS] TASK...', '<%= command.id %> [FLAGS] --all | --interrupted | --group NAME']

  static override strict = false
  static override args = {task: Args.string({description: 'task ids or names (:latest for the newest task)'})}

  static override flags = {
    all: Flags.boolean({char: 'a', description: 'resume every drained task and every lost one that was meant to run'}),
    interrupted: Flags.boolean({description: 'resume every lost task whose desired state is still running'}),
    group: Flags.string({description: 'resume what --all would, of this group only: its drained tasks and its lost ones meant to run (NAME, or an id of one of its tasks)', helpValue: 'NAME'}),
    prompt: Flags.string({description: `what to tell a resumed agent (default: a follow-up still queued, else "${DEFAULT_RESUME_PROMPT}"); queued as a follow-up while the agent is at work`}),
    now: Flags.boolean({description: 'deliver the follow-up at the next safe point: drain the run for it, then resume with it', dependsOn: ['prompt']}),
    keep: Flags.boolean({description: 'keep the follow-up queued if the run fails or is stopped (dropped by default)', dependsOn: ['prompt']}),
    quiet: Flags.boolean({char: 'q', description: 'print nothing unless something went wrong'}),
    'max-cost': Flags.string({description: "a new budget for the session's total cost in US dollars (what it has spent counts)", helpValue: 'USD'}),
    'max-turns': Flags.integer({description: "a new budget for the session's total model turns (the turns so far count)", min: 1}),
    'max-tokens': Flags.string({description: "a new budget for the session's total tokens (the tokens so far count; e.g. 500k, 2M)", helpValue: 'N'}),
  }

  async run(): Promise<ResumeResult> {
    const {argv, flags} = await this.parse(Resume)
    if (flags.all && flags.interrupted) throw usageError('give --all or --interrupted, not both')
    if (flags.prompt !== undefined && flags.prompt.trim() === '') throw usageError('--prompt needs some text')
    const refs = argv as string[]
    if (flags.interrupted && refs.length > 0) throw usageError('give task ids or --interrupted, not both')
    if (flags.group !== undefined && flags.interrupted) throw usageError('give --group or --interrupted, not both')
    const drover = await this.drover(flags['state-dir'])
    const budget = {
      maxCostUsd: flags['max-cost'] === undefined ? undefined : parseCost(flags['max-cost']),
      maxTurns: flags['max-turns'],
      maxTokens: flags['max-tokens'] === undefined ? undefined : parseCount(flags['max-tokens'], '--max-tokens'),
    }
    const result = await drover.resumeMany({tasks: refs, all: flags.all, group: flags.group, interrupted: flags.interrupted, prompt: flags.prompt, now: flags.now || undefined, keep: flags.keep || undefined, budget})
    if (!this.jsonEnabled()) {
      for (const task of result.resumed) {
        if (task.status === 'failed') this.note(`drover: task ${task.id} failed to resume: ${task.reason}`)
        else if (!flags.quiet) process.stdout.write(`task ${task.id} resumed (run ${task.run})\n`)
      }
      for (const sent of result.queued) {
        const dropped = sent.task.droppedFollowups.find((d) => d.n === sent.queued!.n)
        if (dropped) this.note(`drover: task ${sent.id}'s follow-up ${dropped.n} was dropped: ${dropped.reason}`)
        else if (!flags.quiet) process.stdout.write(queuedLine(sent))
      }
      for (const r of result.refused) this.note(`drover: ${r.reason}`)
      for (const m of result.missing) this.note(`drover: ${noSuchTask(m)}`)
      // The one spelling of nothing, as stop, cancel and drain say it.
      if (result.resumed.length + result.queued.length + result.refused.length === 0 && result.missing.length === 0 && !flags.quiet) process.stderr.write('no tasks to resume\n')
    }
    // A follow-up asked for now that was dropped did not do what was asked.
    const failedToStart = result.resumed.some((r) => r.status === 'failed') || result.queued.some((q) => q.task.droppedFollowups.some((d) => d.n === q.queued!.n))
    process.exitCode = result.missing.length > 0 ? ExitCode.notFound : result.refused[0]?.exitCode ?? (failedToStart ? ExitCode.failed : 0)
    return result
  }
}

/** What became of a prompt for a task at work, in one line. */
function queuedLine(sent: FollowupSent): string {
  const {n, now} = sent.queued!
  const task = sent.task
  if (sent.delivered) return `task ${sent.id} resumed with follow-up ${n} (run ${task.run})\n`
  if (!now || task.status === 'queued') return `task ${sent.id}: follow-up ${n} queued for when run ${task.run} ends (drover followups ${sent.id} lists them)\n`
  if (isFinalStatus(task.status)) return `task ${sent.id} is ${task.status}; follow-up ${n} stays queued for drover resume ${sent.id}\n`
  return `task ${sent.id}: follow-up ${n} queued; the run has not stopped for it yet (still ${task.status})\n`
}
