// `drover start --agent NAME --prompt P` with the real binaries offline,
// against the fake model servers: drover writes each agent's headless command
// exactly as its docs give it (with config.json's agents.NAME added), the
// real agent runs it, reports its session, and a drain mid-turn is resumed in
// the same conversation. Each installed binary's own --help knows every flag
// drover writes and lists the permission modes config.json may name.
// claude and codex always; the other four by default too (their headless
// modes run offline here); DROVER_TEST_AGENTS_ONLY=a,b picks agents.

import {spawnSync} from 'node:child_process'
import {writeFileSync} from 'node:fs'
import path from 'node:path'
import {describe, expect, it} from 'vitest'
import {drover, json, readOutput, readTask} from '../helpers/cli.js'
import {profileOf} from '../../src/agents/registry.js'
import {FlagTable, parseHelpFlags} from '../../src/agents/flags.js'
import {helpChoices, modesByFlag} from '../helpers/agent-help.js'
import {bin} from './harness/agents.js'
import {agentTempDir, CODEX_MODEL} from './harness/env.js'
import {ALL_AGENTS, jsonLines, type RealAgent} from './harness/real-agents.js'
import {drain, sessionIdOf, settled, stateDir, useFakeServers, waitForRequest} from './harness/tasks.js'

const only = process.env.DROVER_TEST_AGENTS_ONLY?.split(',').filter(Boolean)
const SELECTED = only ? ALL_AGENTS.filter((a) => only.includes(a.kind)) : ALL_AGENTS

// claude maps a model name to the one it serves now (claude-opus-4-1-… became claude-opus-5-5 in 2.1.332):
// a haiku is what no default run asks for the conversation, whatever it maps it to
const CLAUDE_MODEL = 'claude-haiku-4-5'

/**
 * config.json's agents.NAME for each, holding what each needs offline (the
 * same as harness/real-agents.ts's command lines give): a model, a permission
 * mode, flags. Each is what the agent's headless run here needs, said once for
 * the state dir instead of on every command line.
 */
const DEFAULTS: Record<string, {model?: string; permissionMode?: string; flags?: string[]}> = {
  // -p has nobody to answer a permission prompt: Bash allowed up front
  claude: {model: CLAUDE_MODEL, permissionMode: 'acceptEdits', flags: ['--allowedTools', 'Bash']},
  // test work dirs are not git repositories
  codex: {model: CODEX_MODEL, flags: ['--skip-git-repo-check']},
  // without a model a router call comes first; nobody answers a tool prompt headless
  gemini: {model: 'gemini-2.5-flash', permissionMode: 'yolo'},
  qwen: {permissionMode: 'yolo'},
  copilot: {flags: ['--no-auto-update', '--disable-client-telemetry']},
  opencode: {model: 'fake/fake-model'},
}

/** By hand, from each agent's docs (the agents guide's table), plus what DEFAULTS adds in drover's order: permission mode, model, flags. */
function expected(kind: string, prompt: string): string[] {
  switch (kind) {
    case 'claude':
      return ['claude', '-p', prompt, '--output-format', 'stream-json', '--verbose', '--permission-mode', 'acceptEdits', '--model', CLAUDE_MODEL, '--allowedTools', 'Bash']
    case 'codex':
      return ['codex', 'exec', '--json', prompt, '--model', CODEX_MODEL, '--skip-git-repo-check']
    case 'gemini':
      return ['gemini', '-p', prompt, '--output-format', 'stream-json', '--approval-mode', 'yolo', '--model', 'gemini-2.5-flash']
    case 'qwen':
      return ['qwen', prompt, '--output-format', 'stream-json', '--approval-mode', 'yolo']
    case 'copilot':
      return ['copilot', '-p', prompt, '--output-format', 'json', '--allow-all-tools', '--no-auto-update', '--disable-client-telemetry']
    case 'opencode':
      return ['opencode', 'run', '--format', 'json', prompt, '--model', 'fake/fake-model']
    default:
      throw new Error(`no documented form for ${kind}`)
  }
}

const serverOf = useFakeServers(SELECTED)

describe.each(SELECTED)('real $kind started from --agent and --prompt', (agent: RealAgent) => {
  it('runs the documented headless command drover wrote, and a drain mid-turn resumes its conversation', async () => {
    const server = serverOf(agent)
    const dir = stateDir()
    writeFileSync(path.join(dir, 'config.json'), JSON.stringify({agents: {[agent.kind]: DEFAULTS[agent.kind]}}))
    const env = agent.env(server)
    const work = agentTempDir('drover-work-')
    const prompt = 'first prompt of the agent start [[slow: 60]]'
    const r = await drover(dir, ['start', '--cwd', work, '--agent', agent.kind, '--prompt', prompt], {env})
    expect(r.exitCode, r.stderr).toBe(0)
    const id = Number(r.stdout.trim())
    const record = readTask(dir, id)
    expect(record.command).toEqual(expected(agent.kind, prompt))
    expect(record.built).toMatchObject({prompt, extraArgs: []})
    // the program found on PATH is the real agent's launcher
    expect(record.executable).toBe(bin(agent.kind))

    await waitForRequest(server, 'first prompt of the agent start')
    const sessionId = await sessionIdOf(dir, id)
    const [first] = server.modelRequests('first prompt of the agent start')
    if (agent.kind === 'claude') {
      for (const request of server.modelRequests('first prompt of the agent start')) expect(request.body.model).toMatch(/haiku/)
      // the permission mode reached claude: its own init event says so
      expect(jsonLines(readOutput(dir, id)).find((e) => e.type === 'system' && e.subtype === 'init')?.permissionMode).toBe('acceptEdits')
    }
    if (agent.kind === 'codex') expect(first.body.model).toBe(CODEX_MODEL)
    if (agent.kind === 'gemini') expect(first.url).toContain('gemini-2.5-flash')

    const drained = await drain(dir, id, env, '1s')
    expect(drained).toMatchObject({status: 'drained', resume: `drover resume ${id}`})
    const before = server.modelRequests().length
    const resumed = await drover(dir, ['resume', String(id), '--prompt', 'second prompt of the agent start'], {env})
    expect(resumed.exitCode, resumed.stderr).toBe(0)
    const status = await settled(dir, id, env, 90_000)
    expect(status, JSON.stringify(status)).toMatchObject({status: 'succeeded', run: 2, agentInfo: {sessionId}, built: {prompt}})
    const later = server.modelRequests().slice(before).filter((q) => JSON.stringify(q.body).includes('second prompt of the agent start'))
    expect(later.length).toBeGreaterThanOrEqual(1)
    // the same conversation: the first prompt went back to the model with the second
    expect(JSON.stringify(later[0].body)).toContain('first prompt of the agent start')
    const human = (await drover(dir, ['status', String(id)], {env})).stdout
    expect(human).toMatch(new RegExp(`^built +by drover from --agent ${agent.kind} --prompt`, 'm'))
    expect(json(await drover(dir, ['status', String(id), '--json'], {env})).command).toEqual(expected(agent.kind, prompt))
  })

  it('its installed --help knows every flag drover writes, and lists the permission modes config.json may name', () => {
    const profile = profileOf(agent.kind)!
    const env = agent.env(serverOf(agent))
    const help = spawnSync(bin(agent.kind), profile.helpArgv([]), {env: {...process.env, ...env}, encoding: 'utf8', timeout: 60_000})
    expect(help.status, help.stderr).toBe(0)
    // opencode prints its help on stderr
    const text = help.stdout + help.stderr
    const table = new FlagTable(parseHelpFlags(text, profile.helpGrammar))
    const command = expected(agent.kind, 'a prompt')
    // every flag of the documented form, the model flag, every permission flag and mode
    const written = [...command.filter((t) => t.startsWith('-')), ...profile.start.modelFlags, ...profile.start.permissionFlags, ...Object.values(profile.start.permissionModes).map((argv) => argv[0])]
    for (const flag of new Set(written)) expect([agent.kind, flag, table.get(flag) !== undefined]).toEqual([agent.kind, flag, true])
    // the modes that are a flag's values are exactly the values its help lists: a release that adds one says so here
    for (const [flag, values] of modesByFlag(profile.start.permissionModes)) expect([agent.kind, flag, values.sort()]).toEqual([agent.kind, flag, helpChoices(text, flag)?.sort()])
  })
})
