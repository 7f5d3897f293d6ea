import * as Args from '@oclif/core/args'
import * as Flags from '@oclif/core/flags'
import {BaseCommand} from '../base-command.js'
import {mergeSentence, type MergeResult} from '../../api/merge.js'

export default class Merge extends BaseCommand {
  static override summary = "Bring an ended --worktree task's branch into the branch it started from."
  static override description = `For a task started with --worktree, once it has ended: merges its branch into the branch it started from (the branch --base named, or the one checked out when it started), or into --into BRANCH. The merge is made in the checkout where that branch is checked out, as git would make it there: a fast-forward when it can be, else a merge commit. --squash makes one commit of all the work instead; --rebase rebases the task's branch onto the target (in the task's worktree) and fast-forwards the target to it.

Refused with exit 4, changing nothing: a task that has not ended (wait for it, drain or stop it), a target checkout with uncommitted changes or a merge or rebase under way, a target branch checked out nowhere, and a worktree holding work not committed (commit it there, or --commit makes one commit of it first). A conflict leaves the repository exactly as git leaves it — conflict markers in the files, the merge or rebase under way — says which files and how to resolve or undo it, and exits 4: never a half-merge passed off as done.

The merge is recorded on the task: status shows it, --json has worktree.merged {into, mode, commit, commits, at}, and the events journal a merged event (a conflict: merge-conflict). A branch merged any way — this one, a squash or a rebase by hand — counts as merged for rm and prune. --json prints {id, branch, into, mode, checkout, commit, commits, fastForward, committedWork}.`

  static override examples = [
    {description: "Bring the agent's work into the branch it started from", command: '<%= config.bin %> merge fix-tests'},
    {description: 'One commit of it all', command: '<%= config.bin %> merge --squash 3'},
    {description: 'Rebase onto main first, then fast-forward', command: '<%= config.bin %> merge --rebase --into main 3'},
  ]

  static override usage = ['<%= command.id %> [FLAGS] TASK']

  static override args = {task: Args.string({description: 'task id or name (:latest for the newest task)', required: true})}

  static override flags = {
    squash: Flags.boolean({description: 'one commit of all the branch\'s work (git merge --squash, then a commit naming the task)', exclusive: ['rebase']}),
    rebase: Flags.boolean({description: "rebase the task's branch onto the target in its worktree, then fast-forward the target", exclusive: ['squash']}),
    into: Flags.string({description: 'the branch to merge into (default: the branch the task started from)'}),
    commit: Flags.boolean({description: 'commit the work the worktree holds uncommitted first (one commit), rather than refuse'}),
    quiet: Flags.boolean({char: 'q', description: 'print nothing unless something went wrong'}),
  }

  async run(): Promise<MergeResult> {
    const {args, flags} = await this.parse(Merge)
    const drover = await this.drover(flags['state-dir'])
    const result = await drover.merge(args.task, {mode: flags.squash ? 'squash' : flags.rebase ? 'rebase' : 'merge', into: flags.into, commit: flags.commit})
    if (!this.jsonEnabled() && !flags.quiet) process.stdout.write(mergeSentence(result) + '\n')
    return result
  }
}
