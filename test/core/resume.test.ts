// Deciding whether and how a task can be resumed: what is refused and why
// (running, cancelled, no session), which session id a resume continues, that a
// launcher before the agent survives, and that a run still being opened by a
// resume is not mistaken for an abandoned one however old its task is.

import fc from 'fast-check'
import {utimesSync} from 'node:fs'
import {afterEach, describe, expect, it} from 'vitest'

import {DroverError, ExitCode} from '../../src/core/errors.js'
import {newRecord} from '../../src/core/launch.js'
import {processStartTime} from '../../src/core/platform.js'
import {emptyAgentInfo, resumeCommand} from '../../src/core/profiles.js'
import {runnerState} from '../../src/core/reconcile.js'
import {beginRun, type AgentProfileName, type TaskRecord, type TaskStatus} from '../../src/core/record.js'
import {DEFAULT_RESUME_PROMPT, resumeRefusal, resumeTask} from '../../src/core/resume.js'
import {ensureStateDir} from '../../src/core/statedir.js'
import {createTaskLayout, readRecord, safeUnlink, taskPaths, writeFileAtomic, writeRecord} from '../../src/core/store.js'
import {cleanupStateDirs, makeStateDir} from '../helpers/cli.js'

afterEach(cleanupStateDirs)

const HOUR_AGO = new Date(Date.now() - 3_600_000).toISOString()

function task(
  agent: AgentProfileName,
  status: TaskStatus,
  opts: {command?: string[]; sessionId?: string | null; checkpointId?: string | null; id?: number} = {},
): TaskRecord {
  const command = opts.command ?? (agent === 'claude' ? ['claude', '-p', 'fix it', '--output-format', 'stream-json', '--verbose'] : agent === 'codex' ? ['codex', 'exec', '--json', 'fix it'] : ['./agent.sh'])
  const record = newRecord(
    opts.id ?? 7,
    {command, shell: null, name: null, cwd: '/repo', env: {}, agent, policies: {timeoutMs: null, idleTimeoutMs: null, maxOutputBytes: null}},
    HOUR_AGO,
  )
  const checkpoint =
    opts.checkpointId === undefined ? null : {profile: agent, sessionId: opts.checkpointId, sessionDir: '/s', forced: false, at: HOUR_AGO}
  const agentInfo = opts.sessionId === undefined ? null : {...emptyAgentInfo(), sessionId: opts.sessionId}
  return {...record, status, agentInfo, checkpoint}
}

describe('resumeRefusal', () => {
  it('refuses a task that runs, naming its status', () => {
    for (const status of ['starting', 'running', 'stopping'] as const) {
      expect(resumeRefusal(task('generic', status))).toBe(`task 7 is ${status}; it cannot be resumed while it runs`)
    }
  })

  it('refuses a cancelled task even when it has a session', () => {
    expect(resumeRefusal(task('claude', 'cancelled', {sessionId: 's1'}))).toBe('task 7 was cancelled, so it is not resumed; to run it again from the start: drover start 7')
  })

  it('refuses an agent task that never reported a session id', () => {
    expect(resumeRefusal(task('claude', 'drained', {checkpointId: null}))).toMatch(/^task 7 has no session to continue: no claude session id/)
    expect(resumeRefusal(task('codex', 'lost'))).toMatch(/^task 7 has no session to continue: no codex thread id/)
  })

  it('accepts every other ended task: drained with a checkpoint, lost with only the streamed id, generic in any final state', () => {
    expect(resumeRefusal(task('claude', 'drained', {sessionId: 's1', checkpointId: 's1'}))).toBeNull()
    // a reboot leaves no checkpoint, only what the stream said before it
    expect(resumeRefusal(task('claude', 'lost', {sessionId: 's1'}))).toBeNull()
    expect(resumeRefusal(task('codex', 'stopped', {sessionId: 't1'}))).toBeNull()
    for (const status of ['succeeded', 'failed', 'stopped', 'drained', 'lost'] as const) expect(resumeRefusal(task('generic', status))).toBeNull()
  })
})

describe('which session a resume continues', () => {
  it('a drained task continues the checkpoint, a lost one the id streamed before the crash', () => {
    expect(resumeCommand(task('claude', 'drained', {checkpointId: 'saved'}), 'go').command.slice(-3)).toEqual(['--resume', 'saved', 'go'])
    expect(resumeCommand(task('codex', 'lost', {sessionId: 'thread-2'}), 'go').command).toEqual(['codex', 'exec', '--json', 'resume', 'thread-2', 'go'])
  })

  it('keeps a launcher before the agent: node script, npx package, node flags', () => {
    const claude = task('claude', 'drained', {sessionId: 's', command: ['node', '--max-old-space-size=4096', 'cli.js', '-p', 'old prompt', '--model', 'opus']})
    expect(resumeCommand(claude, 'next').command).toEqual(['node', '--max-old-space-size=4096', 'cli.js', '-p', '--model', 'opus', '--resume', 's', 'next'])
    const codex = task('codex', 'drained', {sessionId: 't', command: ['npx', '-y', '@openai/codex', 'exec', '--json', '-m', 'o3', 'old prompt']})
    expect(resumeCommand(codex, 'next').command).toEqual(['npx', '-y', '@openai/codex', 'exec', '--json', '-m', 'o3', 'resume', 't', 'next'])
  })

  it('never carries the old prompt or an old session flag, and always ends with the new prompt (any flag order)', () => {
    const piece = fc.oneof(
      fc.constant(['--output-format', 'stream-json']),
      fc.constant(['--verbose']),
      fc.constant(['--model', 'opus']),
      fc.constant(['--permission-mode', 'acceptEdits']),
      fc.constant(['--session-id', 'OLD-SESSION']),
      fc.constant(['--resume', 'OLD-SESSION']),
      fc.constant(['--continue']),
      fc.constant(['OLD PROMPT']),
    )
    fc.assert(
      fc.property(fc.array(piece, {maxLength: 8}), fc.boolean(), (pieces, launcher) => {
        const args = ['-p', ...pieces.flat()]
        const command = launcher ? ['node', 'cli.js', ...args] : ['claude', ...args]
        const resumed = resumeCommand(task('claude', 'drained', {sessionId: 'NEW', command}), 'NEXT').command
        expect(resumed.slice(-3)).toEqual(['--resume', 'NEW', 'NEXT'])
        expect(resumed).not.toContain('OLD PROMPT')
        expect(resumed).not.toContain('OLD-SESSION')
        expect(resumed).not.toContain('--continue')
        expect(resumed.slice(0, launcher ? 2 : 1)).toEqual(launcher ? ['node', 'cli.js'] : ['claude'])
        for (const [flag, value] of [['--model', 'opus'], ['--permission-mode', 'acceptEdits'], ['--output-format', 'stream-json']]) {
          if (args.includes(flag)) expect(resumed[resumed.indexOf(flag) + 1]).toBe(value)
        }
      }),
    )
  })
})

describe('resumeTask', () => {
  function stored(record: TaskRecord): string {
    const stateDir = makeStateDir()
    ensureStateDir(stateDir)
    createTaskLayout(taskPaths(stateDir, record.id))
    writeRecord(stateDir, record)
    return stateDir
  }

  it('refuses with exit 4 and leaves the record as it was', async () => {
    for (const record of [task('generic', 'cancelled'), task('claude', 'drained', {checkpointId: null})]) {
      const stateDir = stored(record)
      const error = await resumeTask(stateDir, record.id, DEFAULT_RESUME_PROMPT).catch((e: unknown) => e)
      expect(error).toBeInstanceOf(DroverError)
      expect((error as DroverError).exitCode).toBe(ExitCode.conflict)
      const after = readRecord(stateDir, record.id)
      expect(after.ok && after.record).toEqual(record)
    }
  })

  it('refuses a task whose runner is alive', async () => {
    const record = task('generic', 'running')
    const stateDir = stored(record)
    // this test process stands in for the live runner (and must not be killed by the cleanup)
    const runnerFile = taskPaths(stateDir, record.id).runner
    writeFileAtomic(runnerFile, JSON.stringify({pid: process.pid, startTime: processStartTime(process.pid)}))
    try {
      await expect(resumeTask(stateDir, record.id, 'x')).rejects.toMatchObject({exitCode: ExitCode.conflict, message: 'task 7 is running; stop it first'})
    } finally {
      safeUnlink(runnerFile)
    }
  })
})

describe('a run being opened is not abandoned', () => {
  it('an old task whose resume was just opened counts as starting until its runner is overdue', () => {
    const opened = beginRun(task('generic', 'drained'), true)
    const stateDir = makeStateDir()
    ensureStateDir(stateDir)
    createTaskLayout(taskPaths(stateDir, opened.id))
    writeRecord(stateDir, opened)
    expect(opened.createdAt).toBe(HOUR_AGO)
    expect(runnerState(stateDir, opened)).toBe('starting')
    // the same record, opened long ago and never taken up by a runner
    const longAgo = new Date(Date.now() - 60_000)
    utimesSync(taskPaths(stateDir, opened.id).record, longAgo, longAgo)
    expect(runnerState(stateDir, opened)).toBe('gone')
  })
})
