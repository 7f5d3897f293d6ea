import * as Args from '@oclif/core/args'
import {BaseCommand} from '../base-command.js'
import {completeTaskRefs, formatCandidates, type RefCandidate} from '../../api/completion.js'

// What the completion scripts call on Tab for a TASK argument. bin/run.js
// answers it without oclif (src/cli/completion/refs-answer.ts); this is the
// same answer when oclif runs it (bin/dev.mjs, or a command line the fast path
// leaves to oclif).
export default class TaskRefs extends BaseCommand {
  static override hidden = true
  static override summary = 'The task refs shell completion offers (ids, names, :latest), one `ref<TAB>description` a line.'
  static override args = {word: Args.string({description: 'what is typed so far'})}

  async run(): Promise<RefCandidate[]> {
    const {args, flags} = await this.parse(TaskRefs)
    const candidates = await completeTaskRefs({stateDir: flags['state-dir'], word: args.word})
    if (!this.jsonEnabled()) process.stdout.write(formatCandidates(candidates))
    return candidates
  }
}
