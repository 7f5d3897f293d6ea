// oclif's help, with one change: `drover help nosuch` ends like every other
// drover mistake — one line on stderr, exit 2 — instead of oclif's boxed
// "Error: Command nosuch not found." (see hooks/command-not-found.ts).

import {Help} from '@oclif/core/help'
import {suggest} from '../api/suggest.js'

export default class DroverHelp extends Help {
  override async showHelp(argv: string[]): Promise<void> {
    const subject = argv.find((arg) => !arg.startsWith('-'))
    if (subject !== undefined && !this.config.findCommand(subject) && !this.config.findTopic(subject)) {
      const commands = this.config.commandIDs.filter((id) => !id.includes(':'))
      const suggestion = suggest(subject, commands)
      process.stderr.write(
        `drover: no help for '${subject}': not a drover command${suggestion ? ` — did you mean ${suggestion}?` : ''} (see: ${this.config.bin} --help)\n`,
      )
      process.exit(2)
    }
    await super.showHelp(argv)
  }
}
