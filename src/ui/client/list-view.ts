// The task list: every live task and the newest ended ones, kept current by
// the server's task feed, filtered by status and name in the page.

import {el, setChildren, formatCost, formatDuration, runtimeOf} from './dom.js'
import {startForm} from './start-form.js'
import {getJson, isFinal, readOnly, setLive, TASK_STATUSES, type Task} from './net.js'

const COLUMNS = ['ID', 'Name', 'Status', 'Runtime', 'Agent', 'Turns', 'Cost', 'Command']

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
  const name = el('input', {attrs: {id: 'filter-name', type: 'search', placeholder: 'name or command', 'aria-label': 'name'}})
  const hidden = el('p', {className: 'hint'})
  const table = el('table', {className: 'tasks', attrs: {id: 'tasks'}}, el('thead', {}, el('tr', {}, ...COLUMNS.map((c) => el('th', {}, c)))), body)
  setChildren(main, 
    el('section', {className: 'filters'}, status, name),
    table,
    hidden,
    readOnly ? null : startForm((task) => (location.href = `/task/${task.id}`)),
  )

  const visible = (task: Task) => {
    const s = status.value
    if (s === 'live' && isFinal(task.status)) return false
    if (s === 'ended' && !isFinal(task.status)) return false
    if (s && s !== 'live' && s !== 'ended' && task.status !== s) return false
    const q = name.value.trim().toLowerCase()
    return !q || (task.name ?? '').toLowerCase().includes(q) || task.commandLine.toLowerCase().includes(q)
  }

  const draw = (task: Task) => {
    const row = rows.get(task.id) ?? el('tr', {attrs: {'data-id': String(task.id)}})
    const usage = task.agentInfo
    row.className = `status-${task.status}`
    row.replaceChildren(
      el('td', {}, el('a', {attrs: {href: `/task/${task.id}`}}, String(task.id))),
      el('td', {}, task.name ?? ''),
      el('td', {className: 'status'}, task.outcome),
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
    for (const task of list.tasks) tasks.set(task.id, task), draw(task)
    hidden.textContent = list.hidden > 0 ? `${list.hidden} older ended task(s) not shown (drover list --all shows them)` : ''
  }
  const remove = (id: number) => {
    tasks.delete(id)
    rows.get(id)?.remove()
    rows.delete(id)
  }

  status.addEventListener('change', () => tasks.forEach(draw))
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
    tasks.set(task.id, task)
    draw(task)
  })
  events.addEventListener('removed', (event) => remove((JSON.parse((event as MessageEvent<string>).data) as {id: number}).id))
}
