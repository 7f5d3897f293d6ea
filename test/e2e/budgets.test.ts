// Budgets end to end with the fake claude and codex: a session that reaches
// --max-turns or --max-tokens is drained (reason `budget: …`, a checkpoint),
// resume refuses it until given a higher budget, and the budget counts the
// whole session across resumes. Refusals for agents that cannot report it.

import {writeFileSync} from 'node:fs'
import path from 'node:path'
import {afterEach, describe, expect, it} from 'vitest'
import {makeTempDir, cleanupStateDirs, drover, fixture, json, makeStateDir, readTask, waitFor} from '../helpers/cli.js'

afterEach(() => cleanupStateDirs())

function agentEnv(): Record<string, string> {
  const bin = makeTempDir('drover-bin-')
  for (const name of ['claude', 'codex']) {
    writeFileSync(path.join(bin, name), `#!/usr/bin/env node\nimport(${JSON.stringify(fixture(`agent-${name}.mjs`))})\n`, {mode: 0o755})
  }
  return {PATH: `${bin}${path.delimiter}${process.env.PATH}`, HOME: makeTempDir('drover-home-'), FAKE_AGENT_TURN_MS: '400', FAKE_AGENT_TURNS: '100000'}
}

const ended = (dir: string, id: number) => waitFor(() => ['drained', 'succeeded', 'failed'].includes(readTask(dir, id).status) && readTask(dir, id), {timeout: 40_000, message: `task ${id} ended`})

describe('budgets', () => {
  it('claude --max-turns: drained with a checkpoint at the limit; resume refused until raised; the session counts across runs', async () => {
    const dir = makeStateDir()
    const env = agentEnv()
    const r = await drover(dir, ['start', '--max-turns', '3', '--', 'claude', '-p', 'count', '--output-format', 'stream-json', '--verbose'], {env})
    expect(r.exitCode, r.stderr).toBe(0)
    const id = Number(r.stdout)
    const first = await ended(dir, id)
    expect(first).toMatchObject({status: 'drained', desired: 'running', policies: {maxTurns: 3}})
    expect(first.reason).toMatch(/^budget: max-turns 3 reached \(3 turns\)/)
    expect(first.checkpoint).toMatchObject({profile: 'claude', sessionId: first.agentInfo.sessionId})
    // The runner looks every 250 ms, and the hook makes claude end its turn
    // there: the tool call it refuses and the reply to that are added.
    expect(first.agentInfo.session.turns).toBeGreaterThanOrEqual(3)
    expect(first.agentInfo.session.turns).toBeLessThanOrEqual(6)
    expect((await drover(dir, ['status', String(id)], {env})).stdout).toMatch(/reason +budget: max-turns 3 reached/)
    expect((await drover(dir, ['status', String(id)], {env})).stdout).toMatch(/limits +max-output 1\.0 GiB, max-turns 3/)

    const refused = await drover(dir, ['resume', String(id)], {env})
    expect(refused.exitCode).toBe(4)
    expect(refused.stderr).toMatch(new RegExp(`^drover: task ${id} has used its budget \\(max-turns 3 reached .*\\); resume it with a higher one`))
    expect(readTask(dir, id).runs).toHaveLength(1)

    expect((await drover(dir, ['resume', String(id), '--max-turns', '6'], {env})).exitCode).toBe(0)
    await waitFor(() => readTask(dir, id).runs.length === 2, {message: 'second run'})
    const second = await ended(dir, id)
    expect(second).toMatchObject({status: 'drained', policies: {maxTurns: 6}})
    expect(second.reason).toMatch(/^budget: max-turns 6 reached/)
    // this run took only what was left of the session's budget
    expect(second.agentInfo.session.turns).toBeGreaterThanOrEqual(6)
    expect(second.agentInfo.session.turns).toBeLessThanOrEqual(first.agentInfo.session.turns + 4)
    expect(second.agentInfo.turns).toBe(second.agentInfo.session.turns - first.agentInfo.session.turns)
  })

  it('codex --max-tokens 3k: drained once the thread used that many tokens', async () => {
    const dir = makeStateDir()
    const env = agentEnv()
    const r = await drover(dir, ['start', '--max-tokens', '3k', '--', 'codex', 'exec', '--json', 'count'], {env})
    expect(r.exitCode, r.stderr).toBe(0)
    const task = await ended(dir, Number(r.stdout))
    expect(task.status).toBe('drained')
    expect(task.reason).toMatch(/^budget: max-tokens 3000 reached \(\d+ tokens\)/)
    expect(task.agentInfo.session.inputTokens + task.agentInfo.session.outputTokens).toBeGreaterThanOrEqual(3000)
    expect(task.agentInfo.turns).toBeLessThan(6)
    expect(task.checkpoint).toMatchObject({profile: 'codex', mode: 'safe-point'})
  })

  it('refused (exit 2) for jobs that report no usage, cost for codex, and bad amounts', async () => {
    const dir = makeStateDir()
    const env = agentEnv()
    const generic = await drover(dir, ['start', '--max-turns', '2', '--', 'sleep', '1'], {env})
    expect(generic).toMatchObject({exitCode: 2, stderr: 'drover: --max-cost, --max-turns and --max-tokens need an agent that reports its usage (claude, codex, gemini, qwen, copilot, opencode)'})
    expect((await drover(dir, ['start', '--max-cost', '1', '--', 'codex', 'exec', '--json', 'x'], {env})).stderr).toBe(
      'drover: codex reports no cost: use --max-tokens (or --max-turns) for a codex task',
    )
    expect((await drover(dir, ['start', '--max-cost', 'lots', '--', 'claude', '-p', 'x'], {env})).exitCode).toBe(2)
    expect(await drover(dir, ['start', '--max-tokens', '2MB', '--', 'claude', '-p', 'x'], {env})).toMatchObject({
      exitCode: 2,
      stderr: "drover: --max-tokens: invalid count '2MB' (use e.g. 500k, 2M, 40000; k = 1,000, M = 1,000,000)",
    })
    expect(json(await drover(dir, ['list', '--json']))).toEqual([])
  })
})
