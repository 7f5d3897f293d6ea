import {Args, Flags} from '@oclif/core'
import {BaseCommand} from '../base-command.js'
import {DroverError, ExitCode, usageError} from '../../base/errors.js'
import type {TaskRecord} from '../../state/record.js'
import {DEFAULT_RESUME_PROMPT, resumeRefusal, resumeTask, wasInterrupted} from '../../tasks/resume.js'
import {selectTasks} from '../../tasks/select.js'
import {parseCost} from '../../api/budget.js'
import {taskJson, type TaskJson} from '../../api/task-json.js'

export interface ResumeResult {
  resumed: TaskJson[]
  refused: {id: number; reason: string; exitCode: number}[]
  missing: {id: string; found: false}[]
}

export default class Resume extends BaseCommand {
  static override summary = 'Continue drained, stopped or lost tasks where they left off.'
  static override description = `Starts a new run that continues the task's checkpoint, in its original working directory:
- claude: claude -p --resume <session id> "<prompt>" with the original flags (output format, model, permissions);
- codex: codex exec --json resume <thread id> "<prompt>";
- anything else: the same command again, with DROVER_RESUME=1 and the same DROVER_SESSION_DIR.

A task drained by its budget (reason "budget: …") is refused until given a higher one: resume --max-cost, --max-turns or --max-tokens sets the new limit for the session's total, which counts what every run before spent.

--interrupted resumes every lost task that was meant to be running (its runner vanished in a crash or reboot), but not tasks stopped on purpose: put it in an @reboot crontab line. A task that is running, was cancelled, or has no session to continue is refused with exit 4.`

  static override examples = [
    {description: 'Continue a drained agent', command: '<%= config.bin %> resume 7'},
    {description: 'Continue with new instructions', command: '<%= config.bin %> resume fix-tests --prompt "Now also update the changelog."'},
    {description: 'After a reboot (crontab)', command: '@reboot <%= config.bin %> resume --interrupted -q'},
  ]

  static override usage = ['<%= command.id %> [FLAGS] TASK...', '<%= command.id %> [FLAGS] --all | --interrupted']

  static override strict = false
  static override args = {task: Args.string({description: 'task ids or names'})}

  static override flags = {
    all: Flags.boolean({char: 'a', description: 'resume every drained task and every lost one that was meant to run'}),
    interrupted: Flags.boolean({description: 'resume every lost task whose desired state is still running'}),
    prompt: Flags.string({description: `what to tell a resumed agent (default: "${DEFAULT_RESUME_PROMPT}")`}),
    quiet: Flags.boolean({char: 'q', description: 'print nothing unless something went wrong'}),
    'max-cost': Flags.string({description: "a new budget for the session's total cost in US dollars (what it has spent counts)", helpValue: 'USD'}),
    'max-turns': Flags.integer({description: "a new budget for the session's total model turns (the turns so far count)", min: 1}),
    'max-tokens': Flags.integer({description: "a new budget for the session's total tokens (the tokens so far count)", min: 1}),
  }

  async run(): Promise<ResumeResult> {
    const {argv, flags} = await this.parse(Resume)
    if (flags.all && flags.interrupted) throw usageError('give --all or --interrupted, not both')
    if (flags.prompt !== undefined && flags.prompt.trim() === '') throw usageError('--prompt needs some text')
    const refs = argv as string[]
    if (flags.interrupted && refs.length > 0) throw usageError('give task ids or --interrupted, not both')
    const stateDir = await this.openStateDir(flags['state-dir'])
    const selection = await selectTasks(stateDir, refs, {all: flags.all || flags.interrupted, allStatuses: ['drained', 'lost', 'failed'], what: 'resume'})
    const chosen = selection.tasks.filter((task) => {
      if (flags.interrupted) return wasInterrupted(task)
      if (flags.all) return task.status === 'drained' || wasInterrupted(task)
      return true
    })
    const prompt = flags.prompt ?? DEFAULT_RESUME_PROMPT
    const budget = {
      maxCostUsd: flags['max-cost'] === undefined ? undefined : parseCost(flags['max-cost']),
      maxTurns: flags['max-turns'],
      maxTokens: flags['max-tokens'],
    }
    const result: ResumeResult = {resumed: [], refused: [], missing: selection.missing.map((id) => ({id, found: false}))}
    // Concurrently: a machine coming back from a reboot resumes all its agents at once.
    await Promise.all(
      chosen.map(async (task) => {
        // Refused loudly, --all and --interrupted too: a task that was meant to be
        // running and cannot come back is exactly what a cron job's mail is for.
        const refusal = resumeRefusal(task)
        if (refusal) {
          result.refused.push({id: task.id, reason: refusal, exitCode: ExitCode.conflict})
          return
        }
        try {
          const record = await resumeTask(stateDir, task, prompt, {budget})
          result.resumed.push(taskJson(record))
          this.report(record, flags.quiet)
        } catch (error) {
          if (!(error instanceof DroverError)) throw error
          result.refused.push({id: task.id, reason: error.message, exitCode: error.exitCode})
        }
      }),
    )
    result.resumed.sort((a, b) => a.id - b.id)
    if (!this.jsonEnabled()) {
      for (const r of result.refused) this.note(`drover: ${r.reason}`)
      for (const m of result.missing) this.note(`drover: no such task: ${m.id}`)
      // The one spelling of nothing, as stop, cancel and drain say it.
      if (chosen.length === 0 && result.missing.length === 0 && !flags.quiet) process.stderr.write('no tasks to resume\n')
    }
    const failedToStart = result.resumed.some((r) => r.status === 'failed')
    process.exitCode = result.missing.length > 0 ? ExitCode.notFound : result.refused[0]?.exitCode ?? (failedToStart ? ExitCode.failed : 0)
    return result
  }

  private report(record: TaskRecord, quiet: boolean): void {
    if (this.jsonEnabled()) return
    if (record.status === 'failed') this.note(`drover: task ${record.id} failed to resume: ${record.reason}`)
    else if (!quiet) process.stdout.write(`task ${record.id} resumed (run ${record.runs.length})\n`)
  }
}
