// drover driven around the real agents, for the findings files: a state dir
// per test, start/settle/drain helpers, and what a task left behind (events,
// the agent's stream, the runner's pid). Everything a test made is killed and
// removed by `cleanupTasks`.

import {chmodSync, mkdirSync, readdirSync, readFileSync, statSync, symlinkSync, writeFileSync} from 'node:fs'
import path from 'node:path'
import {afterAll, afterEach, beforeAll, expect} from 'vitest'
import {cleanupStateDirs, drover, isAlive, json, makeStateDir, readOutput, readTask, waitFor} from '../../helpers/cli.js'
import {agentBinDir} from './agents.js'
import {agentTempDir, cleanupAgentDirs} from './env.js'
import type {FakeModelServer, LoggedRequest} from './fake-server.js'
import {killAll, killProcessesOf, processesOfTask} from './processes.js'
import {AGENTS, jsonLines, type RealAgent} from './real-agents.js'

const stateDirs: string[] = []

export function stateDir(): string {
  const dir = makeStateDir()
  stateDirs.push(dir)
  return dir
}

/** afterEach: whatever a test left running is killed, its dirs removed. */
export function cleanupTasks(): void {
  for (const dir of stateDirs.splice(0)) killProcessesOf(dir)
  cleanupStateDirs()
  cleanupAgentDirs()
}

export async function start(dir: string, env: Record<string, string>, command: string[], cwd: string, flags: string[] = []): Promise<number> {
  const r = await drover(dir, ['start', '--cwd', cwd, ...flags, '--', ...command], {env})
  expect(r.exitCode, r.stderr).toBe(0)
  return Number(r.stdout.trim())
}

const LIVE = ['running', 'starting', 'stopping', 'draining']

/** status --json once the task has ended. */
export async function settled(dir: string, id: number, env: Record<string, string>, timeout = 60_000): Promise<any> {
  return waitFor(
    async () => {
      const status = json(await drover(dir, ['status', String(id), '--json'], {env}))
      return LIVE.includes(status.status) ? null : status
    },
    {timeout, interval: 250, message: `task ${id} to end`},
  )
}

/** The agent's session id, once the runner has recorded it. */
export function sessionIdOf(dir: string, id: number): Promise<string> {
  return waitFor(() => readTask(dir, id).agentInfo?.sessionId as string | undefined, {timeout: 30_000, message: `a session id for task ${id}`})
}

/** Whether a file under `home` (its caches and packages aside) holds both the session id and the prompt. */
function sessionSavedUnder(home: string, sessionId: string, prompt: string): boolean {
  const walk = (dir: string): boolean => {
    let names: string[]
    try {
      names = readdirSync(dir)
    } catch {
      return false
    }
    for (const name of names) {
      if (name === '.cache' || name === 'node_modules') continue
      const file = path.join(dir, name)
      const stats = statSync(file, {throwIfNoEntry: false})
      if (stats?.isDirectory() && walk(file)) return true
      if (stats?.isFile() && stats.size < 4 << 20) {
        const text = readFileSync(file, 'utf8')
        if (text.includes(sessionId) && text.includes(prompt)) return true
      }
    }
    return false
  }
  return walk(home)
}

/**
 * Waits until the agent has written its session, prompt included, under its
 * HOME: an agent killed before that (a reboot in a test) leaves nothing to
 * resume, however early it printed its session id.
 */
export function sessionSaved(home: string, sessionId: string, prompt: string): Promise<boolean> {
  return waitFor(() => sessionSavedUnder(home, sessionId, prompt) || null, {timeout: 30_000, message: `the agent to save session ${sessionId}`})
}

export async function drain(dir: string, id: number, env: Record<string, string>, grace: string): Promise<any> {
  const r = await drover(dir, ['drain', String(id), '--grace', grace, '--kill-after', '5s', '--json'], {env})
  expect(r.exitCode, r.stderr).toBe(0)
  return json(r).results[0]
}

export async function resume(dir: string, id: number, env: Record<string, string>, prompt?: string): Promise<void> {
  const r = await drover(dir, ['resume', String(id), ...(prompt === undefined ? [] : ['--prompt', prompt])], {env})
  expect(r.exitCode, r.stderr).toBe(0)
}

/** events.ndjson of a task. */
export function taskEvents(dir: string, id: number): any[] {
  return readFileSync(path.join(dir, 'tasks', String(id), 'events.ndjson'), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line))
}

export function runnerPid(dir: string, id: number): number | null {
  try {
    return JSON.parse(readFileSync(path.join(dir, 'tasks', String(id), 'runner.json'), 'utf8')).pid
  } catch {
    return null
  }
}

/**
 * A reboot, as far as a task can tell: its runner and its whole worker group
 * killed at once, then whatever of its agent escaped the group (a relaunched
 * child, a launcher's program). Other tasks of the state dir live on.
 */
export async function reboot(dir: string, id: number): Promise<void> {
  const runner = runnerPid(dir, id)!
  const worker = readTask(dir, id).worker.pid
  process.kill(runner, 'SIGKILL')
  process.kill(-worker, 'SIGKILL')
  await waitFor(() => !isAlive(runner) && !isAlive(worker), {timeout: 10_000, message: 'runner and worker to die'})
  killAll(processesOfTask(dir, id))
}

/** The agent's JSON events in output.log, split per run (drover writes a separator line before each later run). */
export function streamByRun(dir: string, id: number): any[][] {
  return readOutput(dir, id)
    .split(/\n── drover: run \d+ /)
    .map(jsonLines)
}

export async function waitForRequest(server: FakeModelServer, text: string): Promise<void> {
  await waitFor(() => server.modelRequests(text).length > 0, {timeout: 60_000, message: `a model request with "${text}"`})
}

/** The text of the prompt a model request ends its user input with. */
export function lastUserText(agent: RealAgent, request: LoggedRequest): string {
  if (agent.kind === 'claude') {
    // claude puts a system message after the prompt: the prompt is the last user text block.
    const user = request.body.messages.filter((m: any) => m.role === 'user' && Array.isArray(m.content) && m.content.some((c: any) => c.type === 'text'))
    return user.at(-1).content.filter((c: any) => c.type === 'text').at(-1).text
  }
  const user = request.body.input.filter((i: any) => i.type === 'message' && i.role === 'user')
  return user.at(-1).content.map((c: any) => c.text ?? '').join('')
}

/**
 * A dir with `claude` and `codex` of its own, to put first on PATH: symlinks
 * to the real launchers, or with `delaySeconds`, scripts that wait that long
 * before they exec the real ones (a drain then lands before the agent said anything).
 */
export function agentLinks(opts: {delaySeconds?: number} = {}): string {
  const dir = agentTempDir('drover-bin-')
  for (const name of ['claude', 'codex']) {
    const real = path.join(agentBinDir(), name)
    const file = path.join(dir, name)
    if (opts.delaySeconds === undefined) {
      symlinkSync(real, file)
    } else {
      writeFileSync(file, `#!/bin/sh\nsleep ${opts.delaySeconds}\nexec '${real}' "$@"\n`)
      chmodSync(file, 0o755)
    }
  }
  return dir
}

/** A fresh work dir whose name has spaces and both kinds of quotes. */
export function awkwardDir(): string {
  const dir = path.join(agentTempDir('drover-x-'), `it's a "dir"`)
  mkdirSync(dir)
  return dir
}

/**
 * One fake model server per agent for the test file, reset after each test
 * (which must not have sent anything unexpected), with every task's processes
 * and dirs cleaned up. Returns the lookup of an agent's server.
 */
export function useFakeServers(agents: RealAgent[] = AGENTS): (agent: RealAgent) => FakeModelServer {
  const servers = new Map<string, FakeModelServer>()
  beforeAll(async () => {
    for (const agent of agents) servers.set(agent.kind, await agent.startServer())
  })
  afterAll(async () => {
    for (const server of servers.values()) await server.stop()
  })
  afterEach(() => {
    cleanupTasks()
    for (const server of servers.values()) {
      server.assertNoUnexpected()
      server.reset()
    }
  })
  return (agent) => servers.get(agent.kind)!
}
