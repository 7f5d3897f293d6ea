// Issue 15, usage limits with the real claude and codex: a fake model server
// answers with the provider's usage limit (429, reset time in a few seconds);
// drover recognises it in the agent's own output, and with --on-limit wait
// the task waits, then resumes the same conversation by itself.

import {describe, expect, it} from 'vitest'
import {drover, readTask, waitFor} from '../helpers/cli.js'
import {agentTempDir} from './harness/env.js'
import {AGENTS} from './harness/real-agents.js'
import {start, stateDir, useFakeServers} from './harness/tasks.js'

const serverOf = useFakeServers()

describe('the real agents at their usage limit', () => {
  for (const agent of AGENTS) {
    it(`${agent.kind}: recognised, waited for, resumed in the same session`, async () => {
      const server = serverOf(agent)
      const dir = stateDir()
      const env = agent.env(server)
      const id = await start(dir, env, agent.command('first prompt of the limit test'), agentTempDir('drover-work-'), ['--on-limit', 'wait'])
      await waitFor(() => readTask(dir, id).status === 'succeeded', {timeout: 60_000, message: 'first run'})
      const sessionId = readTask(dir, id).agentInfo.sessionId
      const resetsAt = Math.floor(Date.now() / 1000) + 2
      server.queue({kind: 'usage-limit', resetsAt})
      expect((await drover(dir, ['resume', String(id), '--prompt', 'second prompt'], {env})).exitCode).toBe(0)
      const waiting = await waitFor(() => (readTask(dir, id).status !== 'running' && readTask(dir, id).status !== 'starting') && readTask(dir, id), {timeout: 120_000, message: 'the limit'})
      expect(waiting, JSON.stringify(waiting)).toMatchObject({status: 'waiting', desired: 'running'})
      if (agent.kind === 'codex') {
        // codex words the reset as a time of day ("try again at 6:48 AM"): to the minute
        expect(waiting.agentInfo.limit.message).toMatch(/^You’ve hit your usage limit\./)
        expect(Math.abs(Date.parse(waiting.agentInfo.limit.resetAt) - resetsAt * 1000)).toBeLessThan(61_000)
      } else {
        // with an API key claude says 429 and no reset time: the backoff's first minute
        expect(waiting.agentInfo.limit).toEqual({message: expect.stringMatching(/^API Error: Request rejected \(429\)/), resetAt: null})
        expect(Date.parse(waiting.waitUntil) - Date.now()).toBeGreaterThan(30_000)
      }
      expect(waiting.reason).toMatch(/^exit 1: usage limit.*; waiting until /)
      const done = await waitFor(() => readTask(dir, id).runs.length === 3 && readTask(dir, id).status === 'succeeded' && readTask(dir, id), {timeout: 120_000, message: 'resumed'})
      expect(done.agentInfo.sessionId).toBe(sessionId)
      // the resumed run sent the conversation back: the first prompt is in the request after the wait
      const after = server.modelRequests().at(-1)!
      expect(JSON.stringify(after.body)).toContain('first prompt of the limit test')
    })
  }
})
