import * as Flags from '@oclif/core/flags'
import {BaseCommand} from '../base-command.js'

export default class Ui extends BaseCommand {
  static override summary = 'Serve a local web dashboard: the task list, queues and each task’s output, live, with stop, cancel, drain, resume and start.'
  static override description = `Runs an HTTP server on 127.0.0.1 (a free port unless --port) and prints its URL on stdout (with --json: {"url", "host", "port", "readOnly"} on one line). The URL carries a random token: open it once and the browser keeps a session cookie; any request without it gets 401. The Host a request names must be loopback (localhost, 127.0.0.1 or [::1], with any port, so an ssh -L forward to another local port works) or the address bound (bound to every interface, --host 0.0.0.0 or ::, the machine's own addresses and hostname too); any other gets 403 with a hint, as a DNS-rebinding page would send one. Actions need the page's CSRF token and POST, and the page loads nothing from the network.

On another machine, give it a fixed --port and forward that port over ssh from your own: run \`ssh -N -L 8377:127.0.0.1:8377 HOST\` on yours, \`drover ui --port 8377\` on HOST, and open the URL it prints in your browser (with another local port, change the port in the URL). Keep the default --host 127.0.0.1: the tunnel reaches it, nobody else does.

The list updates live as tasks start, change and end, from any shell, and filters by status, queue and name; the queue view shows each queue's limit, the tasks holding its slots and those waiting in line. A task page streams its output (ANSI colours shown, partial lines included, earlier output paged in on demand), the readable transcript of agents' tasks, their turns, tokens and cost (with a chart by turn), a --worktree task's summary and diff against its base (the first 512 KiB of a longer diff), the runs and the events journal. Each action asks for confirmation and goes through the same library API as the CLI.

Ctrl-C stops the dashboard and leaves every task running. With --read-only the actions are hidden and refused.`

  static override examples = [
    {description: 'Serve the dashboard and open it in the browser', command: '<%= config.bin %> ui --open'},
    {description: 'A dashboard that can only look, on a fixed port', command: '<%= config.bin %> ui --read-only --port 8377'},
    {description: 'On a server, for a browser on your machine that runs ssh -N -L 8377:127.0.0.1:8377 SERVER', command: '<%= config.bin %> ui --port 8377'},
  ]

  static override flags = {
    port: Flags.integer({description: 'port to listen on (default: a free one)', min: 0, max: 65_535, default: 0}),
    host: Flags.string({description: 'address to bind; a non-loopback one needs --allow-remote', default: '127.0.0.1'}),
    'allow-remote': Flags.boolean({description: 'allow a --host other machines can reach (a warning is printed)'}),
    open: Flags.boolean({description: 'open the URL in the default browser'}),
    'read-only': Flags.boolean({description: 'hide and refuse every action: only look'}),
  }

  async run(): Promise<void> {
    const {flags} = await this.parse(Ui)
    // The server and its page load here only: no other command pays for them.
    const {serveUi} = await import('../../ui/index.js')
    await serveUi({
      stateDir: flags['state-dir'],
      host: flags.host,
      port: flags.port,
      readOnly: flags['read-only'],
      allowRemote: flags['allow-remote'],
      open: flags.open,
      json: this.jsonEnabled(),
    })
  }
}
