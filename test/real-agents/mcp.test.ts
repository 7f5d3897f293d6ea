// The real claude and codex using drover as their MCP server, configured as
// docs/mcp.md says (claude: `--mcp-config` naming `drover mcp`; codex:
// `[mcp_servers.drover]`): the fake model answers the prompt with a call of
// start_task, and the task it started is there for `drover list` — still
// running after the agent and its MCP server have exited.

import {appendFileSync, readFileSync, writeFileSync} from 'node:fs'
import path from 'node:path'
import {afterAll, afterEach, beforeAll, describe, expect, it} from 'vitest'
import {BIN, cleanupStateDirs, drover, fixture, json, makeStateDir} from '../helpers/cli.js'
import {claudeBin} from './harness/agents.js'
import {startAnthropicServer} from './harness/anthropic-server.js'
import {agentTempDir, cleanupAgentDirs, writeCodexConfig} from './harness/env.js'
import {startOpenAIServer} from './harness/openai-server.js'
import type {FakeModelServer} from './harness/fake-server.js'
import {killProcessesOf} from './harness/processes.js'
import {CLAUDE, CODEX} from './harness/real-agents.js'
import {runAgent} from './harness/run-agent.js'

const stateDirs: string[] = []

/** One fake model server for a describe block; after each test, nothing of it is left and nothing unexpected was asked. */
function modelServer(start: () => Promise<FakeModelServer>): () => FakeModelServer {
  let server: FakeModelServer
  beforeAll(async () => {
    server = await start()
  })
  afterAll(async () => {
    await server.stop()
  })
  afterEach(() => {
    for (const dir of stateDirs.splice(0)) killProcessesOf(dir)
    cleanupStateDirs()
    cleanupAgentDirs()
    server.assertNoUnexpected()
    server.reset()
  })
  return () => server
}

describe('the real claude with drover mcp', () => {
  const model = modelServer(startAnthropicServer)

  it('starts a task through start_task, and drover list shows it', async () => {
    const server = model()
    const stateDir = makeStateDir()
    stateDirs.push(stateDir)
    const work = agentTempDir('drover-work-')
    const config = path.join(work, 'mcp.json')
    writeFileSync(config, JSON.stringify({mcpServers: {drover: {command: process.execPath, args: [BIN, 'mcp', '--state-dir', stateDir]}}}))
    // The model asks for the tool once; after its result it answers in text.
    server.respondWith((turn) =>
      turn.last.kind === 'prompt' && turn.prompt.includes('delegate')
        ? {kind: 'tool', command: '', text: 'I will start it.', claudeTool: {name: 'mcp__drover__start_task', input: {command: [process.execPath, fixture('sleeper.mjs')], name: 'from-claude'}}}
        : undefined,
    )
    // ENABLE_TOOL_SEARCH=false: MCP tools go into the model request itself
    // instead of behind claude's ToolSearch, so the fake model can call one.
    const env = CLAUDE.env(server, {ENABLE_TOOL_SEARCH: 'false'})
    const run = await runAgent(
      [claudeBin(), '-p', 'delegate a long job to drover', '--output-format', 'stream-json', '--verbose', '--allowedTools', 'mcp__drover__*', '--mcp-config', config],
      {env, cwd: work, timeoutMs: 120_000},
    )
    expect(run.exitCode, run.stderr + run.stdout).toBe(0)

    const init = run.events.find((e) => e.type === 'system' && e.subtype === 'init')
    expect(init.mcp_servers).toContainEqual(expect.objectContaining({name: 'drover', status: 'connected'}))
    // The model was offered drover's tools with their schemas.
    const offered = server.modelRequests('delegate a long job')[0].body.tools as {name: string; input_schema: any}[]
    const startTool = offered.find((t) => t.name === 'mcp__drover__start_task')
    expect(startTool?.input_schema.properties).toHaveProperty('command')
    expect(offered.map((t) => t.name)).toEqual(expect.arrayContaining(['mcp__drover__read_output', 'mcp__drover__wait_tasks', 'mcp__drover__stop_task']))

    // The tool ran: its result (the task record) went back to the model.
    const results = run.events.flatMap((e) => (e.type === 'user' ? e.message.content : [])).filter((b: any) => b.type === 'tool_result')
    expect(results).toHaveLength(1)
    expect(results[0].is_error ?? false, JSON.stringify(results[0])).toBe(false)
    expect(JSON.stringify(results[0].content)).toMatch(/\\"name\\":\\"from-claude\\"/)

    // The task outlives claude and its MCP server, and the CLI sees it.
    const listed = json<{name: string; status: string}[]>(await drover(stateDir, ['list', '--json']))
    expect(listed).toEqual([expect.objectContaining({name: 'from-claude', status: 'running'})])
  })
})

describe('the real codex with drover mcp', () => {
  const model = modelServer(startOpenAIServer)

  it('starts a task through start_task from [mcp_servers.drover] in config.toml, and drover list shows it', async () => {
    const server = model()
    const stateDir = makeStateDir()
    stateDirs.push(stateDir)
    const work = agentTempDir('drover-work-')
    const env = CODEX.env(server)
    const config = writeCodexConfig(env.HOME, server)
    // For a model it knows to support it (gpt-5.5), codex defers MCP tools
    // behind its tool_search; with another model's (fallback) metadata they
    // are in the model request itself, where the fake model can call one.
    writeFileSync(config, readFileSync(config, 'utf8').replace('model = "gpt-5.5"', 'model = "gpt-4.1"'))
    // docs/mcp.md's snippet, with this test's state dir; codex exec has nobody
    // to approve a tool call, so the server's tools are approved up front.
    // As the guide says: codex 0.171 sends its first request without waiting for an MCP server
    // unless it is `required` (seen: beside CPU load, the first request had no drover tools 2 runs
    // in 4; with `required`, 5 in 5 had them), and its 10 s for a first answer is raised.
    appendFileSync(config, `\n[mcp_servers.drover]\ncommand = ${JSON.stringify(process.execPath)}\nargs = ${JSON.stringify([BIN, 'mcp', '--state-dir', stateDir])}\nstartup_timeout_sec = 30\nrequired = true\ndefault_tools_approval_mode = "approve"\n`)
    let offered: string[] = []
    server.respondWith((turn) => {
      if (turn.last.kind !== 'prompt' || !turn.prompt.includes('delegate')) return undefined
      const tools: any[] = server.requests.at(-1)?.body?.tools ?? []
      // codex offers an MCP server's tools as a namespace of functions.
      offered = tools.flatMap((t) => (t.type === 'namespace' ? (t.tools ?? []).map((f: any) => `${t.name}__${f.name}`) : [t.name ?? t.type]))
      const namespace = tools.find((t) => t.type === 'namespace' && (t.tools ?? []).some((f: any) => f.name === 'start_task'))?.name
      const input = {command: [process.execPath, fixture('sleeper.mjs')], name: 'from-codex'}
      return {kind: 'tool', command: '', codexTool: {name: 'start_task', namespace, input}}
    })
    const run = await runAgent(CODEX.command('delegate a long job to drover'), {env, cwd: work, timeoutMs: 120_000})
    expect(run.exitCode, run.stderr + run.stdout).toBe(0)
    expect(offered, `tools offered: ${offered.join(', ')}`).toEqual(expect.arrayContaining(['mcp__drover__start_task', 'mcp__drover__read_output', 'mcp__drover__wait_tasks']))
    const call = run.events.find((e) => e.type === 'item.completed' && e.item?.type === 'mcp_tool_call')
    expect(call?.item, run.stdout).toMatchObject({server: 'drover', tool: 'start_task', status: 'completed', error: null})
    const listed = json<{name: string; status: string}[]>(await drover(stateDir, ['list', '--json']))
    expect(listed, run.stdout).toEqual([expect.objectContaining({name: 'from-codex', status: 'running'})])
  })
})
