// Looking a task up by name through the index beside each summary segment,
// on real state dirs: the index is made once per segment and then used in
// place of the segment, only while the segment keeps its stamp; a hinted task
// is read from its record; names that are keys of the index itself find only
// their own tasks; indexes of merged segments go.

import {cpSync, readdirSync, readFileSync, writeFileSync} from 'node:fs'
import path from 'node:path'
import {afterEach, describe, expect, it} from 'vitest'
import {liveDir, summaryDir} from '../../src/state/layout.js'
import {markLive} from '../../src/state/live-index.js'
import {findTask} from '../../src/tasks/lookup.js'
import {summaryNames} from '../../src/state/name-index.js'
import {ensureStateDir} from '../../src/state/statedir.js'
import {readRecord, tasksDir, writeRecord} from '../../src/state/store.js'
import {listSegments} from '../../src/state/summary.js'
import {loadRecentTasks} from '../../src/tasks/read.js'
import {makeTask} from '../fixtures/prune-state.js'
import {cleanupStateDirs, makeStateDir} from '../helpers/cli.js'

afterEach(() => cleanupStateDirs())

/** Ended tasks named as given (null: no name), each written by drover's writeRecord, then folded into the summary as the default list does. */
async function named(names: (string | null)[], dir = makeStateDir()): Promise<{dir: string; ids: number[]}> {
  ensureStateDir(dir)
  const ids = names.map((name) => {
    const id = makeTask(dir, {status: 'failed'})
    const read = readRecord(dir, id)
    if (!read.ok) throw new Error(read.error)
    writeRecord(dir, {...read.record, name})
    return id
  })
  await loadRecentTasks(dir, 0)
  expect(readdirSync(liveDir(dir))).toEqual([])
  return {dir, ids}
}

const sidecars = (dir: string) => readdirSync(summaryDir(dir)).filter((n) => n.endsWith('.names')).sort()
const found = (dir: string, name: string) => {
  try {
    return findTask(dir, name).id
  } catch {
    return null
  }
}

describe('the name index of the summary', () => {
  it('is made beside a segment at the first lookup, then used in its place', async () => {
    const {dir, ids} = await named(['build', null, 'deploy', 'build'])
    expect(sidecars(dir)).toEqual([])
    expect(found(dir, 'build')).toBe(ids[3]) // the newest of two ended ones
    expect(sidecars(dir)).toEqual(['seg-000000000001.names'])
    expect(summaryNames(dir, ids)!.named('build')).toEqual([ids[0], ids[3]])
    // What is read is the index: one that names another task for `deploy` sends the lookup there
    // (whose record does not bear the name, so nothing is found) — no drover writer would do this.
    const file = path.join(summaryDir(dir), 'seg-000000000001.names')
    writeFileSync(file, readFileSync(file, 'utf8').replace(`"deploy":[${ids[2]}]`, `"deploy":[${ids[1]}]`))
    expect(found(dir, 'deploy')).toBe(null)
  })

  it('is made again when its segment changed (a stamp of its own), and follows a hinted task to its record', async () => {
    const {dir, ids} = await named(['alpha', 'beta'])
    expect(found(dir, 'alpha')).toBe(ids[0])
    const file = path.join(summaryDir(dir), 'seg-000000000001.names')
    writeFileSync(file, readFileSync(file, 'utf8').replace(/"stamp":"[^"]*"/, '"stamp":"0:0:0"').replace(`"alpha":[${ids[0]}]`, '"alpha":[]'))
    expect(found(dir, 'alpha')).toBe(ids[0])
    expect(readFileSync(file, 'utf8')).toContain(`"alpha":[${ids[0]}]`)
    // renamed on disk behind a hint (as a write does first): the record speaks, not the index
    markLive(dir, ids[1])
    const read = readRecord(dir, ids[1])
    if (!read.ok) throw new Error(read.error)
    writeRecord(dir, {...read.record, name: 'gamma'})
    expect(found(dir, 'beta')).toBe(null)
    expect(found(dir, 'gamma')).toBe(ids[1])
  })

  it('gives a name not found the did-you-mean of a summarised task, from the index alone (no record read)', async () => {
    const {dir, ids} = await named(['fix', 'deploy', null, 'ranges'])
    expect(summaryNames(dir, ids)!.names()).toEqual(new Set(['fix', 'deploy', 'ranges']))
    // every summarised record made unreadable: only the index can know the names
    for (const id of ids) writeFileSync(path.join(tasksDir(dir), String(id), 'task.json'), '{torn')
    expect(() => findTask(dir, 'fxi')).toThrow('no such task: fxi (did you mean fix?)')
    expect(() => findTask(dir, 'deplyo')).toThrow('no such task: deplyo (did you mean deploy?)')
    expect(() => findTask(dir, 'zzz')).toThrow(/^no such task: zzz$/)
  })

  it('finds names that are keys of the index itself, or of any object, only as names', async () => {
    const {dir, ids} = await named(['ranges', 'constructor', 'stamp', 'job-1', 'job-10'])
    expect(found(dir, 'ranges')).toBe(ids[0])
    expect(found(dir, 'constructor')).toBe(ids[1])
    expect(found(dir, 'stamp')).toBe(ids[2])
    expect(found(dir, 'job-1')).toBe(ids[3])
    expect(found(dir, 'job-10')).toBe(ids[4])
    expect(found(dir, 'highWater')).toBe(null)
    expect(found(dir, 'job')).toBe(null)
  })

  it('tells which ids no segment speaks for, across segments and the gaps between them, so their records are read', async () => {
    const {dir, ids} = await named(['a', 'b', 'c'])
    // the second task written again: the next segment holds it too, inside the first one's range
    markLive(dir, ids[1])
    const again = readRecord(dir, ids[1])
    if (!again.ok) throw new Error(again.error)
    writeRecord(dir, {...again.record, name: 'b2'})
    const more = await named(['d', 'e'], dir)
    expect(listSegments(dir).seqs.length).toBe(2)
    const [first, second, third] = ids
    const [fourth, fifth] = more.ids
    const index = summaryNames(dir, [...ids, ...more.ids])!
    expect(index.unheld([first, second, third, fourth, fifth])).toEqual([])
    // ids beyond every segment, and below
    expect(index.unheld([first, fifth + 1, fifth + 7])).toEqual([fifth + 1, fifth + 7])
    // a task no segment holds, without a hint (its record copied in by hand): found by name from its record
    const hand = fifth + 3
    cpSync(path.join(tasksDir(dir), String(fifth)), path.join(tasksDir(dir), String(hand)), {recursive: true})
    const read = readRecord(dir, fifth)
    if (!read.ok) throw new Error(read.error)
    writeFileSync(path.join(tasksDir(dir), String(hand), 'task.json'), JSON.stringify({...read.record, id: hand, name: 'by-hand'}))
    expect(found(dir, 'by-hand')).toBe(hand)
  })

  it('is not used, nor the summary, when its high water is above the ids handed out (a summary from the future)', async () => {
    const {dir, ids} = await named(['one'])
    expect(found(dir, 'one')).toBe(ids[0])
    const file = path.join(summaryDir(dir), 'seg-000000000001.names')
    writeFileSync(file, readFileSync(file, 'utf8').replace(/"highWater":\d+/, '"highWater":999999'))
    expect(summaryNames(dir, ids)).toBe(null)
    expect(found(dir, 'one')).toBe(ids[0]) // every record read instead
  })

  it('of a segment merged away is removed', async () => {
    const {dir, ids} = await named(['first'])
    found(dir, 'first')
    await named(['second'], dir)
    expect(listSegments(dir).seqs).toEqual([1, 2])
    writeFileSync(path.join(summaryDir(dir), 'seg-000000000007.names'), 'left by a segment since merged\n')
    expect(found(dir, 'second')).toBe(ids[0] + 1)
    expect(sidecars(dir)).toEqual(['seg-000000000001.names', 'seg-000000000002.names'])
  })
})
