// Budgets held by the real claude and codex: drained through the hook when
// reached, refused on resume until raised, counted across the session.

import {describe, expect, it} from 'vitest'
import {drover} from '../helpers/cli.js'
import {agentTempDir} from './harness/env.js'
import {CLAUDE, CODEX} from './harness/real-agents.js'
import {settled, start, stateDir, useFakeServers} from './harness/tasks.js'

describe('the real agents held to their budgets', () => {
  const serverOf = useFakeServers()

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
