import * as Args from '@oclif/core/args'
import * as Flags from '@oclif/core/flags'
import {BaseCommand} from '../base-command.js'
import {ExitCode, noSuchTask, parseTaskRef, usageError} from '../../api/values.js'
import type {RmResult} from '../../api/drover.js'
import {painter} from '../render/color.js'
import {removedLines} from '../render/prune-view.js'

export default class Rm extends BaseCommand {
  static override summary = 'Remove named ended tasks and their logs.'
  static override description = `Removes each named task's folder — record, output, events, session — the way prune does: only a task that has ended (succeeded, failed, stopped, cancelled, drained, lost), never one that is starting, running or stopping, and never one whose runner is still alive whatever its record says. A named task is removed even with a checkpoint (naming it is the choice), and a corrupt one too. A task's git worktree (start --worktree) follows prune's rule: removed with its task when clean, its branch deleted only when it has no unmerged commits; uncommitted changes keep the task (exit 4) unless --force, which discards them after a warning on stderr (the branch goes by the same rule: kept with any unmerged commit, as with --include-worktrees), and unmerged commits keep it unless --include-worktrees (the worktree goes, the branch stays). A branch counts as merged when its tip is in the repository's HEAD, the base or the branch it was merged into, and also when every change of it is there already: a squash merge, a rebase, cherry-picks (git cherry, patch ids). --discard throws the work away instead: the worktree whatever it holds and the branch with every unmerged commit, each named in the output with the command that brings them back (git branch BRANCH SHA, until git prunes unreachable commits); a branch that existed before the task (--existing-branch) is never deleted.

--group NAME removes every task of that group (a fan-out's attempts) as if each were named; after \`drover merge\` of the attempt that won, \`rm --group NAME --discard\` throws the others' work away (the winner's branch is merged, so nothing of it is lost).

Every ref is checked before anything is removed. A task that cannot be removed is left alone and named on stderr with exit 4; an unknown one exits 3; the others are removed. It takes turns with prune through the same lock, never follows a symlink and never reuses an id. --json prints prune's shape plus "missing".`

  static override examples = [
    {description: 'Remove two finished tasks', command: '<%= config.bin %> rm 4 build'},
    {description: 'See what would go', command: '<%= config.bin %> rm --dry-run 4'},
    {description: 'Keep the attempt that won (merged), throw the rest of its group away', command: '<%= config.bin %> merge auth-claude-2 && <%= config.bin %> rm --group auth --discard'},
  ]

  static override usage = ['<%= command.id %> [FLAGS] TASK...', '<%= command.id %> [FLAGS] --group NAME']

  static override strict = false
  static override args = {task: Args.string({description: 'task ids or names (:latest for the newest task)'})}

  static override flags = {
    'dry-run': Flags.boolean({description: 'print what would be removed and remove nothing'}),
    group: Flags.string({description: 'every task of this group (NAME, or an id of one of its tasks)', helpValue: 'NAME'}),
    'include-worktrees': Flags.boolean({
      description: "also remove tasks whose worktree branch has unmerged commits: the worktree goes, the branch stays (a worktree with uncommitted changes always keeps its task)",
    }),
    force: Flags.boolean({
      char: 'f',
      description: "also remove a worktree with uncommitted changes, discarding them (warned on stderr first); a branch with unmerged commits is kept, as with --include-worktrees",
    }),
    discard: Flags.boolean({
      description: "throw the task's work away: its worktree goes whatever it holds, and its branch is deleted with its unmerged commits, each named in the output (git branch BRANCH SHA brings them back until git prunes them)",
      exclusive: ['include-worktrees', 'force'],
    }),
    quiet: Flags.boolean({char: 'q', description: 'print nothing unless something went wrong'}),
  }

  async run(): Promise<RmResult> {
    const {argv, flags} = await this.parse(Rm)
    const refs = argv as string[]
    if (refs.length === 0 && flags.group === undefined) throw usageError('no task given: name the tasks to remove (ids or names), or --group NAME')
    if (refs.length > 0 && flags.group !== undefined) throw usageError('give task ids or --group, not both')
    for (const ref of refs) parseTaskRef(ref)
    const drover = await this.drover(flags['state-dir'])
    if (flags.force) {
      // The warning comes before anything is discarded: a dry run names the worktrees whose uncommitted changes would go.
      const planned = flags['dry-run'] ? null : await drover.rm(refs, {dryRun: true, force: true, group: flags.group})
      for (const task of planned?.removed ?? []) {
        const worktree = task.worktree
        if (worktree?.note?.startsWith('uncommitted changes')) {
          // a branch with no commits of its own (or only merged ones) goes as prune's rule says: the warning says which
          const branch = worktree.branchDeleted ? `branch ${worktree.branch} goes too (it has no unmerged commits)` : `branch ${worktree.branch} and its commits stay`
          this.note(`drover: warning: --force discards the uncommitted changes in ${worktree.path} (task ${task.id}); ${branch}`)
        }
      }
    }
    const result = await drover.rm(refs, {dryRun: flags['dry-run'], includeWorktrees: flags['include-worktrees'], force: flags.force, discard: flags.discard, group: flags.group})
    const {missing} = result
    if (!this.jsonEnabled()) {
      if (!flags.quiet) for (const line of removedLines(result, painter(this.color(flags.color)))) process.stdout.write(`${line}\n`)
      for (const skip of result.skipped) this.note(`drover: cannot remove task ${skip.id}: ${skip.reason}`)
      for (const {error} of result.errors) this.note(`drover: ${error}`)
      for (const m of missing) this.note(`drover: ${noSuchTask(m)}`)
    }
    process.exitCode =
      missing.length > 0 ? ExitCode.notFound : result.skipped.length > 0 ? ExitCode.conflict : result.errors.length > 0 ? ExitCode.failed : 0
    return result
  }
}
