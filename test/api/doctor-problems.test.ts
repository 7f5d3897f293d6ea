// From facts to problem lines: errors before warnings, a fix on every line,
// the Windows way of stopping leftover processes, and what is no problem at all.

import {describe, expect, it} from 'vitest'
import {LOW_SPACE_BYTES, NO_SPACE_BYTES, problemLine, problemsOf, type ProblemInputs} from '../../src/api/doctor-problems.js'
import {knownAgents} from '../../src/agents/known.js'
import type {AgentCheck} from '../../src/agents/probe.js'

function inputs(overrides: {stateDir?: Partial<ProblemInputs['stateDir']>; agents?: AgentCheck[]; os?: string} = {}): ProblemInputs {
  return {
    agents: overrides.agents ?? [],
    stateDir: {
      path: '/home/u/.local/share/drover',
      exists: true,
      isDirectory: true,
      error: null,
      owner: {uid: 1000, mine: true, mode: '700', groupWritable: false, worldWritable: false},
      space: {freeBytes: 50 * LOW_SPACE_BYTES, totalBytes: 100 * LOW_SPACE_BYTES},
      tasks: 3,
      corrupt: [],
      staleLocks: [],
      unwatched: [],
      leftovers: [],
      leftoverScan: 'environment',
      interrupted: [],
      slurmTasks: [],
      config: {path: '/home/u/.local/share/drover/config.json', error: null},
      ...overrides.stateDir,
    },
    executors: [],
    environment: {executor: {value: null, valid: true}},
    known: knownAgents(),
    os: overrides.os ?? 'linux',
  }
}

const agent = (over: Partial<AgentCheck>): AgentCheck => ({
  name: 'claude',
  found: true,
  path: '/usr/bin/claude',
  realPath: '/usr/lib/node_modules/@anthropic-ai/claude-code/cli.js',
  version: '2.1.332',
  versionTookMs: 200,
  versionError: null,
  flags: {readable: true, count: 66, tookMs: 300, error: null},
  sessionStore: {path: '/home/u/.claude/projects', present: true},
  ...over,
})

describe('problemsOf', () => {
  it('nothing wrong: no problems, whatever agents are missing or stores not made yet', () => {
    expect(problemsOf(inputs({agents: [agent({}), agent({name: 'gemini', found: false, path: null, flags: null, sessionStore: {path: '/x', present: false}})]}))).toEqual([])
  })

  it('errors come first, each line with its fix', () => {
    const problems = problemsOf(
      inputs({
        stateDir: {
          interrupted: [4, 5],
          corrupt: [{id: 9, error: 'task.json is corrupt: x'}],
          space: {freeBytes: NO_SPACE_BYTES / 2, totalBytes: LOW_SPACE_BYTES},
        },
        agents: [agent({flags: {readable: false, count: 0, tookMs: 10, error: '`claude --help` exited 1'}})],
      }),
    )
    expect(problems.map((p) => [p.severity, p.subject])).toEqual([
      ['error', 'agent claude'],
      ['error', 'state dir'],
      ['error', 'task 9'],
      ['warning', 'tasks 4, 5'],
    ])
    expect(problemLine(problems[0])).toBe(
      "error: agent claude: drover cannot read claude's flags (`claude --help` exited 1), so `drover resume` of its tasks fails; reinstall it (npm install -g @anthropic-ai/claude-code) or put a working one first on PATH",
    )
    expect(problemLine(problems[3])).toBe(
      'warning: tasks 4, 5: lost while meant to run (a reboot or a crash ended them); `drover resume --interrupted` continues them (`@reboot drover resume --interrupted -q` in crontab does it at every boot)',
    )
  })

  it('many interrupted tasks: the first ten on the line, the rest counted', () => {
    const ids = Array.from({length: 1667}, (_, i) => 5 + 6 * i)
    expect(problemsOf(inputs({stateDir: {interrupted: ids}}))[0].subject).toBe('tasks 5, 11, 17, 23, 29, 35, 41, 47, 53, 59 and 1657 more')
  })

  it('little space is a warning, almost none an error', () => {
    const low = problemsOf(inputs({stateDir: {space: {freeBytes: LOW_SPACE_BYTES / 2, totalBytes: LOW_SPACE_BYTES}}}))
    expect(low.map((p) => p.severity)).toEqual(['warning'])
    expect(low[0].message).toBe('only 512.0 MiB free where the state dir is')
  })

  it('leftover processes are stopped with kill on Unix and taskkill on Windows', () => {
    const stateDir = {leftovers: [{id: 3, status: 'failed' as const, pids: [101, 102]}]}
    expect(problemsOf(inputs({stateDir}))[0].fix).toBe('stop them: kill 101 102 (kill -9 101 102 if they stay)')
    expect(problemsOf(inputs({stateDir, os: 'win32'}))[0].fix).toBe('stop them: taskkill /T /F /PID 101 /PID 102')
  })

  it('a task whose runner is gone while its worker lives is taken over, not recorded lost', () => {
    const [problem] = problemsOf(inputs({stateDir: {unwatched: [{id: 7, status: 'running', executor: 'local', runnerPid: 50, workerPid: 60, workerAlive: true}]}}))
    expect(problemLine(problem)).toBe(
      'error: task 7: recorded running but its runner (pid 50) is gone; its worker (pid 60) still runs, unwatched; `drover status 7` starts a new runner that takes the worker over',
    )
  })

  it('a state dir that is another user\'s, or unusable, says so first', () => {
    expect(problemLine(problemsOf(inputs({stateDir: {owner: {uid: 0, mine: false, mode: '700', groupWritable: false, worldWritable: false}}}))[0])).toBe(
      'error: state dir: /home/u/.local/share/drover belongs to another user (uid 0): drover refuses it; use a state dir of your own with --state-dir or DROVER_STATE_DIR',
    )
    expect(problemsOf(inputs({stateDir: {error: 'permission denied', corrupt: [{id: 1, error: 'x'}]}})).map((p) => p.message)).toEqual([
      '/home/u/.local/share/drover cannot be used: permission denied',
    ])
  })
})
