// Issue 11, findings 8 and 9, against the real claude and codex: a drain of
// claude ends cooperatively through drover's PreToolUse hook (no tool call
// after STOP, the agent ends its turn and exits on its own), a drain of codex
// signals it at a safe point (the tool in flight finishes first); and when a
// task's runner is killed while its agent works, the next drover command
// starts a runner that adopts the agent, carries out requests and records its end.

import {readFileSync, writeFileSync} from 'node:fs'
import path from 'node:path'
import {describe, expect, it} from 'vitest'
import {drover, isAlive, json, readOutput, readTask, waitFor} from '../helpers/cli.js'
import {agentTempDir} from './harness/env.js'
import {processesOf} from './harness/processes.js'
import {AGENTS, CLAUDE, CODEX, jsonLines, type RealAgent} from './harness/real-agents.js'
import {cleanupTasks, drain, runnerPid, sessionIdOf, settled, start, stateDir, taskEvents, waitForRequest, useFakeServers} from './harness/tasks.js'

const serverOf = useFakeServers()

const lines = (file: string, word: string) => {
  try {
    return readFileSync(file, 'utf8').split('\n').filter((line) => line === word).length
  } catch {
    return 0
  }
}

/** codex command items of the stream: started and completed ones. */
function codexCommands(events: any[]) {
  const isCommand = (e: any) => e.item?.type === 'command_execution'
  return {
    started: events.filter((e) => e.type === 'item.started' && isCommand(e)),
    completed: events.filter((e) => e.type === 'item.completed' && isCommand(e)),
  }
}

/** SIGKILLs the task's runner (not its worker) and waits until it is gone. */
async function killRunner(dir: string, id: number): Promise<number> {
  const pid = runnerPid(dir, id)
  expect(pid).toBeTruthy()
  process.kill(pid!, 'SIGKILL')
  await waitFor(() => !isAlive(pid!), {timeout: 10_000, message: `runner ${pid} to die`})
  return pid!
}

describe('finding 8: drains that cooperate', () => {
  it('claude: a drain mid-tool lets the tool finish, blocks the next call, and claude ends its turn on its own', async () => {
    const server = serverOf(CLAUDE)
    const dir = stateDir()
    const env = CLAUDE.env(server)
    const work = agentTempDir('drover-work-')
    const ticks = path.join(work, 'ticks.log')
    const id = await start(dir, env, CLAUDE.command(`f8 claude [[loop: echo start >> ${ticks}; sleep 2; echo tick >> ${ticks}]]`), work)
    // mid-tool, after at least one whole call
    await waitFor(() => lines(ticks, 'tick') >= 1 && lines(ticks, 'start') > lines(ticks, 'tick'), {timeout: 60_000, message: 'a second tool call running'})

    const result = await drain(dir, id, env, '30s')
    expect(result).toMatchObject({status: 'drained', resume: `drover resume ${id}`})
    expect(result.checkpoint).toMatchObject({mode: 'cooperative', forced: false})
    expect(result.checkpoint.tookMs).toBeLessThan(30_000)
    const record = readTask(dir, id)
    expect(record).toMatchObject({status: 'drained', exitCode: 0, signal: null})

    // the call in flight finished; none started after STOP
    expect(lines(ticks, 'start')).toBe(lines(ticks, 'tick'))
    const last = server.modelRequests().at(-1)!
    const refusal = last.body.messages.at(-1).content.find((c: any) => c.type === 'tool_result')
    expect(refusal).toMatchObject({is_error: true, content: expect.stringContaining('being drained')})
    expect(last.reply).toMatchObject({kind: 'text'})
    const toolCalls = jsonLines(readOutput(dir, id)).flatMap((e) => (e.type === 'assistant' ? e.message.content : [])).filter((c: any) => c.type === 'tool_use')
    expect(toolCalls).toHaveLength(lines(ticks, 'tick') + 1)
    // it exited on its own: drover sent no signal
    expect(taskEvents(dir, id).filter((e) => e.event === 'signal')).toEqual([])
  })

  it('codex: a drain mid-tool signals it at the first safe point; the tool in flight completes', async () => {
    const server = serverOf(CODEX)
    const dir = stateDir()
    const env = CODEX.env(server)
    // the model takes half a second before each further call, as a real one takes longer: between the two, no
    // command runs (with none, the safe point lasted the milliseconds of a local round trip, and a loaded machine's
    // polls could miss every one for the whole grace)
    const id = await start(dir, env, CODEX.command('f8 codex [[loop: echo start; sleep 2; echo tick]] [[think: 0.5]]'), agentTempDir('drover-work-'))
    await waitFor(
      () => {
        const {started, completed} = codexCommands(jsonLines(readOutput(dir, id)))
        return completed.length >= 1 && started.length > completed.length
      },
      {timeout: 60_000, message: 'a second tool call running'},
    )

    const result = await drain(dir, id, env, '30s')
    expect(result).toMatchObject({status: 'drained', resume: `drover resume ${id}`})
    // forced is mode === 'forced': signalled between tool calls is not forced
    expect(result.checkpoint).toMatchObject({mode: 'safe-point', forced: false})
    expect(result.checkpoint.tookMs).toBeLessThan(30_000)

    const {started, completed} = codexCommands(jsonLines(readOutput(dir, id)))
    expect(started.length).toBeGreaterThanOrEqual(2)
    expect(completed.map((e) => e.item.id)).toEqual(started.map((e) => e.item.id))
    for (const e of completed) expect(e.item).toMatchObject({exit_code: 0, aggregated_output: 'start\ntick\n'})
    const signals = taskEvents(dir, id).filter((e) => e.event === 'signal')
    expect(signals).toEqual([expect.objectContaining({signal: 'SIGTERM', safePoint: true})])
  })
})

describe('finding 8: claude with its own --settings, or without drover\'s hook', () => {
  it('a user\'s own --settings hook keeps running beside drover\'s, and the drain is cooperative', async () => {
    const server = serverOf(CLAUDE)
    const dir = stateDir()
    const env = CLAUDE.env(server)
    const work = agentTempDir('drover-work-')
    const [ticks, trace] = [path.join(work, 'ticks.log'), path.join(work, 'trace.log')]
    const hooks = {hooks: {PreToolUse: [{matcher: 'Bash', hooks: [{type: 'command', command: `cat >/dev/null; echo hook >> ${trace}`}]}]}}
    writeFileSync(path.join(work, 'user-settings.json'), JSON.stringify(hooks))
    const id = await start(dir, env, CLAUDE.command(`f8 settings [[loop: echo start >> ${ticks}; sleep 2; echo tick >> ${ticks}]]`, '--settings', 'user-settings.json'), work)
    await waitFor(() => lines(ticks, 'tick') >= 1 && lines(ticks, 'start') > lines(ticks, 'tick'), {timeout: 60_000, message: 'a second tool call running'})

    const result = await drain(dir, id, env, '30s')
    expect(result.checkpoint).toMatchObject({mode: 'cooperative', forced: false})
    expect(lines(ticks, 'start')).toBe(lines(ticks, 'tick'))
    // the user's hook ran before every call that ran (and, in parallel with drover's, maybe before the refused one)
    expect(lines(trace, 'hook')).toBeGreaterThanOrEqual(lines(ticks, 'start'))
  })

  it('start --no-agent-hooks: no hook, so the drain waits for a safe point; the tool in flight completes', async () => {
    const server = serverOf(CLAUDE)
    const dir = stateDir()
    const env = CLAUDE.env(server)
    const work = agentTempDir('drover-work-')
    const ticks = path.join(work, 'ticks.log')
    // the model's half second before each further call is the safe point, as in codex's test
    const id = await start(dir, env, CLAUDE.command(`f8 no hooks [[loop: echo start >> ${ticks}; sleep 2; echo tick >> ${ticks}]] [[think: 0.5]]`), work, ['--no-agent-hooks'])
    await waitFor(() => lines(ticks, 'tick') >= 1 && lines(ticks, 'start') > lines(ticks, 'tick'), {timeout: 60_000, message: 'a second tool call running'})
    expect(taskEvents(dir, id).find((e) => e.event === 'started').command).not.toContain('--settings')

    const result = await drain(dir, id, env, '30s')
    expect(result.checkpoint).toMatchObject({mode: 'safe-point'})
    expect(lines(ticks, 'start')).toBe(lines(ticks, 'tick'))
    expect(taskEvents(dir, id).filter((e) => e.event === 'signal')).toEqual([expect.objectContaining({signal: 'SIGTERM', safePoint: true})])
  })
})

describe.each(AGENTS)('finding 9: $kind whose runner was killed while it worked', (agent: RealAgent) => {
  it('is adopted by the next drover command, and stop through the new runner leaves no process', async () => {
    const server = serverOf(agent)
    const dir = stateDir()
    const env = agent.env(server)
    const marker = `drover-f9-${process.pid}-${Date.now()}`
    const id = await start(dir, env, agent.command(`f9 stop [[tool: timeout 120 tail -f /dev/null; echo ${marker}]]`), agentTempDir('drover-work-'))
    await waitFor(() => processesOf(dir).some((p) => p.cmdline.startsWith('tail -f /dev/null')), {timeout: 60_000, message: 'the tool command to run'})
    const worker = readTask(dir, id).worker.pid
    const dead = await killRunner(dir, id)

    const listed = json(await drover(dir, ['list', '--json'], {env}))
    expect(listed.find((t: any) => t.id === id)).toMatchObject({status: 'running', pid: worker})
    const adopter = runnerPid(dir, id)
    expect(adopter).not.toBe(dead)
    expect(isAlive(adopter!)).toBe(true)
    expect(taskEvents(dir, id).map((e) => e.event)).toContain('adopted')

    const stopped = await drover(dir, ['stop', String(id), '--time', '5s'], {env})
    expect(stopped.exitCode, stopped.stderr).toBe(0)
    expect(readTask(dir, id).status).toBe('stopped')
    await waitFor(() => processesOf(dir, marker).length === 0, {
      timeout: 15_000,
      message: `no process of the task (left: ${processesOf(dir, marker).map((p) => `${p.pid} ${p.cmdline}`).join('; ')})`,
    })
  })

  it('ends on its own under the adopting runner: recorded, exit code unknown, succeeded from its result', async () => {
    const server = serverOf(agent)
    const dir = stateDir()
    const env = agent.env(server)
    const id = await start(dir, env, agent.command('f9 ends [[slow: 4]]'), agentTempDir('drover-work-'))
    await waitForRequest(server, 'f9 ends')
    await sessionIdOf(dir, id)
    await killRunner(dir, id)

    const status = json(await drover(dir, ['status', String(id), '--json'], {env}))
    expect(status.status).toBe('running')
    const ended = await settled(dir, id, env)
    expect(ended, JSON.stringify(ended)).toMatchObject({status: 'succeeded', exitCode: null})
    expect(ended.reason).toContain('exit code unknown')
    expect(taskEvents(dir, id).filter((e) => e.event === 'exit')).toEqual([expect.objectContaining({status: 'succeeded'})])
  })
})

it('finding 8 + 9: a claude adopted by a new runner still drains cooperatively', async () => {
  const server = serverOf(CLAUDE)
  const dir = stateDir()
  const env = CLAUDE.env(server)
  const work = agentTempDir('drover-work-')
  const ticks = path.join(work, 'ticks.log')
  const id = await start(dir, env, CLAUDE.command(`f8+9 [[loop: echo start >> ${ticks}; sleep 2; echo tick >> ${ticks}]]`), work)
  await waitFor(() => lines(ticks, 'start') >= 1, {timeout: 60_000, message: 'the first tool call'})
  await killRunner(dir, id)
  expect(json(await drover(dir, ['status', String(id), '--json'], {env})).status).toBe('running')

  const result = await drain(dir, id, env, '30s')
  expect(result.checkpoint).toMatchObject({mode: 'cooperative', forced: false})
  expect(lines(ticks, 'start')).toBe(lines(ticks, 'tick'))
  expect(taskEvents(dir, id).filter((e) => e.event === 'signal')).toEqual([])
})
