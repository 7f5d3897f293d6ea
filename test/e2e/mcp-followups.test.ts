// send_followup over MCP, as a client's model uses it: a message for an agent
// at work is queued (get_task lists it) and delivered by the task's runner in
// its own run when the current one ends well; a task not at work is resumed
// with it at once; a task that runs no agent is refused with exit 2.

import {writeFileSync} from 'node:fs'
import path from 'node:path'
import {afterEach, describe, expect, it} from 'vitest'
import {cleanupStateDirs, fixture, makeStateDir, makeTempDir, readTask, waitFor} from '../helpers/cli.js'
import {closeMcpSessions, exitCodeOf, startMcp} from '../helpers/mcp.js'

afterEach(async () => {
  await closeMcpSessions()
  cleanupStateDirs()
})

describe('drover mcp: send_followup', () => {
  it('queues a message for an agent at work, delivered in its own run when this one ends; resumes an ended one at once', async () => {
    const stateDir = makeStateDir()
    const home = makeTempDir('drover-home-')
    const done = path.join(home, 'done')
    const mcp = await startMcp(stateDir)
    const env = {HOME: home, FAKE_AGENT_TURNS: '100000', FAKE_AGENT_TURN_MS: '100', FAKE_AGENT_DONE_FILE: done}
    const command = [process.execPath, fixture('agent-claude.mjs'), '-p', 'first', '--output-format', 'stream-json', '--verbose']
    const {task} = (await mcp.call('start_task', {command, agent: 'claude', env})).structuredContent
    await waitFor(() => readTask(stateDir, task.id).agentInfo?.sessionId, {timeout: 20_000, message: 'the session id'})

    const sent = await mcp.call('send_followup', {task: task.id, prompt: 'second'})
    expect(sent.isError).toBeFalsy()
    expect(sent.structuredContent).toMatchObject({id: task.id, queued: {n: 1, prompt: 'second', now: false, keep: false}, delivered: false, task: {status: 'running'}})
    expect((await mcp.call('get_task', {task: task.id})).structuredContent.task.followups).toEqual([expect.objectContaining({n: 1, prompt: 'second'})])

    writeFileSync(done, '')
    await waitFor(() => readTask(stateDir, task.id).runs.length === 2, {timeout: 30_000, message: 'the follow-up run'})
    const ended = (await mcp.call('wait_tasks', {tasks: [task.id], timeoutSeconds: 60})).structuredContent
    expect(ended.tasks[0].runs.map((r: any) => [r.status, r.prompt ?? null])).toEqual([
      ['succeeded', null],
      ['succeeded', 'second'],
    ])

    // not at work: the message is the next run at once
    const resumed = await mcp.call('send_followup', {task: task.id, prompt: 'third'})
    expect(resumed.structuredContent).toMatchObject({queued: null, delivered: true, task: {run: 3}})
    expect(readTask(stateDir, task.id).runs[2].prompt).toBe('third')
  })

  it('refuses a task that runs no agent with exit 2, queueing nothing', async () => {
    const stateDir = makeStateDir()
    const mcp = await startMcp(stateDir)
    const {task} = (await mcp.call('start_task', {command: ['sleep', '300']})).structuredContent
    const refused = await mcp.call('send_followup', {task: task.id, prompt: 'more'})
    expect(refused.isError).toBe(true)
    expect(exitCodeOf(refused)).toBe(2)
    expect(refused.content[0].text).toMatch(/runs no agent/)
    await mcp.call('cancel_task', {task: task.id})
  })
})
