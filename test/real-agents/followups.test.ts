// Follow-ups with the real claude and codex against the fake model servers:
// prompts given while the agent works are delivered by its runner when the
// run ends, one run each, in order, in the same session (the model sees the
// earlier turns); --now drains the run at a safe point and resumes with the
// prompt; and a follow-up survives a reboot: resume --interrupted continues
// the cut run, then the follow-up comes.

import {describe, expect, it} from 'vitest'
import {drover, json, readTask, waitFor} from '../helpers/cli.js'
import {agentTempDir} from './harness/env.js'
import {AGENTS, type RealAgent} from './harness/real-agents.js'
import {lastUserText, reboot, sessionIdOf, sessionSaved, settled, start, stateDir, useFakeServers, waitForRequest} from './harness/tasks.js'

const serverOf = useFakeServers()

async function queue(dir: string, id: number, env: Record<string, string>, prompt: string, ...flags: string[]) {
  const r = await drover(dir, ['resume', String(id), '--prompt', prompt, ...flags], {env})
  expect(r.exitCode, r.stderr).toBe(0)
  return r
}

describe.each(AGENTS)('$kind: follow-ups', (agent: RealAgent) => {
  it('two follow-ups queued while it works run after it, one run each, in order, in the same session', async () => {
    const server = serverOf(agent)
    const dir = stateDir()
    const env = agent.env(server)
    const first = `first prompt of the follow-ups ${agent.kind} [[slow: 8]]`
    const id = await start(dir, env, agent.command(first), agentTempDir('drover-work-'))
    await waitForRequest(server, 'first prompt of the follow-ups')
    const sessionId = await sessionIdOf(dir, id)
    const [one, two] = [`follow-up one of ${agent.kind}`, `follow-up two of ${agent.kind}`]
    expect((await queue(dir, id, env, one)).stdout).toBe(`task ${id}: follow-up 1 queued for when run 1 ends (drover followups ${id} lists them)`)
    await queue(dir, id, env, two)
    expect(readTask(dir, id).runs).toHaveLength(1)

    const status = await waitFor(async () => {
      const s = await settled(dir, id, env, 120_000)
      return s.run === 3 ? s : null
    }, {timeout: 180_000, message: 'the last follow-up run to end'})
    expect(status.runs.map((r: any) => [r.status, r.prompt ?? null, r.followup ?? null])).toEqual([
      ['succeeded', null, null],
      ['succeeded', one, 1],
      ['succeeded', two, 2],
    ])
    expect(status.agentInfo.sessionId).toBe(sessionId)
    // the model was told each in turn, each time with the conversation so far
    const [toOne] = server.modelRequests(one)
    expect(lastUserText(agent, toOne)).toBe(one)
    expect(JSON.stringify(toOne.body)).toContain('first prompt of the follow-ups')
    const toTwo = server.modelRequests(two).find((q) => lastUserText(agent, q) === two)!
    expect(JSON.stringify(toTwo.body)).toContain(one)
    if (agent.sessionOf(toTwo) !== undefined) expect(agent.sessionOf(toTwo)).toBe(agent.kind === 'claude' ? sessionId : agent.sessionOf(toOne))
  })

  it('--now drains the run at a safe point and resumes it with the follow-up', async () => {
    const server = serverOf(agent)
    const dir = stateDir()
    const env = agent.env(server)
    const id = await start(dir, env, agent.command(`a long job of ${agent.kind} [[loop: sleep 1; echo step]]`), agentTempDir('drover-work-'))
    await waitFor(() => server.modelRequests().length >= 3, {timeout: 90_000, message: 'a few tool calls'})
    const prompt = `change of plan for ${agent.kind}: stop looping and summarise`
    const r = await queue(dir, id, env, prompt, '--now')
    expect(r.stdout).toBe(`task ${id} resumed with follow-up 1 (run 2)`)
    const record = readTask(dir, id)
    // A command the agent started in the moment between the safe point read from its
    // events and the signal is stopped with it, and the reason says so (seen once, codex under load).
    expect(record.runs[0]).toMatchObject({status: 'drained', reason: expect.stringMatching(/^drained to take a follow-up(; 1 leftover process stopped)?$/)})
    expect(record.checkpoint === null || record.checkpoint.mode !== 'forced').toBe(true)
    const status = await settled(dir, id, env, 120_000)
    expect(status, JSON.stringify(status)).toMatchObject({status: 'succeeded', run: 2})
    const told = server.modelRequests(prompt).find((q) => lastUserText(agent, q) === prompt)!
    expect(JSON.stringify(told.body)).toContain(`a long job of ${agent.kind}`)
  })

  it('a follow-up survives a reboot: resume --interrupted continues the cut run, then delivers it', async () => {
    const server = serverOf(agent)
    const dir = stateDir()
    const env = agent.env(server)
    const first = `reboot prompt of the follow-ups ${agent.kind} [[slow: 60]]`
    const id = await start(dir, env, agent.command(first), agentTempDir('drover-work-'))
    await waitForRequest(server, 'reboot prompt of the follow-ups')
    const sessionId = await sessionIdOf(dir, id)
    await sessionSaved(env.HOME, sessionId, 'reboot prompt of the follow-ups')
    const prompt = `after the reboot, ${agent.kind}`
    await queue(dir, id, env, prompt)

    await reboot(dir, id)
    expect(json(await drover(dir, ['followups', String(id), '--json'], {env})).pending).toEqual([expect.objectContaining({n: 1, prompt})])

    // the cut run's reply is slow again: the prompt that continues it is the fake model's plain one
    const r = await drover(dir, ['resume', '--interrupted'], {env})
    expect(r.exitCode, r.stderr).toBe(0)
    const status = await waitFor(async () => {
      const s = await settled(dir, id, env, 120_000)
      return s.run === 3 ? s : null
    }, {timeout: 180_000, message: 'the follow-up run to end'})
    expect(status.runs.map((x: any) => [x.status, x.prompt ?? null])).toEqual([
      ['lost', null],
      ['succeeded', 'Continue from where you left off.'],
      ['succeeded', prompt],
    ])
    const told = server.modelRequests(prompt).find((q) => lastUserText(agent, q) === prompt)!
    expect(JSON.stringify(told.body)).toContain('reboot prompt of the follow-ups')
    expect(JSON.stringify(told.body)).toContain('Continue from where you left off.')
  })
})
