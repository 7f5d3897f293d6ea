// Turning what the user typed (an id or a name) into a task record.

import {DroverError, ExitCode, notFoundError} from '../base/errors.js'
import {parseTaskRef} from '../base/parse.js'
import {suggest} from '../base/suggest.js'
import {isFinalStatus, type TaskRecord} from '../state/record.js'
import {listed} from '../state/layout.js'
import {taskIdsKept} from '../state/index-listing.js'
import {liveHints} from '../state/live-index.js'
import {isRealTaskDir, readRecord, type RecordRead} from '../state/store.js'
import {decodeEntry, indexNames, planTaskReads, textOf} from '../state/index.js'

/**
 * Finds a task by id or name. For a name, a live task wins over finished
 * ones (names are unique only among live tasks), then the newest.
 * Throws: usage error for a malformed ref, not-found (exit 3) otherwise.
 */
export function findTask(stateDir: string, ref: string): RecordRead {
  const parsed = parseTaskRef(ref)
  if (parsed.kind === 'latest') {
    // the highest id there is: the task started last (ids only grow, never reused); a folder
    // whose record is not written yet (a start in progress) is not a task yet
    const ids = taskIdsKept(stateDir)
    for (let i = ids.length - 1; i >= 0; i--) {
      const read = readRecord(stateDir, ids[i])
      if (read.ok || (!read.missing && isRealTaskDir(stateDir, ids[i]))) return read
    }
    throw new DroverError(`no such task: ${ref} (there are no tasks)`, ExitCode.notFound, {id: ref, found: false})
  }
  if (parsed.kind === 'id') {
    const read = readRecord(stateDir, parsed.id)
    if (!read.ok && read.missing) throw notFoundError(ref)
    return read
  }
  const seen = new Set<string>()
  const matches = namedTasks(stateDir, parsed.name, seen, true)
  // the name meant, among those the lookup came across: never a read of its own, so a typo costs what the lookup cost
  if (matches.length === 0) throw notFoundError(ref, suggest(parsed.name, [...seen].filter((other) => other !== parsed.name)))
  const live = matches.filter((m) => !isFinalStatus(m.record.status))
  return (live.length > 0 ? live : matches).at(-1)!
}

/**
 * The tasks named `name`, ascending by id: every task, through the derived
 * index (index.ts) as full listings read them: only the records that bear
 * the name, or that the index does not speak for, are read. Unlike a lookup
 * it does not stat every indexed record when none bears the name: `start
 * --name` asks this of a new name every time, and at 100,000 tasks that
 * sweep cost it 0.7 s (3.5× a start in a dir of 100). Only a record edited
 * by hand, outside drover, after it was indexed escapes it (every write of
 * drover's leaves a live hint first: index.ts rule 1); a lookup still finds it.
 */
export function tasksNamed(stateDir: string, name: string): {ok: true; id: number; record: TaskRecord}[] {
  return namedTasks(stateDir, name, new Set(), false)
}

function namedTasks(stateDir: string, name: string, seen: Set<string>, sweep: boolean): {ok: true; id: number; record: TaskRecord}[] {
  const ids = taskIdsKept(stateDir)
  const hints = liveHints(stateDir)
  // Through the names column of the index where it may be used.
  const index = hints === null ? null : indexNames(stateDir, ids)
  const note = (record: TaskRecord) => {
    if (record.name !== null) seen.add(record.name)
  }
  if (index) {
    const hinted = new Set(hints)
    const matches: {ok: true; id: number; record: TaskRecord}[] = []
    const take = (id: number) => {
      const read = readRecord(stateDir, id)
      if (read.ok) note(read.record)
      if (read.ok && read.record.name === name) matches.push(read)
    }
    for (const id of hinted) if (listed(ids, id)) take(id)
    for (const id of index.unheld(ids)) if (!hinted.has(id)) take(id)
    for (const id of index.named(name)) if (!hinted.has(id) && listed(ids, id)) take(id)
    // Not found: a record edited by hand since it was indexed may bear it (its entry's stamp no longer
    // holds: a stat per entry, paid only here); else the indexed tasks' names make the did-you-mean.
    if (matches.length === 0 && sweep) for (const id of index.changed()) if (!hinted.has(id) && listed(ids, id)) take(id)
    if (matches.length === 0 && sweep) for (const other of index.names()) seen.add(other)
    return matches.sort((a, b) => a.id - b.id)
  }
  const plan = planTaskReads(stateDir, ids, ['record', 'name'])
  const needle = Buffer.from(name)
  const matches: {ok: true; id: number; record: TaskRecord}[] = []
  for (const id of ids) {
    const entry = plan.entryFor(id)
    let read: RecordRead
    if (entry) {
      if (!textOf(entry, 'name')?.equals(needle)) continue
      const record = decodeEntry(entry)
      read = record ? {ok: true, id, record} : readRecord(stateDir, id)
    } else {
      read = readRecord(stateDir, id)
    }
    if (read.ok) note(read.record)
    if (read.ok && read.record.name === name) matches.push(read)
  }
  return matches
}
