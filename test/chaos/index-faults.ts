// Faults of the derived index (<state>/index/: segments seg-<seq> of ended
// tasks with their record, view, row and name columns, the kept listing of
// tasks/ and its journal of starts — a cache list-like reads use in place of
// every task.json): a segment truncated at a random length, a segment "from
// the future" (its high water above the ids handed out: copied in, or left
// by a state dir restored from an older backup), the index deleted whole, a
// segment damaged in one of its parts, the kept listing or its journal
// damaged (index-damage.ts), and drover commands SIGKILLed — or frozen,
// then killed — while they fold hints into a new segment, build one or
// compact (a prune's end), and starts killed on their first change in
// live/, tasks/ or index/, just after taking their id, or between their
// folder and its line in the journal.
// None of these may change what `list --json` shows (invariants.ts, `list`).

import type {ChildProcess} from 'node:child_process'
import {existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, truncateSync, watch, writeFileSync, type FSWatcher} from 'node:fs'
import path from 'node:path'
import {indexRender} from '../../src/api/row-cells.js'
import {packIndexFile, readIndexFile, STAMP_FIELDS, stampOf, type RecordStamp} from '../../src/state/index-format.js'
import {markLive} from '../../src/state/live-index.js'
import type {TaskRecord} from '../../src/state/record.js'
import {allocateTaskId} from '../../src/state/store.js'
import {damageColumn, damageJournal, highWater, indexDir, segmentNames} from './index-damage.js'
import {FINAL} from './invariants.js'
import type {Rng} from './rng.js'
import type {CliRun, World} from './world.js'

export type IndexFault = 'truncate-segment' | 'future-segment' | 'delete-index' | 'damage-column' | 'damage-journal' | 'kill-list' | 'kill-start' | 'crash-after-id' | 'crash-before-note' | 'fold'

/**
 * `fold` is no fault: a default `list` run to its end, the view that folds
 * hints into the index (the actors list with --json only), so the index the
 * faults hit is one in use. The weights are those of the summary's faults
 * the index replaced, in the same order: older seeds draw the same kinds.
 */
export const INDEX_WEIGHTS: Record<IndexFault, number> = {
  'truncate-segment': 3,
  'future-segment': 2,
  'delete-index': 1,
  'damage-column': 2,
  'damage-journal': 2,
  'kill-list': 4,
  'kill-start': 2,
  'crash-after-id': 1,
  'crash-before-note': 1,
  fold: 3,
}

const seqOf = (name: string) => Number(name.slice('seg-'.length))

interface StampedRecord {
  record: Record<string, unknown>
  stamp: RecordStamp
}

/** Ended records on disk now, parsed as they are, each with its file's stamp taken before it was read (as drover stamps them). */
function endedRecords(stateDir: string): StampedRecord[] {
  const records: StampedRecord[] = []
  let names: string[] = []
  try {
    names = readdirSync(path.join(stateDir, 'tasks')).filter((name) => /^[1-9]\d*$/.test(name))
  } catch {
    return records
  }
  for (const name of names) {
    const file = path.join(stateDir, 'tasks', name, 'task.json')
    try {
      const stamp = stampOf(statSync(file))
      const record = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>
      if (FINAL.has(record.status as string)) records.push({record, stamp})
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
 * A segment as drover packs one (index.ts, writeSegment): every column, the
 * view and row rendered by the API's own renderer and named by its version,
 * so a reader that skipped a check would show these entries as they are.
 */
function packSegment(seq: number, high: number, entries: StampedRecord[]): Buffer {
  const sorted = [...entries].sort((a, b) => (a.record.id as number) - (b.record.id as number))
  const stamps = new Float64Array(sorted.length * STAMP_FIELDS)
  sorted.forEach(({stamp}, k) => stamps.set(stamp, k * STAMP_FIELDS))
  const views = sorted.map(({record}) => {
    try {
      return indexRender.view(record as unknown as TaskRecord)
    } catch {
      return null // not a record the renderer takes: the entry has no view
    }
  })
  const rows = views.map((view) => {
    const cells = view ? indexRender.row(Buffer.from(view)) : null
    return cells && !cells.some((cell) => /[\t\n]/.test(cell)) ? cells.join('\t') : null
  })
  const columns = {record: sorted.map(({record}) => JSON.stringify(record)), view: views, row: rows, name: sorted.map(({record}) => (record.name as string | null) ?? null)}
  return packIndexFile({kind: 'segment', seq, highWater: high, render: indexRender.version}, sorted.map(({record}) => record.id as number), stamps, columns)
}

/**
 * A segment written as drover writes one, with a seq above every seq there
 * is. Either its high water is beyond reach (ids will not catch up within a
 * run) and it holds altered entries for tasks that exist, under the stamps
 * their task.json files have now — a reader must ignore it, and the next one
 * holding the index lock rebuild — or it is just above the ids handed out
 * and holds entries for ids not handed out yet (stamps of other tasks'
 * files): the tasks later made under those ids write their records (hint
 * first), so their own records and newer segments must win over these
 * entries. Altered entries of existing tasks under a high water the ids can
 * catch up with would be a forged index, which no cheap check can tell from
 * a true one.
 */
function writeFutureSegment(world: World, rng: Rng): string | null {
  const dir = indexDir(world.stateDir)
  const last = highWater(world.stateDir)
  const segs = segmentNames(world.stateDir)
  const seq = Math.max(0, ...segs.map(seqOf)) + rng.int(1, 50)
  const file = path.join(dir, `seg-${String(seq).padStart(12, '0')}`)
  const copied = segs.length > 0 && rng.chance(0.5) ? copiedSegment(world, rng, rng.pick(segs), seq, last + 1_000_000 + rng.int(0, 1000)) : null
  if (copied) {
    try {
      writeFileSync(file, copied.bytes)
    } catch {
      return null
    }
    return `future-segment seq ${seq}: a copy of ${copied.of} (ids up to ${last}), its ${copied.count} entries altered under their stamps, high water beyond reach`
  }
  const ended = endedRecords(world.stateDir)
  if (ended.length === 0) return null
  const unreachable = rng.chance(0.5)
  const high = unreachable ? last + 1_000_000 + rng.int(0, 1000) : last + rng.int(1, 3)
  const entries = unreachable
    ? Array.from({length: rng.int(1, Math.min(5, ended.length))}, () => {
        const {record, stamp} = rng.pick(ended)
        return {record: altered(rng, record), stamp}
      })
    : Array.from({length: high - last}, (_, k) => {
        const {record, stamp} = rng.pick(ended)
        return {record: altered(rng, record, last + 1 + k), stamp}
      })
  const unique = [...new Map(entries.map((entry) => [entry.record.id as number, entry])).values()]
  try {
    if (!existsSync(dir)) return null // no index yet: nothing for a copied-in segment to join
    writeFileSync(file, packSegment(seq, high, unique))
  } catch {
    return null // a full disk, or index/ removed meanwhile
  }
  return `future-segment seq ${seq}, high water ${high} (ids up to ${last}), ${unique.length} entries for ${unreachable ? 'existing tasks, altered under their stamps' : 'ids to come'}`
}

/**
 * Ids a reader may take from a segment now: a segment whose header and ids
 * read names them, and no live hint does (an upper bound: a damaged column,
 * a stamp that no longer holds or a segment from the future puts entries
 * aside). Only counted, to show the `list` invariant compares what the
 * index says.
 */
export function indexedIds(stateDir: string): Set<number> {
  const ids = new Set<number>()
  for (const name of segmentNames(stateDir)) {
    const read = readIndexFile(path.join(indexDir(stateDir), name), [], false)
    if (typeof read === 'object') for (const id of read.ids) ids.add(id)
  }
  try {
    for (const name of readdirSync(path.join(stateDir, 'live'))) ids.delete(Number(name))
  } catch {
    // no live index
  }
  return ids
}

/**
 * An existing segment with every entry's record altered — its view, row and
 * name made anew to match — and its stamps kept, packed under a new seq and
 * a high water the ids will not reach.
 */
function copiedSegment(world: World, rng: Rng, name: string, seq: number, high: number): {bytes: Buffer; of: string; count: number} | null {
  const read = readIndexFile(path.join(indexDir(world.stateDir), name), ['record'])
  if (typeof read === 'string' || !read.columns.record || !read.stamps) return null // damaged by an earlier fault, or merged away
  const {bytes, ends} = read.columns.record
  const entries: StampedRecord[] = []
  try {
    for (let k = 0; k < read.ids.length; k++) {
      const start = k === 0 ? 0 : ends[k - 1] + 1
      if (ends[k] === start) continue
      const record = JSON.parse(bytes.toString('utf8', start, ends[k])) as Record<string, unknown>
      const stamp = Array.from(read.stamps.subarray(k * STAMP_FIELDS, (k + 1) * STAMP_FIELDS)) as RecordStamp
      entries.push({record: altered(rng, record), stamp})
    }
  } catch {
    return null // not drover's shape
  }
  if (entries.length === 0) return null
  return {bytes: packSegment(seq, high, entries), of: name, count: entries.length}
}

/**
 * A drover command that reads the index or folds into it, SIGKILLed on the
 * first change it makes in index/ or live/ (the kept listing's probe, a
 * segment's temp file, its rename, a hint's unlink: mid-fold) — or frozen
 * there a while first, its locks held, so other readers meet them busy — or
 * at a random moment.
 */
async function killList(world: World, rng: Rng, round: number, quiet: boolean): Promise<string> {
  // prune compacts the index at its end; not at the quiet point, whose
  // removals a killed prune would leave unaccounted into the next round
  const choices = [['list'], ['list'], ['list', '--json'], ['list', '-q'], ['list', '--all'], ...(quiet ? [] : [['prune', '--json', '--keep', String(rng.int(3, 10))]])]
  const args = rng.pick(choices)
  // the state dir itself only until index/ exists: its own changes are other commands'
  const dirs = [existsSync(indexDir(world.stateDir)) ? indexDir(world.stateDir) : world.stateDir, path.join(world.stateDir, 'live')]
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
 * A start SIGKILLed on its first change in live/ (its hint, before its
 * folder), in tasks/ (the new task's folder, before its record and its line
 * in the journal) or in index/ (that line, before its id's mark), or later:
 * what a killed start leaves must not be listed from an index entry for its id.
 */
async function killStart(world: World, rng: Rng, round: number): Promise<string> {
  const args = ['start', '--json', '--shell', `sleep 0.${rng.int(1, 9)}`]
  const where = rng.weighted({tasks: 2, live: 1, index: 1})
  const {r, when} = await killMidWrite(world, rng, round, args, [where === 'index' ? indexDir(world.stateDir) : path.join(world.stateDir, where)])
  try {
    const task = JSON.parse(r.stdout) as {id?: number}
    if (typeof task.id === 'number') world.markers.set(task.id, null)
  } catch {
    // killed before it answered: the task, if any, is found by the checker
  }
  return `kill-start drover ${args.join(' ')} ${when.replace('its first change', `its first change in ${where}/`)} → ${r.signal ?? `exit ${r.exitCode}`}`
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

/** `quiet`: at the round's quiet point, where the checker lists again right after. */
export async function injectIndexFault(world: World, rng: Rng, round: number, fault: IndexFault, quiet = false): Promise<string | null> {
  switch (fault) {
    case 'truncate-segment': {
      const segs = segmentNames(world.stateDir)
      if (segs.length === 0) return null
      const name = rng.pick(segs)
      const file = path.join(indexDir(world.stateDir), name)
      try {
        const size = statSync(file).size
        const length = rng.int(0, Math.max(0, size - 1))
        truncateSync(file, length)
        return `truncate-segment ${name} to ${length} of ${size} bytes`
      } catch {
        return null // compacted away meanwhile
      }
    }
    case 'future-segment':
      return writeFutureSegment(world, rng)
    case 'delete-index': {
      if (!existsSync(indexDir(world.stateDir))) return null
      rmSync(indexDir(world.stateDir), {recursive: true, force: true})
      return 'delete-index'
    }
    case 'damage-column':
      return damageColumn(world.stateDir, rng)
    case 'kill-list':
      return killList(world, rng, round, quiet)
    case 'kill-start':
      return killStart(world, rng, round)
    case 'crash-after-id': {
      // what a start killed right after taking its id leaves (drover's own
      // allocation: the hint, the folder and its journal line made, the mark
      // raised; no record) — a moment a kill from outside rarely lands in
      try {
        return `crash-after-id: id ${allocateTaskId(world.stateDir)} taken, its folder left empty`
      } catch {
        return null // a full disk
      }
    }
    case 'damage-journal':
      return damageJournal(world.stateDir, rng)
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
