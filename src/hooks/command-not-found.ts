// "Did you mean …?" for a mistyped command: a one-line error with exit 2,
// no interactive prompt (drover runs from scripts and cron as much as by hand).

import type {Hook} from '@oclif/core'

function distance(a: string, b: string): number {
  const row = Array.from({length: b.length + 1}, (_, i) => i)
  for (let i = 1; i <= a.length; i++) {
    let previous = row[0]
    row[0] = i
    for (let j = 1; j <= b.length; j++) {
      const current = row[j]
      row[j] = Math.min(row[j] + 1, row[j - 1] + 1, previous + (a[i - 1] === b[j - 1] ? 0 : 1))
      previous = current
    }
  }
  return row[b.length]
}

export function suggestCommand(typed: string, commands: string[]): string | null {
  let best: {id: string; d: number} | null = null
  for (const id of commands) {
    const d = id.startsWith(typed) && typed.length >= 2 ? 0 : distance(typed, id)
    if (!best || d < best.d) best = {id, d}
  }
  return best && best.d <= Math.max(2, Math.floor(typed.length / 3)) ? best.id : null
}

const hook: Hook<'command_not_found'> = async function (options) {
  const ids = options.config.commandIDs.filter((id) => !id.includes(':'))
  const suggestion = suggestCommand(options.id, ids)
  const hint = suggestion ? ` — did you mean '${suggestion}'?` : ''
  process.stderr.write(`drover: '${options.id}' is not a drover command${hint} (see: ${options.config.bin} --help)\n`)
  process.exit(2)
}

export default hook
