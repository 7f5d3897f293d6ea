// The "start a task" form: a shell script, or an argv one argument per line
// (agents need argv: drover rewrites their command line to resume them).
// The server checks it the way `drover start` does.

import {el} from './dom.js'
import {AGENT_NAMES, post, type Task} from './net.js'

export function startForm(started: (task: Task) => void): HTMLElement {
  const mode = el('select', {attrs: {name: 'mode'}}, el('option', {attrs: {value: 'shell'}}, 'shell script'), el('option', {attrs: {value: 'argv'}}, 'argv, one per line'))
  const command = el('textarea', {attrs: {name: 'command', rows: '3', required: '', placeholder: 'npm test'}})
  const name = el('input', {attrs: {name: 'name', placeholder: 'name (optional)'}})
  const cwd = el('input', {attrs: {name: 'cwd', placeholder: 'working directory (default: where drover ui runs)'}})
  const agent = el('select', {attrs: {name: 'agent'}}, el('option', {attrs: {value: ''}}, 'agent: from the program'), ...AGENT_NAMES.map((a) => el('option', {attrs: {value: a}}, a)))
  const timeout = el('input', {attrs: {name: 'timeout', placeholder: 'timeout, e.g. 2h (optional)'}})
  // what `drover start` has for queues, chains, worktrees, retries and budgets
  const field = (name: string, placeholder: string, attrs: Record<string, string> = {}) => el('input', {attrs: {name, placeholder, ...attrs}})
  const queue = field('queue', 'queue (optional)')
  const priority = field('priority', 'priority, e.g. 5', {inputmode: 'numeric'})
  const after = field('after', 'after tasks, e.g. 3, build')
  const worktree = el(
    'select',
    {attrs: {name: 'worktree'}},
    el('option', {attrs: {value: ''}}, 'no worktree'),
    el('option', {attrs: {value: 'new'}}, 'worktree on a new branch'),
  )
  const base = field('base', 'worktree base (default HEAD)')
  const retry = field('retry', 'retries, e.g. 2', {inputmode: 'numeric'})
  const retryDelay = field('retryDelay', 'retry delay, e.g. 30s')
  const maxTurns = field('maxTurns', 'max turns', {inputmode: 'numeric'})
  const maxTokens = field('maxTokens', 'max tokens, e.g. 2M')
  const maxCost = field('maxCost', 'max cost, USD')
  const message = el('p', {className: 'error', attrs: {role: 'alert'}})
  const form = el(
    'form',
    {attrs: {id: 'start-form'}},
    el('label', {}, 'Command ', mode),
    command,
    el('div', {className: 'row'}, name, cwd, agent, timeout),
    el('fieldset', {className: 'row'}, el('legend', {}, 'Queue'), queue, priority, after),
    el('fieldset', {className: 'row'}, el('legend', {}, 'Worktree'), worktree, base),
    el('fieldset', {className: 'row'}, el('legend', {}, 'Retry'), retry, retryDelay),
    el('fieldset', {className: 'row'}, el('legend', {}, 'Budget (agents)'), maxTurns, maxTokens, maxCost),
    el('button', {attrs: {type: 'submit'}}, 'Start'),
    message,
  )
  form.addEventListener('submit', (event) => {
    event.preventDefault()
    if (!confirm(`Start this task?\n\n${command.value}`)) return
    message.textContent = ''
    const fields = {queue, priority, after, worktree, base, retry, retryDelay, maxTurns, maxTokens, maxCost}
    const extra = Object.fromEntries(Object.entries(fields).map(([key, input]) => [key, input.value]))
    post<Task>('/api/tasks', {mode: mode.value, command: command.value, name: name.value, cwd: cwd.value, agent: agent.value, timeout: timeout.value, ...extra})
      .then(started)
      .catch((error: Error) => (message.textContent = error.message))
  })
  return el('details', {className: 'start'}, el('summary', {}, 'Start a task'), form)
}
