// The scenarios every agent drover knows must pass on its real binary,
// offline against a fake model server (gemini: the Gemini API; qwen, copilot,
// opencode: OpenAI Chat Completions): a run with its session and usage in
// status; a drain mid-turn resumed in the same session, from another cwd, with
// every flag of the original command kept; a reboot brought back by
// `resume --interrupted`; stop mid-tool leaving no process (launchers and
// relaunched parents included); a provider's usage limit recognised in the
// agent's own words, waited out and resumed. By default for gemini, qwen,
// copilot and opencode (claude and codex have the findings files);
// DROVER_TEST_AGENTS_ONLY=a,b picks agents (the newest-versions run gives all six).

import {existsSync, mkdtempSync, readFileSync, rmSync} from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import {afterAll, afterEach, beforeAll, describe, expect, it} from 'vitest'
import {drover, json, readTask, waitFor} from '../helpers/cli.js'
import {agentTempDir} from './harness/env.js'
import type {FakeModelServer, LoggedRequest} from './harness/fake-server.js'
import {processesOf} from './harness/processes.js'
import type {Reply} from './harness/script.js'
import {ALL_AGENTS, MORE_AGENTS, type RealAgent} from './harness/real-agents.js'
import {cleanupTasks, drain, reboot, sessionIdOf, sessionSaved, settled, start, stateDir, streamByRun, waitForRequest} from './harness/tasks.js'

const only = process.env.DROVER_TEST_AGENTS_ONLY?.split(',').filter(Boolean)
const SELECTED = only ? ALL_AGENTS.filter((a) => only.includes(a.kind)) : MORE_AGENTS

/** Flags a user might give, each of a kind a resume could lose: a value flag, a repeated or variadic one. */
function extraFlags(agent: RealAgent, dirs: [string, string]): string[] {
  switch (agent.kind) {
    case 'gemini':
      // gemini's array flags take one value each: the flag is repeated
      return ['--include-directories', dirs[0], '--include-directories', dirs[1], '--extensions', 'none']
    case 'qwen':
      // qwen's take several: the variadic flag right before where a resume puts its own
      return ['--include-directories', dirs[0], dirs[1], '--max-session-turns', '40']
    case 'copilot':
      return ['--add-dir', dirs[0], '--allow-tool', 'shell(pwd)', 'shell(echo)', '--log-level', 'error']
    case 'opencode':
      return ['--title', 'drover scenario title', '-m', 'fake/fake-model']
    case 'claude':
      return ['--add-dir', dirs[0], dirs[1], '--effort', 'high']
    case 'codex':
      return ['--thread-source', 'user']
  }
}

/** The original command minus its prompt (and, for the resume, plus what picks the session), as each agent's resume writes it. */
function expectedResume(agent: RealAgent, original: string[], sessionId: string, prompt: string, cwd: string): string[] {
  const [, ...args] = original
  const withoutPrompt = (value: string) => args.filter((a, i) => a !== value && !(args[i + 1] === value && (a === '-p' || a === '--prompt')))
  switch (agent.kind) {
    case 'gemini': {
      const kept = withoutPrompt(args[args.indexOf('-p') + 1])
      return [...kept, '--resume', sessionId, `--prompt=${prompt}`]
    }
    case 'qwen':
      return [...args.slice(1), '--resume', sessionId, prompt]
    case 'copilot': {
      const kept = withoutPrompt(args[args.indexOf('-p') + 1])
      return [...kept, `--resume=${sessionId}`, `--prompt=${prompt}`]
    }
    case 'opencode':
      return [...args.slice(0, -1), '--session', sessionId, '--', prompt]
    case 'claude': {
      const old = args[args.indexOf('-p') + 1]
      return [...args.filter((a) => a !== old), '--resume', sessionId, '--', prompt]
    }
    case 'codex':
      return [...args.slice(0, -1), 'resume', sessionId, '--', prompt]
  }
}

/**
 * The provider's refusal. qwen retries a 429 by itself (7 attempts, backoff up
 * to 30 s) unless the message says the quota is exhausted and when it resets:
 * then it fails at once and says so, as with a coding plan's quota.
 */
function limitReply(agent: RealAgent, resetsAt: number): Reply {
  // copilot gives up at once when retry-after names a long wait
  if (agent.kind === 'copilot') return {kind: 'usage-limit', resetsAt, retryAfter: true}
  if (agent.kind !== 'qwen') return {kind: 'usage-limit', resetsAt}
  const at = new Date(resetsAt * 1000).toISOString().replace(/\.\d+Z$/, 'Z')
  return {kind: 'usage-limit', resetsAt, message: `Quota exceeded: you have used all requests of your plan for fake-model. Your quota will reset at ${at}.`}
}

/**
 * Seconds the provider refuses. copilot waits out a short limit by itself
 * (retrying for half a minute and more) and reports only a long one: ten
 * minutes, which the test cuts short with `drover resume` (as a person can).
 */
const limitWindow = (agent: RealAgent) => (agent.kind === 'copilot' ? 600 : 6)

/** Input tokens the fake server reported over these requests. */
const servedInput = (requests: LoggedRequest[]) => requests.reduce((sum, r) => sum + (r.usage?.inputTokens ?? 0), 0)

describe.each(SELECTED)('$kind under drover, the real binary offline', (agent: RealAgent) => {
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
    cleanupTasks()
    server.assertNoUnexpected()
    server.reset()
  })

  it('status shows its session while it runs; drained mid-turn, resumed from another cwd in the same session with every flag kept; usage per run and per session', async () => {
    const dir = stateDir()
    const env = agent.env(server)
    const work = agentTempDir('drover-work-')
    const flags = extraFlags(agent, [agentTempDir('drover-add-a-'), agentTempDir('drover-add-b-')])
    const command = agent.command('first prompt of the scenario [[slow: 60]]', ...flags)
    const id = await start(dir, env, command, work)
    await waitForRequest(server, 'first prompt of the scenario')
    const sessionId = await sessionIdOf(dir, id)
    const running = json(await drover(dir, ['status', String(id), '--json'], {env}))
    expect(running).toMatchObject({status: 'running', agent: agent.kind, agentInfo: {sessionId}})

    const drained = await drain(dir, id, env, '1s')
    expect(drained).toMatchObject({status: 'drained', resume: `drover resume ${id}`})
    expect(readTask(dir, id).checkpoint).toMatchObject({profile: agent.kind, sessionId})

    const before = server.modelRequests().length
    const prompt = 'second prompt of the scenario [[tool: pwd]]'
    // drover itself runs in the project dir here: the resume must not depend on the caller's cwd
    const resumed = await drover(dir, ['resume', String(id), '--prompt', prompt, '--json'], {env})
    expect(resumed.exitCode, resumed.stderr).toBe(0)
    const status = await settled(dir, id, env, 90_000)
    expect(status, JSON.stringify(status)).toMatchObject({status: 'succeeded', run: 2, cwd: work})
    expect(status.agentInfo.sessionId).toBe(sessionId)
    const record = readTask(dir, id)
    expect(record.runs[1].command).toEqual([record.executable, ...expectedResume(agent, command, sessionId, prompt, work)])

    // the resumed run sent the first turn back, and its tool ran in the task's cwd
    const later = server.modelRequests().slice(before).filter((r) => JSON.stringify(r.body).includes('second prompt of the scenario'))
    expect(later.length).toBeGreaterThanOrEqual(2)
    expect(JSON.stringify(later[0].body)).toContain('first prompt of the scenario')
    expect(JSON.stringify(streamByRun(dir, id)[1])).toContain(work)

    // this run: a tool call and the answer after it; the session's totals carry the drained run's too
    // codex counts one turn per run (its tool calls happen inside the turn)
    expect(status.agentInfo.turns).toBe(agent.kind === 'codex' ? 1 : 2)
    expect(status.agentInfo.session.turns).toBeGreaterThanOrEqual(2)
    // copilot's tokens come from its session's events.jsonl, the others' from their stdout
    expect(status.agentInfo.inputTokens).toBe(servedInput(later))
    expect(status.agentInfo.outputTokens).toBeGreaterThan(0)
    expect(status.agentInfo.session.inputTokens).toBeGreaterThanOrEqual(status.agentInfo.inputTokens)
    const human = (await drover(dir, ['status', String(id)], {env})).stdout
    expect(human).toContain(sessionId)
    expect(human).toMatch(agent.kind === 'codex' ? /this run +1 turn\b/ : /this run +2 turns/)
  })

  it('after a reboot (runner and agent killed), resume --interrupted continues the same session', async () => {
    const dir = stateDir()
    const env = agent.env(server)
    const cwd = agentTempDir('drover-work-')
    const id = await start(dir, env, agent.command('reboot prompt of the scenario [[slow: 60]]'), cwd)
    await waitForRequest(server, 'reboot prompt of the scenario')
    const sessionId = await sessionIdOf(dir, id)
    if (agent.kind === 'qwen') {
      // qwen too writes its chat after it names the session: on a busy machine the kill came first, and the resume found nothing
      const chat = path.join(env.HOME, '.qwen', 'projects', cwd.replace(/[^A-Za-z0-9]/g, '-'), 'chats', `${sessionId}.jsonl`)
      await waitFor(() => existsSync(chat) && readFileSync(chat, 'utf8').includes('reboot prompt of the scenario'), {timeout: 30_000, message: 'qwen to save the prompt'})
    }
    // claude and codex print their session id before they have saved the session: a kill in between leaves nothing to resume
    if (agent.kind === 'claude' || agent.kind === 'codex') await sessionSaved(env.HOME, sessionId, 'reboot prompt of the scenario')
    if (agent.kind === 'copilot') {
      // drover gave copilot its session id at launch; a kill before copilot saved the prompt leaves nothing to resume
      const events = path.join(env.HOME, '.copilot', 'session-state', sessionId, 'events.jsonl')
      await waitFor(() => existsSync(events) && readFileSync(events, 'utf8').includes('reboot prompt of the scenario'), {timeout: 30_000, message: 'copilot to save the prompt'})
    }
    await reboot(dir, id)

    const before = server.modelRequests().length
    const r = await drover(dir, ['resume', '--interrupted'], {env})
    expect(r.exitCode, r.stderr).toBe(0)
    const status = await settled(dir, id, env, 90_000)
    expect(status, JSON.stringify(status)).toMatchObject({status: 'succeeded', run: 2})
    expect(status.agentInfo.sessionId).toBe(sessionId)
    const later = server.modelRequests().slice(before).filter((q) => JSON.stringify(q.body).includes('Continue from where you left off.'))
    expect(later.length).toBeGreaterThanOrEqual(1)
    expect(JSON.stringify(later[0].body)).toContain('reboot prompt of the scenario')
  })

  it('stop mid-tool leaves no process of the task (launcher, relaunched parent, tool children)', async () => {
    const dir = stateDir()
    const env = agent.env(server)
    const marker = `drover-scenario-stop-${process.pid}-${Date.now()}`
    const id = await start(dir, env, agent.command(`[[tool: timeout 120 tail -f /dev/null; echo ${marker}]]`), agentTempDir('drover-work-'))
    await waitFor(() => processesOf(dir).some((p) => p.cmdline.startsWith('tail -f /dev/null')), {timeout: 90_000, message: 'the tool command to run'})
    expect(processesOf(dir).length).toBeGreaterThanOrEqual(2)

    const r = await drover(dir, ['stop', String(id), '--time', '5s'], {env})
    expect(r.exitCode, r.stderr).toBe(0)
    expect(readTask(dir, id).status).toBe('stopped')
    await waitFor(() => processesOf(dir, marker).length === 0, {
      timeout: 15_000,
      message: `no process of the task (left: ${processesOf(dir, marker).map((p) => `${p.pid} ${p.cmdline}`).join('; ')})`,
    })
  })

  it.runIf(agent.kind === 'gemini')('SIGTERMed by someone else mid-turn, it exits 0 without its result: failed, interrupted, and it resumes', async () => {
    const dir = stateDir()
    const env = agent.env(server)
    const id = await start(dir, env, agent.command('sigterm prompt of the scenario [[slow: 60]]'), agentTempDir('drover-work-'))
    await waitForRequest(server, 'sigterm prompt of the scenario')
    await sessionIdOf(dir, id)
    // its relaunched parent ignores SIGTERM: what a person's `kill` of the group reaches is its child, which saves and exits
    process.kill(-readTask(dir, id).worker.pid, 'SIGTERM')
    const status = await settled(dir, id, env)
    expect(status, JSON.stringify(status)).toMatchObject({status: 'failed', exitCode: 0, reason: "exit 0 without gemini's result: interrupted"})
    // the prompt was saved: the session continues
    const sessionId = status.agentInfo.sessionId
    await drover(dir, ['resume', String(id)], {env})
    expect(await settled(dir, id, env)).toMatchObject({status: 'succeeded', run: 2, agentInfo: {sessionId}})
  })

  it('a usage limit in its own words: recognised, waited out, resumed in the same session (opencode waits it out itself)', async () => {
    const dir = stateDir()
    const env = agent.env(server)
    if (agent.kind === 'opencode') {
      // opencode retries every 429 by itself (backing off, honouring retry-after) until the limit lifts: the run is only slower
      let until = 0
      server.respondWith(() => {
        if (until === 0) until = Math.floor(Date.now() / 1000) + limitWindow(agent)
        return Date.now() / 1000 < until ? limitReply(agent, until) : undefined
      })
      const id = await start(dir, env, agent.command('first prompt of the limit scenario'), agentTempDir('drover-work-'), ['--on-limit', 'wait'])
      const done = await settled(dir, id, env, 90_000)
      expect(done, JSON.stringify(done)).toMatchObject({status: 'succeeded', run: 1})
      expect(done.agentInfo.sessionId).toMatch(/^ses_/)
      expect(done.agentInfo.limit ?? null).toBeNull()
      expect(server.requests.filter((r) => r.reply?.kind === 'usage-limit').length).toBeGreaterThanOrEqual(2)
      return
    }
    const id = await start(dir, env, agent.command('first prompt of the limit scenario'), agentTempDir('drover-work-'), ['--on-limit', 'wait'])
    const first = await settled(dir, id, env, 90_000)
    expect(first, JSON.stringify(first)).toMatchObject({status: 'succeeded'})
    const sessionId = first.agentInfo.sessionId
    expect(sessionId).toBeTruthy()

    // from the resumed run's first request on, every request is refused until the limit lifts (the agent's own retries too)
    let resetsAt = 0
    server.respondWith(() => {
      if (resetsAt === 0) resetsAt = Math.floor(Date.now() / 1000) + limitWindow(agent)
      return Date.now() / 1000 < resetsAt ? limitReply(agent, resetsAt) : undefined
    })
    expect((await drover(dir, ['resume', String(id), '--prompt', 'second prompt of the limit scenario'], {env})).exitCode).toBe(0)
    const waiting = await waitFor(
      () => {
        const t = readTask(dir, id)
        return t.status === 'waiting' || (t.runs.length === 2 && ['succeeded', 'failed'].includes(t.status)) ? t : null
      },
      {timeout: 90_000, message: 'the limit'},
    )
    expect(waiting, JSON.stringify(waiting)).toMatchObject({status: 'waiting', desired: 'running'})
    expect(waiting.agentInfo.limit.message).toMatch(/quota|rate limit/i)
    // the wait the agent's words name (+ drover's margin), not a blind backoff
    expect(waiting.agentInfo.limit.resetAt).not.toBeNull()
    expect(Math.abs(Date.parse(waiting.agentInfo.limit.resetAt) - resetsAt * 1000)).toBeLessThan(5_000)
    expect(waiting.reason).toMatch(/^exit \d+: usage limit.*; waiting until /)
    if (limitWindow(agent) > 60) {
      // a long limit: lifted early by the provider, and the wait cut short by a person's resume
      server.respondWith(undefined)
      expect((await drover(dir, ['resume', String(id)], {env})).exitCode).toBe(0)
    }

    const done = await waitFor(() => readTask(dir, id).runs.length === 3 && readTask(dir, id).status === 'succeeded' && readTask(dir, id), {timeout: 120_000, message: 'resumed'})
    expect(done.agentInfo.sessionId).toBe(sessionId)
    const after = server.modelRequests().at(-1)!
    expect(JSON.stringify(after.body)).toContain('first prompt of the limit scenario')
  })
})
