// list's PID column: a Slurm task is never blank there, so it is told from a
// local one at a glance without a column of its own.

import {describe, expect, it} from 'vitest'
import {prepareStart} from '../../../src/api/start-options.js'
import {taskJson} from '../../../src/api/task-json.js'
import {pidCell, renderTaskTable} from '../../../src/cli/render/list-view.js'
import {transition, type TaskRecord} from '../../../src/state/record.js'
import {newRecord} from '../../../src/tasks/launch.js'
import {posixOnly} from '../../helpers/skips.js'

// Slurm has no Windows build: start refuses --executor slurm there, so these tasks cannot be made.
const slurmOnly = posixOnly('Slurm, which start refuses on Windows')

const worker = {pid: 4321, startTime: '1'}

function record(executor: 'local' | 'slurm', jobId: string | null = null): TaskRecord {
  const base = newRecord(7, prepareStart({command: ['true'], executor}).spec)
  return base.slurm ? {...base, slurm: {...base.slurm, jobId}} : base
}

const running = (r: TaskRecord, host: string | null = null): TaskRecord => ({...transition(r, {status: 'running'}), worker, host})
// waiting for a slot of drover's own queue: no job yet
const queued = (r: TaskRecord): TaskRecord => ({...r, status: 'queued'})

describe('the PID column of list', () => {
  slurmOnly.it('a Slurm task: slurm before it has a job, the job while it waits and once it ended, pid@node while it runs', () => {
    expect(pidCell(taskJson(queued(record('slurm'))))).toBe('slurm')
    expect(pidCell(taskJson({...record('slurm', '4242'), reason: 'queued in Slurm: job 4242 pending (Resources)'}))).toBe('job 4242')
    const onNode = running(record('slurm', '4242'), 'node7')
    expect(pidCell(taskJson(onNode))).toBe('4321@node7')
    expect(pidCell(taskJson(transition(onNode, {status: 'succeeded', exitCode: 0})))).toBe('job 4242')
    expect(pidCell(taskJson(transition(onNode, {status: 'lost', reason: 'runner vanished'})))).toBe('job 4242')
  })

  it('a local task: its pid while it runs or is lost, nothing once it ended or before it has one', () => {
    expect(pidCell(taskJson(record('local')))).toBe('')
    const live = running(record('local'))
    expect(pidCell(taskJson(live))).toBe('4321')
    expect(pidCell(taskJson(transition(live, {status: 'lost', reason: 'runner vanished'})))).toBe('4321')
    expect(pidCell(taskJson(transition(live, {status: 'succeeded', exitCode: 0})))).toBe('')
  })

  slurmOnly.it('keeps the table as narrow as before: no column is added', () => {
    const table = renderTaskTable([taskJson(queued(record('slurm'))), taskJson(running(record('local')))], {color: false, width: undefined})
    expect(table.split('\n')[0].trim().split(/\s+/)).toEqual(['ID', 'NAME', 'STATUS', 'PID', 'STARTED', 'RUNTIME', 'COMMAND'])
  })
})
