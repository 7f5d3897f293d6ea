import * as Args from '@oclif/core/args'
import {BaseCommand} from '../base-command.js'
import {NEWEST_OFFERED} from '../../api/completion.js'
import {commandSpecs} from '../completion/spec.js'
import {SHELLS, completionScript, type Shell} from '../completion/scripts.js'

export default class Completion extends BaseCommand {
  static override summary = 'Print the shell completion script for bash, zsh, fish or PowerShell.'
  static override description = `The script completes command names, flags, the fixed values of flags (start --agent …), and every TASK argument — of status, logs, stop, drain, resume, cancel, rm, diff, wait, start TASK, queue move and start --after — with task ids, names and :latest. The tasks offered are the live ones and the ${NEWEST_OFFERED} newest; digits typed also bring the tasks of that id and those one digit longer, so an older task is reached digit by digit. zsh, fish and PowerShell show each task's name, status and command beside it. The list comes from a quick read of the state dir (--state-dir on the line being completed, else $DROVER_STATE_DIR, else the default), never of every task, so a Tab costs the same at 100,000 tasks as at 100.

Load it in each new shell, or save it where the shell looks for completions: the examples show where. Nothing is written by this command. --json prints {shell, script}.`

  static override examples = [
    {description: 'bash: in ~/.bashrc', command: 'eval "$(<%= config.bin %> completion bash)"'},
    {description: 'zsh: in ~/.zshrc, after compinit', command: 'eval "$(<%= config.bin %> completion zsh)"'},
    {description: 'fish: once, where fish finds completions', command: '<%= config.bin %> completion fish > ~/.config/fish/completions/<%= config.bin %>.fish'},
    {description: 'PowerShell: in $PROFILE', command: '<%= config.bin %> completion powershell | Out-String | Invoke-Expression'},
  ]

  static override args = {shell: Args.string({description: 'the shell to complete in', required: true, options: [...SHELLS]})}

  async run(): Promise<{shell: Shell; script: string}> {
    const {args} = await this.parse(Completion)
    const shell = args.shell as Shell
    // help comes from a plugin oclif does not load for drover's own commands (bin/run.js): it is added here.
    const specs = commandSpecs(this.config.commands)
    if (!specs.some((c) => c.id === 'help')) specs.push({id: 'help', summary: `Display help for ${this.config.bin}.`, flags: [], task: 'none', firstArgOptions: []})
    specs.sort((a, b) => a.id.localeCompare(b.id))
    const script = completionScript(shell, specs, this.config.bin)
    if (!this.jsonEnabled()) process.stdout.write(script)
    return {shell, script}
  }
}
