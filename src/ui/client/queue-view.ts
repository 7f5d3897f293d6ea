// The queues: each one's limit, the tasks holding its slots and those waiting
// in the order they will start, each a link to its page. Drawn again from
// one answer of the server whenever the task feed says a task in a queue
// changed, and now and then for what changes no task (a pause, a new limit).

import {el, formatDuration, runtimeOf} from './dom.js'
import {getJson, post, readOnly, setLive, type Queue, type Task} from './net.js'

/** For what the task feed does not see: `drover queue set/pause/resume`. */
const POLL_MS = 5000
/** A burst of task changes draws once. */
const SETTLE_MS = 150

export function showQueues(main: HTMLElement): void {
  const list = el('div', {attrs: {id: 'queues'}})
  const none = el('p', {className: 'hint'}, 'No queues yet: drover start --queue NAME … puts a task in one, drover queue set NAME --parallel N sets its limit.')
  main.replaceChildren(el('h1', {}, 'Queues'), list)

  let timer = 0
  let drawn = false
  const load = async () => {
    timer = 0
    const {queues} = await getJson<{queues: Queue[]}>('/api/queues')
    list.replaceChildren(...(queues.length === 0 ? [none] : queues.map((queue) => queueSection(queue, () => void load()))))
    // a link from the list (/queues#queue-NAME) lands on its queue once it is first drawn
    if (!drawn && location.hash) document.getElementById(location.hash.slice(1))?.scrollIntoView()
    drawn = true
  }
  const soon = () => {
    if (!timer) timer = window.setTimeout(() => void load(), SETTLE_MS)
  }

  const events = new EventSource('/api/events')
  events.addEventListener('open', () => {
    setLive('live')
    soon()
  })
  events.addEventListener('error', () => setLive('reconnecting'))
  // any task may have just taken or freed a slot; removals too
  events.addEventListener('task', (event) => {
    const task = JSON.parse((event as MessageEvent<string>).data) as Task
    if (task.queue) soon()
  })
  events.addEventListener('removed', soon)
  setInterval(soon, POLL_MS)
}

function queueSection(queue: Queue, changed: () => void): HTMLElement {
  const holding = queue.tasks.filter((task) => task.status !== 'queued')
  const waiting = queue.tasks.filter((task) => task.status === 'queued')
  return el(
    'section',
    {className: 'queue', attrs: {id: `queue-${queue.name}`, 'data-queue': queue.name}},
    el('h2', {}, queue.name, queue.paused ? el('span', {className: 'badge paused'}, ' paused') : null),
    el(
      'dl',
      {className: 'facts'},
      el('dt', {}, 'Limit'),
      el('dd', {className: 'limit'}, `${queue.parallel} at a time`),
      el('dt', {}, 'Running'),
      el('dd', {className: 'running'}, `${queue.running} of ${queue.parallel}`),
      el('dt', {}, 'Queued'),
      el('dd', {className: 'waiting'}, String(queue.waiting)),
    ),
    readOnly ? null : controls(queue, changed),
    taskTable(holding, waiting),
  )
}

/** Pause or resume the queue, and set its limit: `drover queue pause|resume|set`, asked like every action. */
function controls(queue: Queue, changed: () => void): HTMLElement {
  const message = el('p', {className: 'error', attrs: {role: 'alert'}})
  const act = (action: string, question: string, body: Record<string, unknown> = {}) => {
    if (!confirm(question)) return
    message.textContent = ''
    post<unknown>(`/api/queues/${encodeURIComponent(queue.name)}/${action}`, body)
      .then(changed)
      .catch((error: Error) => (message.textContent = error.message))
  }
  const limit = el('input', {attrs: {type: 'number', min: '1', value: String(queue.parallel), 'aria-label': 'limit', name: 'parallel'}})
  const pause = queue.paused
    ? el('button', {attrs: {type: 'button', 'data-action': 'resume'}, on: {click: () => act('resume', `Resume queue ${queue.name}? (its waiting tasks start as slots are free)`)}}, 'Resume')
    : el('button', {attrs: {type: 'button', 'data-action': 'pause'}, on: {click: () => act('pause', `Pause queue ${queue.name}? (running tasks go on; no new one starts)`)}}, 'Pause')
  const set = el('button', {attrs: {type: 'button', 'data-action': 'set'}, on: {click: () => act('set', `Set queue ${queue.name} to ${limit.value} at a time?`, {parallel: Number(limit.value)})}}, 'Set limit')
  return el('div', {className: 'actions queue-actions'}, pause, limit, set, message)
}

/**
 * One table for both groups, so their columns line up: the tasks holding a
 * slot, then those waiting in the order they start, each group under a row
 * that names it.
 */
function taskTable(holding: Task[], waiting: Task[]): HTMLElement | null {
  if (holding.length + waiting.length === 0) return null
  const group = (caption: string, kind: string, tasks: Task[]) =>
    tasks.length === 0
      ? null
      : el(
          'tbody',
          {className: kind},
          el('tr', {className: 'group'}, el('th', {attrs: {colspan: '5', scope: 'rowgroup'}}, caption)),
          ...tasks.map((task) =>
            el(
              'tr',
              {className: `status-${task.status}`, attrs: {'data-id': String(task.id)}},
              el('td', {}, el('a', {attrs: {href: `/task/${task.id}`}}, String(task.id))),
              el('td', {}, task.name ?? ''),
              el('td', {className: 'status'}, task.status === 'queued' ? (task.position ? `#${task.position}` : (task.reason ?? 'queued')) : task.outcome),
              el('td', {className: 'runtime'}, formatDuration(runtimeOf(task))),
              el('td', {className: 'command'}, task.commandLine),
            ),
          ),
        )
  return el('table', {className: 'tasks queue-tasks'}, group('Holding a slot', 'holding', holding), group('Waiting, in the order they start', 'waiting', waiting))
}
