// `drover top`'s keys for a --worktree task's work, in a real terminal
// (tmux): m merges the branch into the one it started from, x discards the
// work and removes the task, each only after y; n leaves everything as it was.

import {afterEach, describe, expect, it} from 'vitest'
import {cleanupStateDirs, makeStateDir, readTask} from '../helpers/cli.js'
import {branches, cleanupRepos, GIT_IDENTITY, gitIn, makeRepo} from '../helpers/git.js'
import {openTop, type TopSession} from '../helpers/tmux.js'
import {workedTask} from '../helpers/worktree-task.js'

const sessions: TopSession[] = []
afterEach(() => {
  for (const s of sessions.splice(0)) s.kill()
  cleanupStateDirs()
  cleanupRepos()
})

const rowOf = (screen: string, id: number) => screen.split('\n').find((line) => new RegExp(`^[> ] +${id}  `).test(line)) ?? ''

const worked = async (dir: string, repo: string, name: string, script: string): Promise<number> => (await workedTask(dir, repo, script, ['--name', name])).id

describe('drover top: merge and discard', () => {
  it('m merges after y (not after n); x discards after y, naming the commits thrown away', async () => {
    const dir = makeStateDir()
    const repo = makeRepo()
    const keep = await worked(dir, repo, 'keep', 'echo two >> a.txt && git commit -qam two')
    const toss = await worked(dir, repo, 'toss', 'echo junk > junk.txt && git add junk.txt && git commit -qm junk')
    const main = gitIn(repo, 'rev-parse', 'main').trim()
    const t = openTop(dir, [], {env: GIT_IDENTITY})
    sessions.push(t)
    // the newest ended task is first: move to `keep`
    await t.waitFor((s) => rowOf(s, toss).startsWith('>') && rowOf(s, keep) !== '')
    t.keys('j')
    await t.waitFor((s) => rowOf(s, keep).startsWith('>'))
    t.keys('m')
    await t.waitFor(/merge the branch of task 1 \(keep\)\? \(y\/n\)/)
    t.keys('n')
    await t.waitFor(/not done: merge the branch of task 1 \(keep\)/)
    expect(gitIn(repo, 'rev-parse', 'main').trim()).toBe(main)
    t.keys('m')
    await t.waitFor(/merge the branch of task 1 \(keep\)\? \(y\/n\)/)
    t.keys('y')
    await t.waitFor(/task 1: 1 commit of drover\/1-keep fast-forwarded into main/)
    expect(readTask(dir, keep).worktree.merged).toMatchObject({into: 'main', commits: 1})

    t.keys('k')
    await t.waitFor((s) => rowOf(s, toss).startsWith('>'))
    t.keys('x')
    await t.waitFor(/discard the work \(worktree, branch, unmerged commits\) and remove task 2 \(toss\)\? \(y\/n\)/)
    t.keys('y')
    const screen = await t.waitFor(/task 2 removed: branch drover\/2-toss deleted with 1 unmerged commit: [0-9a-f]{12} junk/, 20_000)
    expect(rowOf(screen, toss)).toBe('')
    expect(branches(repo)).toEqual(['drover/1-keep', 'main'])
  })
})
