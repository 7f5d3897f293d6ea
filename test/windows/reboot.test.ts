// A reboot on Windows, simulated under Wine: tasks run on a guest "machine" --
// a Wine prefix of its own, whose wineserver is the guest's whole process
// table -- until `wineserver -k` kills every process in it at once, with no
// chance to record anything. This machine then finds them lost (their pids
// mean nothing here, or another process's), and `resume --interrupted` brings
// back exactly those that were meant to run. Only under Wine
// (scripts/test-windows.mjs provides the guest); a real machine cannot be
// rebooted by its own test suite.

import {mkdtempSync, readFileSync} from 'node:fs'
import path from 'node:path'
import {afterAll, describe, expect, it} from 'vitest'

import {drover, fixture, json, readTask, waitFor} from '../helpers/cli.js'
import {cleanUp, guestDrover, guestMachine, hostRun, linuxPath} from './helpers.js'

const guest = guestMachine()
const made: string[] = []
afterAll(() => cleanUp(made))

describe.runIf(guest !== null)('after a reboot (the guest machine killed whole by wineserver -k)', () => {
  it('the tasks that were running show lost, and resume --interrupted brings back exactly those', async () => {
    const g = guest!
    // On Z:, so the guest and this machine see the same state dir.
    const dir = mkdtempSync(path.win32.join(g.shared, 'reboot-state-'))
    made.push(dir)
    const env = {FAKE_AGENT_TURNS: '100000', FAKE_AGENT_TURN_MS: '200'}
    const start = async (args: string[]) => {
      const r = await guestDrover(g, dir, ['start', ...args], env)
      expect(r.exitCode, r.stdout).toBe(0)
      return Number(r.stdout.trim().split(/\r?\n/).pop())
    }
    const generic = ['--', 'node.exe', fixture('agent-generic.mjs')]
    const running = await start(['--name', 'running', ...generic])
    const stopped = await start(['--name', 'stopped', ...generic])
    const finished = await start(['--name', 'finished', '--', 'cmd', '/c', 'echo done'])
    const output = (id: number) => readFileSync(path.join(dir, 'tasks', String(id), 'output.log'), 'utf8')
    await waitFor(() => /count 2\r?\n/.test(output(running)), {timeout: 60_000, interval: 250, message: 'the guest task to count'})
    expect((await guestDrover(g, dir, ['stop', String(stopped)])).exitCode).toBe(0)
    await waitFor(() => readTask(dir, finished).status === 'succeeded', {timeout: 30_000, message: 'the short task to finish'})
    expect(readTask(dir, running)).toMatchObject({status: 'running', desired: 'running'})

    // The reboot: every process of the guest dies at once.
    const kill = await hostRun(g, ['wineserver', '-k'], {WINEPREFIX: linuxPath(g.prefix)})
    expect(kill.status, kill.output).toBe(0)
    await hostRun(g, ['wineserver', '-w'], {WINEPREFIX: linuxPath(g.prefix)})

    const listed = json<any[]>(await drover(dir, ['list', '--json']))
    const byId = new Map(listed.map((t) => [t.id, t]))
    expect(byId.get(running)).toMatchObject({status: 'lost', desired: 'running'})
    expect(byId.get(stopped)).toMatchObject({status: 'stopped'})
    expect(byId.get(finished)).toMatchObject({status: 'succeeded'})

    const resumed = await drover(dir, ['resume', '--interrupted', '--json'], {env})
    expect(resumed.exitCode, resumed.stderr).toBe(0)
    expect(json(resumed).resumed.map((t: any) => t.id)).toEqual([running])
    expect(readTask(dir, running).runs.at(-1)).toMatchObject({run: 2, resumed: true})
    await waitFor(() => /resuming at count [1-9]\d*\r?\n/.test(output(running)), {timeout: 60_000, interval: 250, message: 'the task to resume its count here'})
    expect(readTask(dir, stopped).runs).toHaveLength(1)
    const again = json(await drover(dir, ['resume', '--interrupted', '--json']))
    expect(again.resumed).toEqual([])
    expect((await drover(dir, ['cancel', String(running)])).exitCode).toBe(0)
  })
})
