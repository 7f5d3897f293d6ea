// Turning measurements into rows (value, reference, ratio, goal, met?), the
// machine description, and RESULTS.md. Every ratio compares two numbers
// taken in the same run, on the same machine, interleaved where possible.

import {execSync} from 'node:child_process'
import {readFileSync} from 'node:fs'
import os from 'node:os'

export function fmt(value, unit) {
  if (value === null || value === undefined || Number.isNaN(value)) return '—'
  switch (unit) {
    case 'ms':
      return value >= 1000 ? `${(value / 1000).toFixed(2)} s` : `${value.toFixed(value < 10 ? 2 : 1)} ms`
    case 'kB':
      return `${(value / 1024).toFixed(1)} MiB`
    case '%':
      return `${value.toFixed(2)} %`
    case 'MiB/s':
      return `${value.toFixed(0)} MiB/s`
    default:
      return `${value} ${unit}`
  }
}

/** The CPU time beside a wall-time row, as a note: mean user + system ms, and its ratio to the floor's. */
export function fmtCpu(cpuMean, floorCpuMean) {
  if (cpuMean === null || cpuMean === undefined) return ''
  const ratio = floorCpuMean ? ` = ${(cpuMean / floorCpuMean).toFixed(2)}× the floor's` : ''
  return `CPU (user + system, mean) ${cpuMean.toFixed(0)} ms${ratio}`
}

/**
 * A row comparing drover with what it is measured beside (named by besideLabel). `goal` is
 * {maxRatio} / {minRatio} (drover ÷ beside), {maxValue} (drover alone) or
 * {maxExtra} (drover − beside); without one the row is for information.
 * `paired`: the ratio to show and hold to the goal instead of drover ÷ beside
 * (pairedRatio in util.mjs: the median of each round's own ratio).
 */
export function row(name, drover, besideLabel, beside, unit, goal = null, note = '', paired = null) {
  const ratio = paired ?? (drover !== null && beside !== null && beside > 0 ? drover / beside : null)
  let goalText = '—'
  let met = null
  // Three decimals near 1, so a ratio just past its goal never prints as equal to it.
  let ratioText = ratio === null ? '—' : `${ratio.toFixed(ratio < 2 ? 3 : 2)}×`
  if (goal?.maxRatio !== undefined) {
    goalText = `≤ ${goal.maxRatio}×`
    met = ratio === null ? null : ratio <= goal.maxRatio
  } else if (goal?.minRatio !== undefined) {
    goalText = `≥ ${goal.minRatio}×`
    met = ratio === null ? null : ratio >= goal.minRatio
  } else if (goal?.maxValue !== undefined) {
    goalText = `≤ ${fmt(goal.maxValue, unit)}`
    met = drover === null ? null : drover <= goal.maxValue
  } else if (goal?.maxExtra !== undefined) {
    const extra = drover !== null && beside !== null ? drover - beside : null
    ratioText = extra === null ? '—' : `+${fmt(extra, unit)}`
    goalText = `≤ +${fmt(goal.maxExtra, unit)}`
    met = extra === null ? null : extra <= goal.maxExtra
  }
  return {
    case: name,
    drover: fmt(drover, unit),
    beside: beside === null ? '—' : `${fmt(beside, unit)} (${besideLabel})`,
    ratio: ratioText,
    goal: goalText,
    met: met === null ? (goalText === '—' ? '' : 'n/a') : met ? 'yes' : '**NO**',
    note,
    raw: {drover, beside, ratio, met},
  }
}

/** A case that could not run: says why in place of numbers. */
export function skipped(name, why) {
  return {case: name, drover: 'skipped', beside: '—', ratio: '—', goal: '—', met: '', note: why, raw: {met: null}}
}

export function machine() {
  const cpuinfo = safeRead('/proc/cpuinfo')
  const model = /model name\s*:\s*(.+)/.exec(cpuinfo)?.[1]?.trim() ?? os.cpus()[0]?.model ?? 'unknown'
  const osRelease = /PRETTY_NAME="?([^"\n]+)"?/.exec(safeRead('/etc/os-release'))?.[1] ?? `${os.type()} ${os.release()}`
  let fs = 'unknown'
  try {
    // findmnt names ext4 as such; `stat -f` reports it as "ext2/ext3".
    fs = execSync('findmnt -n -o FSTYPE -T . 2>/dev/null || stat -f -c %T .', {encoding: 'utf8'}).trim()
  } catch {
    // informative only
  }
  return {
    cpu: model,
    cores: os.cpus().length,
    memory: `${(os.totalmem() / 2 ** 30).toFixed(1)} GiB`,
    node: process.version,
    os: `${osRelease} (kernel ${os.release()}, ${os.arch()})`,
    filesystem: fs,
    load: os.loadavg().map((l) => l.toFixed(2)).join(' '),
  }
}

function safeRead(file) {
  try {
    return readFileSync(file, 'utf8')
  } catch {
    return ''
  }
}

const COLUMNS = ['case', 'drover', 'beside', 'ratio', 'goal', 'met']
const HEADERS = ['case', 'drover', 'beside', 'ratio', 'goal', 'met?']

export function markdownTable(rows) {
  const esc = (s) => String(s).replaceAll('|', '\\|')
  const lines = [`| ${HEADERS.join(' | ')} |`, `| ${HEADERS.map(() => '---').join(' | ')} |`]
  for (const r of rows) lines.push(`| ${COLUMNS.map((c) => esc(r[c])).join(' | ')} |`)
  return lines.join('\n')
}

/** The same table for a terminal: aligned columns, no markdown. */
export function textTable(rows) {
  const cells = [HEADERS, ...rows.map((r) => COLUMNS.map((c) => String(r[c]).replaceAll('**', '').replaceAll('`', '')))]
  const widths = HEADERS.map((_, i) => Math.max(...cells.map((line) => line[i].length)))
  return cells.map((line) => line.map((cell, i) => cell.padEnd(widths[i])).join('  ').trimEnd()).join('\n')
}

export function resultsMarkdown({rows, machine: m, peers, settings, date, durationMs, notes}) {
  const loadEnd = os.loadavg().map((l) => l.toFixed(2)).join(' ')
  const missed = rows.filter((r) => r.raw.met === false)
  const peerLines = Object.values(peers).map((p) => `- ${p.name}: ${p.available ? p.version : `missing — ${p.note}; its rows are skipped`}`)
  const rowNotes = rows.filter((r) => r.note).map((r) => `- ${r.case}: ${r.note}`)
  return `# Benchmark results

Generated by \`npm run bench\` (bench/run.mjs) on ${date}; the run took ${(durationMs / 1000).toFixed(0)} s.
Do not edit by hand: run the benchmark again. How each case is measured is in bench/README.md.

## Machine

- CPU: ${m.cpu} (${m.cores} cores)
- memory: ${m.memory}
- OS: ${m.os}
- Node: ${m.node}
- file system of the temp dirs: ${m.filesystem}
- load average (1, 5, 15 min) at start: ${m.load}; at the end: ${loadEnd}

## Peers

${peerLines.join('\n')}

## Settings

${Object.entries(settings).map(([k, v]) => `- ${k}: ${v}`).join('\n')}

## Results

Times are medians of the runs given above; "ratio" is drover ÷ beside from this same run (in the many rows, the median of each round's own ratio: bench/README.md).

${markdownTable(rows)}

${missed.length === 0 ? 'Every goal was met.' : `Goals missed: ${missed.map((r) => r.case).join('; ')}.`}
${rowNotes.length || notes.length ? `\n## Notes\n\n${[...rowNotes, ...notes.map((n) => `- ${n}`)].join('\n')}\n` : ''}`
}

/**
 * RESULTS.md with the rows of some cases measured again (BENCH_UPDATE=1): each
 * case's old rows and notes give way to the new ones, the rest stays as the
 * last full run left it, and a line under the header says which rows are
 * newer, when and under what load — so one case can be measured without
 * running (and re-basing) every other.
 */
export function updatedResults(text, {rows, cases, date, durationMs, machine: m}) {
  const owned = (name) => cases.some((c) => name.startsWith(`${c}:`) || name.startsWith(`${c} `))
  const esc = (s) => String(s).replaceAll('|', '\\|')
  const lines = text.split('\n')
  // the table under `## Results`, not one of the tables written by hand further down
  const tableStart = lines.findIndex((line, i) => line.startsWith('| case ') && lines.slice(0, i).includes('## Results'))
  let tableEnd = tableStart
  while (tableEnd + 1 < lines.length && lines[tableEnd + 1].startsWith('| ')) tableEnd++
  if (tableStart === -1 || tableEnd < tableStart + 2) throw new Error('BENCH_UPDATE: bench/RESULTS.md has no results table to update')
  const caseOf = (line) => line.slice(2, line.indexOf(' | ')).trim()
  const fresh = rows.map((r) => `| ${COLUMNS.map((c) => esc(r[c])).join(' | ')} |`)
  // a case's rows named for what they are (`floor: …`) go by their names
  const freshNames = new Set(rows.map((r) => r.case))
  const replaced = (line) => line.startsWith('| ') && (owned(caseOf(line)) || freshNames.has(caseOf(line).replaceAll('\\|', '|')))
  let out = [...lines.slice(0, tableStart), ...lines.slice(tableStart, tableEnd + 1).filter((line) => !replaced(line)), ...fresh, ...lines.slice(tableEnd + 1)]
  // the notes of the rows replaced, in the Notes section (not the sections written by hand after it)
  const notesFrom = out.indexOf('## Notes')
  const notesTo = out.findIndex((line, i) => i > notesFrom && line.startsWith('## '))
  const oldNote = (line) => line.startsWith('- ') && (owned(line.slice(2)) || [...freshNames].some((name) => line.startsWith(`- ${name}: `)))
  out = out.filter((line, i) => !(notesFrom !== -1 && i > notesFrom && (notesTo === -1 || i < notesTo) && oldNote(line)))
  const notes = rows.filter((r) => r.note).map((r) => `- ${r.case}: ${r.note}`)
  if (notes.length > 0) {
    if (!out.includes('## Notes')) out.push('', '## Notes', '')
    // at the end of the Notes section, before any section written after it by hand
    const notesAt = out.indexOf('## Notes')
    let end = out.findIndex((line, i) => i > notesAt && line.startsWith('## '))
    if (end === -1) end = out.length
    while (end > notesAt + 1 && out[end - 1] === '') end--
    out.splice(end, 0, ...notes, ...(end === out.length ? [''] : []))
  }
  const stamp = `Rows of ${cases.join(', ')}: measured again by \`BENCH_CASES=${cases.join(',')} BENCH_UPDATE=1 npm run bench\` on ${date} (${(durationMs / 1000).toFixed(0)} s; load average at start ${m.load}).`
  const header = out.findIndex((line) => line.startsWith('Do not edit by hand'))
  out = out.filter((line) => !(line.startsWith(`Rows of ${cases.join(', ')}:`)))
  out.splice(header + 1, 0, stamp)
  // the goals line names the misses of the whole table as it is now
  const missed = out.filter((line) => line.startsWith('| ') && line.endsWith('| **NO** |')).map(caseOf)
  const goals = out.findIndex((line) => line.startsWith('Goals missed:') || line === 'Every goal was met.')
  if (goals !== -1) out[goals] = missed.length === 0 ? 'Every goal was met.' : `Goals missed: ${missed.join('; ')}.`
  return out.join('\n')
}
