import * as Flags from '@oclif/core/flags'
import {BaseCommand} from '../base-command.js'
import {knownAgentNames, parseDuration} from '../../api/values.js'
import {painter} from '../render/color.js'
import type {DroverPaths} from '../../api/paths.js'

export default class Doctor extends BaseCommand {
  static override summary = 'Check the agents, the state dir, the executors and the environment; say what to fix.'
  static override description = `Looks at everything drover depends on and prints one line per problem saying what to do. Exit 0 when nothing is broken (warnings may still be printed), 1 when something is.

Agents: for each agent drover knows (${knownAgentNames().join(', ')}), whether it is on PATH and where, its version, whether drover can read its flags from its --help (resume needs them to keep every flag of the original command) and where it keeps its sessions. Only \`AGENT --version\` and its help are run, each with a timeout (--timeout): nothing that starts a session or contacts a model.

State dir: its path and where it came from, owner and mode (drover refuses one that its group or other users can write; Windows decides access by ACLs, which are not judged), free space, records that cannot be read (by id), locks whose holder is gone, tasks recorded running whose runner is gone, and processes of ended tasks still alive (on Linux also those that left the task's process tree).

Executors: Slurm, when the state dir's config.json or DROVER_EXECUTOR makes it the default or a live task runs on it — its client commands on PATH and its controller answering \`scontrol ping\`.

Environment: which API key variables of the agents are set. Their values are never read into the report or shown.

doctor changes nothing: a missing state dir is not created, a stale lock is not taken over, a task whose runner is gone is not recorded lost. The commands it names do that.

--paths prints only where drover keeps things, and checks nothing: the state dir and where its path came from (--state-dir, $DROVER_STATE_DIR or the default), its hooks dir, the on-exit and on-status hooks and config.json (with --json: {"stateDir", "source", "hooksDir", "onExitHook", "onStatusHook", "configFile"}). Scripts and crontabs read it rather than building "$DROVER_STATE_DIR/hooks" themselves, which is /hooks where the variable is unset.`

  static override examples = [
    {description: 'Is everything in order?', command: '<%= config.bin %> doctor'},
    {description: 'The report for a script (exit 1 when something is broken)', command: '<%= config.bin %> doctor --json | jq .problems'},
    {description: 'Check the state dir a cron job uses', command: '<%= config.bin %> doctor --state-dir /srv/drover'},
    {description: "Where drover keeps this state dir's hooks, for a script", command: '<%= config.bin %> doctor --paths --json | jq -r .hooksDir'},
  ]

  static override flags = {
    timeout: Flags.string({description: 'how long each agent --version/--help and scontrol ping may take (default 20s)'}),
    paths: Flags.boolean({description: 'print the state dir, its hooks dir, on-exit hook and config file, and check nothing'}),
  }

  async run(): Promise<unknown> {
    const {flags} = await this.parse(Doctor)
    if (flags.paths) return this.paths(flags['state-dir'])
    const timeoutMs = flags.timeout === undefined ? undefined : parseDuration(flags.timeout, '--timeout')
    const [{doctor}, {doctorLines}] = await Promise.all([import('../../api/doctor.js'), import('../render/doctor-view.js')])
    const report = await doctor({stateDir: flags['state-dir'], timeoutMs, version: this.config.version})
    if (!report.ok) process.exitCode = 1
    if (!this.jsonEnabled()) process.stdout.write(doctorLines(report, painter(this.color(flags.color))).join('\n') + '\n')
    return report
  }

  private async paths(stateDir: string | undefined): Promise<DroverPaths> {
    const {droverPaths, stateDirSourceText} = await import('../../api/paths.js')
    const paths = await droverPaths({stateDir})
    if (!this.jsonEnabled()) {
      const lines = [
        ['state dir', `${paths.stateDir}  (${stateDirSourceText(paths.source)})`],
        ['hooks dir', paths.hooksDir],
        ['on-exit', paths.onExitHook],
        ['on-status', paths.onStatusHook],
        ['config', paths.configFile],
      ]
      process.stdout.write(lines.map(([what, where]) => `${what.padEnd(11)}${where}\n`).join(''))
    }
    return paths
  }
}
