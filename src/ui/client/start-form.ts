// The "start a task" form: a shell script, or an argv one argument per line
// (agents need argv: drover rewrites their command line to resume them).
// The server checks it the way `drover start` does.

import {el} from './dom.js'
import {AGENT_PROFILES, post, type Task} from './net.js'

export function startForm(started: (task: Task) => void): HTMLElement {
  const mode = el('select', {attrs: {name: 'mode'}}, el('option', {attrs: {value: 'shell'}}, 'shell script'), el('option', {attrs: {value: 'argv'}}, 'argv, one per line'))
  const command = el('textarea', {attrs: {name: 'command', rows: '3', required: '', placeholder: 'npm test'}})
  const name = el('input', {attrs: {name: 'name', placeholder: 'name (optional)'}})
  const cwd = el('input', {attrs: {name: 'cwd', placeholder: 'working directory (default: where drover ui runs)'}})
  const agent = el('select', {attrs: {name: 'agent'}}, el('option', {attrs: {value: ''}}, 'agent: from the program'), ...AGENT_PROFILES.map((a) => el('option', {attrs: {value: a}}, a)))
  const timeout = el('input', {attrs: {name: 'timeout', placeholder: 'timeout, e.g. 2h (optional)'}})
  const message = el('p', {className: 'error', attrs: {role: 'alert'}})
  const form = el(
    'form',
    {attrs: {id: 'start-form'}},
    el('label', {}, 'Command ', mode),
    command,
    el('div', {className: 'row'}, name, cwd, agent, timeout),
    el('button', {attrs: {type: 'submit'}}, 'Start'),
    message,
  )
  form.addEventListener('submit', (event) => {
    event.preventDefault()
    if (!confirm(`Start this task?\n\n${command.value}`)) return
    message.textContent = ''
    post<Task>('/api/tasks', {mode: mode.value, command: command.value, name: name.value, cwd: cwd.value, agent: agent.value, timeout: timeout.value})
      .then(started)
      .catch((error: Error) => (message.textContent = error.message))
  })
  return el('details', {className: 'start'}, el('summary', {}, 'Start a task'), form)
}
