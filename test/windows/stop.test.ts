// Stopping on Windows end to end: `stop` ends a node.exe task and records it
// stopped; `cancel` of a `cmd /c` → node.exe → node.exe tree (the last started
// detached, outside Node's job object) leaves none of them alive; `drain` of a
// worker that reads its control file ends it cooperatively, with a checkpoint.

import {mkdirSync, readFileSync, readdirSync} from 'node:fs'
import path from 'node:path'
import {afterEach, describe, expect, it} from 'vitest'

import {drover, fixture, json, makeStateDir, readTask, startOk, waitFor} from '../helpers/cli.js'
import {alive, cleanUp, identityOf, waitFinal} from './helpers.js'
import type {ProcessIdentity} from '../../src/platform/platform.js'

const node = process.execPath
const made: string[] = []
const stateDir = () => {
  const dir = makeStateDir()
  made.push(dir)
  return dir
}
const runnerOf = (dir: string, id: number): ProcessIdentity => JSON.parse(readFileSync(path.join(dir, 'tasks', String(id), 'runner.json'), 'utf8'))

afterEach(() => cleanUp(made))

describe('stop, cancel, drain', () => {
  it('stop ends a running node.exe task and its runner; the task is recorded stopped', async () => {
    const dir = stateDir()
    const id = await startOk(dir, ['--', node, fixture('sleeper.mjs')])
    const worker = readTask(dir, id).worker
    const runner = runnerOf(dir, id)
    expect(alive(worker)).toBe(true)
    const r = await drover(dir, ['stop', String(id), '-t', '2s', '--json'])
    expect(r.exitCode, r.stderr).toBe(0)
    expect(json(r).results).toEqual([expect.objectContaining({id, status: 'stopped', final: true})])
    expect(readTask(dir, id)).toMatchObject({status: 'stopped', desired: 'stopped'})
    expect(alive(worker)).toBe(false)
    await waitFor(() => !alive(runner), {timeout: 20_000, message: 'runner to exit'})
  })

  it('cancel of a cmd /c → node.exe → node.exe tree leaves nothing of it alive', async () => {
    const dir = stateDir()
    const pids = path.join(dir, 'pids')
    mkdirSync(pids)
    // node.exe as cmd finds it on PATH; no argument needs quotes (cmd /c strips outer ones by its own rules).
    const id = await startOk(dir, ['--', 'cmd', '/c', 'node.exe', path.join(import.meta.dirname, 'fixtures', 'tree.mjs'), pids, '1'])
    const tree = await waitFor(() => readdirSync(pids).length === 2 && ['1', '0'].map((level) => identityOf(Number(readFileSync(path.join(pids, `${level}.pid`), 'utf8')))), {
      timeout: 30_000,
      message: 'both node.exe levels to run',
    })
    const worker = readTask(dir, id).worker as ProcessIdentity
    const runner = runnerOf(dir, id)
    for (const identity of [worker, ...tree]) expect(alive(identity), `pid ${identity.pid}`).toBe(true)
    // No waiting for tree.json: an idle runner on Windows scans its tree once a
    // minute (a PowerShell start each); the cancel reads the tree afresh before
    // it kills, and that is what must reach the detached leaf.

    const r = await drover(dir, ['cancel', String(id), '--json'])
    expect(r.exitCode, r.stderr).toBe(0)
    expect(json(r).results).toEqual([expect.objectContaining({id, status: 'cancelled', final: true})])
    expect(readTask(dir, id)).toMatchObject({status: 'cancelled'})
    for (const identity of [worker, ...tree]) expect(alive(identity), `pid ${identity.pid} after cancel`).toBe(false)
    await waitFor(() => !alive(runner), {timeout: 20_000, message: 'runner to exit'})
  })

  it('drain of a worker that reads its control file: it ends on its own, drained with a cooperative checkpoint', async () => {
    const dir = stateDir()
    const id = await startOk(dir, ['-e', 'FAKE_AGENT_TURNS=100000', '-e', 'FAKE_AGENT_TURN_MS=200', '--', node, fixture('agent-generic.mjs')])
    await waitFor(() => /count 1\r?\n/.test(readFileSync(path.join(dir, 'tasks', String(id), 'output.log'), 'utf8')), {timeout: 30_000, message: 'the worker to count'})
    const worker = readTask(dir, id).worker
    const r = await drover(dir, ['drain', String(id), '--grace', '30s', '--json'])
    expect(r.exitCode, r.stderr).toBe(0)
    const task = await waitFinal(dir, id)
    expect(task).toMatchObject({status: 'drained', reason: 'drained'})
    expect(task.checkpoint).toMatchObject({mode: 'cooperative'})
    expect(readFileSync(path.join(dir, 'tasks', String(id), 'output.log'), 'utf8')).toMatch(/stopped at count \d+/)
    expect(alive(worker)).toBe(false)
  })
})
