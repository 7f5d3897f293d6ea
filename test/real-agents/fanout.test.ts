// A fan-out with the real claude and codex offline, against the fake model
// servers: `start --agent claude,codex --prompt P --worktree --check CMD`
// runs each agent's headless command (written from config.json's
// agents.NAME) in its own worktree of one repository from one base commit;
// each does its work there, its check judges it, `compare` shows both side
// by side, and `merge` of one then `rm --group --discard` leaves the
// repository with that one's work and nothing else of the fan-out.

import {readFileSync, writeFileSync} from 'node:fs'
import path from 'node:path'
import {afterEach, describe, expect, it} from 'vitest'
import {drover, json} from '../helpers/cli.js'
import {branches, cleanupRepos, GIT_IDENTITY, gitIn, makeRepo, worktreePaths} from '../helpers/git.js'
import {agentEnv, CODEX_MODEL} from './harness/env.js'
import {CLAUDE, CODEX} from './harness/real-agents.js'
import {stateDir, useFakeServers} from './harness/tasks.js'

const serverOf = useFakeServers([CLAUDE, CODEX])
afterEach(() => cleanupRepos())

describe('a fan-out of the real claude and codex', () => {
  it('one attempt each, in worktrees from one commit, checked, compared; one merged, the rest discarded', async () => {
    const dir = stateDir()
    // what each needs offline, said once for the state dir: Bash for claude without a person to ask, codex's model
    writeFileSync(
      path.join(dir, 'config.json'),
      JSON.stringify({agents: {claude: {model: 'claude-haiku-4-5', permissionMode: 'acceptEdits', flags: ['--allowedTools', 'Bash']}, codex: {model: CODEX_MODEL, flags: ['-s', 'workspace-write']}}}),
    )
    // one environment for both attempts, as a person's shell is
    const env = agentEnv({anthropic: serverOf(CLAUDE), openai: serverOf(CODEX), extra: GIT_IDENTITY})
    const repo = makeRepo()
    const base = gitIn(repo, 'rev-parse', 'HEAD').trim()
    const prompt = 'the fan-out prompt [[tool: echo from-an-agent > work.txt && echo written]]'
    const r = await drover(dir, ['start', '--agent', 'claude,codex', '--prompt', prompt, '--worktree', '--group', 'real', '--check', 'grep -q from-an-agent work.txt', '--json'], {env, cwd: repo})
    expect(r.exitCode, r.stderr).toBe(0)
    const started = json(r)
    expect(started.tasks.map((t: any) => [t.name, t.command[0], t.worktree.baseCommit])).toEqual([
      ['real-claude-1', 'claude', base],
      ['real-codex-1', 'codex', base],
    ])

    const compared = await drover(dir, ['compare', 'real', '--wait', '--timeout', '180s', '--json'], {env})
    expect(compared.exitCode, compared.stderr).toBe(0)
    const table = json(compared)
    expect(table.settled, JSON.stringify(table)).toBe(true)
    expect(table.attempts.map((a: any) => [a.name, a.status, a.check.result.status, a.work.files])).toEqual([
      ['real-claude-1', 'succeeded', 'passed', 1],
      ['real-codex-1', 'succeeded', 'passed', 1],
    ])
    for (const a of table.attempts) expect(a.turns ?? a.inputTokens, JSON.stringify(a)).toBeGreaterThan(0)
    // the model was asked by each agent, once for its own attempt
    expect(serverOf(CLAUDE).modelRequests('the fan-out prompt').length).toBeGreaterThanOrEqual(1)
    expect(serverOf(CODEX).modelRequests('the fan-out prompt').length).toBeGreaterThanOrEqual(1)

    const merged = await drover(dir, ['merge', 'real-codex-1', '--commit'], {env})
    expect(merged.exitCode, merged.stderr).toBe(0)
    expect(readFileSync(path.join(repo, 'work.txt'), 'utf8')).toBe('from-an-agent\n')
    const removed = await drover(dir, ['rm', '--group', 'real', '--discard'], {env})
    expect(removed.exitCode, removed.stderr).toBe(0)
    expect(worktreePaths(repo)).toEqual([repo])
    expect(branches(repo)).toEqual(['main'])
    expect(json(await drover(dir, ['list', '--json'], {env}))).toEqual([])
  })
})
