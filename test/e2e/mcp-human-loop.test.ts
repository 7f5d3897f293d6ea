// `drover mcp` for the person around an agent: every change of a task's
// status reaches the client as a log message (the SDK's own Client receives
// them), a warning when the task needs a person; merge_task brings a
// worktree task's branch in, and a conflict is a tool error with exit 4.

import {LoggingMessageNotificationSchema} from '@modelcontextprotocol/sdk/types.js'
import {afterEach, describe, expect, it, vi} from 'vitest'
import {cleanupStateDirs, makeStateDir, readTask, waitFor} from '../helpers/cli.js'
import {cleanupRepos, commitFile, GIT_IDENTITY, gitIn, makeRepo} from '../helpers/git.js'
import {closeMcpSessions, exitCodeOf, startMcp} from '../helpers/mcp.js'

vi.setConfig({testTimeout: 120_000})
afterEach(async () => {
  await closeMcpSessions()
  cleanupStateDirs()
  cleanupRepos()
})

describe('drover mcp: the human loop', () => {
  it('tells the client of each change of status as a log message, a warning when the task needs a person', async () => {
    const dir = makeStateDir()
    const mcp = await startMcp(dir)
    const notices: {level: string; logger?: string; data: any}[] = []
    mcp.client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => void notices.push(n.params as never))
    const ok = (await mcp.call('start_task', {shell: 'sleep 0.5'})).structuredContent.task.id
    const bad = (await mcp.call('start_task', {shell: 'sleep 0.5; exit 3', name: 'bad'})).structuredContent.task.id
    await waitFor(() => notices.some((n) => n.data.id === ok && n.data.status === 'succeeded') && notices.some((n) => n.data.id === bad && n.data.status === 'failed'), {
      timeout: 30_000,
      message: 'both ends told',
    })
    expect(notices.every((n) => n.logger === 'drover' && n.data.event === 'status')).toBe(true)
    // changes between two looks come as one (starting → failed): the end is always told, with what it ended from
    expect(notices.find((n) => n.data.id === ok && n.data.status === 'succeeded')).toMatchObject({level: 'notice', data: {previous: expect.stringMatching(/^(starting|running)$/), reason: 'exit 0'}})
    expect(notices.find((n) => n.data.id === bad && n.data.status === 'failed')).toMatchObject({level: 'warning', data: {name: 'bad', previous: expect.stringMatching(/^(starting|running)$/), cause: 'exit', reason: 'exit 3'}})

    // logging/setLevel: a client that asks only for warnings hears only those
    await mcp.client.setLoggingLevel('warning')
    notices.length = 0
    const quiet = (await mcp.call('start_task', {shell: 'exit 0'})).structuredContent.task.id
    const loud = (await mcp.call('start_task', {shell: 'exit 1'})).structuredContent.task.id
    await waitFor(() => notices.some((n) => n.data.id === loud && n.data.status === 'failed'), {timeout: 30_000, message: 'the failure told'})
    await waitFor(() => readTask(dir, quiet).status === 'succeeded')
    expect(notices.filter((n) => n.data.id === quiet)).toEqual([])
  })

  it('merge_task brings an ended worktree task in; a conflict is a tool error with exit 4, left as git leaves it', async () => {
    const dir = makeStateDir()
    const repo = makeRepo()
    const mcp = await startMcp(dir)
    const start = async (shell: string) => {
      const r = await mcp.call('start_task', {shell, cwd: repo, worktree: true, env: GIT_IDENTITY})
      expect(r.isError, r.content[0].text).toBeFalsy()
      const id = r.structuredContent.task.id
      await mcp.call('wait_tasks', {tasks: [id]})
      return readTask(dir, id)
    }
    const task = await start('echo two >> a.txt && git commit -qam two')
    const merged = await mcp.call('merge_task', {task: task.id, mode: 'squash'})
    expect(merged.isError, merged.content[0].text).toBeFalsy()
    expect(merged.structuredContent).toMatchObject({id: task.id, into: 'main', mode: 'squash', commits: 1, fastForward: false})
    expect(gitIn(repo, 'rev-parse', 'main').trim()).toBe(merged.structuredContent.commit)
    expect((await mcp.call('get_task', {task: task.id})).structuredContent.task.worktree.merged).toMatchObject({into: 'main', mode: 'squash'})

    const clash = await start('echo theirs > a.txt && git commit -qam theirs')
    commitFile(repo, 'a.txt', 'ours\n')
    const refused = await mcp.call('merge_task', {task: clash.id})
    expect(refused.isError).toBe(true)
    expect(exitCodeOf(refused)).toBe(4)
    expect(refused.content[0].text).toMatch(/conflicts in a\.txt; .* is as git left it/)
    gitIn(repo, 'merge', '--abort')
  })
})
