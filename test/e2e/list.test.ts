// `drover list` as a person and a script see it: tables that fit a real
// terminal (a pseudo-terminal from `script`), outcomes in the status column,
// one time style, and the default view at scale — the live tasks and the
// newest ended ones, a count of the rest on stderr, everything for -q and --json.

import {execa} from 'execa'
import {existsSync, readdirSync, readFileSync, writeFileSync} from 'node:fs'
import path from 'node:path'
import {afterEach, describe, expect, it, vi} from 'vitest'
import {ensureStateDir} from '../../src/state/statedir.js'
import {taskPaths} from '../../src/state/store.js'
import {makeTask} from '../fixtures/prune-state.js'
import {BIN, cleanupStateDirs, drover, fixture, isAlive, json, makeStateDir, makeTempDir, readTask, waitFor, startOk} from '../helpers/cli.js'

const node = process.execPath
vi.setConfig({testTimeout: 120_000})
afterEach(() => cleanupStateDirs())


const waitFinal = (stateDir: string, id: number) =>
  waitFor(() => !['starting', 'running', 'stopping'].includes(readTask(stateDir, id).status), {timeout: 30_000, message: `task ${id} to end`})

const quote = (arg: string) => `'${arg.replace(/'/g, `'\\''`)}'`

/** `drover ARGS` on a pseudo-terminal `columns` wide; the lines as the terminal got them. */
async function onTerminal(stateDir: string, columns: number, args: string[]): Promise<string[]> {
  const command = `stty cols ${columns} rows 50; ${[node, BIN, ...args].map(quote).join(' ')}`
  const r = await execa('/usr/bin/script', ['-qfc', command, '/dev/null'], {
    env: {DROVER_STATE_DIR: stateDir, NO_COLOR: '1', TERM: 'xterm'},
    reject: false,
    stdin: 'ignore',
    timeout: 60_000,
  })
  expect(r.exitCode, String(r.stdout)).toBe(0)
  return String(r.stdout).replace(/\r/g, '').trimEnd().split('\n')
}

const LONG_NAME = 'n' + 'x'.repeat(63)

describe.runIf(process.platform === 'linux' && existsSync('/usr/bin/script'))('list on a terminal', () => {
  it('a 64-character name and a long command never wrap a row at 80 or 50 columns; piped, values stay whole', async () => {
    const dir = makeStateDir()
    const long = await startOk(dir, ['--name', LONG_NAME, '--', 'sh', '-c', 'echo "a rather long command line that goes on and on"; exit 3'])
    const live = await startOk(dir, ['--name', 'short', '--', node, fixture('sleeper.mjs')])
    await waitFinal(dir, long)
    for (const columns of [80, 50]) {
      const lines = await onTerminal(dir, columns, ['list'])
      expect(lines, lines.join('\n')).toHaveLength(3)
      for (const line of lines) expect([...line].length, `${columns}: ${line}`).toBeLessThan(columns)
      expect(lines[1]).toMatch(new RegExp(`^${long} +nx+… +failed \\(3\\) .*…$`))
      expect(lines[2]).toMatch(new RegExp(`^${live} +short +running `))
    }
    const piped = await drover(dir, ['list'])
    expect(piped.stdout).toContain(LONG_NAME)
    expect(piped.stdout).toContain(`sh -c 'echo "a rather long command line that goes on and on"; exit 3'`)
    expect(piped.stdout).not.toContain('…')
  })
})

describe('list shows how tasks ended', () => {
  it('failed (3), stopped, failed (timeout), succeeded; status words said once; one time style', async () => {
    const dir = makeStateDir()
    const failed = await startOk(dir, ['--', 'sh', '-c', 'exit 3'])
    const ok = await startOk(dir, ['--', 'true'])
    const stopped = await startOk(dir, ['--', node, fixture('sleeper.mjs')])
    const timedOut = await startOk(dir, ['--timeout', '1s', '--', node, fixture('sleeper.mjs')])
    const stop = await drover(dir, ['stop', String(stopped)])
    expect(stop.stdout).toBe(`task ${stopped} stopped (by request)`)
    for (const id of [failed, ok, timedOut]) await waitFinal(dir, id)

    const rows = (await drover(dir, ['list'])).stdout.split('\n').slice(1)
    const statusOf = (id: number) => rows.find((row) => row.startsWith(`${id} `))?.split(/\s{2,}/)[1]
    expect([failed, ok, stopped, timedOut].map(statusOf)).toEqual(['failed (3)', 'succeeded', 'stopped', 'failed (timeout)'])

    const status = (await drover(dir, ['status', String(stopped)])).stdout
    expect(status).toMatch(/^status +stopped$/m)
    expect(status).toMatch(/^reason +by request$/m)
    expect(status).not.toMatch(/stopped by request/)
    expect(status).not.toMatch(/^desired/m) // an ended task is not "desired running"
    // Local time with its age, never the record's UTC ISO string.
    expect(status).toMatch(/^ended +\d{4}-\d\d-\d\d \d\d:\d\d:\d\d \((just now|\d+s ago)\)$/m)
    expect(status).not.toMatch(/\d\dT\d\d:/)
    expect(json(await drover(dir, ['status', String(stopped), '--json'])).endedAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/)

    const again = await drover(dir, ['stop', String(stopped)])
    expect(again.stdout).toBe(`task ${stopped} already ended: stopped (by request)`)
    const live = await startOk(dir, ['--', node, fixture('sleeper.mjs')])
    expect((await drover(dir, ['status', String(live)])).stdout).toMatch(/^desired +running$/m)
    expect((await drover(dir, ['cancel', String(live)])).stdout).toMatch(new RegExp(`^task ${live} cancelled \\(by request(, killed after [\\d.]+ s)?\\)$`))
  })

  it('says an empty result one way: "no tasks in DIR", "no tasks to stop"', async () => {
    const dir = makeStateDir()
    expect(await drover(dir, ['list'])).toMatchObject({exitCode: 0, stdout: '', stderr: `no tasks in ${dir} (from DROVER_STATE_DIR)`})
    for (const verb of ['stop', 'cancel']) expect(await drover(dir, [verb, '--all'])).toMatchObject({exitCode: 0, stdout: '', stderr: `no tasks to ${verb}`})
    expect(await drover(dir, ['list', '-q'])).toMatchObject({exitCode: 0, stdout: '', stderr: ''})
  })
})

describe('an empty list names the state dir it read', () => {
  it("in cron's bare environment (no DROVER_STATE_DIR): the default under HOME, on stderr, and that it does not exist; -q and --json print as before; nothing is made", async () => {
    const home = makeTempDir('drover-list-home-')
    const bare = {DROVER_STATE_DIR: '', HOME: home, XDG_DATA_HOME: ''}
    const stateDir = path.join(home, '.local', 'share', 'drover')
    expect(await drover('', ['list'], {env: bare})).toMatchObject({exitCode: 0, stdout: '', stderr: `no tasks in ${stateDir} (the per-OS default; DROVER_STATE_DIR is not set; it does not exist yet)`})
    expect(await drover('', ['list', '-q'], {env: bare})).toMatchObject({exitCode: 0, stdout: '', stderr: ''})
    expect(await drover('', ['list', '--json'], {env: bare})).toMatchObject({exitCode: 0, stdout: '[]', stderr: ''})
    const flagged = path.join(home, 'other')
    expect(await drover('', ['list', '--state-dir', flagged, '--status', 'failed'], {env: bare})).toMatchObject({
      stdout: '',
      stderr: `no tasks with status failed in ${flagged} (from --state-dir; it does not exist yet)`,
    })
    // (HOME may get Node's code cache, .cache: not a state dir)
    expect(existsSync(path.join(home, '.local'))).toBe(false)
    // one that exists is named without the remark
    ensureStateDir(flagged)
    expect((await drover('', ['list', '--state-dir', flagged], {env: bare})).stderr).toBe(`no tasks in ${flagged} (from --state-dir)`)
  })
})

describe('list at scale', () => {
  it('shows the live tasks and the 20 newest ended ones, counts the rest on stderr; -q and --json stay complete', async () => {
    const dir = makeStateDir()
    ensureStateDir(dir)
    const live = await startOk(dir, ['--', node, fixture('sleeper.mjs')])
    const ended = Array.from({length: 45}, (_, i) => makeTask(dir, {status: i % 3 === 0 ? 'failed' : 'succeeded'}))
    const ids = [live, ...ended]

    const shownIds = (stdout: string) => stdout.trimEnd().split('\n').slice(1).map((line) => Number(line.split(' ')[0]))
    const table = await drover(dir, ['list'])
    expect(table.exitCode).toBe(0)
    expect(shownIds(table.stdout)).toEqual([live, ...ended.slice(-20)])
    expect(table.stderr).toBe('25 older ended tasks not shown (--last N shows more); every task: drover list --all')

    expect((await drover(dir, ['list', '-q'])).stdout.split('\n').map(Number)).toEqual(ids)
    expect(json(await drover(dir, ['list', '--json'])).map((t: any) => t.id)).toEqual(ids)
    const all = await drover(dir, ['list', '--all'])
    expect([shownIds(all.stdout), all.stderr]).toEqual([ids, ''])
    const last = await drover(dir, ['list', '--last', '3'])
    expect(shownIds(last.stdout)).toEqual([live, ...ended.slice(-3)])
    expect(last.stderr).toMatch(/^42 older ended tasks not shown/)
    expect(json(await drover(dir, ['list', '--last', '2', '--json'])).map((t: any) => t.id)).toEqual([live, ...ended.slice(-2)])
    expect((await drover(dir, ['list', '--last', '0', '-q'])).stdout).toBe(String(live))
    const failedOnly = await drover(dir, ['list', '--status', 'failed', '--last', '2'])
    expect(shownIds(failedOnly.stdout)).toEqual(ended.filter((_, i) => i % 3 === 0).slice(-2))
    expect((await drover(dir, ['list', '--all', '--last', '2'])).exitCode).toBe(2)

    // A live task whose runner and worker die (a reboot) is found by its runner.json, however old its id, and shown lost.
    const runner = JSON.parse(readFileSync(taskPaths(dir, live).runner, 'utf8'))
    const worker = readTask(dir, live).worker.pid
    process.kill(runner.pid, 'SIGKILL')
    process.kill(-worker, 'SIGKILL')
    await waitFor(() => !isAlive(runner.pid) && !isAlive(worker), {timeout: 10_000, message: 'runner and worker to die'})
    const after = await drover(dir, ['list'])
    expect(after.stdout).toMatch(new RegExp(`^${live}\\s+lost\\s`, 'm'))
    expect(shownIds(after.stdout)).toEqual([live, ...ended.slice(-20)])
  })

  it('an old task started again shows while it runs; once stopped it is among the hidden again', async () => {
    const dir = makeStateDir()
    ensureStateDir(dir)
    const old = await startOk(dir, ['--', node, fixture('sleeper.mjs')])
    expect((await drover(dir, ['stop', String(old)])).exitCode).toBe(0)
    const ended = Array.from({length: 25}, () => makeTask(dir, {status: 'succeeded'}))
    const shownIds = async () => (await drover(dir, ['list'])).stdout.trimEnd().split('\n').slice(1).map((line) => Number(line.split(' ')[0]))
    expect(await shownIds()).toEqual(ended.slice(-20))

    expect((await drover(dir, ['start', String(old)])).exitCode).toBe(0)
    expect(await shownIds()).toEqual([old, ...ended.slice(-20)])
    expect(existsSync(path.join(dir, 'live', String(old)))).toBe(true)
    expect((await drover(dir, ['stop', String(old)])).exitCode).toBe(0)
    expect(await shownIds()).toEqual(ended.slice(-20))
    // That list saw it done with and folded its hint into the summary: the index holds what runs.
    expect(readdirSync(path.join(dir, 'live'))).toEqual([])
  })

  it('list --json through the index says what every record says: after folds, builds, a restart of an indexed task, and a damaged segment', async () => {
    const dir = makeStateDir()
    ensureStateDir(dir)
    const ran = [await startOk(dir, ['--name', 'first', '--', node, '-e', 'process.exit(3)']), await startOk(dir, ['--', node, '-e', '0'])]
    for (const id of ran) await waitFinal(dir, id)
    const ended = Array.from({length: 8}, (_, i) => makeTask(dir, {status: i % 2 ? 'failed' : 'stopped'}))
    // Every task as its own record says, by `status --json` (which never reads the index).
    const truth = async () => {
      const all = [...ran, ...ended]
      const tasks = []
      for (const id of all) tasks.push(json(await drover(dir, ['status', String(id), '--json'])))
      return tasks.map((t: any) => ({id: t.id, status: t.status, exitCode: t.exitCode, run: t.run, runtimeMs: t.runtimeMs, name: t.name}))
    }
    const listed = async () => json(await drover(dir, ['list', '--json'])).map((t: any) => ({id: t.id, status: t.status, exitCode: t.exitCode, run: t.run, runtimeMs: t.runtimeMs, name: t.name}))
    expect((await drover(dir, ['list'])).exitCode).toBe(0) // folds every hint of a task done with
    expect(readdirSync(path.join(dir, 'live'))).toEqual([])
    const segments = () => readdirSync(path.join(dir, 'index')).filter((name) => name.startsWith('seg-'))
    expect(segments()).toEqual(['seg-000000000001'])
    expect(await listed()).toEqual(await truth())
    // Started again: its record changes after it was indexed (a second run, another exit).
    expect((await drover(dir, ['start', String(ran[0])])).exitCode).toBe(0)
    await waitFor(() => readTask(dir, ran[0]).runs.length === 2 && readTask(dir, ran[0]).status === 'failed', {timeout: 30_000, message: 'the second run to end'})
    const again = await listed()
    expect(again.find((t: any) => t.id === ran[0]).run).toBe(2)
    expect(again).toEqual(await truth())
    expect((await drover(dir, ['list', '-q'])).stdout.split('\n').map(Number)).toEqual([...ran, ...ended])
    expect((await drover(dir, ['status', 'first', '--json'])).exitCode).toBe(0)
    // A segment cut short: its finder, a full reader, puts the index away, reads every record and indexes them anew.
    const segment = path.join(dir, 'index', 'seg-000000000001')
    writeFileSync(segment, readFileSync(segment).subarray(0, 500))
    expect(await listed()).toEqual(await truth())
    expect(segments()).toEqual(['seg-000000000001'])
    expect(readFileSync(segment).length).toBeGreaterThan(500)
    expect(await listed()).toEqual(await truth())
    expect(json(await drover(dir, ['status', 'first', '--json']))).toMatchObject({id: ran[0], run: 2})
    // beside the segments only the kept listing of tasks/ and its journal, kept once tasks/ stood still for a while (it may not have here)
    const kept = readdirSync(path.join(dir, 'index')).filter((name) => !name.startsWith('seg-'))
    expect(kept.length === 0 || kept.sort().join() === 'journal,listing').toBe(true)
  })
})
