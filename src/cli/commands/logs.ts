import * as Args from '@oclif/core/args'
import {CLIError} from '@oclif/core/errors'
import * as Flags from '@oclif/core/flags'
import {pipeline} from 'node:stream/promises'
import {BaseCommand} from '../base-command.js'
import {usageError} from '../../api/values.js'
import {followToStdout} from '../render/follow-stdout.js'
import {painter} from '../render/color.js'
import {logsView, notStartedNote, wantsLogsView} from '../logs-view.js'

/** `-n N` or `-n all`: a count of lines, or the whole log. */
const lineCount = Flags.custom<number | 'all'>({
  async parse(input) {
    if (input === 'all') return 'all'
    // exit 2: a usage error, like every other bad flag value.
    if (!/^\d+$/.test(input)) throw new CLIError(`expected a number of lines or "all", got "${input}"`, {exit: 2})
    return Number(input)
  },
})

export default class Logs extends BaseCommand {
  static override summary = "Print a task's output, or follow it until the task ends."
  static override description = `Prints the whole output.log, or the last N lines with -n N. With -f it then follows new output until the task ends and exits with the task's own exit code (128 + signal number when a signal ended it; 1 when it ended without one, e.g. lost, which is explained on stderr). A line that stays unfinished for a moment (a prompt, a progress bar) is shown without waiting for its newline. Ctrl-C stops following and leaves the task running.

With --json and -f, stdout is a stream of JSON objects, one per line: {"type":"output","id","offset","end","text"} for each line of output, then {"type":"end","id","exitCode","task"}; the exit code is the task's, as without --json. --offset continues such a stream from the "end" of its last output object.

Output of every run of the task is in one log; restarts and resumes are separated by a line starting with "── drover: run".

For an agent's task on a terminal (or with --pretty) the agent's event stream is shown as a transcript: its text, each tool call with its telling argument, results cut to their first and last three lines and every line that looks like an error (--full for all), errors, and the run's end with cost, turns and time; --raw, or a pipe, gives the stream itself.

Following a task that is queued (or waiting for a usage limit) says on stderr what it waits for. Several tasks (logs -f A B C), --group NAME (every task of a group, a fan-out's attempts), or --all (every live task — queued and waiting ones too —, and with -f those that start while following), put [id name] before each line, in a colour per task on a terminal, and a line "── drover: task 3 ended failed (exit 3)" where each task's output ends; following ends when all have ended, with exit 0 when every one succeeded, else the first failing task's own code (in id order). --timestamps adds the time each line arrived while following (lines written before have none); --since shows the runs active since a moment: a duration back from now (10m), a time of day (05:00, the latest one past) or a date (2026-12-01, 2026-12-01T05:00; local unless a zone is given) — drover knows when runs began and ended, not when each line was written.`

  static override examples = [
    {description: 'Follow an agent as it works', command: '<%= config.bin %> logs -f fix-tests'},
    {description: 'The last 20 lines', command: '<%= config.bin %> logs -n 20 3'},
    {description: 'Only new output from now on', command: '<%= config.bin %> logs -f -n 0 3'},
    {description: 'Wait for a job in a script, keep its whole log and use its exit code', command: '<%= config.bin %> logs -f 3 > build.log || echo "build failed: $?"'},
    {description: 'Every running agent at once, as transcripts, with times', command: '<%= config.bin %> logs -f --all --pretty -t'},
    {description: 'Output and outcome as NDJSON', command: '<%= config.bin %> logs -f --json 3 | jq -r \'select(.type == "output") | .text\''},
  ]

  static override usage = ['<%= command.id %> [FLAGS] TASK...', '<%= command.id %> [FLAGS] -f --all', '<%= command.id %> [FLAGS] -f --group NAME']

  static override strict = false
  static override args = {task: Args.string({description: 'task id or name, or :latest (several with -f, each line prefixed [id name])'})}

  static override flags = {
    follow: Flags.boolean({char: 'f', description: 'follow new output until the task ends'}),
    tail: lineCount({char: 'n', aliases: ['lines'], description: 'print only the last N lines, or "all" (the default, with -f too)', exclusive: ['offset']}),
    offset: Flags.integer({description: 'start at this byte of output.log (the "end" of the last --json output object)', min: 0, exclusive: ['tail']}),
    all: Flags.boolean({char: 'a', description: 'every live task (queued and waiting ones too), and with -f those that start while following'}),
    group: Flags.string({description: 'every task of this group, ended ones too, each line prefixed (NAME, or an id of one of its tasks)', helpValue: 'NAME'}),
    pretty: Flags.boolean({description: "show an agent's events as a transcript (the default on a terminal)"}),
    raw: Flags.boolean({description: "the agent's own event stream, byte for byte (the default when piped)"}),
    full: Flags.boolean({description: 'with --pretty: tool results and thinking in full, not cut to a few lines'}),
    timestamps: Flags.boolean({char: 't', description: 'with -f: prefix each line with the time it arrived (lines already there show none)'}),
    since: Flags.string({description: 'only the runs active since then: a duration (10m), a time of day (05:00) or a date (2026-12-01, 2026-12-01T05:00); with --all also tasks that ended since', helpValue: 'TIME'}),
  }

  async run(): Promise<{id: number; output: string} | void> {
    const {argv, flags} = await this.parse(Logs)
    const refs = argv as string[]
    const tty = process.stdout.isTTY === true && !this.jsonEnabled()
    const drover = await this.drover(flags['state-dir'])
    if (await wantsLogsView(drover, refs, flags, tty)) {
      process.exitCode = await logsView(drover, refs, flags, {json: this.jsonEnabled(), tty, paint: painter(this.color(flags.color))})
      return
    }
    if (refs.length !== 1) throw usageError(refs.length === 0 ? 'no task given: name a task, or --all' : 'several tasks need -f')
    const args = {task: refs[0]}
    const from = {offset: flags.offset, tail: flags.tail === 'all' ? undefined : flags.tail}
    if (flags.follow) {
      const {id, offset} = await drover.outputStart(args.task, from)
      const note = notStartedNote(await drover.get(id))
      if (note) process.stderr.write(`${note}\n`)
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
