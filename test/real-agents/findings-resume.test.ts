// Issue 11, findings 1–5 and awkward working directories, against the real
// claude and codex: a resume keeps every flag of the original command line
// (values, variadic flags, codex -C), and resume is offered only when it can
// work (not through --shell, not before a session id, not for runs that saved
// no session) — drain's answer, status and `resume` agreeing.

import {writeFileSync} from 'node:fs'
import path from 'node:path'
import {describe, expect, it} from 'vitest'
import {drover, json, readTask} from '../helpers/cli.js'
import {agentTempDir} from './harness/env.js'
import {AGENTS, CLAUDE, CODEX, type RealAgent} from './harness/real-agents.js'
import {agentLinks, awkwardDir, cleanupTasks, drain, lastUserText, resume, sessionIdOf, settled, start, stateDir, streamByRun, waitForRequest, useFakeServers} from './harness/tasks.js'

const serverOf = useFakeServers()

describe('finding 1: resume keeps every flag', () => {
  it('claude: values, variadic flags and the permissions they grant survive a drain and resume', async () => {
    const server = serverOf(CLAUDE)
    const dir = stateDir()
    const env = CLAUDE.env(server)
    const work = agentTempDir('drover-work-')
    const [addA, addB] = [agentTempDir('drover-add-a-'), agentTempDir('drover-add-b-')]
    // Outside the work dir and the added dirs: only the Read permission lets claude read it.
    const secret = path.join(agentTempDir('drover-outside-'), 'secret.txt')
    writeFileSync(secret, 'the secret of finding one')
    const flags = ['--effort', 'high', '--allowedTools', 'Bash', 'Read', '--add-dir', addA, addB, '--output-format', 'stream-json', '--verbose']
    const id = await start(dir, env, ['claude', '-p', 'first prompt of f1 [[slow: 30]]', ...flags], work)
    await waitForRequest(server, 'first prompt of f1')
    const sessionId = await sessionIdOf(dir, id)
    expect((await drain(dir, id, env, '1s')).status).toBe('drained')

    const prompt = 'second prompt of f1: read the secret file'
    server.respondWith((turn) => (turn.last.kind === 'prompt' && turn.prompt.includes(prompt) ? {kind: 'tool', command: '', claudeTool: {name: 'Read', input: {file_path: secret}}} : undefined))
    const before = server.modelRequests().length
    await resume(dir, id, env, prompt)
    const status = await settled(dir, id, env)
    expect(status, JSON.stringify(status)).toMatchObject({status: 'succeeded', run: 2})

    const first = server.modelRequests().slice(before)[0]
    expect(lastUserText(CLAUDE, first)).toBe(prompt)
    expect(JSON.stringify(first.body.messages)).toContain('first prompt of f1')
    expect(first.headers['x-claude-code-session-id']).toBe(sessionId)
    // --effort high reached the model, --add-dir both dirs, --allowedTools both tools
    expect(first.body.output_config?.effort).toBe('high')
    expect(JSON.stringify(first.body.messages)).toMatch(new RegExp(`Additional working directories:\\\\n\\s*- ${addA}\\\\n\\s*- ${addB}`))
    const results = streamByRun(dir, id)[1].filter((e) => e.type === 'user' && e.tool_use_result)
    expect(results).toHaveLength(1)
    expect(results[0].message.content[0]).toMatchObject({content: expect.stringContaining('the secret of finding one')})
    expect(results[0].message.content[0].is_error).not.toBe(true)
    const record = readTask(dir, id)
    expect(record.runs[1].command).toEqual([record.executable, '-p', ...flags, '--resume', sessionId, '--', prompt])
  })

  it('codex: --thread-source user is kept and the resume exits 0', async () => {
    const server = serverOf(CODEX)
    const dir = stateDir()
    const env = CODEX.env(server)
    const command = ['codex', 'exec', '--json', '--skip-git-repo-check', '--thread-source', 'user', 'first prompt of f1 codex']
    const id = await start(dir, env, command, agentTempDir('drover-work-'))
    const sessionId = await sessionIdOf(dir, id)
    expect((await settled(dir, id, env)).status).toBe('succeeded')

    const prompt = 'second prompt of f1 codex'
    await resume(dir, id, env, prompt)
    const status = await settled(dir, id, env)
    expect(status, JSON.stringify(status)).toMatchObject({status: 'succeeded', run: 2, exitCode: 0})
    const record = readTask(dir, id)
    expect(record.runs[1].command).toEqual([record.executable, ...command.slice(1, -1), 'resume', sessionId, '--', prompt])
    const resumed = server.modelRequests(prompt)[0]
    expect(lastUserText(CODEX, resumed)).toBe(prompt)
    expect(JSON.stringify(resumed.body.input)).toContain('first prompt of f1 codex')
  })
})

it('finding 2: codex -C DIR: the resumed run works in DIR, not in the task cwd', async () => {
  const server = serverOf(CODEX)
  const dir = stateDir()
  const env = CODEX.env(server)
  const target = agentTempDir('drover-target-')
  const id = await start(dir, env, CODEX.command('first prompt of f2', '-C', target), agentTempDir('drover-elsewhere-'))
  expect((await settled(dir, id, env)).status).toBe('succeeded')

  await resume(dir, id, env, 'second prompt of f2 [[tool: pwd]]')
  expect((await settled(dir, id, env)).status).toBe('succeeded')
  const pwd = streamByRun(dir, id)[1].find((e) => e.type === 'item.completed' && e.item.type === 'command_execution')
  expect(pwd?.item.aggregated_output.trim()).toBe(target)
  expect(readTask(dir, id).runs[1].command).toContain(target)
})

describe.each(AGENTS)('$kind: resume is offered only when it can work', (agent: RealAgent) => {
  it('finding 3: --agent with --shell is refused at start, nothing created', async () => {
    const dir = stateDir()
    const r = await drover(dir, ['start', '--agent', agent.kind, '--shell', `${agent.kind} -p hello`], {env: agent.env(serverOf(agent))})
    expect(r.exitCode).toBe(2)
    expect(r.stderr).toMatch(/--shell/)
    expect(r.stderr.trim().split('\n')).toHaveLength(1)
    expect(json(await drover(dir, ['list', '--json']))).toEqual([])
  })

  it('finding 4: a drain before the agent reported a session: not resumable, and drain, status and resume agree', async () => {
    const server = serverOf(agent)
    const dir = stateDir()
    // The real agent, started 30 s late: the drain always lands before its first event.
    const env = agent.env(server)
    env.PATH = `${agentLinks({delaySeconds: 30})}${path.delimiter}${env.PATH}`
    const work = agentTempDir('drover-work-')
    const [jsonId, humanId] = [await start(dir, env, agent.command('f4 json'), work), await start(dir, env, agent.command('f4 human'), work)]

    const result = await drain(dir, jsonId, env, '0s')
    expect(result).toMatchObject({status: 'drained', resume: null})
    expect(result.resumeRefused).toMatch(new RegExp(`no session id.*drover start ${jsonId}`))
    const human = await drover(dir, ['drain', String(humanId), '--grace', '0s', '--kill-after', '5s'], {env})
    expect(human.exitCode, human.stderr).toBe(0)
    expect(human.stdout).toContain(`not resumable: `)
    expect(human.stdout).toContain(`drover start ${humanId}`)
    expect(human.stdout).not.toContain('resume with')

    for (const id of [jsonId, humanId]) {
      const status = json(await drover(dir, ['status', String(id), '--json'], {env}))
      expect(status).toMatchObject({status: 'drained', resume: null})
      expect(status.resumeRefused).toContain(`drover start ${id}`)
      const refused = await drover(dir, ['resume', String(id)], {env})
      expect(refused.exitCode).toBe(4)
      expect(refused.stderr).toContain(`drover start ${id}`)
      expect(readTask(dir, id).runs).toHaveLength(1)
    }
    expect(server.modelRequests()).toHaveLength(0)
  })

  it('finding 5: a run that saved no session is not offered a resume, and resume refuses it', async () => {
    const server = serverOf(agent)
    const dir = stateDir()
    const env = agent.env(server)
    const flag = agent.kind === 'claude' ? '--no-session-persistence' : '--ephemeral'
    const id = await start(dir, env, agent.command('f5 prompt [[slow: 30]]', flag), agentTempDir('drover-work-'))
    await waitForRequest(server, 'f5 prompt')
    await sessionIdOf(dir, id)

    const result = await drain(dir, id, env, '1s')
    expect(result).toMatchObject({status: 'drained', resume: null})
    expect(result.resumeRefused).toContain(flag)
    const requests = server.modelRequests().length
    const refused = await drover(dir, ['resume', String(id)], {env})
    expect(refused.exitCode).toBe(4)
    expect(refused.stderr).toContain(flag)
    expect(readTask(dir, id)).toMatchObject({status: 'drained'})
    expect(server.modelRequests()).toHaveLength(requests)
  })

  it(`a cwd with spaces and quotes: start, drain and resume`, async () => {
    const server = serverOf(agent)
    const dir = stateDir()
    const env = agent.env(server)
    const work = awkwardDir()
    const id = await start(dir, env, agent.command('awkward cwd prompt [[slow: 30]]'), work)
    await waitForRequest(server, 'awkward cwd prompt')
    const sessionId = await sessionIdOf(dir, id)
    expect(await drain(dir, id, env, '1s')).toMatchObject({status: 'drained', resume: `drover resume ${id}`})

    await resume(dir, id, env, 'awkward cwd second prompt [[tool: pwd]]')
    const status = await settled(dir, id, env)
    expect(status, JSON.stringify(status)).toMatchObject({status: 'succeeded', run: 2, cwd: work})
    expect(status.agentInfo.sessionId).toBe(sessionId)
    const later = server.modelRequests('awkward cwd second prompt')
    expect(later.length).toBeGreaterThanOrEqual(1)
    expect(JSON.stringify(later[0].body)).toContain('awkward cwd prompt [[slow: 30]]')
    // the tool ran in the awkward dir
    expect(JSON.stringify(streamByRun(dir, id)[1])).toContain(JSON.stringify(work).slice(1, -1))
  })
})
