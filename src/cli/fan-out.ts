// `drover start --agent claude:2,codex --prompt P --worktree`: one task per
// attempt, in a group (api/fanout.ts checks it, tasks/fanout.ts makes it).
// The flags are start's own, turned into options as for one task; what only
// one task can have (--name, --follow, --if-absent, a branch of its own) is
// refused in the flags' words. stdout gets the ids, one a line, as `start`
// prints its one id; the group and what to do next go to stderr.

import type {Drover} from '../api/drover.js'
import {prepareFanOut, type FanOutResult} from '../api/fanout.js'
import {startDefaults} from '../api/start-options.js'
import {usageError} from '../api/values.js'
import {startOptions, type StartFlags} from './start-flags.js'

/** What the fan-out needs of the `start` command running it. */
export interface FanOutHost {
  json: boolean
  note(message: string): void
  open(stateDir: string | undefined): Promise<Drover>
}

export interface FanOutFlags extends StartFlags {
  'state-dir'?: string
  follow?: boolean
  quiet?: boolean
  agent?: string
}

export async function runFanOut(host: FanOutHost, {flags, prompt, command}: {flags: FanOutFlags; prompt: string | undefined; command: string[]}): Promise<FanOutResult> {
  const attempts = flags.agent!
  if (prompt === undefined) throw usageError(`a fan-out (--agent ${attempts}) writes each attempt's command: give --prompt (or --prompt-file)`)
  if (flags.name !== undefined) throw usageError("--name names one task: a fan-out's attempts are named GROUP-AGENT-N, so name the group with --group")
  if (flags.follow) throw usageError(`--follow follows one task: follow the fan-out with drover logs -f --group GROUP`)
  if (flags['if-absent']) throw usageError('--if-absent is for one named task, not a fan-out')
  if (flags.worktree === undefined) throw usageError(`a fan-out runs each attempt in a worktree of its own, from one base commit: add --worktree`)
  if (flags.worktree !== '') throw usageError(`each attempt of a fan-out gets a branch of its own (drover/<id>-<name>): give --worktree without ${flags.worktree}`)
  if (flags['existing-branch']) throw usageError('each attempt of a fan-out gets a branch of its own: --existing-branch does not go with it')
  // one task's options first (every flag checked as start checks it), then shared by the attempts
  const {command: _command, shell: _shell, name: _name, agent: _agent, ifAbsent: _ifAbsent, existingBranch: _existing, worktree: _worktree, pinBase: _pinBase, ...shared} = startOptions(command, prompt, flags)
  const prepared = prepareFanOut({...shared, prompt, attempts, worktree: true}, await startDefaults(flags['state-dir']))
  const drover = await host.open(flags['state-dir'])
  const result = await drover.fanOut(prepared)
  let failed = false
  for (const task of result.tasks) {
    if (task.status === 'failed' && task.pid === null) {
      host.note(`drover: task ${task.id} (${task.name}) failed to start: ${task.reason}`)
      failed = true
    } else if (task.status === 'queued' && !flags.quiet) host.note(`drover: task ${task.id} (${task.name}) queued (${task.reason})`)
  }
  if (failed) process.exitCode = 1
  if (!host.json && !flags.quiet) {
    const dirty = result.tasks[0]?.worktree?.baseDirty ? `; uncommitted changes in ${result.tasks[0].worktree!.repo} are not in the worktrees` : ''
    const from = `${result.base.commit.slice(0, 12)}${result.base.branch ? ` (${result.base.branch})` : ''}`
    host.note(`drover: group ${result.group}: ${result.tasks.length} attempts from ${from}${dirty}; compare them with drover compare ${result.group}`)
    process.stdout.write(result.tasks.map((t) => `${t.id}\n`).join(''))
  }
  return result
}
