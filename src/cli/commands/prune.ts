import * as Flags from '@oclif/core/flags'
import {BaseCommand} from '../base-command.js'
import {DEFAULT_LOCK_WAIT_MS, hasCriterion, parseDuration, parsePruneStatuses, parseSize, usageError, type PruneOptions, type PruneResult} from '../../api/values.js'
import {painter} from '../render/color.js'
import {PROGRESS_THRESHOLD, pruneLines, withProgress} from '../render/prune-view.js'

export default class Prune extends BaseCommand {
  static override summary = 'Remove finished tasks and their logs, safely and quietly enough for cron.'
  static override description = `Removes only ended tasks (succeeded, failed, stopped, cancelled, drained, lost): never one that is starting, running or stopping, and never one whose runner is still alive whatever its record says. Give at least one rule; with none, prune refuses rather than guess.

How the rules combine: among the ended tasks --status allows, a task is removed when ANY rule picks it — --keep N picks all but the newest N, --older-than D those that ended more than D ago, --max-total-size S the oldest until the whole state dir holds at most S. Drained and lost tasks that still have a checkpoint are someone's unfinished work: they are kept unless --include-checkpoints is given.

A task whose task.json cannot be read (corrupt) has no status or end time for a rule to judge: prune lists it and keeps it. --include-corrupt removes every such record (never one whose runner is alive or that start is still creating); it also works alone.

A task started with --worktree takes its git worktree with it, and its branch when the branch has no commits beyond its base or they are merged (into the repository's HEAD or the base). A worktree with uncommitted changes keeps its task, always; a branch with unmerged commits keeps it too, unless --include-worktrees, which removes the clean worktree and keeps the branch. No commit is ever lost.

A task disappears whole: its folder is renamed out of sight first, then deleted; symlinks are removed as links, their targets never touched. Task ids are never reused. Two prunes at once take turns; one that cannot get its turn within --lock-wait exits 4 with a one-line message and removes nothing. Exit 0 also when there was nothing to do; exit 1 when a removal failed.

Ready crontab lines (crontab -e):
  0 3 * * * drover prune --older-than 7d -q
  @reboot drover resume --interrupted -q`

  static override examples = [
    {description: 'Nightly from cron: remove tasks that ended over a week ago, silently', command: '0 3 * * * <%= config.bin %> prune --older-than 7d -q'},
    {description: 'Keep only the 100 newest ended tasks', command: '<%= config.bin %> prune --keep 100'},
    {description: 'Stay under a disk budget, oldest tasks first', command: '<%= config.bin %> prune --max-total-size 5GiB'},
    {description: 'See which failed tasks older than 2 days would go', command: '<%= config.bin %> prune --older-than 2d --status failed,lost --dry-run'},
    {description: 'Remove the records that cannot be read', command: '<%= config.bin %> prune --include-corrupt'},
  ]

  static override flags = {
    keep: Flags.integer({description: 'keep the newest N ended tasks, remove the rest', min: 0}),
    'older-than': Flags.string({description: 'remove tasks that ended more than this long ago (e.g. 7d, 12h, 0s)'}),
    status: Flags.string({description: 'only tasks in these ended statuses (comma-separated)', multiple: true}),
    'max-total-size': Flags.string({description: 'remove the oldest ended tasks until the state dir is at most this size (e.g. 5GiB)'}),
    'include-checkpoints': Flags.boolean({description: 'also remove drained and lost tasks that still have a checkpoint'}),
    'include-corrupt': Flags.boolean({description: 'also remove tasks whose task.json cannot be read (listed and kept otherwise)'}),
    'include-worktrees': Flags.boolean({
      description: "also remove tasks whose worktree branch has unmerged commits: the worktree goes, the branch stays (a worktree with uncommitted changes always keeps its task)",
    }),
    'dry-run': Flags.boolean({description: 'print what would be removed and remove nothing'}),
    quiet: Flags.boolean({char: 'q', description: 'print nothing unless something went wrong'}),
    'lock-wait': Flags.string({description: `how long to wait for another prune to finish, e.g. 2m (default ${DEFAULT_LOCK_WAIT_MS / 1000}s)`}),
  }

  async run(): Promise<PruneResult> {
    const {flags} = await this.parse(Prune)
    const options: PruneOptions = {
      keep: flags.keep,
      olderThanMs: flags['older-than'] === undefined ? undefined : parseDuration(flags['older-than'], '--older-than', {allowZero: true}),
      maxTotalBytes: flags['max-total-size'] === undefined ? undefined : parseSize(flags['max-total-size'], '--max-total-size', {allowZero: true}),
      statuses: parsePruneStatuses(flags.status),
      includeCheckpoints: flags['include-checkpoints'],
      includeCorrupt: flags['include-corrupt'],
      includeWorktrees: flags['include-worktrees'],
      dryRun: flags['dry-run'],
      lockWaitMs: flags['lock-wait'] === undefined ? undefined : parseDuration(flags['lock-wait'], '--lock-wait', {allowZero: true}),
    }
    if (!hasCriterion(options)) {
      throw usageError('say what to prune: --keep N, --older-than DURATION, --max-total-size SIZE or --include-corrupt (e.g. drover prune --older-than 7d; --older-than 0s for every ended task)')
    }
    const drover = await this.drover(flags['state-dir'])
    const silent = flags.quiet || this.jsonEnabled()
    const color = this.color(flags.color)
    const fancy = !silent && process.stdout.isTTY === true && process.env.TERM !== 'dumb'
    let progress = false
    const result = await drover.prune({
      ...options,
      around: async (count, removeAll) => {
        progress = fancy && count > PROGRESS_THRESHOLD
        await (progress ? withProgress(count, color, removeAll) : removeAll(() => {}))
      },
    })
    for (const {error} of result.errors) this.note(`drover: ${error}`)
    if (result.errors.length > 0) process.exitCode = 1
    if (!silent) process.stdout.write(pruneLines(result, painter(color), {perTask: !progress}).join('\n') + '\n')
    return result
  }
}
