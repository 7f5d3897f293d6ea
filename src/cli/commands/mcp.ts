import * as Flags from '@oclif/core/flags'
import {BaseCommand} from '../base-command.js'

export default class Mcp extends BaseCommand {
  static override summary = 'Serve drover to an AI agent over MCP (stdio): start, watch and stop tasks as tools.'
  static override description = `Runs a Model Context Protocol server on stdin/stdout for an MCP client (Claude Code, Codex, any other). Its tools: start_task, list_tasks, get_task, read_output (incremental, with a cursor), wait_tasks (with progress notifications), stop_task, cancel_task, drain_tasks, resume_task and queue_status; start_task takes what drover start does (queues, dependencies, worktrees, budgets, timeouts, retries); each task's record and output are also resources the client can subscribe to.

Tasks are ordinary drover tasks: the CLI and other servers on the same state dir see them, and they keep running when the client disconnects. Closing stdin ends the server within a second and stops nothing.

With --read-only only the tools that change nothing are offered (list_tasks, get_task, read_output, wait_tasks, queue_status). Removing tasks (prune_tasks) is offered only with --allow prune. A failed call is an MCP tool error carrying the message and exit code the CLI would give.`

  static override examples = [
    {description: 'Add it to Claude Code', command: 'claude mcp add drover -- <%= config.bin %> mcp'},
    {description: 'A server that can only look', command: '<%= config.bin %> mcp --read-only'},
    {description: 'On a state dir of its own, allowed to prune', command: '<%= config.bin %> mcp --state-dir ~/agents-state --allow prune'},
  ]

  static override flags = {
    'read-only': Flags.boolean({description: 'offer only the tools that change nothing (list, get, read output, wait, queue status)'}),
    allow: Flags.string({description: 'also offer a tool that is off by default: prune (repeatable)', options: ['prune'], multiple: true}),
    'max-wait': Flags.integer({description: 'the longest one wait_tasks call may block, in seconds (default 300)', min: 1}),
  }

  async run(): Promise<void> {
    const {flags} = await this.parse(Mcp)
    // The MCP SDK loads here only: no other command pays for it.
    const {serveStdio} = await import('../../mcp/index.js')
    await serveStdio({
      stateDir: flags['state-dir'],
      readOnly: flags['read-only'],
      allow: flags.allow ?? [],
      maxWaitMs: flags['max-wait'] === undefined ? undefined : flags['max-wait'] * 1000,
      version: this.config.version,
    })
  }
}
