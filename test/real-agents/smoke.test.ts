// The real claude and codex under drover, against fake model servers: a run
// succeeds and drover learns the agent's session; a run drained mid-turn
// resumes its own conversation (the fake server sees the first prompt sent
// back); stop and cancel leave nothing of the task running.

import {mkdtempSync, rmSync} from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import {afterAll, afterEach, beforeAll, describe, expect, it} from 'vitest'
import {cleanupStateDirs, drover, json, makeStateDir, readOutput, readTask, waitFor} from '../helpers/cli.js'
import {cleanupAgentDirs, agentTempDir} from './harness/env.js'
import type {FakeModelServer} from './harness/fake-server.js'
import {killProcessesOf, processesOf} from './harness/processes.js'
import {AGENTS, jsonLines, type RealAgent} from './harness/real-agents.js'

const stateDirs: string[] = []

function stateDir(): string {
  const dir = makeStateDir()
  stateDirs.push(dir)
  return dir
}

async function start(dir: string, env: Record<string, string>, command: string[], cwd: string): Promise<number> {
  const r = await drover(dir, ['start', '--cwd', cwd, '--', ...command], {env})
  expect(r.exitCode, r.stderr).toBe(0)
  return Number(r.stdout.trim())
}

async function settled(dir: string, id: number, env: Record<string, string>, timeout = 60_000): Promise<any> {
  return waitFor(
    async () => {
      const status = json(await drover(dir, ['status', String(id), '--json'], {env}))
      return ['running', 'starting', 'stopping', 'draining'].includes(status.status) ? null : status
    },
    {timeout, interval: 250, message: `task ${id} to end`},
  )
}

describe.each(AGENTS)('real $kind under drover', (agent: RealAgent) => {
  let server: FakeModelServer
  let logDir: string

  beforeAll(async () => {
    logDir = mkdtempSync(path.join(os.tmpdir(), `drover-${agent.kind}-log-`))
    server = await agent.startServer(logDir)
  })

  afterAll(async () => {
    await server.stop()
    rmSync(logDir, {recursive: true, force: true})
  })

  afterEach(() => {
    for (const dir of stateDirs.splice(0)) killProcessesOf(dir)
    cleanupStateDirs()
    cleanupAgentDirs()
    server.assertNoUnexpected()
    server.reset()
  })

  it('runs to success, and status --json has the session the agent used', async () => {
    const dir = stateDir()
    const env = agent.env(server)
    const id = await start(dir, env, agent.command('say hello'), agentTempDir('drover-work-'))
    const status = await settled(dir, id, env)
    expect(status, JSON.stringify(status)).toMatchObject({status: 'succeeded', exitCode: 0, agent: agent.kind})
    const requests = server.modelRequests('say hello')
    expect(requests.length).toBeGreaterThanOrEqual(1)
    expect(status.agentInfo.sessionId).toBeTruthy()
    expect(status.agentInfo.sessionId).toBe(agent.sessionOf(requests[0]))
  })

  it('drained mid-turn, resumes its own conversation', async () => {
    const dir = stateDir()
    const env = agent.env(server)
    const work = agentTempDir('drover-work-')
    // 60 s of streaming: the drain always lands mid-turn.
    const id = await start(dir, env, agent.command('first prompt of the drain test [[slow: 60]]'), work)
    await waitFor(() => server.modelRequests('first prompt of the drain test').length > 0, {timeout: 60_000, message: 'the first model request'})
    const sessionId = await waitFor(() => readTask(dir, id).agentInfo?.sessionId, {timeout: 30_000, message: 'a session id'})

    const drained = await drover(dir, ['drain', String(id), '--grace', '1s', '--kill-after', '5s', '--json'], {env})
    expect(drained.exitCode, drained.stderr).toBe(0)
    const record = readTask(dir, id)
    expect(record.status).toBe('drained')
    expect(record.checkpoint).toMatchObject({profile: agent.kind, sessionId})

    const before = server.modelRequests().length
    const resumed = await drover(dir, ['resume', String(id), '--json'], {env})
    expect(resumed.exitCode, resumed.stderr).toBe(0)
    const status = await settled(dir, id, env)
    expect(status, JSON.stringify(status)).toMatchObject({status: 'succeeded', run: 2})
    expect(status.agentInfo.sessionId).toBe(sessionId)
    // the resumed run sent the earlier turn back, in the same session
    const later = server.modelRequests().slice(before)
    expect(later.length).toBeGreaterThanOrEqual(1)
    for (const request of later) expect(agent.sessionOf(request)).toBe(sessionId)
    expect(JSON.stringify(later[0].body)).toContain('first prompt of the drain test')
    expect(JSON.stringify(later[0].body)).toContain('Continue from where you left off.')
  })

  it.each(['stop', 'cancel'])('%s mid-tool leaves no process of the task', async (verb) => {
    const dir = stateDir()
    const env = agent.env(server)
    const marker = `drover-smoke-${verb}-${process.pid}-${Date.now()}`
    // Not `sleep 120`: claude refuses a long leading sleep as a tool command.
    const id = await start(dir, env, agent.command(`[[tool: timeout 120 tail -f /dev/null; echo ${marker}]]`), agentTempDir('drover-work-'))
    // mid-tool: the agent's stream says a tool started, and its command runs
    await waitFor(
      () => agent.toolsInFlight(jsonLines(readOutput(dir, id))).length === 1 && processesOf(dir).some((p) => p.cmdline.startsWith('tail -f /dev/null')),
      {timeout: 60_000, message: 'the tool command to run'},
    )

    const r = await drover(dir, [verb, String(id), ...(verb === 'stop' ? ['--time', '5s'] : [])], {env})
    expect(r.exitCode, r.stderr).toBe(0)
    expect(readTask(dir, id).status).toBe(verb === 'stop' ? 'stopped' : 'cancelled')
    await waitFor(() => processesOf(dir, marker).length === 0, {
      timeout: 15_000,
      message: `no process of the task (left: ${processesOf(dir, marker).map((p) => `${p.pid} ${p.cmdline}`).join('; ')})`,
    })
  })
})
