// What drover's agent support relies on in the real agents themselves, run
// directly (no drover): claude's PreToolUse hooks in -p mode and how several
// settings sources combine, `--` ending options for both, and a codex killed
// mid-tool resuming with the earlier turn. A new agent version that changes
// any of these fails here first.

import {chmodSync, existsSync, mkdirSync, writeFileSync} from 'node:fs'
import path from 'node:path'
import {afterAll, afterEach, beforeAll, describe, expect, it} from 'vitest'
import {agentTempDir, cleanupAgentDirs} from './harness/env.js'
import type {FakeModelServer} from './harness/fake-server.js'
import {CLAUDE, CODEX} from './harness/real-agents.js'
import {runAgent} from './harness/run-agent.js'

const BLOCKED = 'drover: this task is being drained; end your turn now'

/** A PreToolUse hook that blocks every tool call once $DROVER_CONTROL_FILE says STOP (it never reads stdin). */
function drainHook(dir: string): string {
  const file = path.join(dir, 'drain-hook.sh')
  writeFileSync(file, `#!/bin/sh\nif grep -q STOP "$DROVER_CONTROL_FILE" 2>/dev/null; then\n  echo "${BLOCKED}" >&2\n  exit 2\nfi\nexit 0\n`)
  chmodSync(file, 0o755)
  return file
}

/** A hook that only leaves a trace that it ran. */
function tracingHook(dir: string, trace: string): string {
  const file = path.join(dir, 'trace-hook.sh')
  writeFileSync(file, `#!/bin/sh\ncat > /dev/null\necho ran >> "${trace}"\nexit 0\n`)
  chmodSync(file, 0o755)
  return file
}

const preToolUse = (command: string) => ({hooks: {PreToolUse: [{matcher: '*', hooks: [{type: 'command', command}]}]}})

function pluginDir(dir: string, command: string): string {
  const root = path.join(dir, 'drover-plugin')
  mkdirSync(path.join(root, '.claude-plugin'), {recursive: true})
  mkdirSync(path.join(root, 'hooks'))
  writeFileSync(path.join(root, '.claude-plugin', 'plugin.json'), JSON.stringify({name: 'drover-drain', version: '0.0.1', description: 'test'}))
  writeFileSync(path.join(root, 'hooks', 'hooks.json'), JSON.stringify(preToolUse(command)))
  return root
}

const lastMessage = (request: any) => request.body.messages.at(-1)
/** claude puts a system message after the prompt: the prompt is the last user text. */
const lastUserText = (request: any): string =>
  request.body.messages.filter((m: any) => m.role === 'user').at(-1).content.filter((c: any) => c.type === 'text').at(-1).text

describe('real claude', () => {
  let server: FakeModelServer
  beforeAll(async () => {
    server = await CLAUDE.startServer()
  })
  afterAll(() => server.stop())
  afterEach(() => {
    cleanupAgentDirs()
    server.assertNoUnexpected()
    server.reset()
  })

  it('a PreToolUse hook given by --settings blocks the tool on STOP, and the model gets its stderr as an error result', async () => {
    const dir = agentTempDir('drover-hook-')
    const control = path.join(dir, 'control')
    writeFileSync(control, 'STOP\n')
    const touched = path.join(dir, 'tool-ran')
    const env = CLAUDE.env(server, {DROVER_CONTROL_FILE: control})
    const run = await runAgent(CLAUDE.command(`[[loop: touch ${touched}]]`, '--settings', JSON.stringify(preToolUse(drainHook(dir)))), {env, cwd: dir})
    expect(run.exitCode, run.stderr).toBe(0)
    expect(existsSync(touched)).toBe(false)
    const requests = server.modelRequests()
    expect(requests).toHaveLength(2)
    const [result] = lastMessage(requests[1]).content
    expect(result).toMatchObject({type: 'tool_result', is_error: true})
    expect(result.content).toBe(`PreToolUse:Bash hook error: [${path.join(dir, 'drain-hook.sh')}]: ${BLOCKED}\n`)
    const final = run.events.at(-1)
    expect(final).toMatchObject({type: 'result', subtype: 'success', is_error: false})
    expect(final.permission_denials).toHaveLength(1)
  })

  it('of two --settings only the last counts; a --plugin-dir hook adds to the user’s --settings', async () => {
    const dir = agentTempDir('drover-hook-')
    const control = path.join(dir, 'control')
    writeFileSync(control, 'STOP\n')
    const trace = path.join(dir, 'trace')
    const drover = JSON.stringify(preToolUse(drainHook(dir)))
    const user = JSON.stringify(preToolUse(tracingHook(dir, trace)))
    const env = CLAUDE.env(server, {DROVER_CONTROL_FILE: control})

    const both = await runAgent(CLAUDE.command('[[tool: echo ran-anyway]]', '--settings', drover, '--settings', user), {env, cwd: dir})
    expect(both.exitCode, both.stderr).toBe(0)
    expect(lastMessage(server.modelRequests().at(-1)).content[0]).toMatchObject({is_error: false, content: 'ran-anyway'})
    expect(existsSync(trace)).toBe(true)

    server.reset()
    const plugin = await runAgent(CLAUDE.command('[[tool: echo ran-anyway]]', '--plugin-dir', pluginDir(dir, drainHook(dir)), '--settings', user), {env, cwd: dir})
    expect(plugin.exitCode, plugin.stderr).toBe(0)
    expect(lastMessage(server.modelRequests().at(-1)).content[0]).toMatchObject({is_error: true, content: expect.stringContaining(BLOCKED)})
  })

  it('-- ends options, variadic --allowedTools included', async () => {
    const dir = agentTempDir('drover-work-')
    const env = CLAUDE.env(server)
    const prompt = '-starts with a dash [[tool: echo allowed]]'
    const argv = ['claude', '-p', '--allowedTools', 'Bash', 'Read', '--output-format', 'stream-json', '--verbose', '--', prompt]
    const run = await runAgent(argv, {env, cwd: dir})
    expect(run.exitCode, run.stderr).toBe(0)
    const [first, second] = server.modelRequests()
    expect(lastUserText(first)).toBe(prompt)
    expect(lastMessage(second).content[0]).toMatchObject({is_error: false, content: 'allowed'})
    // without --, the variadic flag eats a plain prompt, and a dash prompt is an unknown option
    const eaten = await runAgent(['claude', '-p', '--output-format', 'stream-json', '--verbose', '--allowedTools', 'Bash', 'Read', 'plain prompt'], {env, cwd: dir})
    expect(eaten.exitCode).toBe(1)
    expect(eaten.stderr).toMatch(/Input must be provided/)
    const dashed = await runAgent(argv.filter((a) => a !== '--'), {env, cwd: dir})
    expect(dashed.exitCode).toBe(1)
    expect(dashed.stderr).toContain(`unknown option '${prompt}'`)
  })
})

describe('real codex', () => {
  let server: FakeModelServer
  beforeAll(async () => {
    server = await CODEX.startServer()
  })
  afterAll(() => server.stop())
  afterEach(() => {
    cleanupAgentDirs()
    server.assertNoUnexpected()
    server.reset()
  })

  const userTexts = (request: any): string[] =>
    request.body.input.filter((i: any) => i.type === 'message' && i.role === 'user').map((i: any) => i.content.map((c: any) => c.text).join(''))

  it('SIGTERM mid-tool ends it by signal; resume with -C and -- sends the earlier turn and the aborted call back', async () => {
    const work = agentTempDir('drover-work-')
    const env = CODEX.env(server)
    const first = await runAgent(CODEX.command('first codex prompt [[tool: sleep 60; echo never]]'), {
      env,
      cwd: work,
      termWhen: (e) => e.type === 'item.started' && e.item?.type === 'command_execution',
      termDelayMs: 300,
    })
    expect(first.signal).toBe('SIGTERM')
    expect(first.events.map((e) => e.type)).not.toContain('turn.completed')
    const threadId = first.events.find((e) => e.type === 'thread.started').thread_id

    server.reset()
    const resumed = await runAgent(['codex', 'exec', '--json', '--skip-git-repo-check', '-C', work, 'resume', threadId, '--', '--not a flag'], {env, cwd: agentTempDir('drover-elsewhere-')})
    expect(resumed.exitCode, resumed.stderr).toBe(0)
    expect(resumed.events[0]).toEqual({type: 'thread.started', thread_id: threadId})
    const [request] = server.modelRequests()
    expect(userTexts(request).slice(-2)).toEqual(['first codex prompt [[tool: sleep 60; echo never]]', '--not a flag'])
    expect(request.body.input).toContainEqual(expect.objectContaining({type: 'function_call_output', output: 'aborted'}))
    expect(JSON.stringify(request.body.input)).toContain(`<cwd>${work}</cwd>`)
  })
})
