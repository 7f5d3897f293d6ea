// One task: what it is, its actions, its live output (or the agent's
// readable transcript), turns/tokens/cost, its worktree and diff when it has
// one, the runs, and the events journal as a timeline.

import {DiffView} from './diff-view.js'
import {FollowupBox} from './followup-box.js'
import {clockTime, el, setChildren, formatCost, formatCount, formatDuration, formatTime, runtimeOf} from './dom.js'
import {JournalView} from './journal-view.js'
import {OutputView} from './output-view.js'
import {TranscriptView} from './transcript-view.js'
import {usageChart, type UsagePoint} from './usage-chart.js'
import {getJson, HttpError, isFinal, post, readOnly, readsAgentEvents, type Task, type TaskDetail} from './net.js'

interface Action {
  name: 'stop' | 'cancel' | 'drain' | 'resume' | 'again' | 'rm' | 'merge' | 'discard'
  label: string
  offered: (task: TaskDetail) => boolean
  question: string
  /** what the POST carries (a merge's mode); the button's data-action then names it. */
  body?: Record<string, string>
  key?: string
}

const worktreeEnded = (t: TaskDetail) => isFinal(t.status) && t.worktree !== null

const ACTIONS: Action[] = [
  {name: 'stop', label: 'Stop', offered: (t) => !isFinal(t.status), question: 'Stop task {id}? (SIGTERM to its whole tree, SIGKILL after 10 s)'},
  {name: 'cancel', label: 'Cancel', offered: (t) => !isFinal(t.status), question: 'Cancel task {id}? (killed now, never resumed)'},
  {name: 'drain', label: 'Drain', offered: (t) => !isFinal(t.status), question: 'Drain task {id}? (it checkpoints and ends, to be resumed later)'},
  {name: 'resume', label: 'Resume', offered: (t) => t.resume !== null, question: 'Resume task {id} (continue its session)?'},
  {name: 'again', label: 'Start again', offered: (t) => isFinal(t.status), question: 'Start task {id} again as a new run?'},
  {name: 'rm', label: 'Remove', offered: (t) => isFinal(t.status), question: 'Remove task {id}? (its record and output; its worktree only when no work is lost, as drover rm does)'},
  {name: 'merge', label: 'Merge', offered: worktreeEnded, question: "Merge task {id}'s branch into the branch it started from? (git merge in the checkout of that branch; a conflict is left there for you to resolve)"},
  {name: 'merge', key: 'squash', label: 'Squash-merge', body: {mode: 'squash'}, offered: worktreeEnded, question: "Squash task {id}'s branch into one commit on the branch it started from?"},
  {
    name: 'discard',
    label: 'Discard',
    offered: worktreeEnded,
    question: "Discard task {id}'s work and remove the task? Its worktree and its branch are deleted, unmerged commits and uncommitted changes included (the commits are named in the answer).",
  },
]

/** What began a run, as `status` says it. */
function runKind(run: TaskDetail['runs'][number]): string {
  if (run.attached) return ' (attached)'
  if (run.followup != null) return ` (follow-up ${run.followup})`
  return run.resumed ? ' (resumed)' : ''
}

/** A run's outcome as the CLI words it: the status, then what the reason adds ("failed (exit 3)", never "succeeded, exit 0 (exit 0)"). */
function runOutcome(run: TaskDetail['runs'][number]): string {
  let detail = run.reason && run.reason !== run.status ? run.reason.replace(new RegExp(`^${run.status},? `), '') : ''
  if (!detail && run.exitCode !== null && run.status !== 'running') detail = `exit ${run.exitCode}`
  if (run.signal && !detail.includes(run.signal)) detail = detail ? `${detail}, ${run.signal}` : run.signal
  return detail ? `${run.status} (${detail})` : run.status
}

export function showTask(main: HTMLElement, id: number): void {
  const title = el('h1')
  const facts = el('dl', {className: 'facts'})
  const usage = el('dl', {className: 'usage', attrs: {id: 'usage'}})
  const chart = el('div')
  const buttons = el('div', {className: 'actions', attrs: {id: 'actions'}})
  const message = el('p', {className: 'error', attrs: {role: 'alert', id: 'action-message'}})
  const notice = el('p', {attrs: {role: 'status', id: 'action-notice'}})
  const timeline = el('ol', {className: 'timeline', attrs: {id: 'timeline'}})
  const seen = el('ol', {className: 'timeline'})
  const tabs = el('nav', {className: 'tabs'})
  const pane = el('div', {className: 'pane'})
  const worktree = el('div')
  const journal = new JournalView(id)
  const followups = new FollowupBox(id, (resumed) => (resumed ? location.reload() : void refresh()))
  const followupSlot = el('div')
  setChildren(main, 
    el('p', {}, el('a', {attrs: {href: '/'}}, '← all tasks')),
    title,
    facts,
    readOnly ? null : buttons,
    message,
    notice,
    followupSlot,
    usage,
    chart,
    tabs,
    pane,
    worktree,
    el('h2', {}, 'Runs'),
    timeline,
    el('h2', {}, 'Events'),
    journal.root,
    el('h2', {}, 'Seen while this page is open'),
    seen,
  )

  let detail: TaskDetail | null = null
  let transcript: TranscriptView | null = null
  let diff: DiffView | null = null
  const removed = () => (message.textContent = 'This task was removed.')
  // One feed at a time per page (a browser keeps six connections to a host): the output feed carries
  // this task's changes while it streams; once it ended, the task feed follows a later resume or rm.
  const output = new OutputView(id, {
    output: () => transcript?.poke(),
    changed: () => void refresh(),
    removed,
    end: (outcome) => {
      if (outcome === 'removed') return removed()
      void refresh()
      followTaskFeed()
    },
  })
  const followTaskFeed = () => {
    const events = new EventSource('/api/events')
    events.addEventListener('task', (event) => {
      const task = JSON.parse((event as MessageEvent<string>).data) as Task
      if (task.id === id) void refresh()
    })
    events.addEventListener('removed', (event) => {
      if ((JSON.parse((event as MessageEvent<string>).data) as {id: number}).id === id) removed()
    })
  }

  const render = (task: TaskDetail) => {
    const previous = detail
    detail = task
    document.title = `drover: ${task.name ?? task.id} (${task.status})`
    setChildren(title, `Task ${task.id}`, task.name ? el('span', {className: 'name'}, ` ${task.name}`) : null, ' ', el('span', {className: `badge status-${task.status}`, attrs: {id: 'status'}}, task.outcome))
    facts.replaceChildren(
      ...fact('Command', task.commandLine),
      ...fact('Directory', task.cwd),
      ...fact('Agent', task.agent),
      ...fact('Queue', task.queue ? `${task.queue}${task.position ? `, #${task.position} in line` : ''}` : ''),
      ...fact('Started', formatTime(task.startedAt)),
      ...fact('Runtime', formatDuration(runtimeOf(task))),
      ...fact('Ended', formatTime(task.endedAt)),
      ...fact('Reason', task.reason ?? ''),
      ...fact('Output', task.outputBytes === null ? '' : `${formatCount(task.outputBytes)} bytes`),
      ...fact('Resume', task.resume ?? task.resumeRefused ?? ''),
      ...fact('Merged', mergedText(task)),
    )
    const info = task.agentInfo
    usage.replaceChildren(
      ...(info
        ? [
            ...fact('Turns', String(info.turns)),
            ...fact('Tokens in', formatCount(info.inputTokens)),
            ...fact('Tokens out', formatCount(info.outputTokens)),
            ...fact('Cost', formatCost(info.costUsd)),
            ...(info.session ? fact('Session cost', formatCost(info.session.costUsd)) : []),
            ...(info.error ? fact('Agent error', info.error) : []),
          ]
        : []),
    )
    buttons.replaceChildren(
      ...ACTIONS.filter((a) => a.offered(task)).map((a) => el('button', {attrs: {type: 'button', 'data-action': a.key ?? a.name}, on: {click: () => act(a)}}, a.label)),
    )
    timeline.replaceChildren(
      ...task.runs.map((run) =>
        el(
          'li',
          {},
          `run ${run.run}${runKind(run)}: ${run.startedAt ? `${formatTime(run.startedAt)} → ${formatTime(run.endedAt) || 'now'}` : 'not started'}, ${runOutcome(run)}`,
          run.prompt ? el('div', {className: 'prompt'}, `told: ${run.prompt}`) : null,
        ),
      ),
    )
    // an agent's conversation takes follow-ups (a cancelled task is never resumed)
    const offered = !readOnly && readsAgentEvents(task.agent) && task.status !== 'cancelled'
    if (offered) followups.show(task)
    setChildren(followupSlot, offered ? followups.root : null)
    // the worktree is read again when the task changes status (a run ended, another began) and on a click
    if (task.worktree && (!diff || previous?.status !== task.status)) {
      if (!diff) worktree.replaceChildren((diff = new DiffView(id)).root)
      void diff.refresh()
    }
    if (previous && previous.status !== task.status) seen.append(el('li', {}, `${clockTime(new Date())}: ${previous.status} → ${task.status}`))
  }

  const refresh = async () => {
    try {
      const task = await getJson<TaskDetail>(`/api/tasks/${id}`)
      render(task)
      await journal.refresh()
      if (isFinal(task.status)) journal.awaitEnd(task.runs.length)
      if (readsAgentEvents(task.agent)) setChildren(chart, usageChart(await getJson<UsagePoint[]>(`/api/tasks/${id}/usage`)))
    } catch (error) {
      // A refresh racing the feed's "removed" (or arriving after it) finds the task gone: say so, not a bare 404.
      if (detail && error instanceof HttpError && error.status === 404) removed()
      else message.textContent = (error as Error).message
    }
  }

  const act = (action: Action) => {
    if (!confirm(action.question.replace('{id}', String(id)))) return
    message.textContent = ''
    notice.textContent = ''
    post<{message?: string}>(`/api/tasks/${id}/${action.name}`, action.body ?? {})
      .then((answer) => {
        seen.append(el('li', {}, `${clockTime(new Date())}: ${action.label.toLowerCase()} asked`))
        // a merge's and a discard's answer says what they did (the commits a discard threw away): it stays on the page
        if (answer.message) notice.textContent = answer.message
        if (action.name === 'rm') location.assign('/')
        else if (action.name === 'discard') buttons.replaceChildren()
        else if (action.name === 'again' || action.name === 'resume') location.reload()
        else void refresh()
      })
      .catch((error: Error) => (message.textContent = error.message))
  }

  void refresh().then(() => {
    const showOutput = () => pane.replaceChildren(output.root)
    const tabButton = (label: string, show: () => void) => {
      const button = el('button', {attrs: {type: 'button', 'aria-pressed': 'false'}}, label)
      button.addEventListener('click', () => {
        for (const other of tabs.querySelectorAll('button')) other.setAttribute('aria-pressed', String(other === button))
        show()
      })
      return button
    }
    // An agent opens on its transcript (what `logs` shows on a terminal); its raw event stream is a click away.
    if (detail && readsAgentEvents(detail.agent)) {
      transcript = new TranscriptView(id)
      const showTranscript = () => pane.replaceChildren(transcript!.show())
      tabs.replaceChildren(tabButton('Transcript', showTranscript), tabButton('Output', showOutput))
      tabs.querySelector('button')!.setAttribute('aria-pressed', 'true')
      showTranscript()
    } else {
      showOutput()
    }
    output.start()
  })

  // status changes come from the feeds, turns and cost from the record: refresh both now and then
  setInterval(() => detail && !isFinal(detail.status) && void refresh(), 3000)
}

/** A worktree task's last merge, as `status` says it. */
function mergedText(task: TaskDetail): string {
  const m = task.worktree?.merged
  return m ? `into ${m.into}${m.mode === 'merge' ? '' : ` (${m.mode})`}, ${m.commits} commit${m.commits === 1 ? '' : 's'}, now at ${m.commit.slice(0, 12)}, ${formatTime(m.at)}` : ''
}

function fact(name: string, value: string): HTMLElement[] {
  return value ? [el('dt', {}, name), el('dd', {}, value)] : []
}
