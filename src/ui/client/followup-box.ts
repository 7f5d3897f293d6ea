// The follow-up box of a task page: a message for the agent, queued while its
// run is at work (delivered in its own run when this one ends well, or at the
// next safe point with "now"), sent at once as a resume when it is not; and
// the queue with a withdraw button each, and what was dropped and why.

import {el, formatTime} from './dom.js'
import {isFinal, post, type TaskDetail} from './net.js'

export class FollowupBox {
  readonly root = el('section', {className: 'followups', attrs: {id: 'followups'}})
  private readonly prompt = el('textarea', {attrs: {name: 'prompt', rows: '3', required: '', placeholder: 'What the agent should do next'}})
  private readonly now = el('input', {attrs: {type: 'checkbox', name: 'now'}})
  private readonly keep = el('input', {attrs: {type: 'checkbox', name: 'keep'}})
  private readonly queue = el('ol', {className: 'followup-queue'})
  private readonly dropped = el('ul', {className: 'timeline'})
  private readonly message = el('p', {className: 'error', attrs: {role: 'alert'}})
  private task: TaskDetail | null = null

  constructor(
    private readonly id: number,
    /** after a change: the page reads the task again (a resume opened a run: it reloads). */
    private readonly changed: (resumed: boolean) => void,
  ) {
    const form = el(
      'form',
      {},
      this.prompt,
      el('div', {className: 'row'}, el('label', {}, this.now, ' now: drain the run at a safe point for it'), el('label', {}, this.keep, ' keep it if the run fails or is stopped')),
      el('button', {attrs: {type: 'submit'}}, 'Send follow-up'),
    )
    form.addEventListener('submit', (event) => {
      event.preventDefault()
      this.send()
    })
    this.root.append(el('h2', {}, 'Follow-ups'), form, this.message, this.queue, this.dropped)
  }

  show(task: TaskDetail): void {
    this.task = task
    const atWork = !isFinal(task.status) && task.status !== 'waiting'
    this.now.disabled = !atWork
    this.keep.disabled = !atWork
    this.queue.replaceChildren(
      ...task.followups.map((f) =>
        el(
          'li',
          {},
          `${f.prompt} `,
          el('span', {className: 'dim'}, `(#${f.n}, queued ${formatTime(f.at)}${f.now ? ', now' : ''}${f.keep ? ', kept through a failure' : ''}) `),
          el('button', {attrs: {type: 'button', 'data-withdraw': String(f.n)}, on: {click: () => this.withdraw(f.n)}}, 'Withdraw'),
        ),
      ),
    )
    this.dropped.replaceChildren(...task.droppedFollowups.map((d) => el('li', {}, `dropped #${d.n} at ${formatTime(d.droppedAt)}: ${d.prompt} (${d.reason})`)))
  }

  private send(): void {
    const task = this.task
    const prompt = this.prompt.value.trim()
    if (!task || prompt === '') return
    const atWork = !isFinal(task.status) && task.status !== 'waiting'
    const question = atWork
      ? `Queue this follow-up for task ${this.id}? It is delivered ${this.now.checked ? 'once the run is drained at a safe point' : 'when the run at work ends well'}.\n\n${prompt}`
      : `Resume task ${this.id} with this message?\n\n${prompt}`
    if (!confirm(question)) return
    this.message.textContent = ''
    post<{queued: unknown}>(`/api/tasks/${this.id}/followup`, {prompt, now: atWork && this.now.checked, keep: atWork && this.keep.checked})
      .then((sent) => {
        this.prompt.value = ''
        this.changed(sent.queued === null)
      })
      .catch((error: Error) => (this.message.textContent = error.message))
  }

  private withdraw(n: number): void {
    if (!confirm(`Withdraw follow-up #${n} of task ${this.id}?`)) return
    post(`/api/tasks/${this.id}/withdraw`, {n})
      .then(() => this.changed(false))
      .catch((error: Error) => (this.message.textContent = error.message))
  }
}
