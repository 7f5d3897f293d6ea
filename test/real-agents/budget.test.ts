// Budgets held by the real claude, codex and copilot: drained through the
// hook (claude) or at a safe point (copilot, its tokens read from its session
// log as they come) when reached, refused on resume until raised, counted
// across the session.

import {describe, expect, it} from 'vitest'
import {drover} from '../helpers/cli.js'
import {agentTempDir} from './harness/env.js'
import {CLAUDE, CODEX, COPILOT} from './harness/real-agents.js'
import {settled, start, stateDir, useFakeServers} from './harness/tasks.js'

describe('the real agents held to their budgets', () => {
  const serverOf = useFakeServers([CLAUDE, CODEX, COPILOT])

  it('codex reports tokens when its turn ends: the run keeps its status, the next resume is refused until the budget is raised', async () => {
    const server = serverOf(CODEX)
    const dir = stateDir()
    const env = CODEX.env(server)
    const id = await start(dir, env, CODEX.command('budget prompt for codex'), agentTempDir('drover-work-'), ['--max-tokens', '100'])
    const first = await settled(dir, id, env)
    expect(first, JSON.stringify(first)).toMatchObject({status: 'succeeded', policies: {maxTokens: 100}})
    expect(first.agentInfo.session.inputTokens + first.agentInfo.session.outputTokens).toBeGreaterThanOrEqual(100)
    const refused = await drover(dir, ['resume', String(id)], {env})
    expect(refused.exitCode).toBe(4)
    expect(refused.stderr).toMatch(/has used its budget \(max-tokens 100 reached \(\d+ tokens\)\)/)
    expect((await drover(dir, ['resume', String(id), '--max-tokens', '100000000'], {env})).exitCode).toBe(0)
    expect(await settled(dir, id, env)).toMatchObject({status: 'succeeded', run: 2})
  })

  it('copilot: --max-tokens drains an endless tool loop mid-run from the tokens its session log records; resumed with a higher one, the session counts both runs', async () => {
    const server = serverOf(COPILOT)
    const dir = stateDir()
    const env = COPILOT.env(server)
    // each of copilot's model calls sends its ~5k-token system prompt and tools: a few calls reach it
    const id = await start(dir, env, COPILOT.command('budget loop [[loop: echo step]]'), agentTempDir('drover-work-'), ['--max-tokens', '20k'])
    const first = await settled(dir, id, env)
    expect(first, JSON.stringify(first)).toMatchObject({status: 'drained', policies: {maxTokens: 20_000}})
    expect(first.reason).toMatch(/^budget: max-tokens 20000 reached/)
    const used = first.agentInfo.session.inputTokens + first.agentInfo.session.outputTokens
    expect(used).toBeGreaterThanOrEqual(20_000)
    // stopped by the budget, not by the loop running out: far fewer calls than an unchecked loop makes
    expect(server.modelRequests().length).toBeLessThan(40)

    const refused = await drover(dir, ['resume', String(id)], {env})
    expect(refused.exitCode).toBe(4)
    expect(refused.stderr).toMatch(/has used its budget \(max-tokens 20000 reached \(\d+ tokens\)\)/)
    const raised = await drover(dir, ['resume', String(id), '--max-tokens', '10M', '--prompt', 'just say hello'], {env})
    expect(raised.exitCode, raised.stderr).toBe(0)
    const second = await settled(dir, id, env)
    expect(second, JSON.stringify(second)).toMatchObject({status: 'succeeded', run: 2})
    expect(second.agentInfo.sessionId).toBe(first.agentInfo.sessionId)
    expect(second.agentInfo.inputTokens).toBeGreaterThan(0)
    expect(second.agentInfo.session.inputTokens).toBe(first.agentInfo.session.inputTokens + second.agentInfo.inputTokens)
    // what list shows: the session's tokens, and no cost (copilot counts premium requests, not money)
    const row = JSON.parse((await drover(dir, ['list', '--json'], {env})).stdout).find((t: {id: number}) => t.id === id)
    expect(row.agentInfo).toMatchObject({costUsd: null, session: {inputTokens: second.agentInfo.session.inputTokens}})
  })

  it('drained by its budget through the hook (no signal), resumed with a higher one in the same session', async () => {
    const server = serverOf(CLAUDE)
    const dir = stateDir()
    const env = CLAUDE.env(server)
    const id = await start(dir, env, CLAUDE.command('budget loop [[loop: echo step]]'), agentTempDir('drover-work-'), ['--max-turns', '2'])
    const first = await settled(dir, id, env)
    expect(first, JSON.stringify(first)).toMatchObject({status: 'drained', checkpoint: {mode: 'cooperative'}})
    expect(first.reason).toMatch(/^budget: max-turns 2 reached/)
    // The fake model answers at once, so the loop runs on while the runner notices the second turn and
    // writes STOP (a tick, longer on a loaded machine); what matters is that the budget ends an endless loop.
    expect(first.agentInfo.session.turns).toBeLessThan(40)

    const refused = await drover(dir, ['resume', String(id)], {env})
    expect(refused.exitCode).toBe(4)
    const raised = await drover(dir, ['resume', String(id), '--max-turns', '50', '--prompt', 'just say hello'], {env})
    expect(raised.exitCode, raised.stderr).toBe(0)
    const second = await settled(dir, id, env)
    expect(second, JSON.stringify(second)).toMatchObject({status: 'succeeded', run: 2, policies: {maxTurns: 50}})
    expect(second.agentInfo.sessionId).toBe(first.agentInfo.sessionId)
    expect(second.agentInfo.session.turns).toBe(first.agentInfo.session.turns + second.agentInfo.turns)
  })
})
