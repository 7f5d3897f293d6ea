// `drover doctor` for a person: a few lines per area, then one line per
// problem saying what to do. The --json shape is the report itself.

import {formatBytes} from '../../api/values.js'
import {problemLine, type DoctorReport} from '../../api/doctor.js'
import type {Paint} from './color.js'

const seconds = (ms: number | null) => (ms === null ? '' : ms < 1000 ? `${ms} ms` : `${(ms / 1000).toFixed(1)} s`)
const count = (n: number, one: string, many: string) => (n === 0 ? `no ${many}` : `${n} ${n === 1 ? one : many}`)

export function doctorLines(report: DoctorReport, paint: Paint): string[] {
  const lines: string[] = []
  const d = report.drover
  lines.push(`drover ${d.version ?? '?'} · node ${d.node} · ${d.platform} ${d.arch}`, '')

  lines.push(paint('bold', 'Agents'))
  const width = Math.max(...report.agents.map((a) => a.name.length), 6)
  for (const agent of report.agents) {
    const name = agent.name.padEnd(width)
    if (!agent.found) {
      lines.push(`  ${name}  ${paint('dim', 'not found on PATH')}`)
      continue
    }
    const version = agent.version ? `${agent.version} (--version: ${seconds(agent.versionTookMs)})` : paint('yellow', 'version unknown')
    const flags = agent.flags?.readable ? `flags read: ${agent.flags.count}` : paint('red', 'flags unreadable')
    lines.push(`  ${name}  ${agent.path}  ${version}  ${flags}`)
    const store = agent.sessionStore
    lines.push(`  ${''.padEnd(width)}  sessions: ${store.path}${store.present ? '' : paint('dim', ' (none yet)')}`)
  }
  lines.push('')

  const s = report.stateDir
  lines.push(`${paint('bold', 'State dir')}  ${s.path}  ${paint('dim', `(from ${s.source === 'option' ? '--state-dir' : s.source === 'environment' ? 'DROVER_STATE_DIR' : 'the per-OS default'})`)}`)
  const facts: string[] = []
  if (!s.exists) facts.push(s.error ?? 'not created yet (the first command that needs it creates it)')
  if (s.owner) facts.push(`owner ${s.owner.mine ? 'you' : `uid ${s.owner.uid}`}, mode ${s.owner.mode}`)
  else if (s.exists && report.drover.platform === 'win32') facts.push('access by ACLs (not judged)')
  if (s.space) facts.push(`${formatBytes(s.space.freeBytes)} free`)
  // what it holds is known only where it could be read: "0 tasks" for a dir that cannot be would be false
  if (s.exists && s.isDirectory && s.error === null && !s.formatError) facts.push(`${s.tasks} task${s.tasks === 1 ? '' : 's'}`)
  else if (s.exists && s.error !== null) facts.push(`not read: ${s.error}`)
  if (typeof s.format === 'number') facts.push(`format ${s.format}`)
  if (s.config.present) facts.push(`config.json${s.config.executor ? ` (executor ${s.config.executor})` : ''}`)
  lines.push(`  ${facts.join(' · ')}`)
  if (s.exists && s.isDirectory && s.error === null && !s.formatError) {
    lines.push(
      `  ${[
        count(s.corrupt.length, 'corrupt record', 'corrupt records'),
        count(s.staleLocks.length, 'stale lock', 'stale locks'),
        count(s.unwatched.length, 'task without a runner', 'tasks without a runner'),
        `${count(s.leftovers.length, 'ended task with live processes', 'ended tasks with live processes')}${s.leftoverScan === 'recorded' ? ' (recorded processes only)' : ''}`,
      ].join(' · ')}`,
    )
  }
  lines.push('')

  lines.push(paint('bold', 'Executors'))
  for (const e of report.executors) {
    const state = !e.used ? paint('dim', 'not used') : e.reachable ? paint('green', 'ok') : paint('red', 'unreachable')
    const detail = e.used && e.name !== 'local' ? `  ${e.controller ?? e.error ?? ''}${e.tookMs !== null ? ` (${seconds(e.tookMs)})` : ''}` : ''
    lines.push(`  ${e.name.padEnd(6)}  ${state}${e.usedBy.length > 0 && e.name !== 'local' ? paint('dim', ` (used by ${e.usedBy.join(', ')})`) : ''}${detail}`)
  }
  lines.push('')

  lines.push(paint('bold', 'Environment'))
  const keyWidth = Math.max(...report.environment.apiKeys.map((k) => k.name.length), 0)
  for (const key of report.environment.apiKeys) {
    lines.push(`  ${key.name.padEnd(keyWidth)}  ${key.present ? 'set' : paint('dim', 'not set')}  ${paint('dim', `(${key.agents.join(', ')})`)}`)
  }
  if (report.environment.executor.value !== null) lines.push(`  DROVER_EXECUTOR=${report.environment.executor.value}`)
  lines.push('')

  if (report.problems.length === 0) {
    lines.push(paint('green', `No problems found (${seconds(report.tookMs)}).`))
  } else {
    for (const problem of report.problems) lines.push(paint(problem.severity === 'error' ? 'red' : 'yellow', problemLine(problem)))
  }
  return lines
}
