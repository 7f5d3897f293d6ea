// Issue 15, worktrees with the real claude: an agent started with --worktree
// commits on its own branch in its own worktree, the repository it was
// started from is untouched, and a resume continues the same conversation in
// the same worktree (claude keeps sessions per directory, so a resume in any
// other cwd would not find it); ten of them at once on one repository; and
// codex, whose sandbox lets it write the worktree but not commit.

import {afterEach, describe, expect, it} from 'vitest'
import {drover, json, readTask} from '../helpers/cli.js'
import {branches, gitIn, GIT_IDENTITY, makeRepo, cleanupRepos} from '../helpers/git.js'
import {CLAUDE, CODEX} from './harness/real-agents.js'
import {resume, settled, start, stateDir, streamByRun, useFakeServers} from './harness/tasks.js'

const serverOf = useFakeServers()
afterEach(() => cleanupRepos())

describe('claude in a worktree', () => {
  it('commits on its branch; status and diff show it; resume runs in the same worktree and session', async () => {
    const server = serverOf(CLAUDE)
    const dir = stateDir()
    const env = CLAUDE.env(server, GIT_IDENTITY)
    const repo = makeRepo()
    const base = gitIn(repo, 'rev-parse', 'HEAD').trim()
    const prompt = 'first prompt of the worktree test [[tool: echo from-claude > agent.txt && git add agent.txt && git commit -qm agent && pwd]]'
    const id = await start(dir, env, CLAUDE.command(prompt), repo, ['--worktree', '--name', 'wt'])
    const first = await settled(dir, id, env)
    expect(first, JSON.stringify(first)).toMatchObject({status: 'succeeded'})
    const wt = first.worktree
    expect(wt).toMatchObject({repo, branch: `drover/${id}-wt`, baseCommit: base})
    expect(wt.summary).toMatchObject({commits: 1, filesChanged: 1, insertions: 1, deletions: 0, uncommitted: false})
    expect(first.cwd).toBe(wt.path)
    // The tool ran in the worktree, not in the repository.
    const toolResults = streamByRun(dir, id)[0].filter((e) => e.type === 'user')
    expect(JSON.stringify(toolResults)).toContain(wt.path)
    expect(gitIn(repo, 'status', '--porcelain')).toBe('')
    expect(gitIn(repo, 'show', `drover/${id}-wt:agent.txt`)).toBe('from-claude\n')
    expect(branches(repo)).toEqual([`drover/${id}-wt`, 'main'])
    expect((await drover(dir, ['diff', '--stat', String(id)], {env})).stdout).toBe(' agent.txt | 1 +\n 1 file changed, 1 insertion(+)')

    const sessionId = readTask(dir, id).agentInfo.sessionId
    await resume(dir, id, env, 'second prompt [[tool: pwd && echo more >> agent.txt]]')
    const second = await settled(dir, id, env)
    expect(second, JSON.stringify(second)).toMatchObject({status: 'succeeded', run: 2, cwd: wt.path})
    expect(second.agentInfo.sessionId).toBe(sessionId)
    const resumed = server.modelRequests('second prompt')[0]
    expect(JSON.stringify(resumed.body.messages)).toContain('first prompt of the worktree test')
    expect(JSON.stringify(streamByRun(dir, id)[1].filter((e) => e.type === 'user'))).toContain(wt.path)
    expect(second.worktree.summary).toMatchObject({commits: 1, insertions: 2, uncommitted: true})

    // Uncommitted work keeps the task and its worktree.
    const rm = await drover(dir, ['rm', String(id), '--json'], {env})
    expect(rm.exitCode).toBe(4)
    expect(json(rm).skipped[0].reason).toMatch(/has uncommitted changes/)
  })

  it('ten claude agents at once, each in its own worktree of one repository, each committing on its own branch', async () => {
    const server = serverOf(CLAUDE)
    const dir = stateDir()
    const env = CLAUDE.env(server, GIT_IDENTITY)
    const repo = makeRepo()
    const ids = await Promise.all(
      Array.from({length: 10}, (_, i) =>
        start(dir, env, CLAUDE.command(`agent ${i} [[tool: echo ${i} > mine.txt && git add mine.txt && git commit -qm "agent ${i}"]]`), repo, ['--worktree', '--name', `a${i}`]),
      ),
    )
    const ended = await Promise.all(ids.map((id) => settled(dir, id, env, 150_000)))
    for (const [i, task] of ended.entries()) {
      expect(task, JSON.stringify(task)).toMatchObject({status: 'succeeded', worktree: {branch: `drover/${ids[i]}-a${i}`, summary: {commits: 1, filesChanged: 1, uncommitted: false}}})
      expect(gitIn(repo, 'show', `drover/${ids[i]}-a${i}:mine.txt`)).toBe(`${i}\n`)
    }
    expect(branches(repo)).toHaveLength(11)
    expect(gitIn(repo, 'status', '--porcelain')).toBe('')
  })

  it('codex in a worktree: its sandbox keeps .git read-only, so its work stays uncommitted; the summary and diff show new files', async () => {
    const server = serverOf(CODEX)
    const dir = stateDir()
    const env = CODEX.env(server, GIT_IDENTITY)
    const repo = makeRepo()
    const command = CODEX.command('[[tool: echo from-codex > codex.txt && git add codex.txt 2>&1; echo done]]', '-s', 'workspace-write')
    const id = await start(dir, env, command, repo, ['--worktree'])
    const task = await settled(dir, id, env)
    expect(task, JSON.stringify(task)).toMatchObject({status: 'succeeded', worktree: {summary: {commits: 0, filesChanged: 1, insertions: 1, uncommitted: true}}})
    expect(JSON.stringify(streamByRun(dir, id)[0])).toMatch(/index\.lock.*Read-only file system/)
    const diff = await drover(dir, ['diff', String(id)], {env})
    expect(diff.stdout).toContain('+++ b/codex.txt')
    expect(diff.stdout).toContain('+from-codex')
    expect(gitIn(repo, 'status', '--porcelain')).toBe('')
  })
})
