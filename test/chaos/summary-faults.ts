// Faults of the ended-task summary (<state>/summary/seg-<seq>.ndjson, a cache
// list-like reads use in place of every task.json): a segment truncated at a
// random length, a segment "from the future" (its high water above the ids
// handed out: copied in, or left by a state dir restored from an older
// backup), the summary deleted whole, and drover commands SIGKILLed — or
// frozen, then killed — while they fold hints into a new segment, build one
// or compact (a prune's end), and starts killed before their first record
// (or just after taking their id); and the caches made beside each segment
// (seg-<seq>.views, .names) truncated, swapped for another segment's, or
// made to claim a high water from the future; the journal of the kept
// listing of tasks/ (summary/listing.journal) cut short, its lines swapped or
// repeated, or copied to another file, and starts killed between their folder
// and its line there.
// None of these may change what `list --json` shows (invariants.ts, `list`).

import type {ChildProcess} from 'node:child_process'
import {copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, truncateSync, watch, writeFileSync, type FSWatcher} from 'node:fs'
import path from 'node:path'
import {markLive} from '../../src/state/live-index.js'
import {allocateTaskId} from '../../src/state/store.js'
import {FINAL} from './invariants.js'
import type {Rng} from './rng.js'
import type {CliRun, World} from './world.js'

export type SummaryFault = 'truncate-summary' | 'future-summary' | 'delete-summary' | 'damage-sidecar' | 'damage-journal' | 'kill-list' | 'kill-start' | 'crash-after-id' | 'crash-before-note' | 'fold'

/**
 * `fold` is no fault: a default `list` run to its end, the view that folds
 * hints into the summary (the actors list with --json only), so the summary
 * the faults hit is one in use.
 */
export const SUMMARY_WEIGHTS: Record<SummaryFault, number> = {
  'truncate-summary': 3,
  'future-summary': 2,
  'delete-summary': 1,
  'damage-sidecar': 2,
  'damage-journal': 2,
  'kill-list': 4,
  'kill-start': 2,
  'crash-after-id': 1,
  'crash-before-note': 1,
  fold: 3,
}

const SEGMENT = /^seg-(\d{12})\.ndjson$/

const summaryDir = (stateDir: string) => path.join(stateDir, 'summary')

function segments(stateDir: string): {name: string; seq: number}[] {
  try {
    return readdirSync(summaryDir(stateDir))
      .flatMap((name) => {
        const m = SEGMENT.exec(name)
        return m ? [{name, seq: Number(m[1])}] : []
      })
      .sort((a, b) => a.seq - b.seq)
  } catch {
    return []
  }
}

/** The ids handed out so far: the largest line of last-id. */
function highWater(stateDir: string): number {
  try {
    return Math.max(0, ...readFileSync(path.join(stateDir, 'last-id'), 'utf8').split('\n').map((line) => Number(line.trim()) || 0))
  } catch {
    return 0
  }
}

/** Ended records on disk now, parsed as they are (no decoding: a segment holds the record as on disk). */
function endedRecords(stateDir: string): Record<string, unknown>[] {
  const records: Record<string, unknown>[] = []
  let names: string[] = []
  try {
    names = readdirSync(path.join(stateDir, 'tasks')).filter((name) => /^[1-9]\d*$/.test(name))
  } catch {
    return records
  }
  for (const name of names) {
    try {
      const record = JSON.parse(readFileSync(path.join(stateDir, 'tasks', name, 'task.json'), 'utf8')) as Record<string, unknown>
      if (FINAL.has(record.status as string)) records.push(record)
    } catch {
      // none, or torn
    }
  }
  return records
}

/** A record that says something else than it did: another ending, name, exit and run count. */
function altered(rng: Rng, record: Record<string, unknown>, id = record.id): Record<string, unknown> {
  const runs = Array.isArray(record.runs) ? record.runs : []
  return {
    ...record,
    id,
    name: `future-${rng.int(1, 999)}`,
    status: rng.pick(['succeeded', 'failed', 'stopped', 'cancelled', 'lost'].filter((s) => s !== record.status)),
    exitCode: rng.int(0, 200),
    runs: rng.chance(0.5) ? [...runs, ...runs.slice(-1)] : runs.slice(0, 1),
  }
}

/**
 * A segment written as drover writes one, with a seq above every seq there is.
 * Either its high water is beyond reach (ids will not catch up within a run)
 * and it holds altered entries for tasks that exist — a reader must ignore
 * it, and the next one holding the summary lock rebuild — or it is just
 * above the ids handed out and holds entries for ids not handed out yet:
 * the tasks later made under those ids write their records (hint first), so
 * their own records and newer segments must win over these entries. Altered
 * entries of existing tasks under a high water the ids can catch up with
 * would be a forged summary, which no cheap check can tell from a true one.
 */
function writeFutureSegment(world: World, rng: Rng): string | null {
  const dir = summaryDir(world.stateDir)
  const last = highWater(world.stateDir)
  const segs = segments(world.stateDir)
  const seq = Math.max(0, ...segs.map((s) => s.seq)) + rng.int(1, 50)
  const copied = segs.length > 0 && rng.chance(0.5) ? copiedSegment(world, rng, rng.pick(segs).name, seq, last + 1_000_000 + rng.int(0, 1000)) : null
  if (copied) {
    try {
      writeFileSync(path.join(dir, `seg-${String(seq).padStart(12, '0')}.ndjson`), copied.text)
    } catch {
      return null
    }
    return `future-summary seq ${seq}: a copy of ${copied.of} (ids up to ${last}), its ${copied.count} entries altered, high water beyond reach`
  }
  const ended = endedRecords(world.stateDir)
  if (ended.length === 0) return null
  const unreachable = rng.chance(0.5)
  const high = unreachable ? last + 1_000_000 + rng.int(0, 1000) : last + rng.int(1, 3)
  const entries = unreachable
    ? Array.from({length: rng.int(1, Math.min(5, ended.length))}, () => altered(rng, rng.pick(ended)))
    : Array.from({length: high - last}, (_, k) => altered(rng, rng.pick(ended), last + 1 + k))
  const unique = [...new Map(entries.map((record) => [record.id as number, record])).values()]
  const lines = [
    JSON.stringify({summary: 1, seq, highWater: high, count: unique.length}),
    ...unique.map((record) => JSON.stringify({id: record.id, record})),
    JSON.stringify({end: unique.length}),
  ]
  try {
    if (!existsSync(dir)) return null // no summary yet: nothing for a copied-in segment to join
    writeFileSync(path.join(dir, `seg-${String(seq).padStart(12, '0')}.ndjson`), lines.join('\n') + '\n')
  } catch {
    return null // a full disk, or summary/ removed meanwhile
  }
  return `future-summary seq ${seq}, high water ${high} (ids up to ${last}), ${unique.length} entries for ${unreachable ? 'existing tasks, altered' : 'ids to come'}`
}

/**
 * Ids a summary reader may take from a segment now: an entry line names them
 * and no live hint does (an upper bound: a damaged segment puts all aside).
 * Only counted, to show the `list` invariant compares what the summary says.
 */
export function summarisedIds(stateDir: string): Set<number> {
  const ids = new Set<number>()
  for (const {name} of segments(stateDir)) {
    try {
      for (const m of readFileSync(path.join(summaryDir(stateDir), name), 'utf8').matchAll(/^\{"id":(\d+),/gm)) ids.add(Number(m[1]))
    } catch {
      // compacted away meanwhile
    }
  }
  try {
    for (const name of readdirSync(path.join(stateDir, 'live'))) ids.delete(Number(name))
  } catch {
    // no index
  }
  return ids
}

/**
 * An existing segment with every entry altered — its record, and its stored
 * `list --json` view to match when it has one — written back in drover's own
 * line shape under a new seq and a high water the ids will not reach.
 */
function copiedSegment(world: World, rng: Rng, name: string, seq: number, high: number): {text: string; of: string; count: number} | null {
  let lines: string[]
  try {
    lines = readFileSync(path.join(summaryDir(world.stateDir), name), 'utf8').split('\n').filter(Boolean)
  } catch {
    return null
  }
  const entries: string[] = []
  let header: Record<string, unknown>
  try {
    header = JSON.parse(lines[0]) as Record<string, unknown>
    for (const line of lines.slice(1, -1)) {
      const entry = JSON.parse(line) as {id: number; record: Record<string, unknown>; view?: Record<string, unknown>}
      const record = JSON.stringify(altered(rng, entry.record))
      const changed = JSON.parse(record) as Record<string, unknown>
      const view = entry.view ? `,"view":${JSON.stringify({...entry.view, status: changed.status, name: changed.name, exitCode: changed.exitCode})}` : ''
      entries.push(`{"id":${entry.id},"recordLength":${Buffer.byteLength(record)},"record":${record}${view}}`)
    }
  } catch {
    return null // truncated by an earlier fault, or not drover's shape
  }
  if (entries.length === 0) return null
  const text = [JSON.stringify({...header, seq, highWater: high, count: entries.length}), ...entries, JSON.stringify({end: entries.length})].join('\n') + '\n'
  return {text, of: name, count: entries.length}
}

/**
 * A drover command that reads the summary or folds into it, SIGKILLed on the
 * first change it makes in summary/ or live/ (a segment's temp file, its
 * rename, a hint's unlink: mid-fold) — or frozen there a while first, its
 * locks held, so other readers meet them busy — or at a random moment.
 */
async function killList(world: World, rng: Rng, round: number, quiet: boolean): Promise<string> {
  // prune compacts the summary at its end; not at the quiet point, whose
  // removals a killed prune would leave unaccounted into the next round
  const choices = [['list'], ['list'], ['list', '--json'], ['list', '-q'], ['list', '--all'], ...(quiet ? [] : [['prune', '--json', '--keep', String(rng.int(3, 10))]])]
  const args = rng.pick(choices)
  // the state dir itself only until summary/ exists: its own changes are other commands'
  const dirs = [existsSync(summaryDir(world.stateDir)) ? summaryDir(world.stateDir) : world.stateDir, path.join(world.stateDir, 'live')]
  const {r, when} = await killMidWrite(world, rng, round, args, dirs)
  if (args[0] === 'prune') {
    try {
      for (const task of (JSON.parse(r.stdout) as {removed: {id: number}[]}).removed ?? []) world.removed.add(task.id)
    } catch {
      // killed before its report
    }
    if (r.signal) world.uncertainRemoval = true
  }
  return `kill-list drover ${args.join(' ')} ${when} → ${r.signal ?? `exit ${r.exitCode}`}`
}

/**
 * A start SIGKILLed on its first change in tasks/ (the new task's folder,
 * before its record and so before its hint), or later: the folder a killed
 * start leaves must not be listed from a summary entry for its id.
 */
async function killStart(world: World, rng: Rng, round: number): Promise<string> {
  const args = ['start', '--json', '--shell', `sleep 0.${rng.int(1, 9)}`]
  const {r, when} = await killMidWrite(world, rng, round, args, [path.join(world.stateDir, 'tasks')])
  try {
    const task = JSON.parse(r.stdout) as {id?: number}
    if (typeof task.id === 'number') world.markers.set(task.id, null)
  } catch {
    // killed before it answered: the task, if any, is found by the checker
  }
  return `kill-start drover ${args.join(' ')} ${when} → ${r.signal ?? `exit ${r.exitCode}`}`
}

/** Runs a drover command and SIGKILLs it on its first change in `dirs` (+ a few ms), or frozen there first, or at a random moment. */
async function killMidWrite(world: World, rng: Rng, round: number, args: string[], dirs: string[]): Promise<{r: CliRun; when: string}> {
  const how = rng.weighted({'on-change': 3, 'stop-on-change': 1, random: 2})
  const extraMs = rng.chance(0.5) ? 0 : rng.int(1, 15)
  const randomMs = rng.int(50, 800)
  const stopMs = rng.int(100, 2000)
  let child!: ChildProcess
  const run = world.drover(round, 'fault', args, {}, 60_000, (c) => (child = c))
  const watchers: FSWatcher[] = []
  let fired = false
  const hit = () => {
    if (fired) return
    fired = true
    for (const w of watchers) w.close()
    setTimeout(() => {
      if (how !== 'stop-on-change') return void child.kill('SIGKILL')
      // awaited below: the kill always comes before the fault returns
      child.kill('SIGSTOP')
      setTimeout(() => child.kill('SIGKILL'), stopMs)
    }, extraMs)
  }
  if (how === 'random') setTimeout(hit, randomMs)
  else {
    for (const dir of dirs) {
      try {
        watchers.push(watch(dir, hit))
      } catch {
        // not there (yet)
      }
    }
  }
  const r = await run
  fired = true
  for (const w of watchers) w.close()
  const when = how === 'random' ? `after ${randomMs} ms` : `on its first change${extraMs ? ` + ${extraMs} ms` : ''}${how === 'stop-on-change' ? `, frozen ${stopMs} ms` : ''}`
  return {r, when}
}

/**
 * A cache beside a segment (its views or its names) damaged: cut at a random
 * length, replaced by another segment's (a stamp and entries not its own),
 * or its high water raised beyond the ids handed out (the views' padded
 * header, the names' first line), as a copy from another state dir would be.
 */
function damageSidecar(world: World, rng: Rng): string | null {
  const dir = summaryDir(world.stateDir)
  let names: string[]
  try {
    names = readdirSync(dir).filter((name) => /^seg-\d{12}\.(views|names)$/.test(name))
  } catch {
    return null
  }
  if (names.length === 0) return null
  const name = rng.pick(names)
  const file = path.join(dir, name)
  const how = rng.weighted({truncate: 2, swap: 1, future: 1})
  try {
    const bytes = readFileSync(file)
    if (how === 'truncate') {
      const length = rng.int(0, Math.max(0, bytes.length - 1))
      truncateSync(file, length)
      return `damage-sidecar ${name}: cut to ${length} of ${bytes.length} bytes`
    }
    if (how === 'swap') {
      const others = names.filter((other) => other !== name && path.extname(other) === path.extname(name))
      if (others.length === 0) return null
      const other = rng.pick(others)
      writeFileSync(file, readFileSync(path.join(dir, other)))
      return `damage-sidecar ${name}: replaced by ${other}`
    }
    const high = highWater(world.stateDir) + 1_000_000 + rng.int(0, 1000)
    const headerEnd = bytes.indexOf(0x0a)
    if (headerEnd < 0) return null
    const header = JSON.parse(bytes.toString('utf8', 0, headerEnd)) as Record<string, unknown>
    let line = JSON.stringify({...header, highWater: high})
    // the views' header is padded to a fixed length: kept so
    if (name.endsWith('.views')) {
      if (line.length > headerEnd) return null
      line = line.padEnd(headerEnd, ' ')
    }
    writeFileSync(file, Buffer.concat([Buffer.from(line), bytes.subarray(headerEnd)]))
    return `damage-sidecar ${name}: high water ${high} (ids up to ${highWater(world.stateDir)})`
  } catch {
    return null // merged away meanwhile
  }
}

/** The kept listing's journal of starts damaged: every damage must read as a break in its chain. */
function damageJournal(world: World, rng: Rng): string | null {
  const file = path.join(summaryDir(world.stateDir), 'listing.journal')
  try {
    const text = readFileSync(file, 'utf8')
    const lines = text.split('\n').filter(Boolean)
    const how = rng.weighted({cut: 2, swap: 1, repeat: 1, copy: 1})
    if (how === 'cut') {
      if (text.length === 0) return null
      const length = rng.int(0, text.length - 1)
      truncateSync(file, length)
      return `damage-journal: cut to ${length} of ${text.length} bytes`
    }
    if (how === 'copy') {
      // the same lines in another file (another identity): not the journal the kept listing names
      copyFileSync(file, `${file}.copy`)
      renameSync(`${file}.copy`, file)
      return `damage-journal: copied to a new file (${lines.length} lines)`
    }
    if (lines.length < (how === 'swap' ? 2 : 1)) return null
    const k = rng.int(0, lines.length - (how === 'swap' ? 2 : 1))
    if (how === 'swap') [lines[k], lines[k + 1]] = [lines[k + 1], lines[k]]
    else lines.splice(k + 1, 0, lines[k])
    writeFileSync(file, lines.map((line) => `${line}\n`).join(''))
    return `damage-journal: line ${k + 1} of ${lines.length} ${how === 'swap' ? 'swapped with the next' : 'repeated'}`
  } catch {
    return null // no kept listing yet, or replaced meanwhile
  }
}

/** `quiet`: at the round's quiet point, where the checker lists again right after. */
export async function injectSummaryFault(world: World, rng: Rng, round: number, fault: SummaryFault, quiet = false): Promise<string | null> {
  switch (fault) {
    case 'truncate-summary': {
      const segs = segments(world.stateDir)
      if (segs.length === 0) return null
      const {name} = rng.pick(segs)
      const file = path.join(summaryDir(world.stateDir), name)
      try {
        const size = statSync(file).size
        const length = rng.int(0, Math.max(0, size - 1))
        truncateSync(file, length)
        return `truncate-summary ${name} to ${length} of ${size} bytes`
      } catch {
        return null // compacted away meanwhile
      }
    }
    case 'future-summary':
      return writeFutureSegment(world, rng)
    case 'delete-summary': {
      if (!existsSync(summaryDir(world.stateDir))) return null
      rmSync(summaryDir(world.stateDir), {recursive: true, force: true})
      return 'delete-summary'
    }
    case 'damage-sidecar':
      return damageSidecar(world, rng)
    case 'kill-list':
      return killList(world, rng, round, quiet)
    case 'kill-start':
      return killStart(world, rng, round)
    case 'crash-after-id': {
      // what a start killed right after taking its id leaves (drover's own
      // allocation: the folder made, the mark raised; no record, no hint) —
      // a moment a kill from outside rarely lands in
      try {
        return `crash-after-id: id ${allocateTaskId(world.stateDir)} taken, its folder left empty`
      } catch {
        return null // a full disk
      }
    }
    case 'damage-journal':
      return damageJournal(world, rng)
    case 'crash-before-note': {
      // what a start killed between its folder and its line in the kept
      // listing's journal leaves: the hint and the folder, no line, no mark
      const id = highWater(world.stateDir) + 1
      try {
        markLive(world.stateDir, id)
        mkdirSync(path.join(world.stateDir, 'tasks', String(id)), {mode: 0o700})
      } catch {
        return null // taken by a start meanwhile, or a full disk
      }
      return `crash-before-note: folder ${id} made, no journal line`
    }
    case 'fold': {
      const r = await world.drover(round, 'fault', ['list'])
      return `fold: drover list → ${r.signal ?? `exit ${r.exitCode}`}`
    }
  }
}
