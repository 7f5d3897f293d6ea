// Follow-ups: how soon the task's runner hands a queued follow-up to the agent
// once a run ends (no daemon: the same runner opens the next run and starts
// the agent again). From the agent's own stamps: the previous run's last line
// → the next run's first one, beside the agent's own start (its process's
// beginning → that first line), which no drover change removes.

import {readFileSync, writeFileSync} from 'node:fs'
import path from 'node:path'
import {row} from './report.mjs'
import {LIB, drover, percentile, waitFor} from './util.mjs'

/** The agent's stamps, run by run: [{firstOutputAt, timeOrigin, endedAt}]. */
function stamps(stateDir, id) {
  const runs = []
  for (const line of readFileSync(path.join(stateDir, 'tasks', String(id), 'output.log'), 'utf8').split('\n')) {
    if (!line.startsWith('{')) continue
    const event = JSON.parse(line)
    if (event.subtype === 'init') runs.push({firstOutputAt: event.firstOutputAt, timeOrigin: event.timeOrigin})
    if (event.type === 'result') runs.at(-1).endedAt = event.endedAt
  }
  return runs
}

export async function followups(ctx) {
  const count = ctx.sizes.followups
  const stateDir = ctx.dirs.fresh('followups')
  const agent = path.join(LIB, 'followup-agent.mjs')
  // the first run works until every follow-up is queued
  const go = path.join(stateDir, 'go')
  const id = Number(drover(stateDir, ['start', '--agent', 'claude', '--', process.execPath, agent, '-p', `until:${go}`, '--output-format', 'stream-json', '--verbose']).stdout.trim())
  await waitFor(() => stamps(stateDir, id).length === 1, {timeout: 10_000, message: 'the first run'})
  for (let n = 1; n <= count; n++) drover(stateDir, ['resume', String(id), '--prompt', `follow-up ${n}: sleep:100`])
  writeFileSync(go, '')
  await waitFor(() => stamps(stateDir, id).filter((r) => r.endedAt).length === count + 1, {timeout: count * 5000, message: 'every follow-up delivered'})
  const runs = stamps(stateDir, id)
  const gaps = runs.slice(1).map((run, i) => run.firstOutputAt - runs[i].endedAt).sort((a, b) => a - b)
  const own = runs.slice(1).map((run) => run.firstOutputAt - run.timeOrigin).sort((a, b) => a - b)
  const note = `${gaps.length} follow-ups delivered one after another by the task's runner; the agent (node, claude-shaped) stamps its last line, its first line and its own start`
  return [
    row('follow-up delivery, run end → next run\'s first output, p50', percentile(gaps, 50), "the agent's own start", percentile(own, 50), 'ms', {maxExtra: 1000}, note),
    row('follow-up delivery, run end → next run\'s first output, p99', percentile(gaps, 99), "the agent's own start", percentile(own, 99), 'ms', null, note),
  ]
}
