// `drover drain` end to end: ten tasks at once — cooperative fake agents and
// workers that ignore STOP and SIGTERM — all end drained within the promised
// bound; the checkpoint and resume reference of each; plain output, --json,
// refusals, and a task whose runner is gone.

import {execa} from 'execa'
import {existsSync, mkdtempSync, readdirSync, readFileSync, rmSync} from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import {afterEach, describe, expect, it} from 'vitest'
import {BIN, cleanupStateDirs, drover, fixture, isAlive, json, makeStateDir, readOutput, readTask, waitFor} from '../helpers/cli.js'

const homes: string[] = []

afterEach(() => {
  cleanupStateDirs()
  for (const dir of homes.splice(0)) rmSync(dir, {recursive: true, force: true})
})

/** Fake agents first on PATH and a private HOME for their conversations. */
function agentEnv(): Record<string, string> {
  const home = mkdtempSync(path.join(os.tmpdir(), 'drover-home-'))
  homes.push(home)
  return {PATH: `${fixture('bin')}${path.delimiter}${process.env.PATH}`, HOME: home, FAKE_AGENT_TURN_MS: '100', FAKE_AGENT_TURNS: '100000'}
}

const GENERIC = ['--', process.execPath, fixture('agent-generic.mjs')]
const CLAUDE = ['--', 'claude', '-p', 'count', '--output-format', 'stream-json', '--verbose']
const CODEX = ['--', 'codex', 'exec', '--json', 'count']
const IGNORE_STOP = {FAKE_AGENT_IGNORE_STOP: '1'}
const IGNORE_BOTH = {FAKE_AGENT_IGNORE_STOP: '1', FAKE_AGENT_IGNORE_TERM: '1'}

async function startTask(stateDir: string, env: Record<string, string>, args: string[], extra: Record<string, string> = {}): Promise<number> {
  const r = await drover(stateDir, ['start', ...args], {env: {...env, ...extra}})
  expect(r.exitCode, r.stderr).toBe(0)
  return Number(r.stdout.trim())
}

/** Running and past its first turn, so its signal handlers and loop are in place. */
async function waitWorking(stateDir: string, id: number): Promise<void> {
  await waitFor(
    () => {
      const record = readTask(stateDir, id)
      if (record.status !== 'running') return false
      return record.agent === 'generic' ? readOutput(stateDir, id).includes('count 1\n') : record.agentInfo?.sessionId
    },
    {timeout: 30_000, message: `task ${id} to be working`},
  )
}

function journalled(stateDir: string, id: number, names: string[]): boolean {
  const events = readFileSync(path.join(stateDir, 'tasks', String(id), 'events.ndjson'), 'utf8').trim().split('\n').map((l) => JSON.parse(l))
  return names.every((name) => events.some((e: any) => e.event === name))
}

/** When the task's runner took the drain request and recorded the end (ms since the epoch). */
function eventTimes(stateDir: string, id: number): {request: number; exit: number} {
  const events = readFileSync(path.join(stateDir, 'tasks', String(id), 'events.ndjson'), 'utf8').trim().split('\n').map((l) => JSON.parse(l))
  const at = (name: string) => Date.parse(events.findLast((e: any) => e.event === name).ts)
  return {request: at('request'), exit: at('exit')}
}

describe('drain', () => {
  it('drains ten tasks at once, stubborn ones forced, within grace + kill-after + 2 s', async () => {
    const stateDir = makeStateDir()
    const env = agentEnv()
    // claude ends its turn when drover's hook refuses its next tool call; codex
    // cannot cooperate and is signalled between its commands; generic workers
    // read the control file, or are forced when they ignore it.
    const kinds = [
      {args: CLAUDE, extra: {}, mode: 'cooperative'},
      {args: CLAUDE, extra: {}, mode: 'cooperative'},
      {args: CODEX, extra: {}, mode: 'safe-point'},
      {args: GENERIC, extra: {}, mode: 'cooperative'},
      {args: GENERIC, extra: {}, mode: 'cooperative'},
      {args: GENERIC, extra: IGNORE_STOP, mode: 'forced'},
      {args: GENERIC, extra: IGNORE_STOP, mode: 'forced'},
      {args: GENERIC, extra: IGNORE_BOTH, mode: 'forced'},
      {args: GENERIC, extra: IGNORE_BOTH, mode: 'forced'},
      {args: GENERIC, extra: IGNORE_BOTH, mode: 'forced'},
    ]
    // two batches: ten node processes starting at once would only measure the machine
    const ids: number[] = []
    for (const batch of [kinds.slice(0, 5), kinds.slice(5)]) {
      ids.push(...(await Promise.all(batch.map((k) => startTask(stateDir, env, k.args, k.extra)))))
    }
    for (const id of ids) await waitWorking(stateDir, id)
    const workers = ids.map((id) => readTask(stateDir, id).worker.pid as number)

    const began = Date.now()
    const result = await drover(stateDir, ['drain', '--all', '--grace', '1s', '--kill-after', '1s', '--json'], {env})
    const elapsed = Date.now() - began
    expect(result.exitCode, result.stderr).toBe(0)
    // The command promises grace + kill-after + 2 s (4 s); the test allows 1 s
    // more for starting the CLI on a loaded machine, and says where time went.
    // A runner journals the exit event just after the final record the command waited for.
    await waitFor(() => ids.every((id) => journalled(stateDir, id, ['request', 'exit'])), {message: 'every runner to journal its request and exit'})
    const times = ids.map((id) => eventTimes(stateDir, id))
    const firstRequest = Math.min(...times.map((t) => t.request)) - began
    const lastExit = Math.max(...times.map((t) => t.exit)) - began
    expect(elapsed, `CLI start to first request ${firstRequest} ms, last exit at ${lastExit} ms`).toBeLessThanOrEqual(5000)

    const report = json(result)
    expect(report.missing).toEqual([])
    expect(report.results.map((r: any) => r.id).sort((a: number, b: number) => a - b)).toEqual([...ids].sort((a, b) => a - b))
    for (const [i, id] of ids.entries()) {
      const r = report.results.find((x: any) => x.id === id)
      expect(r, `task ${id}`).toMatchObject({status: 'drained', accepted: true, final: true, resume: `drover resume ${id}`})
      const record = readTask(stateDir, id)
      expect(record.status).toBe('drained')
      expect(record.checkpoint).toMatchObject({
        profile: record.agent,
        mode: kinds[i].mode,
        forced: kinds[i].mode === 'forced',
        sessionDir: path.join(stateDir, 'tasks', String(id), 'session'),
      })
      expect(record.checkpoint.tookMs).toBeLessThan(kinds[i].mode === 'forced' ? 4000 : 2000)
      expect(r.checkpoint).toEqual(record.checkpoint)
      if (record.agent !== 'generic') expect(record.checkpoint.sessionId).toBe(record.agentInfo.sessionId)
      if (kinds[i].extra === IGNORE_BOTH) expect(record.reason).toMatch(/^drained, killed after/)
      else expect(record.reason).toBe('drained')
    }
    // the cooperative ones wrote out what they had
    for (const [i, id] of ids.entries()) {
      if (kinds[i].args === GENERIC && kinds[i].mode !== 'forced') expect(readOutput(stateDir, id)).toMatch(/stopped at count \d+\n/)
      if (kinds[i].args === CLAUDE) expect(readTask(stateDir, id).agentInfo.lastEvent).toBe('result/success')
    }
    await waitFor(() => workers.every((pid) => !isAlive(pid)), {timeout: 10_000, message: 'every worker gone'})
  }, 120_000)

  it('a worker that fails on its own at the STOP word keeps its failure; one that exits 0 there drained, cooperative', async () => {
    const stateDir = makeStateDir()
    // exits with the code given the moment the control file says STOP: before any signal of drover's
    const onStop = (code: number) => [
      '--',
      process.execPath,
      '-e',
      "const fs = require('fs'); console.log('up'); setInterval(() => { if (fs.readFileSync(process.env.DROVER_CONTROL_FILE, 'utf8').includes('STOP')) process.exit(Number(process.argv[1])) }, 50)",
      String(code),
    ]
    const broken = await startTask(stateDir, {}, onStop(3))
    const saved = await startTask(stateDir, {}, onStop(0))
    for (const id of [broken, saved]) await waitFor(() => readOutput(stateDir, id).includes('up'), {timeout: 15_000, message: `task ${id} up`})
    const r = await drover(stateDir, ['drain', String(broken), String(saved), '--grace', '20s', '--json'])
    expect(r.exitCode, r.stderr).toBe(0)
    const results = json<{results: any[]}>(r).results
    expect(results.find((x) => x.id === broken)).toMatchObject({status: 'failed', exitCode: 3, reason: 'exit 3', checkpoint: null, resume: null})
    expect(results.find((x) => x.id === saved)).toMatchObject({status: 'drained', checkpoint: {mode: 'cooperative'}})
    const failed = await drover(stateDir, ['list', '--status', 'failed', '-q'])
    expect(failed.stdout.trim()).toBe(String(broken))
  })

  it('with no ids and no --all: exit 2 and nothing drained', async () => {
    const stateDir = makeStateDir()
    const env = agentEnv()
    const id = await startTask(stateDir, env, GENERIC)
    for (const args of [['drain'], ['drain', '--json'], ['drain', '--grace', '1s']]) {
      const r = await drover(stateDir, args, {env})
      expect(r.exitCode, args.join(' ')).toBe(2)
      expect(r.stderr + r.stdout).toMatch(/no task given: name the tasks to drain/)
    }
    expect(readdirSync(path.join(stateDir, 'tasks', String(id), 'requests'))).toEqual([])
    expect(readTask(stateDir, id).status).toBe('running')

    for (const bad of [['--grace', 'soon'], ['--kill-after', '-1s'], ['--all', String(id)]]) {
      const r = await drover(stateDir, ['drain', ...bad], {env})
      expect(r.exitCode, `${bad.join(' ')}: ${r.stderr}`).toBe(2)
    }
    expect(readTask(stateDir, id).status).toBe('running')
  })

  it('piped: one plain line and one resume reference per drained task; unknown ids exit 3', async () => {
    const stateDir = makeStateDir()
    const env = agentEnv()
    const agent = await startTask(stateDir, env, CLAUDE)
    const stubborn = await startTask(stateDir, env, GENERIC, IGNORE_STOP)
    const done = await startTask(stateDir, env, ['--', process.execPath, fixture('counter.mjs'), '1', '10'])
    await waitWorking(stateDir, agent)
    await waitWorking(stateDir, stubborn)
    await waitFor(() => readTask(stateDir, done).status === 'succeeded', {timeout: 20_000, message: 'counter done'})
    const sessionId = readTask(stateDir, agent).agentInfo.sessionId

    const r = await drover(stateDir, ['drain', String(agent), String(stubborn), String(done), '404', '--grace', '1s', '--kill-after', '5s'], {env})
    expect(r.exitCode).toBe(3)
    expect(r.stderr).toContain('no such task: 404')
    const lines = r.stdout.trimEnd().split('\n')
    expect(lines.slice(0, 3)).toEqual([`task ${agent} drained`, `task ${stubborn} drained`, `task ${done} already ended: succeeded (exit 0)`])
    // the command to paste comes last on its line
    expect(lines[3]).toMatch(new RegExp(`^  task ${agent}: claude session ${sessionId}, ended on its own after [\\d.]+ ?m?s; resume with: drover resume ${agent}$`))
    expect(lines[4]).toMatch(new RegExp(`^  task ${stubborn}: forced after [\\d.]+ ?m?s; resume with: drover resume ${stubborn}$`))
    expect(lines).toHaveLength(5)
    expect(r.stdout).not.toMatch(/\x1b\[/)

    const status = await drover(stateDir, ['status', String(agent)], {env})
    expect(status.stdout).toMatch(new RegExp(`checkpoint\\s+claude session ${sessionId}, drain cooperative after [\\d.]+ ?m?s, at `))
    expect(status.stdout).toMatch(new RegExp(`resume\\s+drover resume ${agent}`))
    expect(status.stdout).toMatch(/this run\s+\d+ turns?, \$\d+\.\d{4}, \d+ tokens in, \d+ out, last event result\/success/)
    expect(readTask(stateDir, done).checkpoint).toBeNull()

    const quiet = await drover(stateDir, ['drain', String(agent), '-q'], {env})
    expect(quiet).toMatchObject({exitCode: 0, stdout: ''})
  })

  // `script` gives the CLI a terminal, so listr2 renders the progress instead of plain lines.
  it.runIf(process.platform === 'linux' && existsSync('/usr/bin/script'))('on a terminal, shows listr2 progress per task', async () => {
    const stateDir = makeStateDir()
    const env = agentEnv()
    const ids = [await startTask(stateDir, env, CLAUDE), await startTask(stateDir, env, GENERIC)]
    for (const id of ids) await waitWorking(stateDir, id)
    const quote = (arg: string) => `'${arg.replace(/'/g, `'\\''`)}'`
    const command = ['stty cols 100;', ...[process.execPath, BIN, 'drain', ...ids.map(String), '--grace', '10s'].map(quote)].join(' ')
    const r = await execa('/usr/bin/script', ['-qec', command, '/dev/null'], {env: {...env, DROVER_STATE_DIR: stateDir, NO_COLOR: '1'}, reject: false, stdin: 'ignore', timeout: 60_000})
    expect(r.exitCode, String(r.stdout)).toBe(0)
    const out = String(r.stdout).replace(/\r/g, '')
    expect(out).toContain('\x1b[?25l') // listr2 hides the cursor while it renders
    for (const id of ids) {
      expect(out).toMatch(new RegExp(`✔ task ${id} drained\n`))
      expect(out).toContain(`resume with: drover resume ${id}`)
      expect(readTask(stateDir, id).status).toBe('drained')
    }
  })

  it('drains a task whose runner is gone: a new runner adopts the worker and drains it', async () => {
    const stateDir = makeStateDir()
    const env = agentEnv()
    const id = await startTask(stateDir, env, GENERIC)
    await waitWorking(stateDir, id)
    const runner = JSON.parse(readFileSync(path.join(stateDir, 'tasks', String(id), 'runner.json'), 'utf8')).pid
    const worker = readTask(stateDir, id).worker.pid
    process.kill(runner, 'SIGKILL')
    await waitFor(() => !isAlive(runner), {timeout: 10_000, message: 'runner gone'})
    expect(isAlive(worker)).toBe(true)

    const r = await drover(stateDir, ['drain', String(id), '--grace', '10s', '--json'], {env})
    expect(r.exitCode, r.stderr).toBe(0)
    expect(json(r).results).toMatchObject([{id, status: 'drained', via: 'runner', resume: `drover resume ${id}`}])
    const record = readTask(stateDir, id)
    expect(record.reason).toBe('drained')
    expect(record.checkpoint).toMatchObject({profile: 'generic', forced: false, mode: 'cooperative'})
    const events = readFileSync(path.join(stateDir, 'tasks', String(id), 'events.ndjson'), 'utf8')
    expect(events).toMatch(/"event":"adopted"/)
    await waitFor(() => !isAlive(worker), {timeout: 10_000, message: 'worker gone'})
    expect(readOutput(stateDir, id)).toMatch(/stopped at count \d+\n/)
  })
})
