import * as Args from '@oclif/core/args'
import * as Flags from '@oclif/core/flags'
import {BaseCommand} from '../base-command.js'
import type {DiffResult, PairDiffResult} from '../../api/worktrees.js'
import {usageError} from '../../api/values.js'

export default class Diff extends BaseCommand {
  static override summary = "Show what a task changed in its worktree, against the commit it started from; or how two tasks' work differs."
  static override description = `For a task started with --worktree: git's diff of the worktree as it is now (its commits, changes not committed, and new files not yet added) against the base commit the task's branch started from. The worktree's own index is never touched. When the worktree folder is gone (deleted by hand) but the branch is not, the branch is diffed and stderr says so. Paths after -- limit the diff (git pathspecs, relative to the repository's top). A task without a worktree exits 2.

With two tasks (drover diff A B): git's diff from A's work to B's, each as it is now (committed or not, new files included) — for two agents given one job from one base, where their answers differ. Both need a worktree in the same repository (exit 2 otherwise); stderr says when they started from different commits. --json then prints {ids, branches, baseCommits, sameBase, stat, nameOnly, paths, present, diff}.

On a terminal the diff goes through a pager, as git's does: $DROVER_PAGER, else $PAGER, else less (with LESS=FRX unless LESS is set, so a short diff just prints); an empty pager, cat, or --no-pager prints it directly. Colour follows drover's rule (a terminal, no NO_COLOR; --color/--no-color decide). --json prints {id, branch, base, baseCommit, path, stat, nameOnly, paths, present, diff}.`

  static override examples = [
    {description: 'What did the agent change?', command: '<%= config.bin %> diff fix-tests'},
    {description: 'Files and line counts only', command: '<%= config.bin %> diff --stat 3'},
    {description: 'Only what changed under src/', command: '<%= config.bin %> diff fix-tests -- src/'},
    {description: 'The names of the files changed', command: '<%= config.bin %> diff --name-only 3'},
    {description: 'Apply the changes somewhere else', command: '<%= config.bin %> diff 3 | git apply'},
    {description: 'Where two agents given the same job differ', command: '<%= config.bin %> diff claude-fix codex-fix'},
  ]

  static override usage = ['<%= command.id %> [FLAGS] TASK [-- PATH...]', '<%= command.id %> [FLAGS] TASK OTHER [-- PATH...]']

  static override args = {
    task: Args.string({description: 'task id or name (:latest for the newest task)', required: true}),
    other: Args.string({description: 'a second task: the diff goes from TASK\'s work to this one\'s'}),
  }

  static override flags = {
    stat: Flags.boolean({description: "git's --stat: files changed and lines added and removed, not the patch", exclusive: ['name-only']}),
    'name-only': Flags.boolean({description: 'only the paths of the files changed, one a line', exclusive: ['stat']}),
    pager: Flags.boolean({description: 'page the diff on a terminal ($DROVER_PAGER, $PAGER, else less); --no-pager prints it directly', allowNo: true, default: true}),
  }

  async run(): Promise<DiffResult | PairDiffResult> {
    // Everything after `--` is a path, verbatim: oclif must not take `-- -x` for a flag.
    const dash = this.argv.indexOf('--')
    const paths = dash === -1 ? [] : this.argv.slice(dash + 1)
    const {args, flags} = await this.parse(Diff, dash === -1 ? this.argv : this.argv.slice(0, dash))
    if (paths.some((p) => p.trim() === '')) throw usageError('an empty path after --: name files or folders, e.g. drover diff 3 -- src/')
    const drover = await this.drover(flags['state-dir'])
    const opts = {stat: flags.stat, nameOnly: flags['name-only'], paths, color: !this.jsonEnabled() && this.color(flags.color)}
    if (args.other !== undefined) return this.pair(await drover.diffTasks(args.task, args.other, opts), flags.pager)
    const result = await drover.diff(args.task, opts)
    if (!result.present) {
      this.note(`drover: the worktree ${result.path} is missing (deleted by hand?): this is the diff of its branch ${result.branch}, its commits only; changes not committed went with the folder (drover rm ${result.id} cleans up)`)
    }
    if (!this.jsonEnabled()) {
      const {pageOut} = await import('../pager.js')
      await pageOut(result.diff, flags.pager && process.stdout.isTTY === true)
    }
    return result
  }

  private async pair(result: PairDiffResult, pager: boolean): Promise<PairDiffResult> {
    const [a, b] = result.ids
    if (!result.sameBase) this.note(`drover: tasks ${a} and ${b} started from different commits (${result.baseCommits[0].slice(0, 12)}, ${result.baseCommits[1].slice(0, 12)}): the diff holds what their bases differ in too`)
    result.present.forEach((present, i) => {
      if (!present) this.note(`drover: task ${result.ids[i]}'s worktree is missing: its side is its branch ${result.branches[i]}, commits only`)
    })
    if (!this.jsonEnabled()) {
      const {pageOut} = await import('../pager.js')
      await pageOut(result.diff, pager && process.stdout.isTTY === true)
    }
    return result
  }
}
