// Agent tasks with the fake claude and codex (shaped like the real ones; the
// real binaries are proven in test/real-agents/): a resume from cron's bare
// environment, a resume that cannot launch staying resumable, --shell refused
// for agents, and prompts with newlines kept on one line in every view.

import {mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync} from 'node:fs'
import path from 'node:path'
import {afterEach, describe, expect, it} from 'vitest'
import {makeTempDir, cleanupStateDirs, drover, fixture, isAlive, json, makeStateDir, readTask, waitFor} from '../helpers/cli.js'

afterEach(() => cleanupStateDirs())

/** A private copy of the fake agents' bin dir, so a test may move them away. */
function agentBin(): string {
  const dir = makeTempDir('drover-bin-')
  for (const name of ['claude', 'codex']) {
    // the fixture launchers import their implementation relative to test/fixtures/bin
    const launcher = `#!/usr/bin/env node\nimport(${JSON.stringify(fixture(`agent-${name}.mjs`))})\n`
    writeFileSync(path.join(dir, name), launcher, {mode: 0o755})
  }
  return dir
}

const CLAUDE = ['claude', '-p', 'count', '--output-format', 'stream-json', '--verbose']

async function runningAgent(stateDir: string, env: Record<string, string>, command: string[]): Promise<number> {
  const r = await drover(stateDir, ['start', '--', ...command], {env})
  expect(r.exitCode, r.stderr).toBe(0)
  const id = Number(r.stdout.trim())
  await waitFor(() => readTask(stateDir, id).agentInfo?.turns >= 1, {timeout: 20_000, message: 'first turn'})
  return id
}

async function reboot(stateDir: string, id: number): Promise<void> {
  const runner = JSON.parse(readFileSync(path.join(stateDir, 'tasks', String(id), 'runner.json'), 'utf8')).pid
  const worker = readTask(stateDir, id).worker.pid
  process.kill(runner, 'SIGKILL')
  process.kill(worker, 'SIGKILL')
  await waitFor(() => !isAlive(runner) && !isAlive(worker), {timeout: 10_000, message: 'all dead'})
}

describe('resume from cron', () => {
  it('runs the program found at start with the PATH of the start, whatever the caller has', async () => {
    const stateDir = makeStateDir()
    const bin = agentBin()
    const home = makeTempDir('drover-home-')
    const env = {PATH: `${bin}${path.delimiter}${process.env.PATH}`, HOME: home, FAKE_AGENT_TURN_MS: '100', FAKE_AGENT_TURNS: '100000'}
    const id = await runningAgent(stateDir, env, CLAUDE)
    expect(readTask(stateDir, id)).toMatchObject({executable: path.join(bin, 'claude'), pathEnv: env.PATH})
    await reboot(stateDir, id)

    // cron: no agent dir and no node dir on PATH
    const cron = {PATH: '/usr/bin:/bin', HOME: home}
    const r = await drover(stateDir, ['resume', '--interrupted', '--json'], {env: cron})
    expect(r.exitCode, r.stderr).toBe(0)
    expect(json(r).resumed.map((t: any) => t.id)).toEqual([id])
    const task = await waitFor(() => (readTask(stateDir, id).agentInfo?.turns >= 1 ? readTask(stateDir, id) : null), {timeout: 20_000, message: 'resumed turns'})
    expect(task).toMatchObject({status: 'running'})
    expect(task.runs[1].command[0]).toBe(path.join(bin, 'claude'))
  })

  it('a resume that cannot launch stays resumable, and --interrupted says so and tries again', async () => {
    const stateDir = makeStateDir()
    const bin = agentBin()
    const home = makeTempDir('drover-home-')
    const env = {PATH: `${bin}${path.delimiter}${process.env.PATH}`, HOME: home, FAKE_AGENT_TURN_MS: '100', FAKE_AGENT_TURNS: '100000'}
    const id = await runningAgent(stateDir, env, CLAUDE)
    await reboot(stateDir, id)
    // the agent is gone (an upgrade in progress): the grammar cannot be read, nothing changes
    renameSync(bin, `${bin}.away`)
    try {
      const failed = await drover(stateDir, ['resume', '--interrupted'], {env})
      expect(failed.exitCode).toBe(1)
      expect(failed.stderr).toMatch(new RegExp(`task ${id} was not resumed: claude cannot read its flags`))
      expect(readTask(stateDir, id)).toMatchObject({status: 'lost', desired: 'running'})
    } finally {
      renameSync(`${bin}.away`, bin)
    }
    const again = await drover(stateDir, ['resume', '--interrupted', '--json'], {env: {PATH: '/usr/bin:/bin', HOME: home}})
    expect(again.exitCode, again.stderr).toBe(0)
    expect(json(again).resumed.map((t: any) => t.id)).toEqual([id])
  })

  it('a resumed run that fails to launch is failed but still meant to run: the next --interrupted takes it again', async () => {
    const stateDir = makeStateDir()
    const home = makeTempDir('drover-home-')
    const work = makeTempDir('drover-work-')
    const env = {PATH: `${fixture('bin')}${path.delimiter}${process.env.PATH}`, HOME: home, FAKE_AGENT_TURN_MS: '100', FAKE_AGENT_TURNS: '100000'}
    const r = await drover(stateDir, ['start', '--cwd', work, '--', ...CLAUDE], {env})
    const id = Number(r.stdout.trim())
    await waitFor(() => readTask(stateDir, id).agentInfo?.turns >= 1, {timeout: 20_000, message: 'first turn'})
    await reboot(stateDir, id)
    rmSync(work, {recursive: true})
    const failed = await drover(stateDir, ['resume', '--interrupted'], {env})
    expect(failed.exitCode).toBe(1)
    expect(failed.stderr).toMatch(/failed to resume: working directory does not exist/)
    expect(readTask(stateDir, id)).toMatchObject({status: 'failed', desired: 'running', worker: null})
    const status = json(await drover(stateDir, ['status', String(id), '--json'], {env}))
    expect(status.resume).toBe(`drover resume ${id}`)
    mkdirSync(work)
    const again = await drover(stateDir, ['resume', '--interrupted', '--json'], {env})
    expect(again.exitCode, again.stderr).toBe(0)
    expect(json(again).resumed.map((t: any) => t.id)).toEqual([id])
    expect(readTask(stateDir, id).runs).toHaveLength(3)
  })
})

describe('agents and --shell', () => {
  it('--agent claude|codex with --shell is refused before anything is created', async () => {
    const stateDir = makeStateDir()
    for (const agent of ['claude', 'codex']) {
      const r = await drover(stateDir, ['start', '--agent', agent, '--shell', `${agent} -p "fix it"`])
      expect(r.exitCode).toBe(2)
      expect(r.stderr).toMatch(new RegExp(`--agent ${agent} needs the command after --, not --shell`))
    }
    expect(json<any[]>(await drover(stateDir, ['list', '--json']))).toEqual([])
  })
})

describe('prompts with newlines', () => {
  it('stay on one line in list and status, escaped as the shell reads them back', async () => {
    const stateDir = makeStateDir()
    const r = await drover(stateDir, ['start', '--', 'echo', 'first line\nsecond line'])
    const id = Number(r.stdout.trim())
    await waitFor(() => readTask(stateDir, id).status === 'succeeded')
    const list = (await drover(stateDir, ['list'])).stdout.trimEnd().split('\n')
    expect(list).toHaveLength(2)
    expect(list[1]).toContain(`echo $'first line\\nsecond line'`)
    const status = (await drover(stateDir, ['status', String(id)])).stdout
    expect(status).toMatch(/^command\s+echo \$'first line\\nsecond line'$/m)
  })

  it('a failed agent shows its own error and stderr in status, not its init event', async () => {
    const stateDir = makeStateDir()
    const home = makeTempDir('drover-home-')
    const env = {PATH: `${fixture('bin')}${path.delimiter}${process.env.PATH}`, HOME: home}
    const r = await drover(stateDir, ['start', '--', 'claude', '-p', 'go on', '--resume', 'no-such-session', '--output-format', 'stream-json', '--verbose'], {env})
    const id = Number(r.stdout.trim())
    await waitFor(() => readTask(stateDir, id).status === 'failed')
    const status = (await drover(stateDir, ['status', String(id)], {env})).stdout
    expect(status).toMatch(/^agent error\s+No conversation found with session ID: no-such-session$/m)
    expect(status).not.toMatch(/"type":"system"/)
    expect(status).toMatch(/last \d+ lines of output:\nNo conversation found/)
  })
})

describe('follow-ups and the names of tasks waiting to be resumed', () => {
  it('status of a succeeded agent shows its resume line: the ordinary follow-up', async () => {
    const stateDir = makeStateDir()
    const env = {PATH: `${agentBin()}${path.delimiter}${process.env.PATH}`, HOME: makeTempDir('drover-home-'), FAKE_AGENT_TURN_MS: '50', FAKE_AGENT_TURNS: '2'}
    const r = await drover(stateDir, ['start', '--name', 'fix', '--', ...CLAUDE], {env})
    expect(r.exitCode, r.stderr).toBe(0)
    const id = Number(r.stdout)
    await waitFor(() => readTask(stateDir, id).status === 'succeeded', {timeout: 20_000, message: 'succeeded'})
    expect(json(await drover(stateDir, ['status', 'fix', '--json'], {env}))).toMatchObject({status: 'succeeded', resume: `drover resume ${id}`, resumeRefused: null})
    expect((await drover(stateDir, ['status', 'fix'], {env})).stdout).toMatch(new RegExp(`^resume +drover resume ${id} --prompt "…" \\(a follow-up in the same session\\)$`, 'm'))
    // a plain command that ended is not offered one
    const plain = await drover(stateDir, ['start', '--', 'true'])
    await waitFor(() => readTask(stateDir, Number(plain.stdout)).status === 'succeeded', {message: 'plain succeeded'})
    expect(json(await drover(stateDir, ['status', plain.stdout.trim(), '--json']))).toMatchObject({resume: null, resumeRefused: null})
  })

  it('a drained agent holds its name: start --name refuses it (exit 4) naming the task and how to go on; resume NAME still means it', async () => {
    const stateDir = makeStateDir()
    const env = {PATH: `${agentBin()}${path.delimiter}${process.env.PATH}`, HOME: makeTempDir('drover-home-'), FAKE_AGENT_TURN_MS: '100', FAKE_AGENT_TURNS: '100000'}
    const r = await drover(stateDir, ['start', '--name', 'fix', '--', ...CLAUDE], {env})
    const id = Number(r.stdout)
    await waitFor(() => readTask(stateDir, id).agentInfo?.turns >= 1, {timeout: 20_000, message: 'first turn'})
    expect((await drover(stateDir, ['drain', 'fix'], {env})).exitCode).toBe(0)
    expect(readTask(stateDir, id).status).toBe('drained')
    const taken = await drover(stateDir, ['start', '--name', 'fix', '--', 'true'], {env})
    expect(taken.exitCode).toBe(4)
    expect(taken.stderr.trim()).toBe(
      `drover: name 'fix' is held by task ${id} (drained), which waits to be resumed: continue it with drover resume ${id}, or give the new task another --name (drover rm ${id} frees the name, removing that task)`,
    )
    expect(readdirSync(path.join(stateDir, 'tasks'))).toEqual([String(id)])
    expect((await drover(stateDir, ['start', '--if-absent', '--name', 'fix', '--', 'true'], {env})).exitCode).toBe(4)
    const resumed = await drover(stateDir, ['resume', 'fix', '--json'], {env})
    expect(json(resumed).resumed.map((t: any) => t.id)).toEqual([id])
    await drover(stateDir, ['cancel', String(id)], {env})
  })
})
