// oclif's help, with three changes: `drover help nosuch` ends like every
// other drover mistake — one line on stderr, exit 2 — instead of oclif's boxed
// "Error: Command nosuch not found." (see hooks/command-not-found.ts); a
// command's examples come right after its usage, since most readers come for
// one; and flag groups (helpGroup) are shown in the order the command
// declares them — start's ~40 flags as Limits, Queue, Agents, Worktree, Retry,
// Hooks, Slurm — with the GLOBAL flags last, instead of in order of their
// alphabetically first flag.

import {CommandHelp, Help} from '@oclif/core/help'
import {suggest} from '../api/suggest.js'

type Section = ReturnType<CommandHelp['sections']>[number]
type FlagList = Parameters<CommandHelp['groupFlags']>[0]

class DroverCommandHelp extends CommandHelp {
  protected override sections(): Section[] {
    const sections = super.sections()
    const examples = sections.findIndex((s) => s.header === 'EXAMPLES')
    const usage = sections.findIndex((s) => s.header === (this.opts.usageHeader || 'USAGE'))
    if (examples === -1 || usage === -1) return sections
    const [moved] = sections.splice(examples, 1)
    sections.splice(usage + 1, 0, moved)
    return sections
  }

  protected override groupFlags(flags: FlagList): ReturnType<CommandHelp['groupFlags']> {
    const {flagGroups, mainFlags} = super.groupFlags(flags)
    const declared = Object.values(this.command.flags ?? {}).map((flag) => flag.helpGroup)
    const rank = (group: string) => (group === 'GLOBAL' ? Number.MAX_SAFE_INTEGER : declared.indexOf(group))
    const ordered = Object.fromEntries(Object.entries(flagGroups).sort(([a], [b]) => rank(a) - rank(b)))
    return {flagGroups: ordered, mainFlags}
  }
}

export default class DroverHelp extends Help {
  protected override CommandHelpClass = DroverCommandHelp

  override async showHelp(argv: string[]): Promise<void> {
    const subject = argv.find((arg) => !arg.startsWith('-'))
    if (subject !== undefined && !this.config.findCommand(subject) && !this.config.findTopic(subject)) {
      // only what help lists: a hidden command (task-refs, completion's) is never a guess
      const commands = this.config.commands.filter((c) => !c.hidden && !c.id.includes(':')).map((c) => c.id)
      const suggestion = suggest(subject, commands)
      process.stderr.write(
        `drover: no help for '${subject}': not a drover command${suggestion ? ` — did you mean ${suggestion}?` : ''} (see: ${this.config.bin} --help)\n`,
      )
      process.exit(2)
    }
    await super.showHelp(argv)
  }
}
