// `drover resume` end to end with fake agents first on PATH: a drained claude,
// codex or generic program continues its own conversation (same session, count
// goes on, original cwd); refusals; two racing resumes; and a simulated reboot
// that `resume --interrupted` recovers from.

import {existsSync, readdirSync, readFileSync, rmSync, writeFileSync} from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import {afterEach, describe, expect, it} from 'vitest'
import {makeTempDir, cleanupStateDirs, drover, fixture, isAlive, json, makeStateDir, readOutput, readTask, waitFor} from '../helpers/cli.js'

const FAKE_BIN = fixture('bin')
const homes: string[] = []

/** The env every drover call of these tests gets: fake agents first on PATH, a private HOME. */
function agentEnv(home: string, extra: Record<string, string> = {}): Record<string, string> {
  return {PATH: `${FAKE_BIN}${path.delimiter}${process.env.PATH}`, HOME: home, FAKE_AGENT_TURN_MS: '100', FAKE_AGENT_TURNS: '100000', ...extra}
}

afterEach(() => {
  cleanupStateDirs()
  for (const dir of homes.splice(0)) rmSync(dir, {recursive: true, force: true})
})

/** The one conversation file a fake agent keeps under the fake home. */
function conversation(home: string, kind: 'claude' | 'codex'): any {
  const root = path.join(home, kind === 'claude' ? '.claude-fake' : '.codex-fake')
  const files = readdirSync(root, {recursive: true, withFileTypes: true}).filter((e) => e.isFile() && e.name.endsWith('.json'))
  expect(files).toHaveLength(1)
  return JSON.parse(readFileSync(path.join(files[0].parentPath, files[0].name), 'utf8'))
}

// The numbered work turns; a closing note (claude ending its turn on a drain) is not one.
const assistantTurns = (conv: any): number[] =>
  conv.messages.filter((m: any) => m.role === 'assistant' && /^turn \d+:/.test(m.text)).map((m: any) => Number(/^turn (\d+):/.exec(m.text)![1]))

const consecutive = (turns: number[]) => turns.every((n, i) => n === i + 1)

async function drain(stateDir: string, env: Record<string, string>, id: number) {
  const result = await drover(stateDir, ['drain', String(id), '--grace', '20s'], {env})
  expect(result.exitCode, result.stderr).toBe(0)
  expect(result.stdout).toContain(`drover resume ${id}`)
  return readTask(stateDir, id)
}

async function waitTurns(stateDir: string, id: number, atLeast: number) {
  return waitFor(() => {
    const record = readTask(stateDir, id)
    return record.agentInfo?.sessionId && record.agentInfo.turns >= atLeast ? record : null
  }, {timeout: 20_000, message: `task ${id} to report ${atLeast} turns`})
}

describe('resume continues a drained agent from its checkpoint', () => {
  it('claude: same session, the count goes on, original cwd and flags', async () => {
    const stateDir = makeStateDir()
    const home = makeTempDir('drover-home-')
    const work = makeTempDir('drover-work-')
    const elsewhere = makeTempDir('drover-elsewhere-')
    const env = agentEnv(home)
    const started = await drover(
      stateDir,
      ['start', '--', 'claude', '-p', 'count the turns', '--output-format', 'stream-json', '--verbose', '--model', 'claude-opus-4-1', '--permission-mode', 'acceptEdits'],
      {env, cwd: work},
    )
    expect(started.exitCode, started.stderr).toBe(0)
    const id = Number(started.stdout.trim())
    const running = await waitTurns(stateDir, id, 3)
    expect(running.agent).toBe('claude')
    const sessionId = running.agentInfo.sessionId as string

    // status shows the session and the stream's progress while it runs
    const status = await drover(stateDir, ['status', String(id)], {env})
    expect(status.stdout).toMatch(new RegExp(`session\\s+${sessionId}`))
    expect(status.stdout).toMatch(/this run\s+\d+ turns?, .*last event (assistant|user)/)

    const drained = await drain(stateDir, env, id)
    expect(drained.status).toBe('drained')
    expect(drained.checkpoint).toMatchObject({profile: 'claude', sessionId, forced: false, mode: 'cooperative', sessionDir: path.join(stateDir, 'tasks', String(id), 'session')})
    // drover's hook refused the next tool call; the agent ended its turn by itself, its result event read into the record
    expect(drained.agentInfo.lastEvent).toBe('result/success')
    expect(drained.agentInfo.costUsd).toBeGreaterThan(0)
    const before = conversation(home, 'claude')
    const turnsAtDrain = before.turns
    expect(turnsAtDrain).toBeGreaterThanOrEqual(3)

    // resumed from another directory: drover must go back to the original one
    const resumed = await drover(stateDir, ['resume', String(id), '--json'], {env, cwd: elsewhere})
    expect(resumed.exitCode, resumed.stderr).toBe(0)
    expect(json(resumed).resumed).toMatchObject([{id, status: 'running', run: 2}])
    await waitFor(() => conversation(home, 'claude').turns >= turnsAtDrain + 2, {timeout: 20_000, message: 'resumed turns'})
    // while it runs again: the checkpoint is consumed, the progress is this run's own
    const midway = readTask(stateDir, id)
    expect(midway.checkpoint).toBeNull()
    expect(midway.agentInfo).toMatchObject({sessionId, costUsd: null})
    const again = await drain(stateDir, env, id)
    expect(again.runs.map((r: any) => r.status)).toEqual(['drained', 'drained'])
    expect(again.runs[1]).toMatchObject({resumed: true})
    expect(again.runs[1].command).toEqual(
      expect.arrayContaining(['--resume', sessionId, '--model', 'claude-opus-4-1', '--permission-mode', 'acceptEdits', '--output-format', 'stream-json']),
    )
    expect(again.runs[1].command).not.toContain('count the turns')

    const after = conversation(home, 'claude')
    expect(after.sessionId).toBe(sessionId)
    expect(after.turns).toBeGreaterThan(turnsAtDrain)
    const turns = assistantTurns(after)
    expect(consecutive(turns), `turns ${turns.join(',')}`).toBe(true)
    expect(after.runs).toHaveLength(2)
    expect(after.runs[1]).toMatchObject({cwd: work, resumed: true, model: 'claude-opus-4-1', permissionMode: 'acceptEdits', prompt: 'Continue from where you left off.'})
    // the second run's first turn carries on right after the checkpoint
    expect(after.messages.find((m: any) => m.role === 'assistant' && m.text.includes('Continue from'))!.text).toMatch(new RegExp(`^turn ${turnsAtDrain + 1}:`))
    expect(readOutput(stateDir, id)).toContain('run 2 (resume)')
  })

  it('codex: the same thread continues with the given prompt, in the original cwd', async () => {
    const stateDir = makeStateDir()
    const home = makeTempDir('drover-home-')
    const work = makeTempDir('drover-work-')
    const env = agentEnv(home)
    const started = await drover(stateDir, ['start', '--cwd', work, '--', 'codex', 'exec', '--json', '-m', 'gpt-5-codex', '--skip-git-repo-check', 'count'], {env})
    expect(started.exitCode, started.stderr).toBe(0)
    const id = Number(started.stdout.trim())
    const running = await waitTurns(stateDir, id, 2)
    expect(running.agent).toBe('codex')
    const threadId = running.agentInfo.sessionId as string
    expect(running.agentInfo.inputTokens).toBeGreaterThanOrEqual(2000)
    // codex reports tokens per turn: status shows them while it runs
    const status = await drover(stateDir, ['status', String(id)], {env})
    expect(status.stdout).toMatch(new RegExp(`session\\s+${threadId}`))
    expect(status.stdout).toMatch(/this run\s+\d+ turns?, \d+ tokens in, \d+ out, last event [\w.]+/)

    const drained = await drain(stateDir, env, id)
    // codex cannot cooperate: it is signalled between tool calls, never mid-command
    expect(drained.checkpoint).toMatchObject({profile: 'codex', sessionId: threadId, mode: 'safe-point', forced: false})
    const turnsAtDrain = conversation(home, 'codex').turns

    const resumed = await drover(stateDir, ['resume', String(id), '--prompt', 'now the changelog'], {env})
    expect(resumed.exitCode, resumed.stderr).toBe(0)
    expect(resumed.stdout).toContain(`task ${id} resumed (run 2)`)
    await waitFor(() => conversation(home, 'codex').turns >= turnsAtDrain + 2, {timeout: 20_000, message: 'resumed turns'})
    await drain(stateDir, env, id)

    const thread = conversation(home, 'codex')
    expect(thread.threadId).toBe(threadId)
    expect(consecutive(assistantTurns(thread))).toBe(true)
    expect(thread.runs[1]).toMatchObject({cwd: work, resumed: true, json: true, model: 'gpt-5-codex', prompt: 'now the changelog'})
    // the program found at start, by its absolute path: a resume does not depend on the caller's PATH
    expect(readTask(stateDir, id).runs[1].command.slice(0, 3)).toEqual([path.join(FAKE_BIN, 'codex'), 'exec', '--json'])
  })

  it('generic: the same command again with DROVER_RESUME=1 and the same session dir', async () => {
    const stateDir = makeStateDir()
    const home = makeTempDir('drover-home-')
    const work = makeTempDir('drover-work-')
    const env = agentEnv(home)
    const started = await drover(stateDir, ['start', '--', process.execPath, fixture('agent-generic.mjs'), 'counting'], {env, cwd: work})
    expect(started.exitCode, started.stderr).toBe(0)
    const id = Number(started.stdout.trim())
    const stateFile = path.join(stateDir, 'tasks', String(id), 'session', 'state.json')
    await waitFor(() => JSON.parse(readFileSync(stateFile, 'utf8')).count >= 3, {timeout: 20_000, message: 'count 3'})

    const drained = await drain(stateDir, env, id)
    expect(drained.checkpoint).toMatchObject({profile: 'generic', sessionId: null, forced: false})
    const countAtDrain = JSON.parse(readFileSync(stateFile, 'utf8')).count
    expect(readOutput(stateDir, id)).toContain(`stopped at count ${countAtDrain}`)

    const resumed = await drover(stateDir, ['resume', String(id)], {env, cwd: os.tmpdir()})
    expect(resumed.exitCode, resumed.stderr).toBe(0)
    await waitFor(() => readOutput(stateDir, id).includes(`count ${countAtDrain + 2}\n`), {timeout: 20_000, message: 'count to go on'})
    expect(readOutput(stateDir, id)).toContain(`resuming at count ${countAtDrain}\n`)
    await drain(stateDir, env, id)
    const state = JSON.parse(readFileSync(stateFile, 'utf8'))
    expect(state.runs).toMatchObject([
      {cwd: work, resumed: false, label: 'counting'},
      {cwd: work, resumed: true, label: 'counting'},
    ])
    expect(readTask(stateDir, id).runs[1].command).toBeNull()
  })
})

describe('agent profiles on start', () => {
  it('--agent must name a known profile; the program name decides otherwise, whatever its directory', async () => {
    const stateDir = makeStateDir()
    const env = agentEnv(makeTempDir('drover-home-'))
    const bad = await drover(stateDir, ['start', '--agent', 'gpt', '--', 'claude', '-p', 'x'], {env})
    expect(bad.exitCode).toBe(2)
    expect(bad.stderr).toMatch(/--agent/)
    expect(existsSync(path.join(stateDir, 'tasks', '1'))).toBe(false)

    const byPath = await drover(stateDir, ['start', '--', path.join(FAKE_BIN, 'claude'), '-p', 'x', '--output-format', 'stream-json', '--verbose'], {env})
    const forced = await drover(stateDir, ['start', '--agent', 'generic', '--', 'codex', 'exec', '--json', 'x'], {env})
    const plain = await drover(stateDir, ['start', '--', process.execPath, fixture('counter.mjs'), '1', '10'], {env})
    const agents = [byPath, forced, plain].map((r) => readTask(stateDir, Number(r.stdout.trim())).agent)
    expect(agents).toEqual(['claude', 'generic', 'generic'])
    await waitTurns(stateDir, Number(byPath.stdout.trim()), 1)
    expect(readTask(stateDir, Number(forced.stdout.trim())).agentInfo).toBeNull()
  })

  // --agent is for agents started through a launcher (node script.js, npx pkg):
  // the resume must keep the launcher and continue the same conversation.
  for (const kind of ['claude', 'codex'] as const) {
    it(`--agent ${kind} through a launcher resumes the same conversation`, async () => {
      const stateDir = makeStateDir()
      const home = makeTempDir('drover-home-')
      const env = agentEnv(home)
      const args = kind === 'claude' ? ['-p', 'count', '--output-format', 'stream-json', '--verbose'] : ['exec', '--json', 'count']
      const started = await drover(stateDir, ['start', '--agent', kind, '--', process.execPath, fixture(`agent-${kind}.mjs`), ...args], {env})
      expect(started.exitCode, started.stderr).toBe(0)
      const id = Number(started.stdout.trim())
      const sessionId = (await waitTurns(stateDir, id, 2)).agentInfo.sessionId
      await drain(stateDir, env, id)
      const turnsAtDrain = conversation(home, kind).turns
      const resumed = await drover(stateDir, ['resume', String(id)], {env})
      expect(resumed.exitCode, resumed.stderr).toBe(0)
      await waitFor(() => conversation(home, kind).turns >= turnsAtDrain + 2, {
        timeout: 20_000,
        message: `resumed turns (${readOutput(stateDir, id).split('\n').slice(-3).join(' | ')})`,
      })
      await drain(stateDir, env, id)
      const conv = conversation(home, kind)
      expect(conv.sessionId ?? conv.threadId).toBe(sessionId)
      expect(consecutive(assistantTurns(conv))).toBe(true)
      expect(readTask(stateDir, id).runs[1].command.slice(0, 2)).toEqual([process.execPath, fixture(`agent-${kind}.mjs`)])
    })
  }
})

/** `drover start` with the fake agents' environment; returns the new task's id. */
function starter(stateDir: string, env: Record<string, string>) {
  return async (args: string[], extra: Record<string, string> = {}) => {
    const r = await drover(stateDir, ['start', ...args], {env: {...env, ...extra}})
    expect(r.exitCode, r.stderr).toBe(0)
    return Number(r.stdout.trim())
  }
}

describe('resume refuses what it cannot continue', () => {
  it('a running task, a cancelled one, a claude task without a session id, an unknown id', async () => {
    const stateDir = makeStateDir()
    const home = makeTempDir('drover-home-')
    const env = agentEnv(home)
    const start = starter(stateDir, env)
    const running = await start(['--', process.execPath, fixture('agent-generic.mjs')])
    const cancelled = await start(['--', process.execPath, fixture('agent-generic.mjs')])
    expect((await drover(stateDir, ['cancel', String(cancelled)], {env})).exitCode).toBe(0)
    // text output: claude never says its session id, so there is nothing to resume
    const silent = await start(['--', 'claude', '-p', 'quick one'], {FAKE_AGENT_TURNS: '2'})
    await waitFor(() => readTask(stateDir, silent).status === 'succeeded', {timeout: 20_000, message: 'text-mode claude to finish'})

    const cases: [number, RegExp][] = [
      [running, /task \d+ is running/],
      [cancelled, /was cancelled/],
      [silent, /cannot be resumed: claude reported no session id.*drover start \d+/],
    ]
    for (const [id, reason] of cases) {
      const r = await drover(stateDir, ['resume', String(id)], {env})
      expect(r.exitCode, `task ${id}: ${r.stderr}`).toBe(4)
      expect(r.stderr).toMatch(reason)
      expect(readTask(stateDir, id).runs).toHaveLength(1)
    }
    const asJson = json(await drover(stateDir, ['resume', String(silent), '--json'], {env}))
    expect(asJson).toMatchObject({resumed: [], refused: [{id: silent, exitCode: 4}], missing: []})

    const unknown = await drover(stateDir, ['resume', '42'], {env})
    expect(unknown.exitCode).toBe(3)
    expect(unknown.stderr).toContain('no such task: 42')
    const nothing = await drover(stateDir, ['resume'], {env})
    expect(nothing.exitCode).toBe(2)
    const both = await drover(stateDir, ['resume', '--interrupted', String(running)], {env})
    expect(both.exitCode).toBe(2)
  })

  it('two resumes racing for one task start exactly one new run', async () => {
    const stateDir = makeStateDir()
    const home = makeTempDir('drover-home-')
    const env = agentEnv(home)
    const started = await drover(stateDir, ['start', '--', process.execPath, fixture('agent-generic.mjs')], {env})
    const id = Number(started.stdout.trim())
    await drain(stateDir, env, id)
    // A task created long ago: its age must not make a run that is still
    // starting look abandoned to the second resume.
    const file = path.join(stateDir, 'tasks', String(id), 'task.json')
    const record = JSON.parse(readFileSync(file, 'utf8'))
    writeFileSync(file, JSON.stringify({...record, createdAt: new Date(Date.now() - 3_600_000).toISOString()}, null, 2))

    for (let round = 1; round <= 2; round++) {
      const results = await Promise.all([1, 2, 3].map(() => drover(stateDir, ['resume', String(id), '--json'], {env})))
      const codes = results.map((r) => r.exitCode).sort()
      expect(codes, results.map((r) => r.stdout + r.stderr).join('\n')).toEqual([0, 4, 4])
      const task = readTask(stateDir, id)
      expect(task.runs).toHaveLength(round + 1)
      expect(task.status).toBe('running')
      await drain(stateDir, env, id)
    }
  })
})

describe('after a reboot', () => {
  it('resume --interrupted brings back exactly the tasks that were meant to run', async () => {
    const stateDir = makeStateDir()
    const home = makeTempDir('drover-home-')
    const env = agentEnv(home)
    const start = starter(stateDir, env)
    const generic = ['--', process.execPath, fixture('agent-generic.mjs')]
    const [runningA, runningB, agent, stopped, stopping, finished] = await Promise.all([
      start(['--name', 'a', ...generic]),
      start(['--name', 'b', ...generic]),
      start(['--name', 'agent', '--', 'claude', '-p', 'long job', '--output-format', 'stream-json', '--verbose']),
      start(['--name', 'stopped', ...generic]),
      // ignores STOP and SIGTERM: still `stopping` (desired stopped) when the machine goes down
      start(['--name', 'stopping', ...generic], {FAKE_AGENT_IGNORE_STOP: '1', FAKE_AGENT_IGNORE_TERM: '1'}),
      start(['--name', 'finished', '--', process.execPath, fixture('counter.mjs'), '1', '10']),
    ])

    expect((await drover(stateDir, ['stop', String(stopped)], {env})).exitCode).toBe(0)
    await waitFor(() => readOutput(stateDir, stopping).includes('count 1\n'), {timeout: 20_000, message: 'stubborn worker to run'})
    expect((await drover(stateDir, ['stop', String(stopping), '--time', '10m', '--no-wait'], {env})).exitCode).toBe(0)
    await waitFor(() => readTask(stateDir, stopping).status === 'stopping', {timeout: 20_000, message: 'stopping'})
    await waitTurns(stateDir, agent, 2)
    await waitFor(() => readTask(stateDir, finished).status === 'succeeded', {timeout: 20_000, message: 'counter to finish'})
    for (const id of [runningA, runningB]) {
      await waitFor(() => readOutput(stateDir, id).includes('count 2\n'), {timeout: 20_000, message: `task ${id} counting`})
    }

    // The reboot: every runner and every worker dies at once, with no chance to write anything.
    const pids: number[] = []
    for (const id of [runningA, runningB, agent, stopping]) {
      const runner = JSON.parse(readFileSync(path.join(stateDir, 'tasks', String(id), 'runner.json'), 'utf8'))
      pids.push(runner.pid, readTask(stateDir, id).worker.pid)
    }
    for (const pid of pids) process.kill(pid, 'SIGKILL')
    await waitFor(() => pids.every((pid) => !isAlive(pid)), {timeout: 10_000, message: 'everything dead'})

    const listed = json<any[]>(await drover(stateDir, ['list', '--json'], {env}))
    const byId = new Map(listed.map((t) => [t.id, t]))
    for (const id of [runningA, runningB, agent]) expect(byId.get(id)).toMatchObject({status: 'lost', desired: 'running'})
    expect(byId.get(stopping)).toMatchObject({status: 'lost', desired: 'stopped'})
    expect(byId.get(stopped)).toMatchObject({status: 'stopped', desired: 'stopped'})
    expect(byId.get(finished)).toMatchObject({status: 'succeeded'})
    const plain = await drover(stateDir, ['list'], {env})
    expect(plain.stdout.split('\n').filter((line) => /\blost\b/.test(line))).toHaveLength(4)

    const resumed = await drover(stateDir, ['resume', '--interrupted', '--json'], {env})
    expect(resumed.exitCode, resumed.stderr).toBe(0)
    expect(json(resumed).resumed.map((t: any) => t.id)).toEqual([runningA, runningB, agent].sort((x, y) => x - y))
    for (const id of [runningA, runningB, agent]) {
      const task = readTask(stateDir, id)
      expect(task.status).toBe('running')
      expect(task.runs.at(-1)).toMatchObject({run: 2, resumed: true})
    }
    for (const id of [stopping, stopped, finished]) expect(readTask(stateDir, id).runs).toHaveLength(1)
    // the lost claude continues its own session from the id the stream gave before the crash
    const sessionId = readTask(stateDir, agent).agentInfo.sessionId
    expect(readTask(stateDir, agent).runs[1].command).toEqual(expect.arrayContaining(['--resume', sessionId]))
    for (const id of [runningA, runningB]) {
      await waitFor(() => /resuming at count [1-9]\d*\n/.test(readOutput(stateDir, id)), {timeout: 20_000, message: `task ${id} to resume its count`})
    }
    await waitFor(() => conversation(home, 'claude').runs.length === 2, {timeout: 20_000, message: 'claude resumed'})
    expect(conversation(home, 'claude').runs[1]).toMatchObject({resumed: true})

    // a second --interrupted finds nothing left to do
    const again = await drover(stateDir, ['resume', '--interrupted', '--json'], {env})
    expect(again.exitCode).toBe(0)
    expect(json(again).resumed).toEqual([])
    const nothing = await drover(stateDir, ['resume', '--interrupted'], {env})
    expect(nothing).toMatchObject({exitCode: 0, stdout: '', stderr: 'no tasks to resume'})
    expect((await drover(stateDir, ['resume', '--interrupted', '-q'], {env})).stderr).toBe('')
  }, 120_000)
})
