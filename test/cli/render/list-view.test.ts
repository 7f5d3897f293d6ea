// list's PID column: a Slurm task is never blank there, so it is told from a
// local one at a glance without a column of its own.

import {describe, expect, it} from 'vitest'
import {prepareStart} from '../../../src/api/start-options.js'
import {taskJson} from '../../../src/api/task-json.js'
import {renderTaskTable, TaskTable} from '../../../src/cli/render/list-view.js'
import {CELL, CELL_COUNT, pidCell} from '../../../src/api/row-cells.js'
import {type TaskRecord} from '../../../src/state/record.js'
import {newRecord} from '../../../src/tasks/launch.js'
import {posixOnly} from '../../helpers/skips.js'
import {moveTo} from '../../helpers/record-moves.js'

// Slurm has no Windows build: start refuses --executor slurm there, so these tasks cannot be made.
const slurmOnly = posixOnly('Slurm, which start refuses on Windows')

const worker = {pid: 4321, startTime: '1'}

function record(executor: 'local' | 'slurm', jobId: string | null = null): TaskRecord {
  const base = newRecord(7, prepareStart({command: ['true'], executor}).spec)
  return base.slurm ? {...base, slurm: {...base.slurm, jobId}} : base
}

const running = (r: TaskRecord, host: string | null = null): TaskRecord => ({...moveTo(r, {status: 'running'}), worker, host})
// waiting for a slot of drover's own queue: no job yet
const queued = (r: TaskRecord): TaskRecord => ({...r, status: 'queued'})

describe('the PID column of list', () => {
  slurmOnly.it('a Slurm task: slurm before it has a job, the job while it waits and once it ended, pid@node while it runs', () => {
    expect(pidCell(taskJson(queued(record('slurm'))))).toBe('slurm')
    expect(pidCell(taskJson({...record('slurm', '4242'), reason: 'queued in Slurm: job 4242 pending (Resources)', engineWait: {engine: 'Slurm', reason: 'Resources'}}))).toBe('job 4242')
    const onNode = running(record('slurm', '4242'), 'node7')
    expect(pidCell(taskJson(onNode))).toBe('4321@node7')
    expect(pidCell(taskJson(moveTo(onNode, {status: 'succeeded', exitCode: 0})))).toBe('job 4242')
    expect(pidCell(taskJson(moveTo(onNode, {status: 'lost', reason: 'runner vanished'})))).toBe('job 4242')
  })

  it('a local task: its pid while it runs or is lost, nothing once it ended or before it has one', () => {
    expect(pidCell(taskJson(record('local')))).toBe('')
    const live = running(record('local'))
    expect(pidCell(taskJson(live))).toBe('4321')
    expect(pidCell(taskJson(moveTo(live, {status: 'lost', reason: 'runner vanished'})))).toBe('4321')
    expect(pidCell(taskJson(moveTo(live, {status: 'succeeded', exitCode: 0})))).toBe('')
  })

  slurmOnly.it('keeps the table as narrow as before: no column is added', () => {
    const table = renderTaskTable([taskJson(queued(record('slurm'))), taskJson(running(record('local')))], {color: false, width: undefined})
    expect(table.split('\n')[0].trim().split(/\s+/)).toEqual(['ID', 'NAME', 'STATUS', 'PID', 'STARTED', 'RUNTIME', 'COMMAND'])
  })
})

describe('list: QUEUE, TURNS and COST where a task has them; budget drains; local times', () => {
  const usage = {turns: 12, costUsd: 0.4321, inputTokens: 100, outputTokens: 50}
  it('adds QUEUE, TURNS and COST only when some task has a value, the session totals across resumes', () => {
    const agent: TaskRecord = {...moveTo(running(record('local')), {status: 'drained', reason: 'budget: max-turns 12 reached (12 turns)'}), queue: 'agents', agentInfo: {...usage, turns: 3, sessionId: 's', lastEvent: null, error: null, session: usage}}
    const plain = moveTo(running(record('local')), {status: 'succeeded', exitCode: 0})
    const [head, first, second] = renderTaskTable([taskJson(agent), taskJson(plain)], {color: false, width: undefined}).split('\n')
    expect(head.trim().split(/\s+/)).toEqual(['ID', 'NAME', 'STATUS', 'QUEUE', 'PID', 'STARTED', 'RUNTIME', 'TURNS', 'COST', 'COMMAND'])
    expect(first).toMatch(/^7 +drained \(budget\) +agents +\S+ +\S+ +12 +\$0\.43 +true$/)
    expect(second).toMatch(/^7 +succeeded +\S+ +\S+ +true$/)
  })

  it('adds GROUP beside NAME only when some task is in a group, so a fan-out reads as one block', () => {
    const attempt = (id: number, name: string): TaskRecord => ({...moveTo(running(record('local')), {status: 'succeeded', exitCode: 0}), id, name, group: 'auth'})
    const alone = moveTo(running(record('local')), {status: 'succeeded', exitCode: 0})
    const [head, first, second, third] = renderTaskTable([taskJson(attempt(7, 'auth-claude-1')), taskJson(attempt(8, 'auth-codex-1')), taskJson(alone)], {color: false, width: undefined}).split('\n')
    expect(head.trim().split(/\s+/)).toEqual(['ID', 'NAME', 'GROUP', 'STATUS', 'PID', 'STARTED', 'RUNTIME', 'COMMAND'])
    expect(first).toMatch(/^7 +auth-claude-1 +auth +succeeded /)
    expect(second).toMatch(/^8 +auth-codex-1 +auth +succeeded /)
    expect(third).toMatch(/^7 +succeeded /)
    expect(renderTaskTable([taskJson(alone)], {color: false, width: undefined}).split('\n')[0]).not.toContain('GROUP')
  })

  it('a queued retry says its time in local time, not UTC', () => {
    const at = new Date(2026, 0, 2, 23, 4, 5)
    const waiting: TaskRecord = {...record('local'), status: 'queued', retryMax: 2, attempt: 2, retryAt: at.toISOString()}
    expect(renderTaskTable([taskJson(waiting)], {color: false, width: undefined})).toContain('queued (retry 2/3 at 23:04:05)')
  })
})

describe('the table of list', () => {
  it('draws rows whose cells hold the NUL it joins a row with, or a surrogate pair, whole and aligned', () => {
    const row = (id: string, name: string, command: string) => {
      const cells = new Array<string>(CELL_COUNT).fill('')
      Object.assign(cells, {[CELL.id]: id, [CELL.name]: name, [CELL.status]: 'succeeded', [CELL.label]: 'succeeded', [CELL.runtime]: '1s', [CELL.command]: command})
      return cells
    }
    const table = new TaskTable({color: false, width: undefined})
    table.addCells(row('1', 'a\u0000b', 'x\u0000y'))
    table.addCells(row('2', '\u{1F642}x', 'plain'))
    table.addCells(row('3', 'abc', 'z'))
    const lines = table.render().split('\n').map((line) => [...line].join('\u0001'))
    expect(lines.slice(1).map((line) => line.split('\u0001').filter((c) => c !== ' ').join(''))).toEqual(['1a\u0000bsucceeded1sx\u0000y', '2\u{1F642}xsucceeded1splain', '3abcsucceeded1sz'])
    // the status begins at the same shown column on every line: a code point is one column
    const at = (line: string) => line.split('\u0001').indexOf('s')
    expect(new Set(lines.slice(1).map(at)).size).toBe(1)
  })
})
