// Groups: the tasks whose records bear one group's name (`start --group`, a
// fan-out's attempts). A group has no file of its own, as a name has none: it
// is there while a task bears it, and goes with the last one removed. Commands
// name one with `--group G`, where G is the group's name or a task (an id,
// :latest) standing for the group it is in.

import {DroverError, ExitCode} from '../base/errors.js'
import {isValidTaskName, LATEST_REF, parseGroupName} from '../base/parse.js'
import {suggest} from '../base/suggest.js'
import type {TaskRecord} from '../state/record.js'
import type {RecordRead} from '../state/store.js'
import {findTask} from './lookup.js'
import {loadTasks} from './read.js'

/**
 * The group `ref` names: a group's name as it is, or the group of the task an
 * id or :latest names (`drover compare 12`, task 12 being an attempt). A task
 * in no group, or no such task, is not found (exit 3).
 */
export function resolveGroup(stateDir: string, ref: string): string {
  if (typeof ref === 'string' && (ref === LATEST_REF || /^[0-9]+$/.test(ref))) {
    const read = findTask(stateDir, ref)
    if (!read.ok) throw new DroverError(`task ${read.id} is corrupt: ${read.error}`, ExitCode.failed, {id: read.id, status: 'corrupt'})
    if (!read.record.group) throw new DroverError(`task ${read.id} is in no group`, ExitCode.notFound, {id: read.id, found: true, group: null})
    return read.record.group
  }
  if (typeof ref !== 'string' || !isValidTaskName(ref)) parseGroupName(String(ref))
  return ref
}

/**
 * Every task of the group, ascending by id, reconciled as any full read is.
 * None at all: not found (exit 3), with the group meant when one is a typo away.
 */
export async function groupTasks(stateDir: string, group: string, reads?: RecordRead[]): Promise<TaskRecord[]> {
  const all = reads ?? (await loadTasks(stateDir))
  const members = all.flatMap((read) => (read.ok && read.record.group === group ? [read.record] : []))
  if (members.length === 0) throw noSuchGroup(group, all)
  return members
}

/** The error for a group no task bears, with a did-you-mean among the groups of `reads`. */
export function noSuchGroup(group: string, reads: RecordRead[]): DroverError {
  const known = new Set<string>()
  for (const read of reads) if (read.ok && read.record.group) known.add(read.record.group)
  const near = suggest(group, [...known])
  return new DroverError(`no such group: ${group} (no task is in it${near ? `; did you mean ${near}?` : ''})`, ExitCode.notFound, {
    group,
    found: false,
    ...(near ? {didYouMean: near} : {}),
  })
}
