// The core end to end, through the built CLI with real detached runners and workers:
// start/list/status/logs, failures to start, the worker's environment and argv, names,
// --follow, --json and exit codes, corrupt records, concurrent starts, and lost runners.

import {spawn} from 'node:child_process'
import {execa} from 'execa'
import {chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync, utimesSync, writeFileSync} from 'node:fs'
import path from 'node:path'
import {afterEach, describe, expect, it, vi} from 'vitest'

import {newRecord} from '../../src/tasks/launch.js'
import {processStartTime} from '../../src/platform/platform.js'
import {ensureStateDir} from '../../src/state/statedir.js'
import {allocateTaskId, createTaskLayout, taskPaths, writeFileAtomic, writeRecord} from '../../src/state/store.js'
import {BIN, cleanupStateDirs, fixture, isAlive, json, killLeftovers, leftoverList, makeStateDir, readOutput, readTask, type CliResult, waitFor} from '../helpers/cli.js'
import {moveTo} from '../helpers/record-moves.js'

const node = process.execPath
const ESC = '\u001B'
const FINAL = ['succeeded', 'failed', 'stopped', 'cancelled', 'drained', 'lost']
const strays = leftoverList()
// Each test runs a dozen CLI processes; on a loaded 2-core machine that can take a while.
vi.setConfig({testTimeout: 150_000})

afterEach(() => {
  killLeftovers(strays)
  cleanupStateDirs()
})

/** Like the shared helper, but keeps stdout byte for byte (execa strips a final newline). */
async function drover(stateDir: string, args: string[], opts: {env?: Record<string, string>; timeout?: number} = {}): Promise<CliResult> {
  const result = await execa(node, [BIN, ...args], {
    env: {DROVER_STATE_DIR: stateDir, NO_COLOR: '1', ...opts.env},
    reject: false,
    stripFinalNewline: false,
    timeout: opts.timeout ?? 60_000,
    stdin: 'ignore',
  })
  return {stdout: String(result.stdout), stderr: String(result.stderr), exitCode: result.exitCode ?? -1}
}

async function startOk(stateDir: string, args: string[]): Promise<number> {
  const result = await drover(stateDir, ['start', ...args])
  expect(result.exitCode, result.stderr).toBe(0)
  expect(result.stdout).toMatch(/^\d+\n$/)
  return Number(result.stdout)
}

const waitFinal = (stateDir: string, id: number) =>
  waitFor(() => FINAL.includes(readTask(stateDir, id).status) && readTask(stateDir, id), {timeout: 20_000, message: `task ${id} to end`})

/** A worker driven step by step through files in a gate dir (see core-steps.mjs). */
function gated(stateDir: string) {
  const dir = path.join(stateDir, 'gate')
  mkdirSync(dir, {recursive: true})
  let step = 0
  return {
    command: ['--', node, fixture('core-steps.mjs'), dir],
    next: (order: {write?: string; exit?: number; signal?: string}) => writeFileSync(path.join(dir, String(++step)), JSON.stringify(order)),
  }
}

describe('start, status, logs', () => {
  it('start → running → succeeded with exit 0, output in logs and status', async () => {
    const dir = makeStateDir()
    const worker = gated(dir)
    const id = await startOk(dir, worker.command)
    expect(id).toBe(1)
    const running = json(await drover(dir, ['status', String(id), '--json']))
    expect(running).toMatchObject({id, status: 'running', found: true, runnerAlive: true, workerAlive: true, exitCode: null})
    expect(isAlive(running.pid)).toBe(true)

    worker.next({write: 'hello from the worker\n', exit: 0})
    const done = await waitFinal(dir, id)
    expect(done).toMatchObject({status: 'succeeded', exitCode: 0, reason: 'exit 0'})
    expect((await drover(dir, ['logs', String(id)])).stdout).toBe('hello from the worker\n')
    const status = await drover(dir, ['status', String(id)])
    expect(status.exitCode).toBe(0)
    expect(status.stdout).toMatch(/^status\s+succeeded$/m)
    expect(status.stdout).toMatch(/^exit code\s+0$/m)
  })

  it('a failing command ends failed with its exit code, and status shows its last output', async () => {
    const dir = makeStateDir()
    const id = await startOk(dir, ['--', node, fixture('counter.mjs'), '3', '200', '3'])
    expect((await drover(dir, ['status', '--wait', String(id)])).exitCode).toBe(3)
    expect(readTask(dir, id)).toMatchObject({status: 'failed', exitCode: 3, reason: 'exit 3'})
    const status = await drover(dir, ['status', String(id)])
    expect(status.stdout).toMatch(/^exit code\s+3$/m)
    expect(status.stdout).toContain('line 3')
    expect((await drover(dir, ['logs', String(id)])).stdout).toBe('line 1\nline 2\nline 3\n')
  })

  it('a command that fails at once still counts as started: start exits 0 and prints the id', async () => {
    const dir = makeStateDir()
    const result = await drover(dir, ['start', '--', 'sh', '-c', 'echo quick; exit 4'])
    expect(result).toMatchObject({exitCode: 0, stdout: '1\n'})
    expect(await waitFinal(dir, 1)).toMatchObject({status: 'failed', exitCode: 4})
  })

  it('a missing command fails with "command not found", and start exits non-zero saying so', async () => {
    const dir = makeStateDir()
    const result = await drover(dir, ['start', '--', 'drover-no-such-program-xyz', 'arg'])
    expect(result.exitCode).toBe(1)
    expect(result.stderr).toContain('command not found: drover-no-such-program-xyz')
    const status = json(await drover(dir, ['status', '1', '--json']))
    expect(status).toMatchObject({status: 'failed', reason: 'command not found: drover-no-such-program-xyz', exitCode: null})
  })

  it('a bad --cwd fails the task with the reason', async () => {
    const dir = makeStateDir()
    const missing = path.join(dir, 'no', 'such', 'dir')
    const result = await drover(dir, ['start', '--cwd', missing, '--', 'true'])
    expect(result.exitCode).toBe(1)
    expect(result.stderr).toContain(`working directory does not exist: ${missing}`)
    expect(readTask(dir, 1)).toMatchObject({status: 'failed', reason: `working directory does not exist: ${missing}`})
  })

  it('gives the worker DROVER_TASK_ID, DROVER_STATE_DIR, DROVER_CONTROL_FILE and DROVER_SESSION_DIR, in --cwd', async () => {
    const dir = makeStateDir()
    const cwd = path.join(dir, 'work')
    mkdirSync(cwd)
    await startOk(dir, ['--', 'true'])
    const id = await startOk(dir, ['--cwd', cwd, '--', node, fixture('core-env.mjs')])
    await waitFinal(dir, id)
    const paths = taskPaths(dir, id)
    expect(JSON.parse(readOutput(dir, id))).toEqual({
      DROVER_TASK_ID: '2', DROVER_STATE_DIR: dir, DROVER_CONTROL_FILE: paths.control, DROVER_SESSION_DIR: paths.session,
      DROVER_RESUME: null, controlExists: true, cwd,
    })
  })

  it('passes arguments full of shell metacharacters to the worker verbatim, with no shell', async () => {
    const dir = makeStateDir()
    const args = ['$HOME', '`id`', '$(echo pwned)', 'a;b', 'x|y', 'p && q', '*', '?', '~', "it's", '"dq"', 'back\\slash',
      'two words', '', '-e', '--flag=1', 'new\nline', '>out.txt', '#hash', '!bang', 'ünï€ode', '%PATH%', '^caret']
    const id = await startOk(dir, ['--', node, fixture('core-argv.mjs'), ...args])
    await waitFinal(dir, id)
    expect(JSON.parse(readOutput(dir, id))).toEqual(args)
    expect(readTask(dir, id).command).toEqual([node, fixture('core-argv.mjs'), ...args])
  })

  it('--shell runs a pipeline through the shell', async () => {
    const dir = makeStateDir()
    const id = await startOk(dir, ['--shell', 'echo a | tr a b'])
    expect(await waitFinal(dir, id)).toMatchObject({status: 'succeeded', shell: 'echo a | tr a b'})
    expect(readOutput(dir, id)).toBe('b\n')
  })
})

describe('names', () => {
  it('are unique among tasks that have not ended, and work as a ref', async () => {
    const dir = makeStateDir()
    const id = await startOk(dir, ['--name', 'web', '--', node, fixture('sleeper.mjs')])
    const again = await drover(dir, ['start', '--name', 'web', '--', 'true'])
    expect(again.exitCode).toBe(4)
    expect(again.stderr).toContain(`name 'web' is taken by task ${id}`)
    expect((await drover(dir, ['start', '--name', 'WEB', '--', 'true'])).exitCode).toBe(4)
    const asJson = await drover(dir, ['start', '--name', 'web', '--json', '--', 'true'])
    expect(asJson.exitCode).toBe(4)
    expect(json(asJson)).toMatchObject({error: {exitCode: 4}})

    expect(json(await drover(dir, ['status', 'web', '--json']))).toMatchObject({id, name: 'web', status: 'running'})
    await waitFor(() => readOutput(dir, id).includes('up'), {message: 'sleeper output'})
    expect((await drover(dir, ['logs', 'web'])).stdout).toMatch(/^sleeper \d+ up\n$/)

    // once it has ended the name is free again, and the ref finds the live task
    process.kill(-readTask(dir, id).worker.pid, 'SIGKILL')
    await waitFinal(dir, id)
    const second = await startOk(dir, ['--name', 'web', '--', node, fixture('sleeper.mjs')])
    expect(json(await drover(dir, ['status', 'web', '--json'])).id).toBe(second)
    expect(readTask(dir, second).name).toBe('web')
  })
  it('only one of several concurrent starts with the same name wins; the rest exit 4', async () => {
    const dir = makeStateDir()
    const results = await Promise.all(Array.from({length: 6}, () => drover(dir, ['start', '--name', 'solo', '--', node, fixture('sleeper.mjs')])))
    expect(results.map((r) => r.exitCode).sort()).toEqual([0, 4, 4, 4, 4, 4])
    const listed = json(await drover(dir, ['list', '--json']))
    expect(listed.map((t: any) => [t.name, t.status])).toEqual([['solo', 'running']])
  })
})

describe('the state dir', () => {
  it('--state-dir beats DROVER_STATE_DIR; an unsafe or unusable dir exits 5 with the reason', async () => {
    const envDir = makeStateDir()
    const flagDir = path.join(makeStateDir(), 'nested', 'state')
    const id = await startOk(envDir, ['--state-dir', flagDir, '--', 'true'])
    expect(readTask(flagDir, id).command).toEqual(['true'])
    expect(readdirSync(path.join(envDir))).toEqual([])
    expect(statSync(flagDir).mode & 0o777).toBe(0o700)

    chmodSync(flagDir, 0o777)
    const unsafe = await drover(envDir, ['list', '--state-dir', flagDir])
    expect(unsafe.exitCode).toBe(5)
    expect(unsafe.stderr).toMatch(/writable by other users/)
    const file = path.join(envDir, 'a-file')
    writeFileSync(file, '')
    const notDir = await drover(envDir, ['status', '1', '--json'], {env: {DROVER_STATE_DIR: file}})
    expect(notDir.exitCode).toBe(5)
    expect(json(notDir)).toMatchObject({error: {exitCode: 5, message: expect.stringContaining('not a directory')}})
  })

  it('keeps every file 0600 and every dir 0700 when drover runs under umask 000', async () => {
    const dir = path.join(makeStateDir(), 'state')
    const script = `umask 000; exec "$0" "$@"`
    const result = await execa('sh', ['-c', script, node, BIN, 'start', '--name', 'open', '--', 'sh', '-c', 'echo hi'], {
      env: {DROVER_STATE_DIR: dir, NO_COLOR: '1'}, reject: false, stdin: 'ignore',
    })
    expect(result.exitCode, String(result.stderr)).toBe(0)
    await waitFinal(dir, 1)
    const wrong: string[] = []
    const walk = (p: string) => {
      const st = statSync(p)
      const want = st.isDirectory() ? 0o700 : 0o600
      if ((st.mode & 0o777) !== want) wrong.push(`${path.relative(dir, p) || '.'} ${(st.mode & 0o777).toString(8)}`)
      if (st.isDirectory()) for (const name of readdirSync(p)) walk(path.join(p, name))
    }
    walk(dir)
    expect(wrong).toEqual([])
  })
})

describe('start --follow', () => {
  it('streams the output and exits with the task\'s code', async () => {
    const dir = makeStateDir()
    const result = await drover(dir, ['start', '--follow', '--', node, fixture('counter.mjs'), '5', '20', '3'])
    expect(result.exitCode).toBe(3)
    // stdout is the task's output alone: the id went to stderr.
    expect(result.stdout).toBe('line 1\nline 2\nline 3\nline 4\nline 5\n')
    expect(result.stderr).toMatch(/task 1 started/)
  })

  it('also for a command that ends before start returns', async () => {
    const dir = makeStateDir()
    const result = await drover(dir, ['start', '-f', '--', 'sh', '-c', 'echo quick; exit 6'])
    expect(result.exitCode).toBe(6)
    expect(result.stdout).toBe('quick\n')
  })
})

describe('list', () => {
  it('shows id, name, status, pid, started, runtime and command, newest last; filters; -q; --json', async () => {
    const dir = makeStateDir()
    const ok = await startOk(dir, ['--name', 'first', '--', 'sh', '-c', 'exit 0'])
    const bad = await startOk(dir, ['--', 'sh', '-c', 'exit 2'])
    await waitFinal(dir, ok)
    await waitFinal(dir, bad)
    const live = await startOk(dir, ['--name', 'sleepy', '--', node, fixture('sleeper.mjs')])
    const pid = readTask(dir, live).worker.pid

    const table = await drover(dir, ['list'])
    expect(table.exitCode).toBe(0)
    const lines = table.stdout.trimEnd().split('\n')
    expect(lines[0].split(/\s+/)).toEqual(['ID', 'NAME', 'STATUS', 'PID', 'STARTED', 'RUNTIME', 'COMMAND'])
    expect(lines.slice(1).map((l) => Number(l.split(/\s+/)[0]))).toEqual([ok, bad, live])
    expect(lines[1]).toMatch(/^1\s+first\s+succeeded\s+\d\d:\d\d:\d\d\s+\S+\s+sh -c 'exit 0'$/)
    expect(lines[2]).toMatch(/^2\s+failed\s+/)
    expect(lines[3]).toMatch(new RegExp(`^3\\s+sleepy\\s+running\\s+${pid}\\s+\\d\\d:\\d\\d:\\d\\d\\s+\\S+\\s+\\S*node \\S*sleeper\\.mjs$`))
    const commandAt = lines[0].indexOf('COMMAND')
    expect(lines[1].indexOf("sh -c 'exit 0'")).toBe(commandAt)

    expect((await drover(dir, ['list', '--status', 'failed', '-q'])).stdout).toBe(`${bad}\n`)
    expect((await drover(dir, ['list', '--status', 'succeeded,running', '-q'])).stdout).toBe(`${ok}\n${live}\n`)
    expect((await drover(dir, ['list', '-q'])).stdout).toBe(`${ok}\n${bad}\n${live}\n`)
    const filtered = (await drover(dir, ['list', '--status', 'active'])).stdout.trimEnd().split('\n')
    expect(filtered.slice(1).map((l) => l.split(/\s+/)[0])).toEqual([String(live)])

    const all = json(await drover(dir, ['list', '--json']))
    expect(all.map((t: any) => [t.id, t.name, t.status, t.exitCode])).toEqual([[ok, 'first', 'succeeded', 0], [bad, null, 'failed', 2], [live, 'sleepy', 'running', null]])
    expect(all[2]).toMatchObject({pid, command: [node, fixture('sleeper.mjs')], cwd: process.cwd()})
    expect(json(await drover(dir, ['list', '--status', 'lost', '--json']))).toEqual([])
  })

  it('prints no ANSI escapes when piped or under NO_COLOR, and colour when forced (--color wins over NO_COLOR)', async () => {
    const dir = makeStateDir()
    await waitFinal(dir, await startOk(dir, ['--', 'sh', '-c', 'exit 1']))
    for (const command of [['list'], ['status', '1']]) {
      const piped = await drover(dir, command, {env: {NO_COLOR: ''}})
      expect(piped.stdout).toContain('failed')
      expect(piped.stdout + piped.stderr).not.toContain(ESC)
      expect((await drover(dir, [...command, '--color'], {env: {NO_COLOR: ''}})).stdout).toContain(`${ESC}[31mfailed`)
      expect((await drover(dir, command, {env: {NO_COLOR: '1'}})).stdout).not.toContain(ESC)
      expect((await drover(dir, [...command, '--color'], {env: {NO_COLOR: '1'}})).stdout).toContain(`${ESC}[31mfailed`)
    }
  })
})

describe('errors and --json', () => {
  it('an unknown id: one line on stderr and exit 3; with --json only {id, found: false} on stdout', async () => {
    const dir = makeStateDir()
    for (const command of [['status', '99'], ['logs', '99'], ['status', 'nosuchname']]) {
      const human = await drover(dir, command)
      expect(human.exitCode).toBe(3)
      expect(human.stdout).toBe('')
      expect(human.stderr.trimEnd().split('\n')).toEqual([`drover: no such task: ${command[1]}`])
    }
    const asJson = await drover(dir, ['status', '99', '--json'])
    expect(asJson.exitCode).toBe(3)
    expect(json(asJson)).toMatchObject({id: '99', found: false})
    expect(asJson.stderr).toBe('')
    expect(json(await drover(dir, ['status', 'nosuchname', '--json']))).toMatchObject({id: 'nosuchname', found: false})
  })

  it('--json keeps the exit codes of errors and puts only JSON on stdout', async () => {
    const dir = makeStateDir()
    const cases: [string[], number][] = [
      [['list', '--status', 'bogus', '--json'], 2],
      [['start', '--timeout', 'soon', '--json', '--', 'true'], 2],
      [['logs', '1', '-n', 'abc', '--json'], 2],
      [['status', '007', '--json'], 2],
      [['logs', '5', '--json'], 3],
      [['start', '--json'], 2],
    ]
    for (const [args, code] of cases) {
      const result = await drover(dir, args)
      expect([args.join(' '), result.exitCode]).toEqual([args.join(' '), code])
      expect(json(result)).toMatchObject({error: {exitCode: code}})
    }
  })
})

describe('corrupt records', () => {
  it('list shows them as corrupt with their id and exits 0; status explains what is wrong', async () => {
    const dir = makeStateDir()
    for (let i = 0; i < 3; i++) await startOk(dir, ['--', 'true'])
    for (const id of [1, 2, 3]) await waitFinal(dir, id)
    writeFileSync(taskPaths(dir, 2).record, '{"schemaVersion": 1, "id": 2, "comm')
    const broken = {...readTask(dir, 3), status: 'paused'}
    writeFileSync(taskPaths(dir, 3).record, JSON.stringify(broken))

    const table = await drover(dir, ['list'])
    expect(table.exitCode).toBe(0)
    expect(table.stdout).toMatch(/^1\s+succeeded/m)
    expect(table.stdout).toMatch(/^2\s+corrupt\s+task\.json is corrupt: not valid JSON/m)
    expect(table.stdout).toMatch(/^3\s+corrupt\s+.*field 'status'/m)
    const listed = json(await drover(dir, ['list', '--json']))
    expect(listed.map((t: any) => [t.id, t.status])).toEqual([[1, 'succeeded'], [2, 'corrupt'], [3, 'corrupt']])
    expect((await drover(dir, ['list', '--status', 'corrupt', '-q'])).stdout).toBe('2\n3\n')

    const status = await drover(dir, ['status', '2'])
    expect(status.exitCode).toBe(1)
    expect(status.stderr).toMatch(/task 2 is corrupt: .*not valid JSON/)
    const field = await drover(dir, ['status', '3', '--json'])
    expect(json(field)).toMatchObject({id: 3, found: true, status: 'corrupt', error: expect.stringContaining("field 'status'")})
  })
  it('a task folder still being created is not shown as corrupt; one left without a record for long is — unless a killed start left it empty, which the next prune clears', async () => {
    const dir = makeStateDir()
    ensureStateDir(dir)
    const creating = allocateTaskId(dir) // what a concurrent start has done just before writing task.json
    createTaskLayout(taskPaths(dir, creating))
    expect(json(await drover(dir, ['list', '--json']))).toEqual([])
    const old = new Date(Date.now() - 60_000)
    utimesSync(taskPaths(dir, creating).dir, old, old)
    // killed before its record (found by chaos): nothing in it but the empty layout — not a task
    expect(json(await drover(dir, ['list', '--json', '--all']))).toEqual([])
    // a folder without a record that holds output is a damaged task
    const damaged = allocateTaskId(dir)
    createTaskLayout(taskPaths(dir, damaged))
    writeFileSync(taskPaths(dir, damaged).output, 'some output\n')
    utimesSync(taskPaths(dir, damaged).dir, old, old)
    expect(json(await drover(dir, ['list', '--json']))).toEqual([{id: damaged, status: 'corrupt', error: 'task.json is missing'}])
    const pruned = json(await drover(dir, ['prune', '--keep', '100', '--json']))
    expect(pruned.debris).toEqual([String(creating)])
    expect(existsSync(taskPaths(dir, creating).dir)).toBe(false)
    expect(existsSync(taskPaths(dir, damaged).dir)).toBe(true)
    // the id stays used
    const next = await drover(dir, ['start', '--', 'true'])
    expect(Number(next.stdout)).toBe(damaged + 1)
  })
})

describe('concurrency and lost runners', () => {
  it('30 concurrent starts from separate processes get 30 distinct ids and 30 valid records', async () => {
    const dir = makeStateDir()
    const results = await Promise.all(Array.from({length: 30}, (_, i) => drover(dir, ['start', '--', 'sh', '-c', `echo ${i}`], {timeout: 120_000})))
    for (const result of results) expect([result.exitCode, result.stderr]).toEqual([0, ''])
    const ids = results.map((r) => Number(r.stdout)).sort((a, b) => a - b)
    expect(ids).toEqual(Array.from({length: 30}, (_, i) => i + 1))
    for (const id of ids) await waitFinal(dir, id)
    const listed = json(await drover(dir, ['list', '--json']))
    expect(listed).toHaveLength(30)
    expect(listed.every((t: any) => t.status === 'succeeded')).toBe(true)
    const outputs = ids.map((id) => readOutput(dir, id).trim()).sort((a, b) => Number(a) - Number(b))
    expect(outputs).toEqual(Array.from({length: 30}, (_, i) => String(i)))
  }, 180_000)

  it('a runner and its worker killed with SIGKILL show as lost', async () => {
    const dir = makeStateDir()
    const id = await startOk(dir, ['--', node, fixture('sleeper.mjs')])
    const runner = JSON.parse(readFileSync(taskPaths(dir, id).runner, 'utf8'))
    const worker = readTask(dir, id).worker.pid
    process.kill(runner.pid, 'SIGKILL')
    process.kill(-worker, 'SIGKILL')
    await waitFor(() => !isAlive(runner.pid) && !isAlive(worker), {timeout: 10_000, message: 'runner and worker to die'})
    const listed = await drover(dir, ['list'])
    expect(listed.stdout).toMatch(new RegExp(`^${id}\\s+lost\\s`, 'm'))
    expect(json(await drover(dir, ['status', String(id), '--json']))).toMatchObject({status: 'lost', reason: 'runner vanished without recording an end', runnerAlive: false})
  })

  it('a run still starting is not taken for lost, even when a killed runner left its runner.json', async () => {
    const dir = makeStateDir()
    const id = await startOk(dir, ['--', node, fixture('sleeper.mjs')])
    const first = readTask(dir, id)
    process.kill(JSON.parse(readFileSync(taskPaths(dir, id).runner, 'utf8')).pid, 'SIGKILL')
    process.kill(-first.worker.pid, 'SIGKILL')
    await waitFor(() => !isAlive(first.worker.pid), {timeout: 10_000, message: 'worker to die'})

    // Start it again with its runner held back, and look while the new run is starting.
    const slow = {NODE_OPTIONS: `--require ${fixture('core-slow-runner.cjs')}`, CORE_RUNNER_DELAY_MS: '8000'}
    const restart = drover(dir, ['start', String(id)], {env: slow})
    await waitFor(() => readTask(dir, id).runs.length === 2, {message: 'the new run to open'})
    expect(json(await drover(dir, ['list', '--json']))[0]).toMatchObject({id, status: 'starting'})
    const started = await restart
    expect([started.exitCode, started.stderr]).toEqual([0, ''])
    expect(readTask(dir, id)).toMatchObject({status: 'running', runs: [{status: 'lost'}, {status: 'running'}]})
  })

  it('a record naming a live unrelated pid with another start time is not mistaken for ours', async () => {
    const dir = makeStateDir()
    ensureStateDir(dir)
    const sleep = spawn('sleep', ['300'], {stdio: 'ignore'})
    strays.push(sleep.pid!)
    const realStart = await waitFor(() => processStartTime(sleep.pid!), {message: 'sleep start time'})
    const fake = {pid: sleep.pid!, startTime: String(Number(realStart) + 1)}
    const id = allocateTaskId(dir)
    createTaskLayout(taskPaths(dir, id))
    const record = moveTo(newRecord(id, {
      command: ['sleep', '300'], shell: null, name: null, cwd: '/', env: {}, agent: 'generic',
      policies: {timeoutMs: null, idleTimeoutMs: null, maxOutputBytes: null},
    }), {status: 'running'})
    writeRecord(dir, {...record, worker: fake})
    writeFileAtomic(taskPaths(dir, id).runner, JSON.stringify(fake))

    expect((await drover(dir, ['list'])).stdout).toMatch(new RegExp(`^${id}\\s+lost\\s`, 'm'))
    const status = json(await drover(dir, ['status', String(id), '--json']))
    expect(status).toMatchObject({status: 'lost', runnerAlive: false, workerAlive: false})
    expect(isAlive(sleep.pid!)).toBe(true)
    expect(processStartTime(sleep.pid!)).toBe(realStart)
  })
})
