// The human view of `drover status`: aligned key/value lines, the runs, the
// agent's progress, the files, and the last output lines when the task failed.

import {describeOutcome, formatBytes, formatDuration, isFinalStatus, reasonDetail} from '../../api/values.js'
import type {AgentUsage} from '../../api/values.js'
import type {TaskDetailJson} from '../../api/task-json.js'
import {commandLine, escapeControls, quoteArg} from '../../api/task-json.js'
import type {Paint} from './color.js'
import {statusStyle} from './color.js'
import {localTime, timeWithAge} from './time.js'

function usageText(u: AgentUsage): string {
  return [
    `${u.turns} turn${u.turns === 1 ? '' : 's'}`,
    u.costUsd !== null ? `$${u.costUsd.toFixed(4)}` : '',
    u.inputTokens !== null ? `${u.inputTokens} tokens in` : '',
    u.outputTokens !== null ? `${u.outputTokens} out` : '',
  ]
    .filter(Boolean)
    .join(', ')
}

/** The last lines that are not JSON events (the agent's stderr, drover's separators). */
function plainLines(text: string, count: number): string {
  const lines = text.split('\n').filter((line) => line.trim() !== '' && !line.trimStart().startsWith('{'))
  return lines.length === 0 ? '' : lines.slice(-count).join('\n') + '\n'
}

/** `tail`: the end of the output, shown for a failed or lost task (its last `tailLines` lines). */
export function renderStatus(task: TaskDetailJson, opts: {paint: Paint; tailLines: number; tail: string}): string {
  const {paint} = opts
  const rows: [string, string][] = []
  const add = (key: string, value: string | null | undefined) => {
    if (value !== null && value !== undefined && value !== '') rows.push([key, value])
  }
  const style = statusStyle(task.status)
  add('id', String(task.id))
  add('name', task.name)
  add('status', style ? paint(style, task.status) : task.status)
  add('reason', reasonDetail(task.status, task.reason))
  if (task.exitCode !== null) add('exit code', String(task.exitCode))
  add('signal', task.signal)
  // What an ended task was meant to do next is resume's business, not news.
  if (!isFinalStatus(task.status)) add('desired', task.desired)
  add('command', commandLine(task))
  if (task.shell !== null) add('argv', task.command.map(quoteArg).join(' '))
  add('cwd', task.cwd)
  const env = Object.entries(task.env)
  if (env.length > 0) add('env', env.map(([k, v]) => `${k}=${v}`).join(' '))
  add('agent', task.agent)
  if (task.executor !== 'local') add('executor', `${task.executor}${task.jobId ? ` job ${task.jobId}` : ''}${task.node ? ` on ${task.node}` : ''}`)
  if (task.pid !== null && task.executor !== 'local') add('pid', `${task.pid} on ${task.node ?? 'its node'}${task.runnerAlive ? ' (runner alive)' : ''}`)
  else if (task.pid !== null) {
    const state = task.workerAlive ? 'alive' : 'gone'
    add('pid', `${task.pid} (worker ${state}${task.runnerAlive ? ', runner alive' : ''})`)
  }
  add('created', timeWithAge(task.createdAt))
  if (task.startedAt) add('started', timeWithAge(task.startedAt))
  if (task.endedAt) add('ended', timeWithAge(task.endedAt))
  if (task.runtimeMs !== null) add('runtime', formatDuration(task.runtimeMs))
  const p = task.policies
  const policies = [
    p.timeoutMs !== null ? `timeout ${formatDuration(p.timeoutMs)}` : '',
    p.idleTimeoutMs !== null ? `idle-timeout ${formatDuration(p.idleTimeoutMs)}` : '',
    p.maxOutputBytes !== null ? `max-output ${formatBytes(p.maxOutputBytes)}` : '',
  ].filter(Boolean)
  add('limits', policies.join(', '))
  const info = task.agentInfo
  if (info) {
    add('session', info.sessionId)
    add('this run', [usageText(info), info.lastEvent ? `last event ${info.lastEvent}` : ''].filter(Boolean).join(', '))
    if (info.session && task.runs.length > 1) add('session total', usageText(info.session))
    add('agent error', info.error === null ? null : escapeControls(info.error))
  }
  if (task.checkpoint) {
    const c = task.checkpoint
    const how = `${c.mode === 'safe-point' ? 'signalled at a safe point' : c.mode}${c.tookMs !== null ? ` after ${formatDuration(c.tookMs)}` : ''}`
    add('checkpoint', `${c.profile}${c.sessionId ? ` session ${c.sessionId}` : ''}, drain ${how}, at ${localTime(c.at)}`)
  }
  if (task.resume) add('resume', task.resume)
  else if (task.resumeRefused) add('resume', `not possible: ${task.resumeRefused}`)
  if (task.runs.length > 1) {
    add('runs', task.runs.map((r) => `#${r.run}${r.resumed ? ' resumed' : ''} ${describeOutcome(r.status, r.reason)}`).join('; '))
  }
  const size = task.outputBytes
  add('output', `${task.paths.output}${size !== null ? ` (${formatBytes(size)})` : ''}`)
  add('events', task.paths.events)
  add('session dir', task.paths.session)
  add('control', task.paths.control)

  const width = Math.max(...rows.map(([k]) => k.length))
  let text = rows.map(([k, v]) => `${paint('dim', k.padEnd(width))}  ${v}`).join('\n') + '\n'
  if (['failed', 'lost'].includes(task.status) && opts.tailLines > 0) {
    // An agent's output is its event stream: what went wrong is in its error
    // (above) and its stderr lines, not in a 3 KB init event.
    const tail = task.agent === 'generic' ? opts.tail : plainLines(opts.tail, opts.tailLines)
    if (tail.trim() !== '') {
      text += `\n${paint('dim', `last ${opts.tailLines} lines of output:`)}\n${tail.endsWith('\n') ? tail : tail + '\n'}`
    }
  }
  return text
}
