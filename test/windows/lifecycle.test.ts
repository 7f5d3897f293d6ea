// drover on Windows end to end (run under Wine by scripts/test-windows.mjs, or
// on a real Windows machine): the built CLI under the Windows build of Node
// starts `cmd /c` and node.exe tasks, lists and reports them, follows a log to
// the task's own exit code, applies a timeout, prunes and removes, keeps an
// `-e` value and paths with spaces and non-ASCII characters intact, and puts
// its default state dir under %LOCALAPPDATA%.

import {mkdirSync, mkdtempSync, writeFileSync, existsSync} from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import {afterEach, describe, expect, it} from 'vitest'

import {drover, fixture, json, makeStateDir, readOutput, readTask, startOk, waitFor} from '../helpers/cli.js'
import {alive, cleanUp, waitFinal} from './helpers.js'

const node = process.execPath
const FIXTURES = path.join(import.meta.dirname, 'fixtures')
const made: string[] = []
const stateDir = () => {
  const dir = makeStateDir()
  made.push(dir)
  return dir
}

afterEach(() => cleanUp(made))

describe('start, list, status, logs', () => {
  it('a `cmd /c` task runs to exit 0; list and status report it; its output is in logs', async () => {
    const dir = stateDir()
    const id = await startOk(dir, ['--name', 'hello', '--', 'cmd', '/c', 'echo hello from cmd'])
    expect(await waitFinal(dir, id)).toMatchObject({status: 'succeeded', exitCode: 0, reason: 'exit 0'})
    expect(readOutput(dir, id)).toMatch(/^hello from cmd\r?\n$/)

    const listed = json<any[]>(await drover(dir, ['list', '--json']))
    expect(listed).toEqual([expect.objectContaining({id, name: 'hello', status: 'succeeded', exitCode: 0})])
    const plain = await drover(dir, ['list'])
    expect(plain.exitCode).toBe(0)
    expect(plain.stdout).toMatch(new RegExp(`^\\s*${id}\\s+hello\\s+succeeded`, 'm'))
    const status = await drover(dir, ['status', 'hello'])
    expect(status.stdout).toMatch(/^status\s+succeeded$/m)
    expect(status.stdout).toMatch(/^exit code\s+0$/m)
    const logs = await drover(dir, ['logs', String(id)])
    expect(logs).toMatchObject({exitCode: 0})
    expect(logs.stdout.trim()).toBe('hello from cmd')
  })

  it('a node.exe task: running while it runs, then `logs -f` follows it to the end and exits with its code', async () => {
    const dir = stateDir()
    const gate = path.join(dir, 'gate')
    const id = await startOk(dir, ['--', node, path.join(FIXTURES, 'gate.mjs'), gate, '3'])
    const running = json(await drover(dir, ['status', String(id), '--json']))
    expect(running).toMatchObject({id, status: 'running', runnerAlive: true, workerAlive: true, exitCode: null})
    const worker = readTask(dir, id).worker
    expect(alive(worker)).toBe(true)
    const following = drover(dir, ['logs', '-f', String(id)])
    await waitFor(() => readOutput(dir, id).includes('waiting for the gate'), {timeout: 30_000, message: 'the worker to wait'})
    writeFileSync(gate, '')
    const followed = await following
    expect(followed.exitCode, followed.stderr).toBe(3)
    expect(followed.stdout.split(/\r?\n/).filter(Boolean)).toEqual(['waiting for the gate', 'through the gate'])
    expect(await waitFinal(dir, id)).toMatchObject({status: 'failed', exitCode: 3, reason: 'exit 3'})
    expect(alive(worker)).toBe(false)
    expect((await drover(dir, ['status', '--wait', String(id)])).exitCode).toBe(3)
  })

  it('a program that does not exist fails to start with a clear reason', async () => {
    const dir = stateDir()
    const r = await drover(dir, ['start', '--', 'drover-no-such-program-xyz'])
    expect(r.exitCode).not.toBe(0)
    expect(r.stderr).toMatch(/drover-no-such-program-xyz/)
  })
})

describe('values and paths', () => {
  it('an -e value, a working dir and a state dir with spaces and non-ASCII characters reach the worker intact', async () => {
    const base = mkdtempSync(path.join(os.tmpdir(), 'drover win '))
    made.push(base)
    const dir = path.join(base, 'état des tâches 日本')
    const cwd = path.join(base, 'dossier de travail ü')
    mkdirSync(cwd)
    const script = path.join(cwd, 'montre moi.mjs')
    writeFileSync(script, "console.log(JSON.stringify({greeting: process.env.GREETING, cwd: process.cwd(), argv: process.argv.slice(2)}))\n")
    const value = 'grüße, "quoted" & spaced; 100% 日本'
    const id = await startOk(dir, ['-e', `GREETING=${value}`, '--cwd', cwd, '--', node, script, 'un argument', 'zwei wörter'])
    expect(await waitFinal(dir, id)).toMatchObject({status: 'succeeded', exitCode: 0})
    const seen = JSON.parse(readOutput(dir, id))
    expect(seen).toEqual({greeting: value, cwd, argv: ['un argument', 'zwei wörter']})
    // cmd reads a value from its environment too (ASCII: cmd writes a file in the OEM code page, as on Windows)
    const viaCmd = await startOk(dir, ['-e', 'PLAIN=a b  c', '--', 'cmd', '/c', 'echo [%PLAIN%]'])
    await waitFinal(dir, viaCmd)
    expect(readOutput(dir, viaCmd).trim()).toBe('[a b  c]')
    expect(json<any[]>(await drover(dir, ['list', '--json'])).map((t) => t.id)).toEqual([id, viaCmd])
  })

  it('the default state dir is %LOCALAPPDATA%\\drover\\Data', async () => {
    const local = mkdtempSync(path.join(os.tmpdir(), 'drover-local-'))
    made.push(local)
    const env = {LOCALAPPDATA: local, DROVER_STATE_DIR: ''}
    const r = await drover('', ['start', '--', 'cmd', '/c', 'echo default'], {env})
    expect(r.exitCode, r.stderr).toBe(0)
    const expected = path.join(local, 'drover', 'Data')
    const id = Number(r.stdout.trim())
    expect(existsSync(path.join(expected, 'tasks', String(id), 'task.json'))).toBe(true)
    await waitFinal(expected, id)
    const listed = json<any[]>(await drover('', ['list', '--json'], {env}))
    expect(listed.map((t) => t.id)).toEqual([id])
    made.push(expected)
  })
})

describe('limits and clean-up', () => {
  it('--timeout stops a task that runs too long, and records why', async () => {
    const dir = stateDir()
    const id = await startOk(dir, ['--timeout', '2s', '--', node, fixture('sleeper.mjs')])
    const worker = readTask(dir, id).worker
    const task = await waitFinal(dir, id)
    expect(task).toMatchObject({status: 'failed'})
    expect(task.reason).toMatch(/^timeout\b/)
    expect(alive(worker)).toBe(false)
  })

  it('prune removes ended tasks and never a running one; rm removes the one named', async () => {
    const dir = stateDir()
    const done = await startOk(dir, ['--', 'cmd', '/c', 'exit 0'])
    const failed = await startOk(dir, ['--', 'cmd', '/c', 'exit 5'])
    const running = await startOk(dir, ['--', node, fixture('sleeper.mjs')])
    expect(await waitFinal(dir, failed)).toMatchObject({status: 'failed', exitCode: 5})
    await waitFinal(dir, done)

    const removed = await drover(dir, ['rm', String(failed), '--json'])
    expect(removed.exitCode, removed.stderr).toBe(0)
    expect(existsSync(path.join(dir, 'tasks', String(failed)))).toBe(false)
    const refused = await drover(dir, ['rm', String(running)])
    expect(refused.exitCode).not.toBe(0)

    const pruned = await drover(dir, ['prune', '--keep', '0', '--json'])
    expect(pruned.exitCode, pruned.stderr).toBe(0)
    expect(existsSync(path.join(dir, 'tasks', String(done)))).toBe(false)
    expect(readTask(dir, running).status).toBe('running')
    expect(json<any[]>(await drover(dir, ['list', '--json'])).map((t) => t.id)).toEqual([running])
    expect((await drover(dir, ['cancel', String(running)])).exitCode).toBe(0)
  })
})
