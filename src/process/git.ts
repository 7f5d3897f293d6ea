// Running git: the one place drover calls it. Synchronous and builtins only,
// since the runner uses it too (a worktree's summary when a run ends); each
// call is a short plumbing command, never one that waits on a person.

import {execFileSync} from 'node:child_process'

export class GitError extends Error {
  constructor(
    readonly args: string[],
    /** git's own first line of complaint, or why git could not run. */
    readonly detail: string,
    readonly status: number | null,
  ) {
    super(`git ${args[0] ?? ''}: ${detail}`)
    this.name = 'GitError'
  }
}

// No prompt can ever wait for a person (credentials, an editor), and git's
// messages stay in English so the few we recognise can be recognised.
const GIT_ENV = {GIT_TERMINAL_PROMPT: '0', GIT_EDITOR: 'true', LC_ALL: 'C', GIT_OPTIONAL_LOCKS: '0'}

/** Runs `git -C cwd ARGS` (with `input` on its stdin), returning stdout; throws GitError on a non-zero exit. */
export function git(cwd: string, args: string[], opts: {env?: NodeJS.ProcessEnv; input?: string} = {}): string {
  try {
    return execFileSync('git', ['-C', cwd, ...args], {
      encoding: 'utf8',
      ...(opts.input === undefined ? {stdio: ['ignore', 'pipe', 'pipe'] as const} : {input: opts.input, stdio: ['pipe', 'pipe', 'pipe'] as const}),
      env: {...process.env, ...opts.env, ...GIT_ENV},
      maxBuffer: 256 * 1024 * 1024,
    })
  } catch (error) {
    const e = error as NodeJS.ErrnoException & {stderr?: string; status?: number | null}
    if (e.code === 'ENOENT') throw new GitError(args, 'git is not installed (or not on PATH)', null)
    const line = String(e.stderr ?? '').trim().split('\n').filter(Boolean).at(-1) ?? e.message
    throw new GitError(args, line.replace(/^(fatal|error): /, ''), e.status ?? null)
  }
}

/** The same, answering a yes/no question by git's exit code (0 yes, 1 no); other failures throw. */
export function gitTest(cwd: string, args: string[]): boolean {
  try {
    git(cwd, args)
    return true
  } catch (error) {
    if (error instanceof GitError && error.status === 1) return false
    throw error
  }
}

/** `git diff --shortstat` text → its three numbers (zeros when nothing differs). */
export function parseShortstat(text: string): {filesChanged: number; insertions: number; deletions: number} {
  const count = (re: RegExp) => Number(re.exec(text)?.[1] ?? 0)
  return {
    filesChanged: count(/(\d+) files? changed/),
    insertions: count(/(\d+) insertions?\(\+\)/),
    deletions: count(/(\d+) deletions?\(-\)/),
  }
}
