// What a run's end does to the follow-ups queued for its task, through
// settle (the one path every ending takes): a run that went well opens the
// next run with the first (the agent's resume command, the prompt and the
// follow-up's number on the run); a failure or a stop drops them except those
// kept; a cancel drops every one; a drain by request, a lost runner and an
// attached session leave them; a session that cannot go on drops them, saying why.

import {mkdirSync} from 'node:fs'
import {afterEach, describe, expect, it} from 'vitest'
import {emptyAgentInfo} from '../../src/agents/events.js'
import {selfEntry} from '../../src/runner/exit-hooks.js'
import {settle, type Settlement} from '../../src/runner/settle.js'
import {addFollowup, pendingFollowups} from '../../src/state/followups.js'
import {transition, type TaskRecord} from '../../src/state/record.js'
import {readRecord, taskPaths, writeRecord} from '../../src/state/store.js'
import {newRecord} from '../../src/tasks/launch.js'
import {claudeFlags} from '../helpers/agent-help.js'
import {cleanupStateDirs, makeStateDir, taskEvents} from '../helpers/cli.js'

afterEach(cleanupStateDirs)

const learn = () => claudeFlags()

/** A claude task running run 1 in a fresh state dir, with these follow-ups queued. */
function running(queued: {prompt: string; now?: boolean; keep?: boolean}[], extra: Partial<TaskRecord> = {}) {
  const stateDir = makeStateDir()
  const base = newRecord(3, {
    command: ['claude', '-p', 'build it', '--output-format', 'stream-json', '--verbose', '--model', 'opus'],
    shell: null,
    name: null,
    cwd: stateDir,
    env: {},
    agent: 'claude',
    policies: {timeoutMs: null, idleTimeoutMs: null, maxOutputBytes: null},
  })
  const record: TaskRecord = {...transition(base, {status: 'running'}), worker: {pid: 99999, startTime: 'x'}, agentInfo: {...emptyAgentInfo(), sessionId: 'sess-1'}, ...extra}
  const paths = taskPaths(stateDir, 3)
  mkdirSync(paths.dir, {recursive: true})
  writeRecord(stateDir, record)
  for (const q of queued) addFollowup(paths, {prompt: q.prompt, now: q.now ?? false, keep: q.keep ?? false})
  return {stateDir, record, paths}
}

function end(t: ReturnType<typeof running>, settlement: Settlement, deliver = false) {
  const settled = settle(t.stateDir, t.record, settlement, {entry: selfEntry(), deliverFollowup: deliver ? learn : undefined})
  const read = readRecord(t.stateDir, 3)
  if (!read.ok) throw new Error(read.error)
  return {settled, record: read.record, pending: pendingFollowups(t.paths, read.record).map((f) => f.prompt)}
}

const succeeded: Settlement = {status: 'succeeded', cause: 'exit', reason: 'exit 0', exitCode: 0}

describe('follow-ups at the end of a run', () => {
  it('a run that went well opens the next with the first follow-up: the resume command, its prompt and number, the rest still queued', () => {
    const t = running([{prompt: 'now add tests'}, {prompt: 'then the changelog'}])
    const {settled, record, pending} = end(t, succeeded, true)
    expect(settled.delivered?.n).toBe(1)
    expect(record.status).toBe('starting')
    expect(record.runs).toHaveLength(2)
    expect(record.runs[0]).toMatchObject({status: 'succeeded', reason: 'exit 0'})
    expect(record.runs[1]).toMatchObject({run: 2, status: 'starting', resumed: true, prompt: 'now add tests', followup: 1})
    expect(record.runs[1].command).toEqual(['claude', '-p', '--output-format', 'stream-json', '--verbose', '--model', 'opus', '--resume', 'sess-1', '--', 'now add tests'])
    expect(pending).toEqual(['then the changelog'])
    // journalled as the run that ended, then the follow-up it hands on; no exit hooks for a task that goes on
    const events = taskEvents(t.stateDir, 3).map((e) => [e.event, e.run, e.followup])
    expect(events).toEqual([
      ['exit', 1, undefined],
      ['followup', 2, 1],
    ])
    expect(settled.hooks).toBeNull()
  })

  it('without a follow-up queued, a run that went well simply ends', () => {
    const t = running([])
    const {settled, record} = end(t, succeeded, true)
    expect(settled.delivered).toBeNull()
    expect(record.status).toBe('succeeded')
  })

  it('a failed or stopped run drops the follow-ups, keeping those queued with keep; each drop is recorded', () => {
    for (const [status, cause, reason, said] of [
      ['failed', 'exit', 'exit 3', 'run 1 failed (exit 3)'],
      ['stopped', 'stop', 'stopped by request', 'run 1 stopped by request'],
    ] as const) {
      const t = running([{prompt: 'dropped one'}, {prompt: 'kept one', keep: true}])
      const {record, pending} = end(t, {status, cause, reason, exitCode: 3})
      expect(record.status).toBe(status)
      expect(pending).toEqual(['kept one'])
      expect(record.droppedFollowups).toEqual([expect.objectContaining({n: 1, prompt: 'dropped one', run: 1, reason: said})])
      expect(taskEvents(t.stateDir, 3).filter((e) => e.event === 'followup-dropped')).toEqual([expect.objectContaining({followup: 1, reason: said})])
    }
  })

  it('a cancel drops every one, kept or not: a cancelled task is never resumed', () => {
    const t = running([{prompt: 'a'}, {prompt: 'b', keep: true}])
    const {record, pending} = end(t, {status: 'cancelled', cause: 'cancel', reason: 'cancelled by request'})
    expect(pending).toEqual([])
    expect(record.droppedFollowups!.map((d) => [d.n, d.reason])).toEqual([
      [1, 'task 3 was cancelled'],
      [2, 'task 3 was cancelled'],
    ])
  })

  it('a drain by request and a lost runner leave them queued for the next resume', () => {
    for (const settlement of [
      {status: 'drained', cause: 'drain', reason: 'drained'},
      {status: 'lost', cause: 'runner-lost', reason: 'runner vanished without recording an end'},
    ] as Settlement[]) {
      const t = running([{prompt: 'later'}])
      const {record, pending} = end(t, settlement)
      expect(record.status).toBe(settlement.status)
      expect(pending).toEqual(['later'])
      expect(record.droppedFollowups).toBeUndefined()
    }
  })

  it('an attached session neither delivers nor drops them', () => {
    const t = running([{prompt: 'for later'}])
    t.record = {...t.record, runs: [{...t.record.runs[0], attached: true}]}
    for (const settlement of [succeeded, {status: 'failed', cause: 'signal', reason: 'killed by SIGHUP', signal: 'SIGHUP'}] as Settlement[]) {
      const {record, pending} = end(t, settlement, settlement.status === 'succeeded')
      expect(record.status).toBe(settlement.status)
      expect(pending).toEqual(['for later'])
    }
  })

  it('a session that cannot go on drops those not kept, saying why', () => {
    const t = running([{prompt: 'cannot go'}, {prompt: 'kept', keep: true}], {agentInfo: {...emptyAgentInfo(), sessionId: null}})
    const {record, pending} = end(t, succeeded, true)
    expect(record.status).toBe('succeeded')
    expect(pending).toEqual(['kept'])
    expect(record.droppedFollowups![0].reason).toMatch(/^not delivered: claude reported no session id/)
  })

  it('a run tried again keeps them for the attempt that ends for good', () => {
    const t = running([{prompt: 'after the retry'}], {retryMax: 2})
    const {record, pending} = end(t, {status: 'failed', cause: 'exit', reason: 'exit 1', exitCode: 1})
    expect(record.status).toBe('queued')
    expect(pending).toEqual(['after the retry'])
  })
})
