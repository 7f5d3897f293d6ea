// Choosing the tasks a command acts on: explicit ids/names, or --all of those
// in given statuses. Every ref is parsed before anything happens, so a typo
// changes nothing on disk.

import {notFoundError, usageError, DroverError, type MissingRef} from '../base/errors.js'
import {parseTaskRef} from '../base/parse.js'
import type {TaskRecord, TaskStatus} from '../state/record.js'
import {findTask} from './lookup.js'
import {loadTasks} from './read.js'
import {loadLiveTasks, onlyLiveStatuses} from './live-tasks.js'
import {reconcile} from './reconcile.js'
import {isFinalStatus} from '../state/record.js'
import {isEngineQueued} from '../runner/executor.js'
import {requireQueue} from './queues.js'
import {groupTasks, resolveGroup} from './groups.js'

export interface Selection {
  tasks: TaskRecord[]
  /** refs that named no task (reported, exit 3). */
  missing: MissingRef[]
}

export async function selectTasks(
  stateDir: string,
  refs: string[],
  opts: {all?: boolean; queue?: string; group?: string; allStatuses?: readonly TaskStatus[]; what: string},
): Promise<Selection> {
  const given = [refs.length > 0 && 'task ids', opts.all && '--all', opts.queue !== undefined && '--queue', opts.group !== undefined && '--group'].filter(Boolean)
  if (given.length > 1) throw usageError(`give ${given.join(' or ')}, not both`)
  if (given.length === 0) throw usageError(`no task given: name the tasks to ${opts.what} (ids or names), or use --all, --queue NAME or --group NAME`)
  for (const ref of refs) parseTaskRef(ref)
  // --queue NAME: what --all would take, of that queue only (`cancel --queue q` clears a backlog)
  if (opts.queue !== undefined) requireQueue(stateDir, opts.queue, 'see them all with: drover queue')
  // --group NAME: what --all would take, of that group only (a group no task bears is not found, exit 3)
  const group = opts.group === undefined ? undefined : resolveGroup(stateDir, opts.group)
  if (opts.all || opts.queue !== undefined || group !== undefined) {
    // Queued tasks are included, so `stop --all` and `cancel --all` also end
    // what would start later; `drain --all` leaves them queued (nothing of
    // theirs runs, and they carry on by themselves after a reboot). A task
    // waiting out a usage limit is live work: every --all reaches it.
    const statuses =
      opts.allStatuses ?? (opts.what === 'drain' ? ['starting', 'running', 'stopping', 'waiting'] : ['queued', 'starting', 'running', 'stopping', 'waiting'])
    // A job still waiting in Slurm's queue counts as queued, as it is shown.
    const chosen = (record: TaskRecord) =>
      statuses.includes(record.status) &&
      !(opts.what === 'drain' && isEngineQueued(record)) &&
      (opts.queue === undefined || record.queue === opts.queue) &&
      (group === undefined || record.group === group)
    // Live statuses only (stop, cancel, drain): the live tasks are all there is to read, however many ended beside them.
    const reads = onlyLiveStatuses(statuses) ? await loadLiveTasks(stateDir) : await loadTasks(stateDir)
    const tasks = reads.flatMap((read) => (read.ok && chosen(read.record) ? [read.record] : []))
    // none of the group at work: a group that is there but done is nothing to do; a name no task bears is a typo (exit 3)
    if (group !== undefined && tasks.length === 0 && !reads.some((read) => read.ok && read.record.group === group)) await groupTasks(stateDir, group)
    return {tasks, missing: []}
  }
  const tasks: TaskRecord[] = []
  const missing: MissingRef[] = []
  const seen = new Set<number>()
  for (const ref of refs) {
    let read
    try {
      read = findTask(stateDir, ref)
    } catch (error) {
      if (error instanceof DroverError && error.exitCode === notFoundError(ref).exitCode) {
        missing.push(error.data as unknown as MissingRef)
        continue
      }
      throw error
    }
    if (!read.ok) throw new DroverError(`task ${read.id} is corrupt: ${read.error}`, 1, {id: read.id, status: 'corrupt'})
    if (seen.has(read.id)) continue
    seen.add(read.id)
    tasks.push(isFinalStatus(read.record.status) ? read.record : await reconcile(stateDir, read.record))
  }
  return {tasks, missing}
}
