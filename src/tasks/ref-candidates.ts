// What shell completion offers for a TASK argument: `:latest`, and the ids and
// names of the live tasks and of the newest ones. A shell asks on every Tab, so
// this reads only what stays cheap at 100,000 tasks — the high-water mark, a
// bounded walk down from it, the live index and a handful of records — never
// tasks/ as a whole and never every record. Records are read as they are, not
// reconciled: a status shown may be one a dead runner has not corrected yet
// (the description is a hint; the ref is what matters).

import {LATEST_REF} from '../base/parse.js'
import {liveHints, meantToRun} from '../state/live-index.js'
import {isFinalStatus, type TaskRecord} from '../state/record.js'
import {listTaskIds, readHighWater, readRecord, type RecordRead} from '../state/store.js'

export interface RefCandidate {
  /** what completes: an id, a name, or `:latest`; never anything a shell must quote. */
  ref: string
  /** a short line for shells that show one (zsh, fish, PowerShell): no control characters. */
  description: string
}

/** How many of the newest tasks are offered beside the live ones. */
export const NEWEST_OFFERED = 50
// Ids removed with rm leave gaps below the mark; a walk never probes more than
// this many ids (a missing folder costs one failed open).
const MAX_PROBES = 1000

// Only what parseTaskRef would take, so nothing read from disk can put a
// space, a quote or a newline into a shell's completion.
const SAFE_ID = /^[1-9][0-9]*$/
const SAFE_NAME = /^[A-Za-z][A-Za-z0-9._-]{0,63}$/

/**
 * The candidates for a TASK argument, newest first: `:latest`, then ids,
 * then names (a name that several tasks had is described as the task it
 * would mean: the live one, else the newest). `word`, what is typed so far,
 * only widens the offer: digits also bring the task of that id and those one
 * digit longer, so an old task can be reached digit by digit. Filtering by
 * the word is left to the shell (fish and zsh may match more loosely than by
 * prefix).
 */
export function refCandidates(stateDir: string, word = '', newest: number = NEWEST_OFFERED): RefCandidate[] {
  const records = new Map<number, TaskRecord>()
  const take = (id: number): RecordRead => {
    const result = readRecord(stateDir, id)
    if (result.ok) records.set(id, result.record)
    return result
  }
  // :latest means what findTask takes: the highest id with a record, readable or not
  let latest: {id: number; record: TaskRecord | null} | null = null
  /** Reads one task of the walk down from the newest; whether it counts as found. */
  const visit = (id: number): boolean => {
    const result = take(id)
    if (!result.ok && result.missing) return false
    latest ??= {id, record: result.ok ? result.record : null}
    return result.ok
  }
  const high = readHighWater(stateDir)
  if (high > 0) {
    let found = 0
    for (let id = high, probes = 0; id >= 1 && found < newest && probes < MAX_PROBES; id--, probes++) if (visit(id)) found++
  } else {
    // A state dir from before the mark existed: its listing is the only way to the newest.
    for (const id of listTaskIds(stateDir).slice(-newest).reverse()) visit(id)
  }
  for (const id of liveHints(stateDir) ?? []) {
    if (records.has(id)) continue
    const result = readRecord(stateDir, id)
    // a hint outlives its task's end until list drops it: only live ones are offered
    if (result.ok && meantToRun(result.record)) records.set(id, result.record)
  }
  if (SAFE_ID.test(word) && Number.isSafeInteger(Number(word) * 10 + 9)) {
    for (const id of [Number(word), ...Array.from({length: 10}, (_, d) => Number(word) * 10 + d)]) if (!records.has(id)) take(id)
  }

  const out: RefCandidate[] = []
  // (set inside visit: TypeScript cannot see that, hence the cast)
  const newestTask = latest as {id: number; record: TaskRecord | null} | null
  if (newestTask !== null) {
    const {id, record} = newestTask
    out.push({ref: LATEST_REF, description: oneLine(`the newest task: ${id}${record === null ? ' (its record is unreadable)' : `${record.name ? ` ${record.name}` : ''} ${record.status}`}`)})
  }
  const byId = [...records.values()].sort((a, b) => b.id - a.id)
  const named = new Map<string, TaskRecord>()
  for (const record of byId) {
    if (!SAFE_ID.test(String(record.id))) continue
    out.push({ref: String(record.id), description: oneLine(`${record.name ? `${record.name} ` : ''}${record.status} ${summary(record)}`)})
    if (record.name === null || !SAFE_NAME.test(record.name)) continue
    const held = named.get(record.name)
    // newest first: a later one replaces the one held only by being live where that one has ended
    if (held === undefined || (isFinalStatus(held.status) && !isFinalStatus(record.status))) named.set(record.name, record)
  }
  for (const [name, record] of named) out.push({ref: name, description: oneLine(`${record.id} ${record.status} ${summary(record)}`)})
  return out
}

function summary(record: TaskRecord): string {
  return record.shell ?? record.command.join(' ')
}

const DESCRIPTION_MAX = 60

function oneLine(text: string): string {
  // eslint-disable-next-line no-control-regex
  const flat = text.replace(/[\u0000-\u001f\u007f-\u009f]+/g, ' ').trim()
  return flat.length > DESCRIPTION_MAX ? `${flat.slice(0, DESCRIPTION_MAX - 1)}…` : flat
}

/** The lines the completion scripts read: `ref<TAB>description`. */
export function formatCandidates(candidates: readonly RefCandidate[]): string {
  return candidates.map((c) => `${c.ref}\t${c.description}\n`).join('')
}
