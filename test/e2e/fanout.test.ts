// A fan-out end to end with the fake claude and codex: `start --agent
// claude:2,codex --prompt P --worktree` starts one task per attempt, in a
// group, each named GROUP-AGENT-N in a worktree of its own from one base
// commit; a queue's parallel limit holds the rest back; every mistake is one
// line, exit 2, and nothing on disk; the group is acted on as one; a check
// judges each attempt's work, compare shows them side by side, and merge
// plus rm --group --discard keep the winner and leave nothing else behind.

import {existsSync, readdirSync, readFileSync, readlinkSync, writeFileSync} from 'node:fs'
import path from 'node:path'
import {afterEach, describe, expect, it, vi} from 'vitest'
import {cleanupStateDirs, drover, fixture, json, makeStateDir, makeTempDir, taskEvents, waitFor} from '../helpers/cli.js'
import {branches, cleanupRepos, commitFile, GIT_IDENTITY, gitIn, makeRepo, worktreePaths} from '../helpers/git.js'
import {closeMcpSessions, startMcp} from '../helpers/mcp.js'
import {snapshot} from '../helpers/snapshot.js'
import {linuxOnly} from '../helpers/skips.js'

vi.setConfig({testTimeout: 120_000})
afterEach(async () => {
  await closeMcpSessions()
  cleanupStateDirs()
  cleanupRepos()
})

/** claude and codex on PATH as the fake agents, with a HOME of their own; each turn leaves a line in notes.txt. */
function agentEnv(turns: number): Record<string, string> {
  const bin = makeTempDir('drover-bin-')
  for (const name of ['claude', 'codex']) {
    writeFileSync(path.join(bin, name), `#!/usr/bin/env node\nimport(${JSON.stringify(fixture(`agent-${name}.mjs`))})\n`, {mode: 0o755})
  }
  return {
    ...GIT_IDENTITY,
    PATH: `${bin}${path.delimiter}${process.env.PATH}`,
    HOME: makeTempDir('drover-home-'),
    FAKE_AGENT_TURN_MS: '100',
    FAKE_AGENT_TURNS: String(turns),
    FAKE_AGENT_WORK_FILE: 'notes.txt',
  }
}

const ENDED = ['succeeded', 'failed', 'stopped', 'cancelled', 'drained', 'lost', 'skipped']

async function groupEnded(dir: string, group: string, env: Record<string, string>): Promise<any[]> {
  return waitFor(
    async () => {
      const tasks = json(await drover(dir, ['list', '--group', group, '--json'], {env}))
      return tasks.every((t: any) => ENDED.includes(t.status)) ? tasks : null
    },
    {timeout: 60_000, message: `group ${group} to end`},
  )
}

describe('start --agent claude:2,codex --prompt P --worktree', () => {
  it('starts one task per attempt, named GROUP-AGENT-N, each in its own worktree from one base commit, all in the group', async () => {
    const dir = makeStateDir()
    const repo = makeRepo()
    const base = gitIn(repo, 'rev-parse', 'HEAD').trim()
    const env = agentEnv(2)
    const r = await drover(dir, ['start', '--agent', 'claude:2,codex', '--prompt', 'fix the tests', '--worktree', '--max-turns', '5', '--json'], {env, cwd: repo})
    expect(r.exitCode, r.stderr).toBe(0)
    const started = json(r)
    const ids = started.tasks.map((t: any) => t.id)
    expect(started).toMatchObject({group: `g${ids[0]}`, base: {ref: 'HEAD', commit: base, branch: 'main'}})
    expect(started.tasks.map((t: any) => [t.name, t.group, t.agent, t.command[0], t.policies.maxTurns, t.worktree.baseCommit, t.worktree.pinBase])).toEqual([
      [`g${ids[0]}-claude-1`, `g${ids[0]}`, 'claude', 'claude', 5, base, true],
      [`g${ids[0]}-claude-2`, `g${ids[0]}`, 'claude', 'claude', 5, base, true],
      [`g${ids[0]}-codex-1`, `g${ids[0]}`, 'codex', 'codex', 5, base, true],
    ])
    expect(started.tasks.every((t: any) => ['starting', 'running', 'succeeded'].includes(t.status))).toBe(true)
    expect(new Set(started.tasks.map((t: any) => t.worktree.path)).size).toBe(3)
    const tasks = await groupEnded(dir, `g${ids[0]}`, env)
    expect(tasks.map((t: any) => t.status)).toEqual(['succeeded', 'succeeded', 'succeeded'])
    // each did its work in its own worktree
    for (const t of tasks) expect(gitIn(t.worktree.path, 'status', '--porcelain').trim()).toBe('?? notes.txt')

    // people: the ids on stdout, the group and what next on stderr; a second fan-out into the group numbers on
    const second = await drover(dir, ['start', '--agent', 'codex:2', '--prompt', 'again', '--worktree', '--group', `g${ids[0]}`], {env, cwd: repo})
    expect(second.exitCode, second.stderr).toBe(0)
    const newIds = second.stdout.trim().split('\n').map(Number)
    expect(newIds).toHaveLength(2)
    expect(second.stderr).toMatch(new RegExp(`^drover: group g${ids[0]}: 2 attempts from ${base.slice(0, 12)} \\(main\\); compare them with drover compare g${ids[0]}$`, 'm'))
    const group = json(await drover(dir, ['list', '--group', String(newIds[1]), '--json'], {env}))
    expect(group.map((t: any) => t.name)).toEqual([`g${ids[0]}-claude-1`, `g${ids[0]}-claude-2`, `g${ids[0]}-codex-1`, `g${ids[0]}-codex-2`, `g${ids[0]}-codex-3`])
    await groupEnded(dir, `g${ids[0]}`, env)
  })

  it('fans out through a queue without going past its parallel limit, each attempt with its budget', async () => {
    const dir = makeStateDir()
    const repo = makeRepo()
    const env = agentEnv(20)
    expect((await drover(dir, ['queue', 'set', 'agents', '--parallel', '2'], {env})).exitCode).toBe(0)
    const r = await drover(dir, ['start', '--agent', 'claude:2,codex:2', '--prompt', 'fix it', '--worktree', '--queue', 'agents', '--max-turns', '2', '--group', 'fix', '--json'], {env, cwd: repo})
    expect(r.exitCode, r.stderr).toBe(0)
    const started = json(r)
    expect(started.tasks.map((t: any) => t.status)).toEqual(['running', 'running', 'queued', 'queued'])
    let most = 0
    const tasks = await waitFor(
      async () => {
        const now = json(await drover(dir, ['list', '--group', 'fix', '--json'], {env}))
        most = Math.max(most, now.filter((t: any) => ['starting', 'running', 'stopping'].includes(t.status)).length)
        return now.every((t: any) => ENDED.includes(t.status)) ? now : null
      },
      {timeout: 60_000, interval: 100, message: 'the fan-out to end'},
    )
    expect(most).toBeLessThanOrEqual(2)
    // each attempt drained by its own budget
    expect(tasks.map((t: any) => [t.name, t.status, t.cause])).toEqual([
      ['fix-claude-1', 'drained', 'budget'],
      ['fix-claude-2', 'drained', 'budget'],
      ['fix-codex-1', 'drained', 'budget'],
      ['fix-codex-2', 'drained', 'budget'],
    ])
    // one base for all, however long an attempt waited: HEAD moved meanwhile
    commitFile(repo, 'moved.txt', 'moved\n')
    expect(new Set(tasks.map((t: any) => t.worktree.baseCommit)).size).toBe(1)
  })

  it('refuses every way to ask wrongly with one line, exit 2, and nothing written', async () => {
    const dir = makeStateDir()
    const repo = makeRepo()
    const env = agentEnv(1)
    // the state dir made, as any command makes it: what a refusal must leave as it is
    await drover(dir, ['list'], {env})
    const before = snapshot(dir)
    const gitBefore = [branches(repo), worktreePaths(repo)]
    const cases: [string[], RegExp][] = [
      [['--agent', 'claude:2,codex', '--prompt', 'p q'], /^drover: a fan-out runs each attempt in a worktree of its own, from one base commit: add --worktree$/],
      [['--agent', 'claude:2,codex', '--worktree', '--', '--model', 'x'], /^drover: a fan-out \(--agent claude:2,codex\) writes each attempt's command: give --prompt/],
      [['--agent', 'claude:2', '--prompt', 'p q', '--worktree=mine'], /^drover: each attempt of a fan-out gets a branch of its own \(drover\/<id>-<name>\): give --worktree without mine$/],
      [['--agent', 'claude:2', '--prompt', 'p q', '--worktree', '--name', 'x'], /^drover: --name names one task: a fan-out's attempts are named GROUP-AGENT-N, so name the group with --group$/],
      [['--agent', 'claude:2', '--prompt', 'p q', '--worktree', '--follow'], /^drover: --follow follows one task: follow the fan-out with drover logs -f --group GROUP$/],
      [['--agent', 'claude:2,codex', '--prompt', 'p q', '--worktree', '--', '--model', 'x'], /^drover: the flags after -- are one agent's own, and this fan-out has several \(claude, codex\)/],
      [['--agent', 'cluade:2', '--prompt', 'p q', '--worktree'], /^drover: --agent: unknown value 'cluade' \(did you mean claude\?\)/],
      [['--agent', 'claude:0', '--prompt', 'p q', '--worktree'], /^drover: --agent: claude's attempts must be a whole number from 1, got 0$/],
      [['--agent', 'claude:2', '--prompt', 'p q', '--worktree', '--group', '9x'], /^drover: --group: invalid group name '9x'/],
      [['--agent', 'claude:2', '--prompt', 'p q', '--worktree', '--after', '99'], /^drover: --after: no task 99$/],
      [['--agent', 'claude:2', '--prompt', 'p q', '--worktree', '--base', 'nope'], /^drover: --base nope names no commit in /],
    ]
    for (const [args, message] of cases) {
      const r = await drover(dir, ['start', ...args], {env, cwd: repo})
      expect({args, code: r.exitCode}).toEqual({args, code: 2})
      expect(r.stderr.trim().split('\n').filter((l) => !l.startsWith('(node:') && !l.startsWith('(Use `node')), args.join(' ')).toEqual([expect.stringMatching(message)])
    }
    expect(snapshot(dir)).toEqual(before)
    expect([branches(repo), worktreePaths(repo)]).toEqual(gitBefore)
  })
})

describe('a group, acted on as one', () => {
  it('stop, resume, wait and logs --group reach every attempt; list and status name the group', async () => {
    const dir = makeStateDir()
    const repo = makeRepo()
    const env = agentEnv(200)
    const r = await drover(dir, ['start', '--agent', 'claude,codex', '--prompt', 'long job', '--worktree', '--group', 'long'], {env, cwd: repo})
    expect(r.exitCode, r.stderr).toBe(0)
    const table = (await drover(dir, ['list'], {env})).stdout
    expect(table).toMatch(/^ID +NAME +GROUP +STATUS/)
    expect(table).toMatch(/ long-claude-1 +long +running /)
    expect((await drover(dir, ['status', 'long-codex-1'], {env})).stdout).toMatch(/^group +long$/m)
    const drained = await drover(dir, ['drain', '--group', 'long', '--json'], {env})
    expect(drained.exitCode, drained.stderr).toBe(0)
    expect(json(drained).results.map((t: any) => [t.id, t.status])).toEqual([
      [1, 'drained'],
      [2, 'drained'],
    ])
    const resumed = await drover(dir, ['resume', '--group', '1', '--json'], {env})
    expect(resumed.exitCode, resumed.stderr).toBe(0)
    expect(json(resumed).resumed.map((t: any) => t.id)).toEqual([1, 2])
    const stopped = await drover(dir, ['stop', '--group', 'long'], {env})
    expect(stopped.exitCode, stopped.stderr).toBe(0)
    const waited = await drover(dir, ['wait', '--group', 'long', '--json'], {env})
    expect(json(waited).map((t: any) => t.status)).toEqual(['stopped', 'stopped'])
    expect(waited.exitCode).not.toBe(0)
    const logs = await drover(dir, ['logs', '--group', 'long', '--raw'], {env})
    expect(logs.exitCode, logs.stderr).toBe(0)
    expect(logs.stdout).toMatch(/^\[1 long-claude-1\] /m)
    expect(logs.stdout).toMatch(/^\[2 long-codex-1\] /m)
    // a group no task is in: not found, with the one meant
    const typo = await drover(dir, ['stop', '--group', 'lnog'], {env})
    expect({code: typo.exitCode, err: typo.stderr.trim()}).toEqual({code: 3, err: 'drover: no such group: lnog (no task is in it; did you mean long?)'})
  })
})

/** Processes of this state dir still alive: runners and hook supervisors name it in their argv, agents and checks run in its worktrees. */
function processesOf(dir: string): string[] {
  const found: string[] = []
  for (const pid of readdirSync('/proc').filter((p) => /^\d+$/.test(p))) {
    if (Number(pid) === process.pid) continue
    try {
      const argv = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0')
      const cwd = readlinkSync(`/proc/${pid}/cwd`)
      if (argv.some((a) => a.includes(dir)) || cwd.startsWith(dir)) found.push(`${pid} ${argv.join(' ')}`)
    } catch {
      // gone meanwhile, or not ours to read
    }
  }
  return found
}

describe('compare, merge the winner, discard the rest', () => {
  linuxOnly('/proc').it('four attempts of two agents, each with a budget; a check passes in the codex ones and fails in the claude ones; merge one, rm --group --discard leaves nothing behind', async () => {
    const dir = makeStateDir()
    const repo = makeRepo()
    const env = agentEnv(20)
    const check = 'grep -q codex notes.txt && echo "codex did it" || { echo "no codex work here" >&2; exit 3; }'
    const r = await drover(dir, ['start', '--agent', 'claude:2,codex:2', '--prompt', 'fix the bug', '--worktree', '--group', 'bug', '--max-turns', '3', '--check', check], {env, cwd: repo})
    expect(r.exitCode, r.stderr).toBe(0)
    const ids = r.stdout.trim().split('\n').map(Number)
    expect(ids).toHaveLength(4)

    const compared = await drover(dir, ['compare', 'bug', '--wait', '--timeout', '60s', '--json'], {env})
    expect(compared.exitCode, compared.stderr).toBe(0)
    const table = json(compared)
    expect(table).toMatchObject({group: 'bug', base: {ref: 'HEAD', branch: 'main'}, sameBase: true, settled: true})
    expect(table.attempts.map((a: any) => [a.id, a.name, a.agent, a.status, a.cause, a.check.result.status, a.check.result.exitCode])).toEqual([
      [ids[0], 'bug-claude-1', 'claude', 'drained', 'budget', 'failed', 3],
      [ids[1], 'bug-claude-2', 'claude', 'drained', 'budget', 'failed', 3],
      [ids[2], 'bug-codex-1', 'codex', 'drained', 'budget', 'passed', 0],
      [ids[3], 'bug-codex-2', 'codex', 'drained', 'budget', 'passed', 0],
    ])
    for (const a of table.attempts) {
      // what each agent spent and what it left: a line per turn in notes.txt, not committed
      expect(a.turns).toBeGreaterThanOrEqual(3)
      expect(a.inputTokens).toBeGreaterThan(0)
      expect(a.runtimeMs).toBeGreaterThan(0)
      expect(a.work).toMatchObject({files: 1, deletions: 0, commits: 0, uncommitted: true, present: true})
      expect(a.work.insertions).toBeGreaterThanOrEqual(3)
      expect(a.check.command).toBe(check)
      expect(a.check.result.run).toBe(1)
    }
    expect(table.attempts[0].costUsd).toBeGreaterThan(0)
    expect(table.attempts[0].check.result.output).toBe('no codex work here\n')
    expect(table.attempts[2].check.result.output).toBe('codex did it\n')
    // the journal has it, and status says it
    expect(taskEvents(dir, ids[0]).filter((e) => e.event === 'check')).toEqual([expect.objectContaining({run: 1, status: 'failed', exitCode: 3})])
    expect((await drover(dir, ['status', String(ids[0])], {env})).stdout).toMatch(/^check result +failed \(exit 3\) for run 1, [^:]+: no codex work here$/m)

    // people: one row per attempt, side by side
    const human = await drover(dir, ['compare', String(ids[1])], {env})
    expect(human.stdout.split('\n')[0]).toMatch(/^group bug: 4 attempts from [0-9a-f]{12} \(main\)$/)
    expect(human.stdout.split('\n')[1].split(/\s+/)).toEqual(['ID', 'NAME', 'AGENT', 'STATUS', 'TURNS', 'TOKENS', 'COST', 'RUNTIME', 'FILES', '+/-', 'CHECK'])
    expect(human.stdout).toMatch(new RegExp(`^${ids[0]} +bug-claude-1 +claude +drained \\(budget\\) .* 1\\* +\\+\\d+ -0 +failed \\(exit 3\\)$`, 'm'))
    expect(human.stdout).toMatch(new RegExp(`^${ids[2]} +bug-codex-1 +codex +drained \\(budget\\) .* 1\\* +\\+\\d+ -0 +passed$`, 'm'))
    expect(human.stderr).toMatch(/keep one: drover merge ID, then drover rm --group bug --discard/)

    // keep the winner, throw the rest away: two commands
    const merged = await drover(dir, ['merge', 'bug-codex-1', '--commit'], {env})
    expect(merged.exitCode, merged.stderr).toBe(0)
    expect(readFileSync(path.join(repo, 'notes.txt'), 'utf8')).toMatch(/^codex turn 1\n/)
    const removed = await drover(dir, ['rm', '--group', 'bug', '--discard', '--json'], {env})
    expect(removed.exitCode, removed.stderr).toBe(0)
    expect(json(removed).removed.map((t: any) => t.id).sort()).toEqual([...ids].sort())

    // nothing left behind: no task, worktree, branch or process of theirs
    expect(json(await drover(dir, ['list', '--json'], {env}))).toEqual([])
    expect(worktreePaths(repo)).toEqual([repo])
    expect(branches(repo)).toEqual(['main'])
    expect(existsSync(path.join(dir, 'worktrees')) ? readdirSync(path.join(dir, 'worktrees')) : []).toEqual([])
    await waitFor(() => processesOf(dir).length === 0, {timeout: 10_000, message: `no process of the state dir: ${processesOf(dir).join('; ')}`})
    expect(gitIn(repo, 'status', '--porcelain').trim()).toBe('')
  })
})

describe('MCP: start_task with attempts, and compare_attempts', () => {
  it('fans out from {agent, prompt, attempts}, and the compare tool returns the table', async () => {
    const dir = makeStateDir()
    const repo = makeRepo()
    const env = agentEnv(2)
    const mcp = await startMcp(dir)
    // the server looks programs up on its own PATH: the tasks' PATH goes as env, which the start resolves with
    const taskEnv = {PATH: env.PATH, HOME: env.HOME, FAKE_AGENT_TURN_MS: '100', FAKE_AGENT_TURNS: '2', FAKE_AGENT_WORK_FILE: 'notes.txt'}
    const common = {prompt: 'fix the bug', worktree: true, cwd: repo, env: taskEnv, check: 'grep -q "turn 2" notes.txt'}
    const started = await mcp.call('start_task', {...common, attempts: 'claude,codex', group: 'mcp'})
    expect(started.isError, started.content[0]?.text).toBeFalsy()
    const {group, tasks, task, base} = started.structuredContent
    expect({group, names: tasks.map((t: any) => t.name), first: task.id, base: base.branch}).toEqual({group: 'mcp', names: ['mcp-claude-1', 'mcp-codex-1'], first: tasks[0].id, base: 'main'})
    const two = await mcp.call('start_task', {...common, agent: 'claude', attempts: 2})
    expect(two.isError, two.content[0]?.text).toBeFalsy()
    expect(two.structuredContent.tasks.map((t: any) => t.name)).toEqual([`g${two.structuredContent.tasks[0].id}-claude-1`, `g${two.structuredContent.tasks[0].id}-claude-2`])

    const compared = await mcp.call('compare_attempts', {group: 'mcp', wait: true, timeoutSeconds: 60})
    expect(compared.isError, compared.content[0]?.text).toBeFalsy()
    expect(compared.structuredContent).toMatchObject({group: 'mcp', settled: true, sameBase: true})
    expect(compared.structuredContent.attempts.map((a: any) => [a.name, a.status, a.check.result.status, a.work.files])).toEqual([
      ['mcp-claude-1', 'succeeded', 'passed', 1],
      ['mcp-codex-1', 'succeeded', 'passed', 1],
    ])
    const listed = await mcp.call('list_tasks', {group: String(tasks[1].id)})
    expect(listed.structuredContent.tasks.map((t: any) => t.id)).toEqual(tasks.map((t: any) => t.id))
    // a fan-out without a worktree, or a count without an agent: refused, nothing written
    for (const args of [{...common, worktree: undefined, attempts: 'claude,codex'}, {...common, attempts: 2}]) {
      const refused = await mcp.call('start_task', args)
      expect(refused).toMatchObject({isError: true, _meta: {exitCode: 2}})
    }
    await mcp.call('wait_tasks', {tasks: two.structuredContent.tasks.map((t: any) => t.id), timeoutSeconds: 60})
  })
})
