import {Args, Flags} from '@oclif/core'
import {createReadStream} from 'node:fs'
import {pipeline} from 'node:stream/promises'
import {BaseCommand} from '../base-command.js'
import {DroverError, ExitCode} from '../core/errors.js'
import {tailOffset} from '../core/follow.js'
import {taskPaths} from '../core/store.js'
import {loadTask} from '../core/tasks.js'
import {followToStdout} from '../render/follow-stdout.js'

const FOLLOW_DEFAULT_LINES = 50

export default class Logs extends BaseCommand {
  static override summary = "Print a task's output, or follow it until the task ends."
  static override description = `Without -f prints the whole output.log (or the last N lines with -n). With -f prints the last ${FOLLOW_DEFAULT_LINES} lines (or -n N), then follows new output until the task ends and exits with the task's own exit code (128 + signal number when a signal ended it). Ctrl-C stops following and leaves the task running.

Output of every run of the task is in one log; restarts and resumes are separated by a line starting with "── drover: run".`

  static override examples = [
    {description: 'Follow an agent as it works', command: '<%= config.bin %> logs -f fix-tests'},
    {description: 'The last 20 lines', command: '<%= config.bin %> logs -n 20 3'},
    {description: "Wait for a job in a script and use its exit code", command: '<%= config.bin %> logs -f 3 > build.log || echo "build failed: $?"'},
  ]

  static override args = {task: Args.string({description: 'task id or name', required: true})}

  static override flags = {
    follow: Flags.boolean({char: 'f', description: 'follow new output until the task ends'}),
    tail: Flags.integer({char: 'n', aliases: ['lines'], description: `print only the last N lines (default: all; ${FOLLOW_DEFAULT_LINES} with -f)`, min: 0}),
  }

  async run(): Promise<{id: number; exitCode?: number; output?: string} | void> {
    const {args, flags} = await this.parse(Logs)
    const stateDir = await this.openStateDir(flags['state-dir'])
    const read = await loadTask(stateDir, args.task)
    if (!read.ok && read.missing) throw new DroverError(`no such task: ${args.task}`, ExitCode.notFound)
    const id = read.id
    const file = taskPaths(stateDir, id).output
    const lines = flags.tail ?? (flags.follow ? FOLLOW_DEFAULT_LINES : undefined)
    const offset = lines === undefined ? 0 : tailOffset(file, lines)
    if (this.jsonEnabled()) {
      const {readFileSync} = await import('node:fs')
      let output = ''
      try {
        output = readFileSync(file).subarray(offset).toString('utf8')
      } catch {
        output = ''
      }
      return {id, output}
    }
    if (flags.follow) {
      process.exitCode = await followToStdout(stateDir, id, offset)
      return
    }
    try {
      await pipeline(createReadStream(file, {start: offset}), process.stdout, {end: false})
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code
      if (code === 'EPIPE' || code === 'ERR_STREAM_PREMATURE_CLOSE') return
      if (code === 'ENOENT') return
      throw error
    }
  }
}
