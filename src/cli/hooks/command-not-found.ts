// A command line oclif cannot map to a command: a one-line error with exit 2,
// no interactive prompt (drover runs from scripts and cron as much as by hand).
// oclif joins the words it tried as a topic path with ':' ('log 1' becomes the
// id 'log:1'); that syntax is oclif's, never drover's, so it is split back into
// the word the user typed and the arguments after it before anything is said.

import type {Hook} from '@oclif/core/hooks'
import {suggest} from '../../api/suggest.js'

const hook: Hook<'command_not_found'> = async function (options) {
  const [typed, ...words] = options.id.split(':')
  const commands = options.config.commandIDs.filter((id) => !id.includes(':'))
  const see = `(see: ${options.config.bin} --help)`
  let message: string
  if (commands.includes(typed)) {
    // A real command given words it takes no arguments for: `drover list running`.
    const flags = Object.keys(options.config.findCommand(typed)?.flags ?? {})
    message = `${typed} takes no arguments, got '${words.join(' ')}'${await strayArgumentHint(typed, words, flags, options.config.bin)} (see: ${options.config.bin} ${typed} --help)`
  } else {
    // only what help lists: a hidden command (task-refs, completion's) is for scripts, never a guess
    const suggestion = suggest(typed, options.config.commands.filter((c) => !c.hidden && !c.id.includes(':')).map((c) => c.id))
    message = `'${typed}' is not a drover command${suggestion ? ` — did you mean ${suggestion}?` : ''} ${see}`
  }
  process.stderr.write(`drover: ${message}\n`)
  process.exit(2)
}

/** The flag the user most likely meant: a status word belongs to --status. */
async function strayArgumentHint(command: string, words: string[], flags: string[], bin: string): Promise<string> {
  const {TASK_STATUSES} = await import('../../api/values.js')
  const statusWords = new Set<string>([...TASK_STATUSES, 'active', 'final', 'corrupt'])
  if (flags.includes('status') && words.length > 0 && words.every((word) => statusWords.has(word))) {
    return ` — did you mean ${bin} ${command} --status ${words.join(',')}?`
  }
  if (command === 'list' && words.length === 1) return ` — to see one task: ${bin} status ${words[0]}`
  return ''
}

export default hook
