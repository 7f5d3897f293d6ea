import * as Args from '@oclif/core/args'
import * as Flags from '@oclif/core/flags'
import {BaseCommand} from '../base-command.js'
import type {DiffResult} from '../../api/worktrees.js'

export default class Diff extends BaseCommand {
  static override summary = "Show what a task changed in its worktree, against the commit it started from."
  static override description = `For a task started with --worktree: git's diff of the worktree as it is now (its commits, changes not committed, and new files not yet added) against the base commit the task's branch started from. The worktree's own index is never touched. When the worktree folder is gone (deleted by hand) but the branch is not, the branch is diffed and stderr says so. A task without a worktree exits 1.

Colour follows drover's rule (a terminal, no NO_COLOR; --color/--no-color decide). --json prints {id, branch, base, baseCommit, path, stat, present, diff}.`

  static override examples = [
    {description: 'What did the agent change?', command: '<%= config.bin %> diff fix-tests'},
    {description: 'Files and line counts only', command: '<%= config.bin %> diff --stat 3'},
    {description: 'Apply the changes somewhere else', command: '<%= config.bin %> diff 3 | git apply'},
  ]

  static override args = {task: Args.string({description: 'task id or name (:latest for the newest task)', required: true})}

  static override flags = {
    stat: Flags.boolean({description: "git's --stat: files changed and lines added and removed, not the patch"}),
  }

  async run(): Promise<DiffResult> {
    const {args, flags} = await this.parse(Diff)
    const drover = await this.drover(flags['state-dir'])
    const result = await drover.diff(args.task, {stat: flags.stat, color: !this.jsonEnabled() && this.color(flags.color)})
    if (!result.present) {
      this.note(`drover: the worktree ${result.path} is missing (deleted by hand?): this is the diff of its branch ${result.branch}, its commits only; changes not committed went with the folder (drover rm ${result.id} cleans up)`)
    }
    if (!this.jsonEnabled()) process.stdout.write(result.diff)
    return result
  }
}
