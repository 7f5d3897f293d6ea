// The task list: every live task and the newest ended ones, kept current by
// the server's task feed, filtered by status, queue, group and name in the page.

import {el, setChildren, formatCost, formatDuration, runtimeOf} from './dom.js'
import {startForm} from './start-form.js'
import {getJson, isFinal, readOnly, setLive, TASK_STATUSES, type Queue, type Task} from './net.js'

const COLUMNS = ['ID', 'Name', 'Group', 'Status', 'Queue', 'Runtime', 'Agent', 'Turns', 'Cost', 'Command']
/** The queue filter's choice for tasks in no queue (a queue name starts with a letter). */
const NO_QUEUE = '-'

export function showList(main: HTMLElement): void {
  const tasks = new Map<number, Task>()
  const rows = new Map<number, HTMLTableRowElement>()
  const body = el('tbody')
  const status = el(
    'select',
    {attrs: {id: 'filter-status', 'aria-label': 'status'}},
    el('option', {attrs: {value: ''}}, 'all statuses'),
    el('option', {attrs: {value: 'live'}}, 'live'),
    el('option', {attrs: {value: 'ended'}}, 'ended'),
    ...TASK_STATUSES.map((s) => el('option', {attrs: {value: s}}, s)),
  )
  const queue = el(
    'select',
    {attrs: {id: 'filter-queue', 'aria-label': 'queue'}},
    el('option', {attrs: {value: ''}}, 'all queues'),
    el('option', {attrs: {value: NO_QUEUE}}, 'no queue'),
  )
  const group = el('select', {attrs: {id: 'filter-group', 'aria-label': 'group'}}, el('option', {attrs: {value: ''}}, 'all groups'))
  const name = el('input', {attrs: {id: 'filter-name', type: 'search', placeholder: 'name, group or command', 'aria-label': 'name'}})
  const hidden = el('p', {className: 'hint'})
  // the Group column shows once a task of a group is listed, as `drover list` shows GROUP
  const table = el('table', {className: 'tasks no-groups', attrs: {id: 'tasks'}}, el('thead', {}, el('tr', {}, ...COLUMNS.map((c) => el('th', c === 'Group' ? {className: 'group-name'} : {}, c)))), body)
  setChildren(main, 
    el('section', {className: 'filters'}, status, queue, group, name),
    table,
    hidden,
    readOnly ? null : startForm((task) => (location.href = `/task/${task.id}`)),
  )

  const visible = (task: Task) => {
    const s = status.value
    if (s === 'live' && isFinal(task.status)) return false
    if (s === 'ended' && !isFinal(task.status)) return false
    if (s && s !== 'live' && s !== 'ended' && task.status !== s) return false
    if (queue.value === NO_QUEUE ? task.queue : queue.value && task.queue !== queue.value) return false
    if (group.value && task.group !== group.value) return false
    const q = name.value.trim().toLowerCase()
    return !q || (task.name ?? '').toLowerCase().includes(q) || (task.group ?? '').toLowerCase().includes(q) || task.commandLine.toLowerCase().includes(q)
  }

  /** A group becomes a choice of its filter when a task of it is first seen: a fan-out's attempts, shown alone. */
  const offerGroup = (name: string | null | undefined) => {
    if (!name || [...group.options].some((option) => option.value === name)) return
    table.classList.remove('no-groups')
    const after = [...group.options].slice(1).find((option) => option.value > name)
    group.insertBefore(el('option', {attrs: {value: name}}, name), after ?? null)
  }

  /** A queue becomes a choice of the filter when a task in it is first seen. */
  const offerQueue = (name: string | null) => {
    if (!name || [...queue.options].some((option) => option.value === name)) return
    const after = [...queue.options].slice(2).find((option) => option.value > name)
    queue.insertBefore(el('option', {attrs: {value: name}}, name), after ?? null)
  }

  const draw = (task: Task) => {
    tasks.set(task.id, task)
    offerQueue(task.queue)
    offerGroup(task.group)
    const row = rows.get(task.id) ?? el('tr', {attrs: {'data-id': String(task.id)}})
    const usage = task.agentInfo
    row.className = `status-${task.status}`
    row.replaceChildren(
      el('td', {}, el('a', {attrs: {href: `/task/${task.id}`}}, String(task.id))),
      el('td', {}, task.name ?? ''),
      el('td', {className: 'group-name'}, task.group ?? ''),
      el('td', {className: 'status'}, task.outcome),
      el('td', {className: 'queue'}, task.queue ? el('a', {attrs: {href: `/queues#queue-${task.queue}`}}, task.queue) : ''),
      el('td', {className: 'runtime'}, task.status === 'corrupt' ? '' : formatDuration(runtimeOf(task))),
      el('td', {}, task.agent === 'generic' ? '' : task.agent ?? ''),
      el('td', {}, usage ? String(usage.turns) : ''),
      el('td', {}, formatCost(usage?.costUsd)),
      el('td', {className: 'command'}, task.commandLine),
    )
    row.hidden = !visible(task)
    if (!rows.has(task.id)) {
      rows.set(task.id, row)
      // oldest first, as `drover list` shows them
      const after = [...rows.keys()].filter((id) => id > task.id).sort((a, b) => a - b)[0]
      body.insertBefore(row, after === undefined ? null : rows.get(after)!)
    }
  }

  const load = async () => {
    const list = await getJson<{tasks: Task[]; hidden: number}>('/api/tasks')
    for (const id of [...tasks.keys()]) if (!list.tasks.some((t) => t.id === id)) remove(id)
    for (const task of list.tasks) draw(task)
    hidden.textContent = list.hidden > 0 ? `${list.hidden} older ended task(s) not shown (drover list --all shows them)` : ''
  }
  const remove = (id: number) => {
    tasks.delete(id)
    rows.get(id)?.remove()
    rows.delete(id)
  }

  status.addEventListener('change', () => tasks.forEach(draw))
  queue.addEventListener('change', () => tasks.forEach(draw))
  group.addEventListener('change', () => tasks.forEach(draw))
  name.addEventListener('input', () => tasks.forEach(draw))
  // live runtimes tick in the page; the server is asked nothing for them
  setInterval(() => tasks.forEach((task) => !isFinal(task.status) && draw(task)), 1000)

  const events = new EventSource('/api/events')
  events.addEventListener('open', () => {
    setLive('live')
    // on every (re)connection: what changed while we were away
    void load()
  })
  events.addEventListener('error', () => setLive('reconnecting'))
  events.addEventListener('task', (event) => {
    const task = JSON.parse((event as MessageEvent<string>).data) as Task
    draw(task)
    if (task.queue) rereadLines()
  })
  events.addEventListener('removed', (event) => {
    remove((JSON.parse((event as MessageEvent<string>).data) as {id: number}).id)
    rereadLines()
  })

  // A waiting task's place in line moves when another task of its queue
  // starts or goes, which is no change of its own (no event): read the lines
  // again then. Only tasks queued both here and in the answer are redrawn, so
  // an answer older than the latest event undoes no change of status.
  let linesTimer = 0
  const rereadLines = () => {
    if (linesTimer) return
    linesTimer = window.setTimeout(() => {
      linesTimer = 0
      getJson<{queues: Queue[]}>('/api/queues').then(
        ({queues}) => {
          for (const waiting of queues.flatMap((q) => q.tasks)) {
            const shown = tasks.get(waiting.id)
            if (shown?.status === 'queued' && waiting.status === 'queued' && shown.outcome !== waiting.outcome) draw(waiting)
          }
        },
        () => {},
      )
    }, 150)
  }
}
