// The derived index through the CLI (issue 38): it holds nothing that
// depends on which command a user runs — a script that never runs the default
// `list` leaves no hints of ended tasks behind either — and it never hides a
// record changed or damaged by hand after it was indexed: every view,
// prune and doctor see the record as it is now.

import {existsSync, readdirSync, readFileSync, writeFileSync} from 'node:fs'
import path from 'node:path'
import {afterEach, describe, expect, it, vi} from 'vitest'
import {ensureStateDir} from '../../src/state/statedir.js'
import {cleanupStateDirs, drover, json, makeStateDir, readTask, waitFor, startOk} from '../helpers/cli.js'

const node = process.execPath
vi.setConfig({testTimeout: 120_000})
afterEach(() => cleanupStateDirs())


const hints = (dir: string) => readdirSync(path.join(dir, 'live'))
const segments = (dir: string) => readdirSync(path.join(dir, 'index')).filter((name) => name.startsWith('seg-'))
/** Every runner gone: it removes its runner.json as its last write of the task folder. */
const runnersGone = (dir: string, ids: number[]) =>
  waitFor(() => ids.every((id) => !existsSync(path.join(dir, 'tasks', String(id), 'runner.json'))), {timeout: 30_000, message: 'the runners to exit'})

describe('the derived index through the CLI', () => {
  it('a record damaged after it was indexed is seen damaged by list --json, list --status, prune and doctor, and prune --include-corrupt removes it', async () => {
    const dir = makeStateDir()
    ensureStateDir(dir)
    const id = await startOk(dir, ['--', 'sh', '-c', 'echo x'])
    const kept = await startOk(dir, ['--', 'sh', '-c', 'echo y'])
    for (const t of [id, kept]) await waitFor(() => readTask(dir, t).status === 'succeeded', {timeout: 30_000, message: `task ${t} to end`})
    await runnersGone(dir, [id, kept])
    expect((await drover(dir, ['list'])).exitCode).toBe(0) // folds both into the index
    expect(hints(dir)).toEqual([])
    expect(segments(dir).length).toBeGreaterThan(0)
    writeFileSync(path.join(dir, 'tasks', String(id), 'task.json'), 'garbage\n')

    const listed = json(await drover(dir, ['list', '--json']))
    expect(listed.find((t: any) => t.id === id)).toMatchObject({status: 'corrupt'})
    expect(listed.find((t: any) => t.id === kept)).toMatchObject({status: 'succeeded'})
    const succeeded = json(await drover(dir, ['list', '--status', 'succeeded', '--json']))
    expect(succeeded.map((t: any) => t.id)).toEqual([kept])
    expect((await drover(dir, ['list', '-q'])).stdout.trim().split('\n').map(Number)).toEqual([id, kept])

    const dry = json(await drover(dir, ['prune', '--keep', '0', '--dry-run', '--json']))
    expect(dry.removed.map((r: any) => r.id)).toEqual([kept])
    expect(dry.corrupt.map((c: any) => c.id)).toEqual([id])

    const doctor = await drover(dir, ['doctor'])
    expect(doctor.stdout + doctor.stderr).toContain('prune --include-corrupt')
    const pruned = await drover(dir, ['prune', '--include-corrupt', '--json'])
    expect(pruned.exitCode, pruned.stderr).toBe(0)
    expect(json(pruned).removed.map((r: any) => r.id)).toEqual([id])
    expect(existsSync(path.join(dir, 'tasks', String(id)))).toBe(false)
    expect(json(await drover(dir, ['list', '--json'])).map((t: any) => t.id)).toEqual([kept])
  })

  it('a record edited by hand after it was indexed shows as it is now', async () => {
    const dir = makeStateDir()
    ensureStateDir(dir)
    const id = await startOk(dir, ['--name', 'before', '--', node, '-e', '0'])
    await waitFor(() => readTask(dir, id).status === 'succeeded', {timeout: 30_000, message: 'the task to end'})
    await runnersGone(dir, [id])
    expect((await drover(dir, ['list'])).exitCode).toBe(0)
    expect(hints(dir)).toEqual([])
    const file = path.join(dir, 'tasks', String(id), 'task.json')
    writeFileSync(file, readFileSync(file, 'utf8').replace('"before"', '"after"'))
    expect(json(await drover(dir, ['list', '--json']))[0]).toMatchObject({id, name: 'after'})
    expect(json(await drover(dir, ['list', '--all', '--json']))[0]).toMatchObject({id, name: 'after'})
  })

  it('a script that never runs the default list leaves no hint of an ended task behind its list --json, nor behind wait --all', async () => {
    const dir = makeStateDir()
    ensureStateDir(dir)
    const ids = [await startOk(dir, ['--', node, '-e', '0']), await startOk(dir, ['--', node, '-e', 'process.exit(2)'])]
    expect((await drover(dir, ['wait', ...ids.map(String)])).exitCode).not.toBe(124)
    for (const id of ids) expect((await drover(dir, ['status', String(id)])).exitCode).toBe(0)
    await runnersGone(dir, ids)
    const first = json(await drover(dir, ['list', '--json']))
    expect(hints(dir)).toEqual([]) // folded by a look that read them ended (wait's last, or this one)
    // one segment per fold that found ended tasks: wait's, a status's or this one's, as the two ends fell
    expect(segments(dir).length).toBeGreaterThanOrEqual(1)
    expect(segments(dir).length).toBeLessThanOrEqual(ids.length)
    expect(json(await drover(dir, ['list', '--json']))).toEqual(first)

    const more = [await startOk(dir, ['--', node, '-e', '0'])]
    expect((await drover(dir, ['wait', '--all'])).exitCode).toBe(0)
    await runnersGone(dir, more)
    expect((await drover(dir, ['wait', '--all'])).exitCode).toBe(0)
    expect(hints(dir)).toEqual([])
  })
})
