// `drover start --agent NAME --prompt P [-- FLAGS]` with the fake claude and
// codex (shaped like the real ones; the real binaries are proven in
// test/real-agents/agent-start.test.ts): the command drover writes is what
// runs and what the record keeps, status shows it and how it was written,
// config.json's agents.NAME is applied, a budget drains it and resume
// continues its session; every way to ask wrongly is one line, exit 2, and
// nothing on disk; MCP's start_task does the same from {agent, prompt}.

import {execa} from 'execa'
import {readdirSync, readFileSync, writeFileSync} from 'node:fs'
import path from 'node:path'
import {afterEach, describe, expect, it} from 'vitest'
import {BIN, cleanupStateDirs, drover, fixture, json, makeStateDir, makeTempDir, readTask, waitFor} from '../helpers/cli.js'
import {closeMcpSessions, exitCodeOf, startMcp} from '../helpers/mcp.js'
import {snapshot} from '../helpers/snapshot.js'

afterEach(async () => {
  await closeMcpSessions()
  cleanupStateDirs()
})

/** claude and codex on PATH as the fake agents, with a HOME of their own. */
function agentEnv(turns = 1): Record<string, string> {
  const bin = makeTempDir('drover-bin-')
  for (const name of ['claude', 'codex']) {
    writeFileSync(path.join(bin, name), `#!/usr/bin/env node\nimport(${JSON.stringify(fixture(`agent-${name}.mjs`))})\n`, {mode: 0o755})
  }
  return {PATH: `${bin}${path.delimiter}${process.env.PATH}`, HOME: makeTempDir('drover-home-'), FAKE_AGENT_TURN_MS: '100', FAKE_AGENT_TURNS: String(turns)}
}

/** The fake claude's conversations under HOME (one file per session, every run's argv, model and permission mode). */
function claudeConversations(home: string): any[] {
  const root = path.join(home, '.claude-fake')
  return readdirSync(root).flatMap((dir) => readdirSync(path.join(root, dir)).map((file) => JSON.parse(readFileSync(path.join(root, dir, file), 'utf8'))))
}

/**
 * stderr's lines but Node's own warnings: oclif warns, under a test runner's
 * NODE_ENV, that a command whose flags it refused "did not parse its
 * arguments" — as it does for every refused flag of every command.
 */
const drovers = (stderr: string) => stderr.trim().split('\n').filter((line) => !/^\(node:\d+\) \[UnparsedCommand\]|^\(Use `node --trace-warnings/.test(line))

async function started(dir: string, args: string[], env: Record<string, string>): Promise<number> {
  const r = await drover(dir, ['start', ...args], {env})
  expect(r.exitCode, r.stderr).toBe(0)
  return Number(r.stdout.trim())
}

async function ended(dir: string, id: number, env: Record<string, string>): Promise<any> {
  return waitFor(
    async () => {
      const status = json(await drover(dir, ['status', String(id), '--json'], {env}))
      return ['queued', 'starting', 'running', 'stopping'].includes(status.status) ? null : status
    },
    {timeout: 30_000, message: `task ${id} to end`},
  )
}

describe('start --agent NAME --prompt P', () => {
  it("runs the agent's documented headless command, keeps it as the task's command, and status shows how it was written", async () => {
    const dir = makeStateDir()
    const env = agentEnv()
    const id = await started(dir, ['--agent', 'claude', '--prompt', 'say hello there', '--name', 'hello'], env)
    const status = await ended(dir, id, env)
    expect(status).toMatchObject({
      status: 'succeeded',
      agent: 'claude',
      command: ['claude', '-p', 'say hello there', '--output-format', 'stream-json', '--verbose'],
      built: {prompt: 'say hello there', model: null, permissionMode: null, configFlags: [], extraArgs: []},
      agentInfo: {turns: 1},
    })
    expect(readTask(dir, id).executable).toBe(path.join(env.PATH.split(path.delimiter)[0], 'claude'))
    // the agent got exactly that: its prompt, in print mode with its JSON events
    const [conversation] = claudeConversations(env.HOME)
    expect(conversation.runs[0]).toMatchObject({prompt: 'say hello there', format: 'stream-json'})
    expect(status.agentInfo.sessionId).toBe(conversation.sessionId)

    const human = (await drover(dir, ['status', 'hello'], {env})).stdout
    expect(human).toMatch(/^command +claude -p 'say hello there' --output-format stream-json --verbose$/m)
    expect(human).toMatch(/^built +by drover from --agent claude --prompt$/m)
    expect(human).toMatch(/^prompt +say hello there$/m)
    // a command given as it is says nothing of the kind
    const plain = await started(dir, ['--', 'claude', '-p', 'hi there', '--output-format', 'stream-json', '--verbose'], env)
    expect((await ended(dir, plain, env)).built).toBeNull()
    expect((await drover(dir, ['status', String(plain)], {env})).stdout).not.toMatch(/^built/m)
  })

  it("writes codex's, with the extra flags after --; a prompt from a file or, when asked, from stdin", async () => {
    const dir = makeStateDir()
    const env = agentEnv()
    const id = await started(dir, ['--agent', 'codex', '--prompt', 'write the docs', '--', '--thread-source', 'user'], env)
    expect(await ended(dir, id, env)).toMatchObject({
      status: 'succeeded',
      agent: 'codex',
      command: ['codex', 'exec', '--json', 'write the docs', '--thread-source', 'user'],
      built: {extraArgs: ['--thread-source', 'user']},
    })

    const file = path.join(makeTempDir('drover-prompt-'), 'task.md')
    writeFileSync(file, 'fix the parser\nthen the tests\n\n')
    const fromFile = await started(dir, ['--agent', 'claude', '--prompt-file', file], env)
    expect(readTask(dir, fromFile).command.slice(0, 3)).toEqual(['claude', '-p', 'fix the parser\nthen the tests'])

    const piped = await execa(process.execPath, [BIN, 'start', '--agent', 'claude', '--prompt', '-'], {env: {DROVER_STATE_DIR: dir, NO_COLOR: '1', ...env}, input: 'from stdin, whole\n', reject: false})
    expect(piped.exitCode, String(piped.stderr)).toBe(0)
    expect(readTask(dir, Number(piped.stdout)).built.prompt).toBe('from stdin, whole')
    // `-` is stdin only when --prompt says so: a prompt that starts with a dash goes where only a prompt can be
    const dash = await started(dir, ['--agent', 'claude', '--prompt=-v is not a flag'], env)
    expect(readTask(dir, dash).command).toEqual(['claude', '-p', '--output-format', 'stream-json', '--verbose', '--', '-v is not a flag'])
    for (const task of [fromFile, Number(piped.stdout), dash]) expect(await ended(dir, task, env)).toMatchObject({status: 'succeeded'})
  })

  it("applies config.json's agents.NAME (model, permission mode, flags), the extra flags deciding over it", async () => {
    const dir = makeStateDir()
    const env = agentEnv()
    writeFileSync(path.join(dir, 'config.json'), JSON.stringify({agents: {claude: {model: 'sonnet', permissionMode: 'acceptEdits', flags: ['--effort', 'high']}}}))
    const configured = await started(dir, ['--agent', 'claude', '--prompt', 'first task', '--', '--allowedTools', 'Bash'], env)
    expect(await ended(dir, configured, env)).toMatchObject({
      status: 'succeeded',
      command: ['claude', '-p', 'first task', '--output-format', 'stream-json', '--verbose', '--permission-mode', 'acceptEdits', '--model', 'sonnet', '--effort', 'high', '--allowedTools', 'Bash'],
      built: {model: 'sonnet', permissionMode: 'acceptEdits', configFlags: ['--effort', 'high'], extraArgs: ['--allowedTools', 'Bash']},
    })
    const overridden = await started(dir, ['--agent', 'claude', '--prompt', 'second task', '--', '--model', 'opus', '--permission-mode', 'plan'], env)
    expect(await ended(dir, overridden, env)).toMatchObject({status: 'succeeded', built: {model: null, permissionMode: null}})
    // what the agent itself ran with
    const runs = claudeConversations(env.HOME).map((c) => c.runs[0])
    expect(runs.map((r) => [r.prompt, r.model, r.permissionMode]).sort()).toEqual([
      ['first task', 'sonnet', 'acceptEdits'],
      ['second task', 'opus', 'plan'],
    ])
    expect((await drover(dir, ['status', String(configured)], {env})).stdout).toMatch(
      /^built +by drover from --agent claude --prompt: permission mode acceptEdits, model sonnet \(config\.json\), config\.json flags --effort high, extra flags --allowedTools Bash$/m,
    )
  })

  it('is an ordinary agent task: a budget drains it, and resume continues its session with the written command kept', async () => {
    const dir = makeStateDir()
    const env = agentEnv(100_000)
    const id = await started(dir, ['--agent', 'claude', '--prompt', 'count for me', '--max-turns', '2'], env)
    const drained = await ended(dir, id, env)
    expect(drained).toMatchObject({status: 'drained', cause: 'budget'})
    const sessionId = drained.agentInfo.sessionId
    expect(sessionId).toBeTruthy()

    // a drain lets the turn at work end: the session may be a turn or two past the budget
    const more = String(drained.agentInfo.turns + 2)
    const resumed = await drover(dir, ['resume', String(id), '--max-turns', more, '--prompt', 'go on counting'], {env})
    expect(resumed.exitCode, resumed.stderr).toBe(0)
    const again = await ended(dir, id, env)
    expect(again).toMatchObject({status: 'drained', run: 2, cause: 'budget', agentInfo: {sessionId}, built: {prompt: 'count for me'}})
    const record = readTask(dir, id)
    expect(record.runs[1].command).toEqual([record.executable, '-p', '--output-format', 'stream-json', '--verbose', '--resume', sessionId, '--', 'go on counting'])
    const [conversation] = claudeConversations(env.HOME)
    expect(conversation.runs.map((r: any) => [r.prompt, r.resumed])).toEqual([
      ['count for me', false],
      ['go on counting', true],
    ])
  })

  it('refuses, one line and exit 2, with nothing written, whatever was asked wrongly', async () => {
    const dir = makeStateDir()
    const env = agentEnv()
    const big = path.join(makeTempDir('drover-prompt-'), 'spec.md')
    writeFileSync(big, 'x'.repeat(200 * 1024))
    expect((await drover(dir, ['list'], {env})).exitCode).toBe(0)
    const cases: [string[], RegExp][] = [
      [['--prompt', 'x y'], /^drover: --prompt needs --agent NAME, the agent to give it to: claude, codex, gemini, qwen, copilot, opencode$/],
      [['--agent', 'cluade', '--prompt', 'x y'], /unknown value 'cluade' \(did you mean claude\?\)/],
      [['--agent', 'generic', '--prompt', 'x y'], /agent generic has no headless command drover can write/],
      [['--agent', 'claude', '--prompt', 'x y', '--', 'claude', '-p', 'x'], /after -- give only the agent's own flags \(e\.g\. -- --model NAME\), not the command/],
      [['--agent', 'claude', '--prompt', 'x y', '--', 'sonnet'], /not 'sonnet'/],
      [['--agent', 'claude', '--prompt', 'x y', '--model', 'sonnet'], /--model is not a flag of drover start: with --prompt, the agent's own flags go after --, e\.g\. drover start --agent claude --prompt … -- --model …/],
      [['--agent', 'claude', '--prompt', '  '], /--prompt is empty/],
      [['--agent', 'claude', '--prompt', 'x y', '--shell', 'ls'], /give --prompt or --shell, not both/],
      [['--agent', 'claude', '--prompt-file', path.join(dir, 'none.md')], /--prompt-file .*none\.md: cannot read it \(ENOENT\)/],
      [['--agent', 'claude', '--prompt', 'x', '--prompt-file', 'y'], /--prompt-file and --prompt do not go together|cannot also be provided/],
      [['--agent', 'claude', '--prompt', '-'], /--prompt - reads the prompt from stdin, which is a terminal|the prompt read from stdin is empty/],
      [['--agent', 'claude', '--prompt-file', big], /the prompt is too long to give claude as an argument \(an argument of 204800 bytes, where Linux takes at most 131071\)/],
    ]
    const before = snapshot(dir)
    for (const [args, message] of cases) {
      const r = await drover(dir, ['start', ...args], {env})
      expect([args, r.exitCode]).toEqual([args, 2])
      expect(r.stderr.trim(), args.join(' ')).toMatch(message)
      expect([args, drovers(r.stderr)]).toEqual([args, [expect.any(String)]])
      expect(snapshot(dir)).toEqual(before)
    }
    // a config.json the agents cannot take refuses every start, the same way
    for (const [config, message] of [
      [{agents: {cluade: {}}}, /config\.json: agents\.cluade: no agent of that name \(did you mean claude\?\)/],
      [{agents: {claude: {permissionMode: 'yolo'}}}, /config\.json: agents\.claude\.permissionMode 'yolo' is not one of claude's: acceptEdits/],
      [{agents: {claude: {flags: ['sonnet']}}}, /config\.json: agents\.claude\.flags must start with a flag, not 'sonnet'/],
    ] as const) {
      writeFileSync(path.join(dir, 'config.json'), JSON.stringify(config))
      const quiet = snapshot(dir)
      for (const args of [['--agent', 'claude', '--prompt', 'x y'], ['--', 'true']]) {
        const r = await drover(dir, ['start', ...args], {env})
        expect([args, r.exitCode, drovers(r.stderr).length]).toEqual([args, 2, 1])
        expect(r.stderr).toMatch(message)
        expect(snapshot(dir)).toEqual(quiet)
      }
    }
    expect(readdirSync(path.join(dir, 'tasks'))).toEqual([])
  })
})

describe("MCP start_task {agent, prompt}", () => {
  it('starts the same written command; a bad one is a tool error, exit 2, that leaves the state dir as it was', async () => {
    const dir = makeStateDir()
    const env = agentEnv()
    writeFileSync(path.join(dir, 'config.json'), JSON.stringify({agents: {codex: {flags: ['--thread-source', 'user']}}}))
    const mcp = await startMcp(dir)
    const result = await mcp.call('start_task', {agent: 'codex', prompt: 'write the docs', extraArgs: ['-m', 'gpt-5'], env})
    expect(result.isError, result.content[0]?.text).toBeFalsy()
    const task = result.structuredContent.task
    expect(task).toMatchObject({
      agent: 'codex',
      command: ['codex', 'exec', '--json', 'write the docs', '--thread-source', 'user', '-m', 'gpt-5'],
      built: {prompt: 'write the docs', configFlags: ['--thread-source', 'user'], extraArgs: ['-m', 'gpt-5']},
    })
    expect(await ended(dir, task.id, env)).toMatchObject({status: 'succeeded'})

    const before = snapshot(dir)
    for (const [args, message] of [
      [{prompt: 'x y', env}, /prompt needs an agent/],
      [{agent: 'generic', prompt: 'x y', env}, /agent generic has no headless command/],
      [{agent: 'claude', prompt: 'x y', command: ['claude'], env}, /exactly one of command/],
      [{agent: 'claude', command: ['true'], extraArgs: ['--x']}, /extraArgs go with prompt/],
      [{agent: 'claude', prompt: 'x y', extraArgs: ['claude'], env}, /not 'claude'/],
    ] as const) {
      const refused = await mcp.call('start_task', args as Record<string, unknown>)
      expect([args, refused.isError, exitCodeOf(refused)]).toEqual([args, true, 2])
      expect(refused.content[0]?.text).toMatch(message)
      expect(snapshot(dir)).toEqual(before)
    }
  })
})
