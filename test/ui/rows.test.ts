import {describe, expect, it} from 'vitest'
import {taskJson} from '../../src/api/task-json.js'
import {taskRow} from '../../src/ui/rows.js'
import {newRecord} from '../../src/tasks/launch.js'
import {moveTo} from '../helpers/record-moves.js'

const spec = {
  command: ['sh', '-c', 'echo "a\nb"'], shell: null, name: null, cwd: '/', env: {}, agent: 'generic' as const,
  policies: {timeoutMs: null, idleTimeoutMs: null, maxOutputBytes: null},
}

describe("the dashboard's rows", () => {
  it("carry the CLI's outcome label and its one-line command", () => {
    const failed = moveTo(moveTo(newRecord(3, spec), {status: 'running'}), {status: 'failed', exitCode: 2})
    const row = taskRow(taskJson(failed))
    expect(row).toMatchObject({id: 3, status: 'failed', outcome: 'failed (2)'})
    // on one line: the newline shows as \n
    expect(row.commandLine).toBe(`sh -c $'echo "a\\nb"'`)
  })

  it('say where a queued task waits, as `drover list` does', () => {
    const queued = {...newRecord(5, spec), status: 'queued' as const, queue: 'builds'}
    expect(taskRow({...taskJson(queued), position: 2}).outcome).toBe('queued (#2 in builds)')
    expect(taskRow(taskJson(queued)).outcome).toBe('queued (builds)')
  })

  it('show a corrupt record as corrupt, with why', () => {
    expect(taskRow({id: 4, status: 'corrupt', error: 'not JSON'})).toEqual({id: 4, status: 'corrupt', error: 'not JSON', outcome: 'corrupt', commandLine: 'not JSON'})
  })
})
