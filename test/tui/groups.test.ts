// A group in `drover top`: the GROUP column beside NAME only when a task
// listed has one, `/` finding tasks by their group, and `top --group` showing
// one group alone.

import {describe, expect, it} from 'vitest'
import {prepareStart} from '../../src/api/start-options.js'
import {taskJson} from '../../src/api/task-json.js'
import {newRecord} from '../../src/tasks/launch.js'
import {layout, naturalWidths} from '../../src/tui/columns.js'
import {rowOf, TaskTable} from '../../src/tui/tasks.js'

const task = (id: number, name: string, group?: string) => taskJson({...newRecord(id, prepareStart({command: ['true'], name}).spec), ...(group ? {group} : {})})

describe('groups in top', () => {
  it('shows GROUP beside NAME only when a task listed has a group', () => {
    const headers = (rows: ReturnType<typeof rowOf>[]) => layout(naturalWidths(rows), 160).columns.map((c) => c.header)
    expect(headers([rowOf(task(1, 'a')), rowOf(task(2, 'b', 'auth'))]).slice(0, 3)).toEqual(['ID', 'NAME', 'GROUP'])
    expect(headers([rowOf(task(1, 'a'))])).not.toContain('GROUP')
  })

  it('keeps only the group asked for, and / finds tasks by their group', () => {
    const table = new TaskTable({statuses: null, queue: null, group: 'auth'})
    for (const t of [task(1, 'a'), task(2, 'auth-claude-1', 'auth'), task(3, 'c', 'other')]) table.put(t)
    expect(table.size).toBe(1)
    expect(rowOf(task(3, 'c', 'nightly')).haystack).toContain('nightly')
  })
})
