// The human view of `drover status`: aligned key/value lines, the runs, the
// agent's progress, the files, and the last output lines when the task failed.

import {checkLabel, DEFAULT_HOOK_TIMEOUT_MS, DEFAULT_RETRY_DELAY_MS, describeOutcome, formatBytes, formatDuration, isFinalStatus, readsAgentEvents, reasonDetail} from '../../api/values.js'
import type {AgentUsage} from '../../api/values.js'
import type {TaskDetailJson} from '../../api/task-json.js'
import {commandLine, escapeControls, promptLine, quoteArg} from '../../api/task-json.js'
import type {Paint} from './color.js'
import {statusStyle} from './color.js'
import {localTime, localTimesIn, timeWithAge} from './time.js'

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

/** `2 commits, 3 files changed, +10 -2, uncommitted changes`: the worktree against its base when the run ended. */
export function worktreeChanges(s: NonNullable<TaskDetailJson['worktree']>['summary'] & object): string {
  const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`
  return [
    plural(s.commits, 'commit'),
    `${plural(s.filesChanged, 'file')} changed`,
    `+${s.insertions} -${s.deletions}`,
    s.uncommitted ? 'uncommitted changes' : 'nothing uncommitted',
  ].join(', ')
}

/** The last lines that are not JSON events (the agent's stderr, drover's separators). */
function plainLines(text: string, count: number): string {
  const lines = text.split('\n').filter((line) => line.trim() !== '' && !line.trimStart().startsWith('{'))
  return lines.length === 0 ? '' : lines.slice(-count).join('\n') + '\n'
}

/** What began a run, after its number: ` resumed`, ` follow-up 2`, ` attached`. */
const runWord = (r: TaskDetailJson['runs'][number]) => (r.attached ? ' attached' : r.followup != null ? ` follow-up ${r.followup}` : r.resumed ? ' resumed' : '')

const clipped = (text: string) => promptLine(text, 200)

/** How drover wrote the command (`start --agent NAME --prompt P`): what it added to the agent's headless form. */
function builtFrom(agent: string, b: NonNullable<TaskDetailJson['built']>): string {
  const flags = (args: string[]) => args.map(quoteArg).join(' ')
  const added = [
    b.permissionMode !== null ? `permission mode ${b.permissionMode}` : '',
    b.model !== null ? `model ${b.model} (config.json)` : '',
    b.configFlags.length > 0 ? `config.json flags ${flags(b.configFlags)}` : '',
    b.extraArgs.length > 0 ? `extra flags ${flags(b.extraArgs)}` : '',
  ].filter(Boolean)
  return `by drover from --agent ${agent} --prompt${added.length > 0 ? `: ${added.join(', ')}` : ''}`
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
  add('group', task.group)
  add('status', style ? paint(style, task.status) : task.status)
  const reason = reasonDetail(task.status, task.reason)
  add('reason', reason === null ? null : localTimesIn(reason))
  if (task.status === 'waiting' && task.waitUntil) add('resumes', timeWithAge(task.waitUntil))
  if (task.exitCode !== null) add('exit code', String(task.exitCode))
  add('signal', task.signal)
  // What an ended task was meant to do next is resume's business, not news.
  if (!isFinalStatus(task.status)) add('desired', task.desired)
  if (task.queue !== null) {
    const place = task.position !== null ? `, #${task.position} in line` : ''
    add('queue', `${task.queue}${task.priority !== 0 ? ` (priority ${task.priority})` : ''}${place}`)
  }
  for (const f of task.hookFailures) {
    const why = f.reason ?? (f.signal ? `killed by ${f.signal}` : `exit ${f.exitCode}`)
    add('hook failed', `${f.hook} (run ${f.run}${f.status ? `, at ${f.status}` : ''}): ${why}${f.hook.startsWith('notify') ? '' : '; output in hooks.log'}`)
  }
  if (task.retryMax > 0) {
    add('attempt', `${task.attempt} of ${task.retryMax + 1}${task.retryAt ? `; next starts ${timeWithAge(task.retryAt)}` : ''}`)
    const first = formatDuration(task.retryDelayMs ?? DEFAULT_RETRY_DELAY_MS)
    add('retry', `up to ${task.retryMax} time${task.retryMax === 1 ? '' : 's'} after a failed run, ${first} before the first, doubling each time${task.retryOnTimeout ? '; a run stopped by --timeout too' : ''}`)
  }
  const hookLimit = `stopped after ${formatDuration(task.hookTimeoutMs ?? DEFAULT_HOOK_TIMEOUT_MS)}; output in hooks.log`
  if (task.onExit !== null) add('on exit', `${task.onExit} (${hookLimit})`)
  if (task.onStatus !== null) add('on status', `${task.onStatus} (${hookLimit})`)
  if (task.notify.length > 0) add('notify', `${task.notify.join(', ')} (at the end, and when it needs you)`)
  if (task.after.length > 0) add('after', task.after.join(', '))
  if (task.afterEnded.length > 0) add('after ended', task.afterEnded.join(', '))
  add('command', commandLine(task))
  if (task.shell !== null) add('argv', task.command.map(quoteArg).join(' '))
  if (task.built) {
    add('built', builtFrom(task.agent, task.built))
    add('prompt', clipped(task.built.prompt))
  }
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
    p.maxCostUsd != null ? `max-cost $${p.maxCostUsd}` : '',
    p.maxTurns != null ? `max-turns ${p.maxTurns}` : '',
    p.maxTokens != null ? `max-tokens ${p.maxTokens}` : '',
    p.onLimit === 'wait' ? 'on-limit wait' : '',
  ].filter(Boolean)
  add('limits', policies.join(', '))
  const info = task.agentInfo
  if (info) {
    add('session', info.sessionId)
    add('this run', [usageText(info), info.lastEvent ? `last event ${info.lastEvent}` : ''].filter(Boolean).join(', '))
    if (info.session && task.runs.length > 1) add('session total', usageText(info.session))
    add('agent error', info.error === null ? null : escapeControls(info.error))
    if (info.limit) add('usage limit', `${escapeControls(info.limit.message)}${info.limit.resetAt ? `; resets ${timeWithAge(info.limit.resetAt)}` : ''}`)
  }
  if (task.checkpoint) {
    const c = task.checkpoint
    const how = `${c.mode === 'safe-point' ? 'signalled at a safe point' : c.mode}${c.tookMs !== null ? ` after ${formatDuration(c.tookMs)}` : ''}`
    add('checkpoint', `${c.profile}${c.sessionId ? ` session ${c.sessionId}` : ''}, drain ${how}, at ${localTime(c.at)}`)
  }
  if (task.worktree) {
    const w = task.worktree
    const missing = task.worktreePresent === false
    add('worktree', `${w.path}${missing ? ' MISSING (deleted by hand?)' : ''} (branch ${w.branch} from ${w.base === 'HEAD' ? '' : `${w.base} `}${w.baseCommit.slice(0, 12)})`)
    // the summary is the one recorded when a run ended: with the folder gone, its uncommitted changes went too
    if (w.summary) add('changes', missing ? `${worktreeChanges({...w.summary, uncommitted: false}).replace(/, nothing uncommitted$/, '')} on the branch; changes not committed went with the folder` : worktreeChanges(w.summary))
    if (w.merged) {
      const m = w.merged
      add('merged', `into ${m.into}${m.mode === 'merge' ? '' : ` (${m.mode})`}, ${m.commits} commit${m.commits === 1 ? '' : 's'}, now at ${m.commit.slice(0, 12)}, ${timeWithAge(m.at)}`)
    }
    if (missing) add('clean up', `drover rm ${task.id} (the branch and its commits are kept unless merged)`)
  }
  if (task.check) {
    const c = task.check
    add('check', `${c.command}${c.timeoutMs !== null ? ` (stopped after ${formatDuration(c.timeoutMs)})` : ''}`)
    const r = c.result
    if (r) {
      const last = r.output.trimEnd().split('\n').at(-1) ?? ''
      add('check result', `${checkLabel(r)} for run ${r.run}${r.endedAt ? `, ${formatDuration(Date.parse(r.endedAt) - Date.parse(r.startedAt))}` : `, since ${localTime(r.startedAt)}`}${last ? `: ${clipped(escapeControls(last))}` : ''}`)
    }
  }
  // an ended agent's resume is a follow-up: the prompt is what it takes
  if (task.resume) add('resume', task.status === 'drained' || task.status === 'lost' ? task.resume : `${task.resume} --prompt "…" (a follow-up in the same session)`)
  else if (task.resumeRefused) add('resume', `not possible: ${task.resumeRefused}`)
  if (task.runs.length > 1) {
    add('runs', task.runs.map((r) => `#${r.run}${runWord(r)} ${describeOutcome(r.status, r.reason)}`).join('; '))
  }
  for (const r of task.runs) if (r.prompt) add(`prompt #${r.run}`, clipped(r.prompt))
  for (const f of task.followups) add(`follow-up ${f.n}`, `queued ${localTime(f.at)}${f.now ? ', now' : ''}${f.keep ? ', kept through a failure' : ''}: ${clipped(f.prompt)}`)
  // the latest drops: `drover followups` lists every one the record keeps
  for (const d of task.droppedFollowups.slice(-3)) add(`dropped ${d.n}`, `${clipped(d.prompt)} (${d.reason})`)
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
    const tail = readsAgentEvents(task.agent) ? plainLines(opts.tail, opts.tailLines) : opts.tail
    if (tail.trim() !== '') {
      text += `\n${paint('dim', `last ${opts.tailLines} lines of output:`)}\n${tail.endsWith('\n') ? tail : tail + '\n'}`
    }
  }
  return text
}
