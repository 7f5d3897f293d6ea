// Real git repositories for tests: a temp repo with one commit, and git run
// with a fixed identity so commits work on any machine.

import {execFileSync} from 'node:child_process'
import {mkdtempSync, rmSync, writeFileSync} from 'node:fs'
import os from 'node:os'
import path from 'node:path'

/** Identity for commits made by tests and by the tasks they start (pass as env). */
export const GIT_IDENTITY = {
  GIT_AUTHOR_NAME: 'drover test',
  GIT_AUTHOR_EMAIL: 'test@example.invalid',
  GIT_COMMITTER_NAME: 'drover test',
  GIT_COMMITTER_EMAIL: 'test@example.invalid',
}

export function gitIn(cwd: string, ...args: string[]): string {
  return execFileSync('git', ['-C', cwd, ...args], {encoding: 'utf8', env: {...process.env, ...GIT_IDENTITY}, stdio: ['ignore', 'pipe', 'pipe']})
}

const made: string[] = []

/** A repository with `a.txt` committed on branch main. */
export function makeRepo(): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'drover-git-'))
  made.push(dir)
  gitIn(dir, 'init', '-q', '-b', 'main')
  writeFileSync(path.join(dir, 'a.txt'), 'one\n')
  gitIn(dir, 'add', 'a.txt')
  gitIn(dir, 'commit', '-q', '-m', 'first')
  return dir
}

/** Commits a change to `file` in `cwd` (a repo or a worktree). */
export function commitFile(cwd: string, file: string, text: string, message = `change ${file}`): string {
  writeFileSync(path.join(cwd, file), text)
  gitIn(cwd, 'add', file)
  gitIn(cwd, 'commit', '-q', '-m', message)
  return gitIn(cwd, 'rev-parse', 'HEAD').trim()
}

export const branches = (repo: string) =>
  gitIn(repo, 'for-each-ref', '--format=%(refname:short)', 'refs/heads').trim().split('\n').filter(Boolean).sort()

export const worktreePaths = (repo: string) =>
  gitIn(repo, 'worktree', 'list', '--porcelain').split('\n').filter((l) => l.startsWith('worktree ')).map((l) => l.slice(9))

export function cleanupRepos(): void {
  for (const dir of made.splice(0)) rmSync(dir, {recursive: true, force: true})
}
