// Deciding whether and how a task can be resumed: what is refused and why
// (running, cancelled, no session), which session id a resume continues, that a
// launcher before the agent survives, and that a run still being opened by a
// resume is not mistaken for an abandoned one however old its task is.

import {utimesSync} from 'node:fs'
import {afterEach, describe, expect, it} from 'vitest'

import {DroverError, ExitCode} from '../../src/base/errors.js'
import {newRecord} from '../../src/tasks/launch.js'
import {processStartTime} from '../../src/platform/platform.js'
import {emptyAgentInfo} from '../../src/agents/events.js'
import {resumeCommand} from '../../src/agents/profiles.js'
import {claudeFlags, codexFlags} from '../helpers/agent-help.js'
import {runnerState} from '../../src/tasks/reconcile.js'
import {beginRun, type AgentProfileName, type TaskRecord, type TaskStatus} from '../../src/state/record.js'
import {resumeRefusal, resumeTask, wasInterrupted} from '../../src/tasks/resume.js'
import {ensureStateDir} from '../../src/state/statedir.js'
import {createTaskLayout, readRecord, safeUnlink, taskPaths, writeFileAtomic, writeRecord} from '../../src/state/store.js'
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
    opts.checkpointId === undefined
      ? null
      : {profile: agent, sessionId: opts.checkpointId, sessionDir: '/s', forced: false, mode: 'cooperative' as const, tookMs: 10, at: HOUR_AGO}
  const agentInfo = opts.sessionId === undefined ? null : {...emptyAgentInfo(), sessionId: opts.sessionId}
  return {...record, status, agentInfo, checkpoint}
}

describe('resumeRefusal', () => {
  it('refuses a task that runs, naming its status', () => {
    for (const status of ['starting', 'running', 'stopping'] as const) {
      expect(resumeRefusal(task('generic', status))).toBe(`task 7 is ${status}; it cannot be resumed while it runs`)
      // an agent is told how to give it what it should do next
      expect(resumeRefusal(task('claude', status, {sessionId: 's1'}))).toBe(`task 7 is ${status}; it cannot be resumed while it runs (\`drover resume 7 --prompt "…"\` queues a follow-up for when this run ends)`)
    }
  })

  it('refuses a cancelled task even when it has a session', () => {
    expect(resumeRefusal(task('claude', 'cancelled', {sessionId: 's1'}))).toBe('task 7 was cancelled, so it is not resumed; to run it again from the start: drover start 7')
  })

  it('refuses an agent task that never reported a session id', () => {
    expect(resumeRefusal(task('claude', 'drained', {checkpointId: null}))).toMatch(/^task 7 cannot be resumed: claude reported no session id/)
    expect(resumeRefusal(task('codex', 'lost'))).toMatch(/^task 7 cannot be resumed: codex reported no session id/)
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
    expect(resumeCommand(task('claude', 'drained', {checkpointId: 'saved'}), 'go', claudeFlags()).command.slice(-4)).toEqual(['--resume', 'saved', '--', 'go'])
    expect(resumeCommand(task('codex', 'lost', {sessionId: 'thread-2'}), 'go', codexFlags()).command).toEqual(['codex', 'exec', '--json', 'resume', 'thread-2', '--', 'go'])
  })

  it('a new run\'s session id (streamed) wins over an older checkpoint', () => {
    const record = {...task('claude', 'lost', {sessionId: 'newer', checkpointId: 'older'})}
    expect(resumeCommand(record, 'go', claudeFlags()).command.slice(-4)).toEqual(['--resume', 'newer', '--', 'go'])
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
      const error = await resumeTask(stateDir, record, undefined).catch((e: unknown) => e)
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
      await expect(resumeTask(stateDir, record, undefined)).rejects.toMatchObject({exitCode: ExitCode.conflict, message: 'task 7 is running; stop it first'})
    } finally {
      safeUnlink(runnerFile)
    }
  })

  it('refuses a prompt for a task that runs no agent with exit 2, writing nothing', async () => {
    const record = task('generic', 'succeeded')
    const stateDir = stored(record)
    await expect(resumeTask(stateDir, record, 'now do more')).rejects.toMatchObject({exitCode: ExitCode.usage, message: expect.stringMatching(/^task 7 runs no agent drover can continue \(generic\), so it takes no prompt/)})
    const after = readRecord(stateDir, record.id)
    expect(after.ok && after.record).toEqual(record)
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

describe('wasInterrupted: what resume --interrupted takes', () => {
  it('a lost task meant to run, and a resume of one that could not launch; nothing stopped on purpose', () => {
    expect(wasInterrupted(task('claude', 'lost', {sessionId: 's'}))).toBe(true)
    expect(wasInterrupted({...task('claude', 'lost', {sessionId: 's'}), desired: 'stopped'})).toBe(false)
    const resumed = beginRun(task('claude', 'lost', {sessionId: 's'}), true)
    const neverLaunched = {...resumed, status: 'failed' as const, reason: 'command not found: claude'}
    expect(wasInterrupted(neverLaunched)).toBe(true)
    // a resumed run that did launch and then failed is an ordinary failure
    expect(wasInterrupted({...neverLaunched, worker: {pid: 42, startTime: '1'}})).toBe(false)
    for (const status of ['drained', 'stopped', 'succeeded', 'cancelled'] as const) expect(wasInterrupted(task('generic', status))).toBe(false)
  })
})
