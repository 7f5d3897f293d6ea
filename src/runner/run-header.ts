// The line output.log gets where a later run begins, and the prompt that run
// was given: `cat`, `tail -f`, `logs` and `logs --pretty` show where a run
// began, what began it and what it was told, in the writer's local time.

import {localTimeWithOffset} from '../base/local-time.js'
import type {RunEntry} from '../state/record.js'

/** Longest prompt the header repeats; the record holds it whole. */
const PROMPT_SHOWN = 400

/** What began a run, as its header and the human views name it. */
export function runKind(run: Pick<RunEntry, 'resumed' | 'followup' | 'attached'>): string {
  if (run.attached) return 'attached'
  if (run.followup != null) return `follow-up ${run.followup}`
  return run.resumed ? 'resume' : 'restart'
}

export function runHeader(run: RunEntry, at = new Date()): string {
  const head = `\n── drover: run ${run.run} (${runKind(run)}) started ${localTimeWithOffset(at)} ──\n`
  if (!run.prompt) return head
  // One line whatever the prompt holds: a newline in it must not pass for the agent's output.
  const flat = run.prompt.replace(/\s+/g, ' ').trim()
  return `${head}── drover: prompt: ${flat.length > PROMPT_SHOWN ? `${flat.slice(0, PROMPT_SHOWN - 1)}…` : flat}\n`
}
