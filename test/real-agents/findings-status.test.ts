// Issue 11, findings 7 and 10, against the real claude and codex: telemetry
// names this run's figures and the session's totals (checked against the
// usage the fake model servers reported), one line per task however many
// lines its prompt has, and a failed agent's status shows what went wrong.

import {describe, expect, it} from 'vitest'
import {drover, json, readOutput, waitFor} from '../helpers/cli.js'
import {agentTempDir} from './harness/env.js'
import type {LoggedRequest} from './harness/fake-server.js'
import {AGENTS, CLAUDE, CODEX, jsonLines, type RealAgent} from './harness/real-agents.js'
import {cleanupTasks, resume, settled, start, stateDir, streamByRun, useFakeServers} from './harness/tasks.js'

const serverOf = useFakeServers()

/** Input and output tokens the fake server reported over these requests. */
function served(requests: LoggedRequest[]): {input: number; output: number} {
  return {
    input: requests.reduce((sum, r) => sum + r.usage!.inputTokens, 0),
    output: requests.reduce((sum, r) => sum + r.usage!.outputTokens, 0),
  }
}

/** Runs one tool call, then resumes with another: status --json after each run, and the requests of each. */
async function twoRuns(agent: RealAgent) {
  const server = serverOf(agent)
  const dir = stateDir()
  const env = agent.env(server)
  const id = await start(dir, env, agent.command('f7 first [[tool: echo one]]'), agentTempDir('drover-work-'))
  const first = await settled(dir, id, env)
  const firstRequests = server.modelRequests()
  await resume(dir, id, env, 'f7 second [[tool: echo two]]')
  const second = await settled(dir, id, env)
  const secondRequests = server.modelRequests().slice(firstRequests.length)
  expect(first.status).toBe('succeeded')
  expect(second.status).toBe('succeeded')
  // a reply with text and a tool call, then a final text: two model requests, two model messages per run
  expect(firstRequests).toHaveLength(2)
  expect(secondRequests).toHaveLength(2)
  const human = await drover(dir, ['status', String(id)], {env})
  return {dir, id, first, second, firstRequests, secondRequests, human: human.stdout}
}

describe('finding 7: telemetry is this run\'s, and the session\'s totals beside it', () => {
  it('claude: one turn per message; cost and tokens of this run; session totals across the resume', async () => {
    const {dir, id, first, second, firstRequests, secondRequests, human} = await twoRuns(CLAUDE)
    const [r1, r2] = streamByRun(dir, id).map((events) => events.find((e) => e.type === 'result'))
    const [u1, u2] = [served(firstRequests), served(secondRequests)]

    expect(first.agentInfo).toMatchObject({turns: 2, inputTokens: u1.input, costUsd: r1.total_cost_usd})
    expect(first.agentInfo.session).toMatchObject({turns: 2, inputTokens: u1.input, costUsd: r1.total_cost_usd})
    // claude's total_cost_usd counts the whole session: this run's cost is the difference
    expect(r2.total_cost_usd).toBeGreaterThan(r1.total_cost_usd)
    expect(second.agentInfo).toMatchObject({turns: 2, inputTokens: u2.input, outputTokens: r2.usage.output_tokens})
    expect(second.agentInfo.costUsd).toBeCloseTo(r2.total_cost_usd - r1.total_cost_usd, 9)
    expect(second.agentInfo.session).toMatchObject({turns: 4, inputTokens: u1.input + u2.input, outputTokens: r1.usage.output_tokens + r2.usage.output_tokens})
    expect(second.agentInfo.session.costUsd).toBeCloseTo(r2.total_cost_usd, 9)
    expect(human).toMatch(new RegExp(`this run +2 turns, \\$${second.agentInfo.costUsd.toFixed(4).replace('.', '\\.')}, ${u2.input} tokens in`))
    expect(human).toMatch(new RegExp(`session total +4 turns, \\$${r2.total_cost_usd.toFixed(4).replace('.', '\\.')}, ${u1.input + u2.input} tokens in`))
  })

  it('claude: a message with text and a tool call is one turn (stopped mid-tool, before its result event says so)', async () => {
    const dir = stateDir()
    const env = CLAUDE.env(serverOf(CLAUDE))
    const id = await start(dir, env, CLAUDE.command('f7 one message [[tool: timeout 120 tail -f /dev/null]]'), agentTempDir('drover-work-'))
    await waitFor(() => CLAUDE.toolsInFlight(jsonLines(readOutput(dir, id))).length === 1, {timeout: 60_000, message: 'the tool call to start'})
    const stopped = await drover(dir, ['stop', String(id), '--time', '5s'], {env})
    expect(stopped.exitCode, stopped.stderr).toBe(0)
    const events = jsonLines(readOutput(dir, id))
    // the one message came as two events (its text, then its tool call), and claude wrote no result
    expect(events.filter((e) => e.type === 'assistant').map((e) => e.message.content[0].type)).toEqual(['text', 'tool_use'])
    expect(events.some((e) => e.type === 'result')).toBe(false)
    const status = json(await drover(dir, ['status', String(id), '--json'], {env}))
    expect(status.agentInfo).toMatchObject({turns: 1, session: expect.objectContaining({turns: 1})})
  })

  it('codex: the thread totals codex reports become this run\'s figures and the session\'s', async () => {
    const {first, second, firstRequests, secondRequests, human} = await twoRuns(CODEX)
    const [u1, u2] = [served(firstRequests), served(secondRequests)]

    expect(first.agentInfo).toMatchObject({turns: 1, inputTokens: u1.input})
    expect(second.agentInfo).toMatchObject({turns: 1, inputTokens: u2.input})
    expect(second.agentInfo.session).toMatchObject({turns: 2, inputTokens: u1.input + u2.input})
    expect(second.agentInfo.outputTokens + first.agentInfo.outputTokens).toBe(second.agentInfo.session.outputTokens)
    expect(human).toMatch(new RegExp(`this run +1 turn, ${u2.input} tokens in`))
    expect(human).toMatch(new RegExp(`session total +2 turns, ${u1.input + u2.input} tokens in`))
  })
})

describe.each(AGENTS)('finding 10: $kind in list and status', (agent: RealAgent) => {
  it('a multi-line prompt is one escaped line in list and status', async () => {
    const dir = stateDir()
    const env = agent.env(serverOf(agent))
    // A marker no hex id holds: with 'f10', a session id such as 01a245b2-d238-7f10-… made a second line match (CI).
    const id = await start(dir, env, agent.command('zq10 first line\nzq10 second line'), agentTempDir('drover-work-'))
    expect((await settled(dir, id, env)).status).toBe('succeeded')
    const escaped = `$'zq10 first line\\nzq10 second line'`
    for (const args of [['list'], ['status', String(id)]]) {
      const out = (await drover(dir, args, {env})).stdout
      expect(out).toContain(escaped)
      const lines = out.split('\n').filter((line) => line.includes('zq10'))
      expect(lines, JSON.stringify(lines)).toHaveLength(1)
    }
  })

  it('a failed agent: status shows its error and its own lines, not its init event', async () => {
    const server = serverOf(agent)
    const dir = stateDir()
    const env = agent.env(server)
    const message = 'f10 the fake API refuses this request'
    server.respondWith(() => ({kind: 'http-error', status: 400, message}))
    const id = await start(dir, env, agent.command('f10 failing prompt'), agentTempDir('drover-work-'))
    expect((await settled(dir, id, env)).status).toBe('failed')

    const human = (await drover(dir, ['status', String(id)], {env})).stdout
    expect(human).toMatch(new RegExp(`agent error +.*${message}`))
    expect(human).not.toContain(agent.kind === 'claude' ? '"subtype":"init"' : '"type":"thread.started"')
    expect(human.split('\n').every((line) => line.length < 1000)).toBe(true)
    // what the agent printed besides its events (codex: its stderr; claude prints none here)
    if (agent.kind === 'codex') expect(human).toContain('Reading additional input from stdin')
    expect(json(await drover(dir, ['status', String(id), '--json'], {env})).agentInfo.error).toContain(message)
  })
})

it('finding 10: a claude that ends with an error result: status shows that error', async () => {
  const dir = stateDir()
  const env = CLAUDE.env(serverOf(CLAUDE))
  // a resume of a session that does not exist: claude ends with an error result
  const id = await start(dir, env, ['claude', '-p', '--resume', '00000000-0000-4000-8000-000000000000', '--output-format', 'stream-json', '--verbose', '--', 'f10 nothing to resume'], agentTempDir('drover-work-'))
  const status = await settled(dir, id, env)
  expect(status.status).toBe('failed')
  expect((await drover(dir, ['status', String(id)], {env})).stdout).toMatch(/agent error +No conversation found/)
  expect(status.agentInfo.error).toMatch(/No conversation found/)
})
