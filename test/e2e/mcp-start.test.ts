// start_task with what `drover start` offers beyond a command — queues,
// dependencies, worktrees, budgets, timeouts, retries — and queue_status: the
// real `drover mcp` as a child process, driven by the SDK's own Client. A bad
// value of each option is a tool error with the CLI's message and exit code
// that leaves the state dir as it was.

import {writeFileSync} from 'node:fs'
import path from 'node:path'
import {afterEach, describe, expect, it} from 'vitest'
import {cleanupStateDirs, drover, fixture, makeStateDir, makeTempDir, readTask, waitFor} from '../helpers/cli.js'
import {branches, cleanupRepos, gitIn, makeRepo} from '../helpers/git.js'
import {closeMcpSessions, exitCodeOf, startMcp, type McpSession} from '../helpers/mcp.js'
import {jobs} from '../helpers/queue-jobs.js'
import {snapshot} from '../helpers/snapshot.js'

afterEach(async () => {
  await closeMcpSessions()
  cleanupStateDirs()
  cleanupRepos()
})

const started = async (mcp: McpSession, args: Record<string, unknown>) => {
  const result = await mcp.call('start_task', args)
  expect(result.isError, result.content[0]?.text).toBeFalsy()
  return result.structuredContent.task
}

/** claude and codex on PATH as the fake agents (test/fixtures/agent-*.mjs), with a HOME of their own. */
function agentEnv(turnMs = 300): Record<string, string> {
  const bin = makeTempDir('drover-bin-')
  for (const name of ['claude', 'codex']) {
    writeFileSync(path.join(bin, name), `#!/usr/bin/env node\nimport(${JSON.stringify(fixture(`agent-${name}.mjs`))})\n`, {mode: 0o755})
  }
  return {PATH: `${bin}${path.delimiter}${process.env.PATH}`, HOME: makeTempDir('drover-home-'), FAKE_AGENT_TURN_MS: String(turnMs), FAKE_AGENT_TURNS: '100000'}
}

describe('drover mcp: start_task options and queue_status', () => {
  it('queue_status shows a queue at its limit: the tasks holding its slots and those waiting, in the order they will start', async () => {
    const stateDir = makeStateDir()
    expect((await drover(stateDir, ['queue', 'set', 'builds', '--parallel', '2'])).exitCode).toBe(0)
    const mcp = await startMcp(stateDir, ['--read-only'])
    expect((await mcp.client.listTools()).tools.map((t) => t.name)).toContain('queue_status')
    const writer = await startMcp(stateDir)
    const job = jobs()
    const ids: number[] = []
    for (const name of ['a', 'b', 'c', 'd']) ids.push((await started(writer, {command: job.argv(name).slice(1), name, queue: 'builds'})).id)
    const urgent = await started(writer, {command: job.argv('e').slice(1), name: 'e', queue: 'builds', priority: 5})
    expect(urgent).toMatchObject({status: 'queued', queue: 'builds', priority: 5, position: 1})
    await waitFor(() => job.started('a') && job.started('b') && ids.slice(0, 2).every((id) => readTask(stateDir, id).status === 'running'), {message: 'a and b to run'})

    const status = await mcp.call('queue_status', {})
    expect(status.isError, status.content[0]?.text).toBeFalsy()
    expect(status.structuredContent.queues).toEqual([
      expect.objectContaining({name: 'builds', parallel: 2, paused: false, running: 2, waiting: 3}),
    ])
    const [builds] = status.structuredContent.queues
    expect(builds.runningTasks.map((t: {id: number; status: string}) => [t.id, t.status])).toEqual([
      [ids[0], 'running'],
      [ids[1], 'running'],
    ])
    // the higher priority first, then first come, first served
    expect(builds.queuedTasks.map((t: {name: string; position: number}) => [t.name, t.position])).toEqual([
      ['e', 1],
      ['c', 2],
      ['d', 3],
    ])
    expect(builds.queuedTasks[0].reason).toMatch(/slot in queue builds/)

    // A slot frees: the next in line starts by itself, and the status says so.
    job.release('a')
    await waitFor(() => job.started('e'), {message: 'e to start when a ends'})
    const after = (await mcp.call('queue_status', {queue: 'builds'})).structuredContent.queues[0]
    expect(after.runningTasks.map((t: {name: string}) => t.name)).toEqual(['b', 'e'])
    expect(after.queuedTasks.map((t: {name: string}) => t.name)).toEqual(['c', 'd'])
    // an unknown queue is refused as on the command line (a typo must not look like an empty queue)
    const unknown = await mcp.call('queue_status', {queue: 'buidls'})
    expect(unknown).toMatchObject({isError: true, _meta: {exitCode: 2}})
    expect(unknown.content[0].text).toMatch(/no queue 'buidls' \(did you mean builds\?\)/)
    // ifAbsent: the live task of that name, marked reused
    const again = await started(writer, {command: job.argv('x').slice(1), name: 'b', ifAbsent: true})
    expect(again).toMatchObject({id: ids[1], reused: true})
    for (const name of ['b', 'c', 'd', 'e']) job.release(name)
    await writer.call('wait_tasks', {tasks: ids, timeoutSeconds: 60})
  })

  it('after: a task waits for others to succeed, and is skipped when one fails', async () => {
    const stateDir = makeStateDir()
    const mcp = await startMcp(stateDir)
    const job = jobs()
    const build = await started(mcp, {command: job.argv('build').slice(1), name: 'build'})
    const lint = await started(mcp, {command: job.argv('lint', 3).slice(1), name: 'lint'})
    const deploy = await started(mcp, {shell: 'echo deployed', name: 'deploy', after: ['build', build.id]})
    const report = await started(mcp, {shell: 'echo report', after: ['lint'], afterEnded: ['build']})
    const always = await started(mcp, {shell: 'echo always', afterEnded: ['lint']})
    expect(deploy).toMatchObject({status: 'queued', after: [build.id], queue: null})
    expect(deploy.reason).toMatch(new RegExp(`task ${build.id} to succeed`))
    job.release('build')
    job.release('lint')
    const waited = await mcp.call('wait_tasks', {tasks: [deploy.id, report.id, always.id], timeoutSeconds: 60})
    expect(waited.structuredContent.tasks.map((t: {status: string}) => t.status)).toEqual(['succeeded', 'skipped', 'succeeded'])
    expect(waited.structuredContent.tasks[1].reason).toMatch(new RegExp(`dependency ${lint.id} failed`))
    expect((await mcp.call('read_output', {task: 'deploy', cursor: 0})).structuredContent.text).toBe('deployed\n')
  })

  it('worktree: the task runs on a new branch in a worktree of the repository its cwd is in', async () => {
    const stateDir = makeStateDir()
    const repo = makeRepo()
    const mcp = await startMcp(stateDir)
    const plain = await started(mcp, {command: ['git', 'rev-parse', '--abbrev-ref', 'HEAD'], name: 'plain', cwd: repo, worktree: true})
    expect(plain.worktree).toMatchObject({repo, branch: `drover/${plain.id}-plain`, baseDirty: false})
    expect(plain.cwd).toBe(plain.worktree.path)
    expect(plain.cwd.startsWith(stateDir)).toBe(true)
    const base = gitIn(repo, 'rev-parse', 'HEAD').trim()
    gitIn(repo, 'commit', '-q', '--allow-empty', '-m', 'second')
    const own = await started(mcp, {shell: 'git rev-parse --abbrev-ref HEAD; git rev-parse HEAD', cwd: repo, worktree: 'feature/mcp', base})
    expect(own.worktree).toMatchObject({branch: 'feature/mcp', base, baseCommit: base})
    await mcp.call('wait_tasks', {tasks: [plain.id, own.id], timeoutSeconds: 60})
    expect((await mcp.call('read_output', {task: plain.id, cursor: 0})).structuredContent.text).toBe(`drover/${plain.id}-plain\n`)
    expect((await mcp.call('read_output', {task: own.id, cursor: 0})).structuredContent.text).toBe(`feature/mcp\n${base}\n`)
    expect(branches(repo)).toEqual([`drover/${plain.id}-plain`, 'feature/mcp', 'main'])
    const record = (await mcp.call('get_task', {task: own.id})).structuredContent.task
    expect(record.worktree.summary).toMatchObject({commits: 0, uncommitted: false})
  })

  it('budgets: maxTurns drains the agent; resume_task is refused until given a higher budget', async () => {
    const stateDir = makeStateDir()
    const env = agentEnv()
    const mcp = await startMcp(stateDir)
    const command = ['claude', '-p', 'count', '--output-format', 'stream-json', '--verbose']
    // The server looks programs up on its own PATH: give the task's PATH as env, which the start resolves with.
    const task = await started(mcp, {command, env, maxTurns: 3, name: 'counted'})
    expect(task.policies).toMatchObject({maxTurns: 3})
    const waited = await mcp.call('wait_tasks', {tasks: ['counted'], timeoutSeconds: 60})
    const first = waited.structuredContent.tasks[0]
    expect(first).toMatchObject({status: 'drained', agent: 'claude'})
    expect(first.reason).toMatch(/^budget: max-turns 3 reached/)

    const refused = await mcp.call('resume_task', {task: 'counted'})
    expect(refused).toMatchObject({isError: true, _meta: {exitCode: 4}})
    expect(refused.content[0].text).toMatch(/has used its budget .*resume it with a higher one/)
    expect(readTask(stateDir, task.id).runs).toHaveLength(1)
    // the session's turns so far count (a drain lets the turn under way end: a few past the limit)
    const more = first.agentInfo.session.turns + 2
    const resumed = await mcp.call('resume_task', {task: 'counted', maxTurns: more})
    expect(resumed.isError, resumed.content[0]?.text).toBeFalsy()
    expect(resumed.structuredContent.task).toMatchObject({run: 2, policies: {maxTurns: more}})
    const second = (await mcp.call('wait_tasks', {tasks: ['counted'], timeoutSeconds: 60})).structuredContent.tasks[0]
    expect(second.reason).toMatch(new RegExp(`^budget: max-turns ${more} reached`))

    const tokens = await started(mcp, {command: ['codex', 'exec', '--json', 'count'], env, maxTokens: 3000})
    const ended = (await mcp.call('wait_tasks', {tasks: [tokens.id], timeoutSeconds: 60})).structuredContent.tasks[0]
    expect(ended).toMatchObject({status: 'drained', policies: {maxTokens: 3000}})
    expect(ended.reason).toMatch(/^budget: max-tokens 3000 reached/)
    const costly = await started(mcp, {command, env, maxCostUsd: 2.5, timeout: '1s'})
    expect(costly.policies).toMatchObject({maxCostUsd: 2.5, timeoutMs: 1000})
  })

  it('onLimit wait: a task at its usage limit is waiting, and drain_tasks all drains it as drain --all does', async () => {
    const stateDir = makeStateDir()
    const limit = path.join(makeTempDir('drover-limit-'), 'limit')
    const env = {...agentEnv(50), FAKE_AGENT_TURNS: '2', FAKE_CLAUDE_LIMIT_FILE: limit}
    const mcp = await startMcp(stateDir)
    const task = await started(mcp, {command: ['claude', '-p', 'count', '--output-format', 'stream-json', '--verbose'], env, onLimit: 'wait'})
    expect(task.policies).toMatchObject({onLimit: 'wait'})
    // A first run gets a session; the resumed one hits the limit, which resets in an hour.
    expect((await mcp.call('wait_tasks', {tasks: [task.id]})).structuredContent.tasks[0].status).toBe('succeeded')
    writeFileSync(limit, String(Math.floor(Date.now() / 1000) + 3600))
    expect((await mcp.call('resume_task', {task: task.id})).isError).toBeFalsy()
    await waitFor(() => readTask(stateDir, task.id).status === 'waiting', {timeout: 20_000, message: 'waiting for the limit'})
    const drained = await mcp.call('drain_tasks', {all: true, graceSeconds: 2, killAfterSeconds: 1})
    expect(drained.structuredContent.results).toEqual([expect.objectContaining({id: task.id, status: 'drained'})])
  })

  it('timeout, idleTimeout, retry: the durations of drover start, as strings with a unit', async () => {
    const stateDir = makeStateDir()
    const mcp = await startMcp(stateDir)
    const slow = await started(mcp, {command: [process.execPath, fixture('sleeper.mjs')], timeout: '1s', idleTimeout: '1h'})
    expect(slow.policies).toMatchObject({timeoutMs: 1000, idleTimeoutMs: 3_600_000})
    const flaky = await started(mcp, {shell: 'echo try; exit 3', retry: 2, retryDelay: '100ms'})
    const waited = (await mcp.call('wait_tasks', {tasks: [slow.id, flaky.id], timeoutSeconds: 60})).structuredContent.tasks
    expect(waited[0]).toMatchObject({status: 'failed', reason: 'timeout'})
    expect(waited[1]).toMatchObject({status: 'failed', exitCode: 3, attempt: 3, retryMax: 2})
    expect((await mcp.call('read_output', {task: flaky.id, cursor: 0, format: 'raw'})).structuredContent.text.match(/^try$/gm)).toHaveLength(3)
  })

  it('a bad value of each option is a tool error with the CLI message and exit code, and changes nothing on disk', async () => {
    const stateDir = makeStateDir()
    const repo = makeRepo()
    const outside = makeTempDir('drover-norepo-')
    gitIn(repo, 'branch', 'taken')
    const mcp = await startMcp(stateDir)
    const done = await started(mcp, {command: ['true'], name: 'done'})
    await mcp.call('wait_tasks', {tasks: [done.id]})
    await waitFor(async () => (await mcp.call('get_task', {task: done.id})).structuredContent.task.runnerAlive === false, {message: 'the runner to exit'})
    const before = snapshot(stateDir)
    const branchesBefore = branches(repo)
    const ok = {command: ['true']}
    const claude = {command: [process.execPath, fixture('agent-claude.mjs'), '-p', 'x'], agent: 'claude'}
    const bad: [Record<string, unknown>, number, RegExp][] = [
      [{...ok, timeout: 30}, 2, /^invalid arguments for start_task: timeout: expected a duration with its unit/],
      [{...ok, timeout: '30'}, 2, /^timeout: '30' has no unit: say 30d, 30h, 30m or 30s/],
      [{...ok, timeout: '0s'}, 2, /^timeout: /],
      [{...ok, idleTimeout: 'soon'}, 2, /^idleTimeout: invalid duration 'soon'/],
      [{...ok, queue: ''}, 2, /queue: /],
      [{...ok, queue: 'no spaces'}, 2, /queue/],
      [{...ok, queue: 'q', priority: 1000}, 2, /priority: /],
      [{...ok, priority: 1.5}, 2, /priority: /],
      [{...ok, after: []}, 2, /after: /],
      [{...ok, after: ['ghost']}, 2, /ghost/],
      [{...ok, after: [99]}, 2, /99/],
      [{...ok, afterEnded: [true]}, 2, /afterEnded\.0: expected a task id/],
      [{...ok, worktree: true, cwd: outside}, 2, /^--worktree needs a git repository: .* is not inside one/],
      [{...ok, worktree: '', cwd: repo}, 2, /worktree: /],
      [{...ok, worktree: 3, cwd: repo}, 2, /worktree: expected true or a branch name/],
      [{...ok, worktree: 'bad..name', cwd: repo}, 2, /is not a valid branch name/],
      [{...ok, worktree: 'taken', cwd: repo}, 4, /^branch taken already exists/],
      [{...ok, worktree: 'new', base: 'nope', cwd: repo}, 2, /^--base nope names no commit/],
      [{...ok, base: 'main', cwd: repo}, 2, /^base and existingBranch go with worktree/],
      [{...ok, worktree: true, existingBranch: true, cwd: repo}, 2, /^--existing-branch: name the branch/],
      [{...ok, worktree: 'absent', existingBranch: true, cwd: repo}, 2, /^--existing-branch: there is no branch absent/],
      [{...ok, maxTurns: 2}, 2, /need an agent that reports its usage/],
      [{...claude, maxTurns: 0}, 2, /maxTurns: /],
      [{...claude, maxTokens: 1.5}, 2, /maxTokens: /],
      [{...claude, maxCostUsd: -1}, 2, /maxCostUsd: expected an amount of US dollars above 0/],
      [{...claude, maxCostUsd: '2.50'}, 2, /maxCostUsd: expected an amount of US dollars/],
      [{...claude, agent: 'codex', maxCostUsd: 1}, 2, /codex reports no cost/],
      [{...claude, onLimit: 'sometimes'}, 2, /onLimit: /],
      [{...ok, onLimit: 'wait'}, 2, /on-limit wait needs an agent/],
      [{...ok, retry: -1}, 2, /retry: /],
      [{...ok, retryDelay: '1s'}, 2, /^retryDelay and retryOnTimeout go with retry N/],
      [{...ok, retry: 1, retryDelay: '5'}, 2, /^retryDelay: '5' has no unit/],
      [{...ok, ifAbsent: true}, 2, /ifAbsent needs a name/],
    ]
    for (const [args, code, message] of bad) {
      const result = await mcp.call('start_task', args)
      const label = `${JSON.stringify(args)} → ${result.content[0]?.text}`
      expect(result.isError, label).toBe(true)
      expect(exitCodeOf(result), label).toBe(code)
      expect(result._meta?.exitCode, label).toBe(code)
      expect(result.content[0].text, label).toMatch(message)
      expect(result.content[0].text, label).not.toMatch(/\n/)
    }
    for (const args of [{task: 'done', maxTurns: 0}, {task: 'done', maxCostUsd: 0}]) {
      const result = await mcp.call('resume_task', args)
      expect(result, JSON.stringify(args)).toMatchObject({isError: true, _meta: {exitCode: 2}})
    }
    expect((await mcp.call('queue_status', {queue: 7})).isError).toBe(true)
    expect(snapshot(stateDir)).toEqual(before)
    expect(branches(repo)).toEqual(branchesBefore)
  })
})
