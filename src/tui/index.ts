// `drover top`: the fleet in a terminal, live, with the actions at a key. A
// third front-end over the API (beside the CLI and the dashboard), drawn with
// ANSI sequences on the alternate screen by a small renderer of its own — no
// UI library, so it starts as fast as `list` (docs/decisions/0034-the-terminal-ui.md
// has the measurement against ink). It owns no task: quitting leaves every one running.

import {openStateDir} from '../api/drover.js'
import {usageError, type TaskStatus} from '../api/values.js'
import {TopApp} from './app.js'
import {Terminal} from './terminal.js'

export interface RunTopOptions {
  stateDir?: string
  color: boolean
  readOnly: boolean
  statuses: readonly (TaskStatus | 'corrupt')[] | null
  queue: string | null
  /** only the tasks of this group: its name, or a task (an id) of it. */
  group?: string | null
  /** report the mouse wheel (off by default: it takes the terminal's own text selection). */
  mouse: boolean
}

/** Checks for a terminal before anything else: top draws screens, and a pipe (or a terminal that cannot place the cursor) cannot show them. */
export function requireTerminal(input: {isTTY?: boolean}, output: {isTTY?: boolean}, env: NodeJS.ProcessEnv = process.env): void {
  const hint = 'use drover list for a snapshot, drover logs -f ID to follow a task'
  if (!input.isTTY || !output.isTTY) {
    const which = !input.isTTY && !output.isTTY ? 'stdin and stdout are' : !input.isTTY ? 'stdin is' : 'stdout is'
    throw usageError(`top needs a terminal (${which} not one): ${hint}`)
  }
  if (env.TERM === 'dumb') throw usageError(`top needs a terminal that can draw a screen (TERM=dumb): ${hint}`)
}

export async function runTop(options: RunTopOptions): Promise<number> {
  requireTerminal(process.stdin, process.stdout)
  const drover = await openStateDir(options.stateDir)
  // a task standing for its group (an id) is resolved once: the table filters by the group's name
  if (options.group) options = {...options, group: (await drover.group(options.group)).group}
  const terminal = new Terminal({input: process.stdin, output: process.stdout}, {mouse: options.mouse})
  const app = new TopApp(drover, terminal, options)
  return app.run()
}
