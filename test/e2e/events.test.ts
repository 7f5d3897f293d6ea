// Drover.events() with the options a live view starts from: `initial`
// reports the tasks already there (and onReady says when that first look is
// done), `updates` reports a record that changed without a status change —
// a fake claude's turns as it works.

import {existsSync, readdirSync, utimesSync, writeFileSync} from 'node:fs'
import path from 'node:path'
import {afterEach, describe, expect, it} from 'vitest'
import {openStateDir, type TaskEvent} from '../../src/api/index.js'
import {cleanupStateDirs, drover, fixture, json, makeStateDir, readTask, startOk, waitFor} from '../helpers/cli.js'

afterEach(() => cleanupStateDirs())

async function collect(stateDir: string, opts: {initial?: boolean; updates?: boolean}, until: (seen: TaskEvent[]) => boolean, timeout = 20_000) {
  const api = await openStateDir(stateDir)
  const abort = new AbortController()
  const seen: TaskEvent[] = []
  let readyAfter = -1
  const timer = setTimeout(() => abort.abort(), timeout)
  for await (const event of api.events({...opts, signal: abort.signal, pollMs: 50, onReady: () => (readyAfter = seen.length)})) {
    seen.push(event)
    if (until(seen)) break
  }
  clearTimeout(timer)
  return {seen, readyAfter}
}

describe('Drover.events', () => {
  it('among ended tasks left alone (their records not looked at again), reports one started again, a new one and one removed', async () => {
    const stateDir = makeStateDir()
    // long enough that its second run cannot begin and end between two passes (that would be one coalesced change)
    const again = await startOk(stateDir, ['--', 'sleep', '2'])
    const gone = await startOk(stateDir, ['--', 'true'])
    await waitFor(() => readTask(stateDir, again).status === 'succeeded' && readTask(stateDir, gone).status === 'succeeded')
    // list drops their hints; tasks/ then looks long unchanged, so passes reuse its listing and skip the ended records
    await drover(stateDir, ['list'])
    await waitFor(() => !existsSync(path.join(stateDir, 'live', String(again))) && !existsSync(path.join(stateDir, 'live', String(gone))))
    const past = new Date(Date.now() - 60_000)
    utimesSync(path.join(stateDir, 'tasks'), past, past)
    const api = await openStateDir(stateDir)
    const abort = new AbortController()
    const seen: TaskEvent[] = []
    let ready = false
    const watching = (async () => {
      for await (const event of api.events({signal: abort.signal, pollMs: 50, onReady: () => (ready = true)})) seen.push(event)
    })()
    await waitFor(() => ready)
    await new Promise((resolve) => setTimeout(resolve, 300)) // a few passes with nothing changed
    // a run opened inside its folder (tasks/ unchanged): found through its hint
    await drover(stateDir, ['start', String(again)])
    await waitFor(() => seen.some((e) => e.type === 'ended' && e.id === again), {message: 'the restarted task to be reported ending again'})
    expect(seen.find((e) => e.type === 'status' && e.id === again)).toMatchObject({from: 'succeeded'})
    await drover(stateDir, ['rm', String(gone)])
    await waitFor(() => seen.some((e) => e.type === 'removed' && e.id === gone), {message: 'the removal'})
    const added = await startOk(stateDir, ['--', 'true'])
    await waitFor(() => seen.some((e) => e.type === 'created' && e.id === added), {message: 'the new task'})
    abort.abort()
    await watching
  })

  it('with initial, reports every task already there as created, then says it is ready; no end for one that ended before', async () => {
    const stateDir = makeStateDir()
    const live = await startOk(stateDir, ['--', 'sleep', '300'])
    const done = await startOk(stateDir, ['--', 'true'])
    await waitFor(() => readTask(stateDir, done).status === 'succeeded')
    const api = await openStateDir(stateDir)
    const abort = new AbortController()
    const seen: TaskEvent[] = []
    let ready = false
    const watching = (async () => {
      for await (const event of api.events({initial: true, signal: abort.signal, pollMs: 50, onReady: () => (ready = true)})) seen.push(event)
    })()
    await waitFor(() => ready)
    expect(seen.map((e) => `${e.type}:${e.id}`).sort()).toEqual([`created:${done}`, `created:${live}`].sort())
    expect(seen.find((e) => e.id === done && e.type === 'created')).toMatchObject({task: {status: 'succeeded'}})
    // and changes from then on, as without initial
    await drover(stateDir, ['stop', String(live)])
    await waitFor(() => seen.some((e) => e.type === 'ended' && e.id === live))
    abort.abort()
    await watching
  })

  it("with updates, reports an agent's record changing while it runs (turns), and not without", async () => {
    const stateDir = makeStateDir()
    const home = makeStateDir()
    const id = json(
      await drover(stateDir, [
        'start', '--json', '--agent', 'claude', '-e', `HOME=${home}`, '-e', 'FAKE_AGENT_TURNS=40', '-e', 'FAKE_AGENT_TURN_MS=200',
        '--', process.execPath, fixture('agent-claude.mjs'), '-p', 'count', '--output-format', 'stream-json', '--verbose',
      ]),
    ).id
    await waitFor(() => readTask(stateDir, id).status === 'running')
    const turns = (e: TaskEvent) => (e.type === 'updated' ? (e.task.agentInfo?.turns ?? 0) : 0)
    const {seen} = await collect(stateDir, {updates: true}, (s) => s.filter((e) => e.type === 'updated' && turns(e) > 0).length >= 2)
    const updates = seen.filter((e) => e.type === 'updated')
    expect(updates.length).toBeGreaterThanOrEqual(2)
    expect(updates.every((e) => e.id === id)).toBe(true)
    expect(turns(updates.at(-1)!)).toBeGreaterThan(0)
    expect(turns(updates.at(-1)!)).toBeGreaterThanOrEqual(turns(updates[0]))
    const without = await collect(stateDir, {}, () => false, 1500)
    expect(without.seen.filter((e) => (e.type as string) === 'updated')).toEqual([])
    await drover(stateDir, ['cancel', String(id)])
  })

  it("takes the ended tasks the index holds from their stored views on the first look; a record spoilt behind drover's back, or a run opened later, is read", async () => {
    const stateDir = makeStateDir()
    const kept = await startOk(stateDir, ['--', 'true'])
    const other = await startOk(stateDir, ['--', 'false'])
    await waitFor(() => readTask(stateDir, kept).status === 'succeeded' && readTask(stateDir, other).status === 'failed')
    // list folds the ended tasks into the index and drops their hints
    await drover(stateDir, ['list'])
    await waitFor(() => !existsSync(path.join(stateDir, 'live', String(kept))) && !existsSync(path.join(stateDir, 'live', String(other))))
    const first = await collect(stateDir, {initial: true, updates: true}, () => false, 800)
    const created = (look: typeof first) => look.seen.slice(0, look.readyAfter).map((e) => [e.type, e.id, (e as {task: {status: string}}).task.status])
    expect(created(first)).toEqual([
      ['created', kept, 'succeeded'],
      ['created', other, 'failed'],
    ])
    expect(first.seen.slice(first.readyAfter)).toEqual([])
    // the views came from the segment the fold wrote (its view column), not from the records
    expect(readdirSync(path.join(stateDir, 'index')).filter((name) => name.startsWith('seg-'))).toEqual(['seg-000000000001'])
    // A record spoilt behind drover's back (no hint, as no drover write would): its entry names the file's stamp,
    // which no longer holds, so the next first look reads the record as it is now and reports no task there.
    writeFileSync(path.join(stateDir, 'tasks', String(kept), 'task.json'), 'not json')
    const spoilt = await collect(stateDir, {initial: true}, () => false, 800)
    expect(created(spoilt)).toEqual([['created', other, 'failed']])
    // a drover write hints the task first, so the next watcher reads that record
    await drover(stateDir, ['start', String(other)])
    await waitFor(() => readTask(stateDir, other).runs.length === 2 && readTask(stateDir, other).status === 'failed')
    const again = await collect(stateDir, {initial: true}, () => false, 800)
    expect(again.seen.find((e) => e.id === other)).toMatchObject({type: 'created', task: {runs: [{}, {}]}})
  })
})
