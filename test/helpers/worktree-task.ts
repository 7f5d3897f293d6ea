// A --worktree task that ran a script in a real repository, once it ended:
// what the merge, discard and compare tests start from.

import {expect} from 'vitest'
import {drover, readTask, waitFor} from './cli.js'
import {GIT_IDENTITY} from './git.js'

/** Starts `script` (a shell script) as a --worktree task of `repo` and returns its record once it has ended. */
export async function workedTask(stateDir: string, repo: string, script: string, args: string[] = []): Promise<any> {
  const r = await drover(stateDir, ['start', '--worktree', ...args, '--shell', script], {cwd: repo, env: GIT_IDENTITY})
  expect(r.exitCode, r.stderr).toBe(0)
  const id = Number(r.stdout)
  return waitFor(() => ['succeeded', 'failed'].includes(readTask(stateDir, id).status) && readTask(stateDir, id), {message: `task ${id} ended`})
}
