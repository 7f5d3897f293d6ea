import {Args, Errors, Flags} from '@oclif/core'
import {pipeline} from 'node:stream/promises'
import {BaseCommand} from '../base-command.js'
import {followToStdout} from '../render/follow-stdout.js'

/** `-n N` or `-n all`: a count of lines, or the whole log. */
const lineCount = Flags.custom<number | 'all'>({
  async parse(input) {
    if (input === 'all') return 'all'
    // exit 2: a usage error, like every other bad flag value.
    if (!/^\d+$/.test(input)) throw new Errors.CLIError(`expected a number of lines or "all", got "${input}"`, {exit: 2})
    return Number(input)
  },
})

export default class Logs extends BaseCommand {
  static override summary = "Print a task's output, or follow it until the task ends."
  static override description = `Prints the whole output.log, or the last N lines with -n N. With -f it then follows new output until the task ends and exits with the task's own exit code (128 + signal number when a signal ended it; 1 when it ended without one, e.g. lost, which is explained on stderr). A line that stays unfinished for a moment (a prompt, a progress bar) is shown without waiting for its newline. Ctrl-C stops following and leaves the task running.

With --json and -f, stdout is a stream of JSON objects, one per line: {"type":"output","id","offset","end","text"} for each line of output, then {"type":"end","id","exitCode","task"}; the exit code is the task's, as without --json. --offset continues such a stream from the "end" of its last output object.

Output of every run of the task is in one log; restarts and resumes are separated by a line starting with "── drover: run".`

  static override examples = [
    {description: 'Follow an agent as it works', command: '<%= config.bin %> logs -f fix-tests'},
    {description: 'The last 20 lines', command: '<%= config.bin %> logs -n 20 3'},
    {description: 'Only new output from now on', command: '<%= config.bin %> logs -f -n 0 3'},
    {description: 'Wait for a job in a script, keep its whole log and use its exit code', command: '<%= config.bin %> logs -f 3 > build.log || echo "build failed: $?"'},
    {description: 'Output and outcome as NDJSON', command: '<%= config.bin %> logs -f --json 3 | jq -r \'select(.type == "output") | .text\''},
  ]

  static override args = {task: Args.string({description: 'task id or name', required: true})}

  static override flags = {
    follow: Flags.boolean({char: 'f', description: 'follow new output until the task ends'}),
    tail: lineCount({char: 'n', aliases: ['lines'], description: 'print only the last N lines, or "all" (the default, with -f too)', exclusive: ['offset']}),
    offset: Flags.integer({description: 'start at this byte of output.log (the "end" of the last --json output object)', min: 0, exclusive: ['tail']}),
  }

  async run(): Promise<{id: number; output: string} | void> {
    const {args, flags} = await this.parse(Logs)
    const drover = await this.drover(flags['state-dir'])
    const from = {offset: flags.offset, tail: flags.tail === 'all' ? undefined : flags.tail}
    if (flags.follow) {
      const {id, offset} = await drover.outputStart(args.task, from)
      process.exitCode = await followToStdout(drover, id, offset, {json: this.jsonEnabled()})
      return
    }
    if (this.jsonEnabled()) {
      const {id, data} = await drover.output(args.task, from)
      return {id, output: data.toString('utf8')}
    }
    const {stream} = await drover.outputStream(args.task, from)
    try {
      await pipeline(stream, process.stdout, {end: false})
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code
      if (code === 'EPIPE' || code === 'ERR_STREAM_PREMATURE_CLOSE') return
      if (code === 'ENOENT') return
      throw error
    }
  }
}
