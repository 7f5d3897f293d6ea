// `logs` for people and for many tasks: -f A B with [id name] prefixes and
// the exit code of the first task that failed, -f --all taking in tasks that
// start while following, --timestamps, --since by runs, the refusals, and
// the transcript an agent's log is by default on a terminal.

import {execFileSync} from 'node:child_process'
import {mkdirSync, writeFileSync} from 'node:fs'
import path from 'node:path'
import {afterEach, describe, expect, it, vi} from 'vitest'
import {execa} from 'execa'
import {makeTask} from '../fixtures/prune-state.js'
import {BIN, cleanupStateDirs, drover, fixture, makeStateDir, readTask, waitFor} from '../helpers/cli.js'
import {ensureStateDir} from '../../src/state/statedir.js'
import {taskPaths} from '../../src/state/store.js'

vi.setConfig({testTimeout: 60_000})
afterEach(() => cleanupStateDirs())

/** `drover ARGS` running in the background, and what it printed so far. */
function follow(dir: string, args: string[]) {
  const following = execa(process.execPath, [BIN, ...args], {env: {DROVER_STATE_DIR: dir, NO_COLOR: '1'}, reject: false, stdin: 'ignore'})
  let seen = ''
  following.stdout!.on('data', (chunk: Buffer) => (seen += chunk.toString()))
  return {following, seen: () => seen}
}

async function startShell(dir: string, name: string, script: string): Promise<number> {
  const r = await drover(dir, ['start', '--name', name, '--shell', script])
  expect(r.exitCode, r.stderr).toBe(0)
  return Number(r.stdout)
}

const hasScript = (() => {
  try {
    execFileSync('script', ['--version'], {stdio: 'ignore'})
    return true
  } catch {
    return false
  }
})()

describe.runIf(hasScript)('logs on a terminal', () => {
  it('a claude task is shown as a transcript by default; --raw gives the stream', async () => {
    const dir = makeStateDir()
    const bin = path.join(dir, 'bin')
    mkdirSync(bin)
    writeFileSync(path.join(bin, 'claude'), `#!/usr/bin/env node\nimport(${JSON.stringify(fixture('agent-claude.mjs'))})\n`, {mode: 0o755})
    const env = {PATH: `${bin}${path.delimiter}${process.env.PATH}`, HOME: dir, FAKE_AGENT_TURNS: '1', FAKE_AGENT_TURN_MS: '20'}
    const r = await drover(dir, ['start', '--', 'claude', '-p', 'hi', '--output-format', 'stream-json', '--verbose'], {env})
    const id = Number(r.stdout)
    await waitFor(() => readTask(dir, id).status === 'succeeded', {message: 'claude done'})
    const onTerminal = async (args: string[]) => {
      const command = `stty cols 200 rows 30; exec ${[process.execPath, BIN, ...args].map((w) => `'${w}'`).join(' ')}`
      const run = await execa('script', ['-qefc', command, '/dev/null'], {env: {...env, DROVER_STATE_DIR: dir, TERM: 'xterm', NO_COLOR: '1'}, reject: false, stdin: 'ignore'})
      return String(run.stdout).replace(/\r/g, '')
    }
    const pretty = await onTerminal(['logs', String(id)])
    expect(pretty).toMatch(/^● session [0-9a-f-]{36} /m)
    expect(pretty).toMatch(/^→ Bash sleep 0\.02$/m)
    expect(pretty).toMatch(/^✔ done · \$0\.\d{4} · 1 turn · \d+ tokens · [\d.]+ s$/m)
    expect(pretty).not.toContain('{"type"')
    expect(await onTerminal(['logs', '--raw', String(id)])).toContain('{"type":"system"')
  })
})

describe('logs -f of several tasks', () => {
  it('prefixes each line with [id name], keeps each task in order, exits with the first failing task\'s code', async () => {
    const dir = makeStateDir()
    const a = await startShell(dir, 'alpha', 'for i in 1 2 3; do echo a$i; sleep 0.2; done')
    const b = await startShell(dir, 'beta', 'echo b1; sleep 0.5; echo b2; exit 3')
    const r = await drover(dir, ['logs', '-f', String(a), 'beta'])
    expect(r.exitCode).toBe(3)
    const lines = r.stdout.split('\n')
    expect(lines.filter((l) => l.startsWith(`[${a} alpha] `) && !l.includes('drover:')).map((l) => l.slice(-2))).toEqual(['a1', 'a2', 'a3'])
    expect(lines.filter((l) => l.startsWith(`[${b} beta]  `) && !l.includes('drover:')).map((l) => l.slice(-2))).toEqual(['b1', 'b2'])
    // each says how it ended, after its last line (as nq writes `[exited with status 3.]`)
    expect(lines.filter((l) => l.includes('── drover:')).sort()).toEqual([`[${a} alpha] ── drover: task ${a} ended succeeded (exit 0)`, `[${b} beta]  ── drover: task ${b} ended failed (exit 3)`])
    expect(lines.indexOf(`[${b} beta]  ── drover: task ${b} ended failed (exit 3)`)).toBeGreaterThan(lines.indexOf(`[${b} beta]  b2`))
    expect(lines).toHaveLength(7)
    // without -f: what is there, prefixed the same way
    const printed = await drover(dir, ['logs', String(b), String(a)])
    expect(printed.stdout.split('\n')).toContain(`[${b} beta]  b2`)
    expect(printed.exitCode).toBe(0)
  })

  it('-f --all follows the running tasks and those that start while following, until all have ended', async () => {
    const dir = makeStateDir()
    const gate = path.join(dir, 'gate')
    const first = await startShell(dir, 'first', `echo one; while [ ! -e '${gate}' ]; do sleep 0.05; done; echo one-done`)
    const {following, seen} = follow(dir, ['logs', '-f', '--all'])
    await waitFor(() => seen().includes('one'), {message: 'the first task followed'})
    const late = await startShell(dir, 'late', 'echo late-line')
    await waitFor(() => seen().includes('late-line'), {message: 'the late task followed'})
    writeFileSync(gate, '')
    const r = await following
    expect(r.exitCode).toBe(0)
    expect(String(r.stdout)).toContain(`[${late} late]  late-line`)
    expect(String(r.stdout)).toContain(`[${first} first] one-done`)
    expect(readTask(dir, late).status).toBe('succeeded')
  })

  it('-f --all follows queued tasks too, saying on stderr what they wait for; a paused queue keeps it following', async () => {
    const dir = makeStateDir()
    const gate = path.join(dir, 'gate')
    const start = async (name: string, script: string) => {
      const r = await drover(dir, ['start', '--queue', 'q1', '--name', name, '--shell', script])
      expect(r.exitCode, r.stderr).toBe(0)
      return Number(r.stdout)
    }
    const fa = await start('fa', `echo fa-line; while [ ! -e '${gate}' ]; do sleep 0.05; done`)
    const fb = await start('fb', 'echo fb-line; exit 3')
    expect(readTask(dir, fb).status).toBe('queued')
    const {following, seen} = follow(dir, ['logs', '-f', '--all'])
    let err = ''
    following.stderr!.on('data', (chunk: Buffer) => (err += chunk.toString()))
    await waitFor(() => seen().includes('fa-line'), {message: 'fa followed'})
    await waitFor(() => err.includes(`task ${fb} (fb) is queued: waiting for a slot in queue q1`), {message: 'the queued task explained'})
    writeFileSync(gate, '')
    const r = await following
    // fb ran after fa and failed: seen, and its exit code is the command's
    expect(String(r.stdout)).toContain(`[${fb} fb] fb-line`)
    expect(r.exitCode).toBe(3)

    // only a queued task of a paused queue: following waits (it does not exit 0 at once), and says why
    expect((await drover(dir, ['queue', 'pause', 'q1'])).exitCode).toBe(0)
    const fc = await start('fc', 'echo fc-line')
    const paused = follow(dir, ['logs', '-f', '--all'])
    let pausedErr = ''
    paused.following.stderr!.on('data', (chunk: Buffer) => (pausedErr += chunk.toString()))
    await waitFor(() => pausedErr.includes(`task ${fc} (fc) is queued`), {message: 'the paused task explained'})
    expect(paused.following.exitCode).toBeNull()
    // logs -f of the one queued task says so too
    const single = follow(dir, ['logs', '-f', 'fc'])
    let singleErr = ''
    single.following.stderr!.on('data', (chunk: Buffer) => (singleErr += chunk.toString()))
    await waitFor(() => singleErr.includes(`task ${fc} (fc) is queued: waiting for a slot in queue q1`), {message: 'logs -f of a queued task explained'})
    expect((await drover(dir, ['queue', 'resume', 'q1'])).exitCode).toBe(0)
    const [all, one] = await Promise.all([paused.following, single.following])
    expect(all.exitCode).toBe(0)
    expect(String(all.stdout)).toContain(`[${fc} fc] fc-line`)
    expect(one.exitCode).toBe(0)
    expect(String(one.stdout)).toContain('fc-line')
  })

  it('--timestamps gives each line its time of arrival; lines already there get a blank column', async () => {
    const dir = makeStateDir()
    const gate = path.join(dir, 'gate')
    const id = await startShell(dir, 'stamps', `echo early; while [ ! -e '${gate}' ]; do sleep 0.05; done; echo later`)
    await waitFor(async () => (await drover(dir, ['logs', String(id)])).stdout.includes('early'))
    const {following, seen} = follow(dir, ['logs', '-f', '-t', String(id)])
    await waitFor(() => seen().includes('early'), {message: 'following'})
    writeFileSync(gate, '')
    const r = await following
    expect(r.exitCode).toBe(0)
    expect(String(r.stdout).split('\n')).toEqual([expect.stringMatching(/^ {12} early$/), expect.stringMatching(/^\d\d:\d\d:\d\d\.\d{3} later$/)])
    // without -f no line arrives while drover watches: no column of blanks, and a note on stderr says why
    const printed = await drover(dir, ['logs', '-t', String(id)])
    expect(printed.stdout).toBe('early\nlater')
    expect(printed.stderr).toMatch(/--timestamps shows the time of lines that arrive while following \(-f\)/)
  })

  it('--since: only runs active within it; with --all, tasks that ended within it too', async () => {
    const dir = makeStateDir()
    ensureStateDir(dir)
    const old = makeTask(dir, {status: 'succeeded', endedAt: '2020-01-01T00:00:00.000Z'})
    writeFileSync(taskPaths(dir, old).output, 'old output\n')
    const recent = await startShell(dir, 'recent', 'echo fresh')
    await waitFor(() => readTask(dir, recent).status === 'succeeded')
    const all = await drover(dir, ['logs', '--all', '--since', '1h'])
    expect(all.stdout).toBe(`[${recent} recent] fresh`)
    expect((await drover(dir, ['logs', '--since', '1h', String(old)])).stdout).toBe('')
    expect((await drover(dir, ['logs', '--since', '1h', String(recent)])).stdout).toBe('fresh')
    // an absolute time: a date, a date and time, a time of day (the latest one past)
    const today = new Date()
    const date = `${today.getFullYear()}-${String(today.getMonth() + 1).padStart(2, '0')}-${String(today.getDate()).padStart(2, '0')}`
    expect((await drover(dir, ['logs', '--all', '--since', date])).stdout).toBe(`[${recent} recent] fresh`)
    expect((await drover(dir, ['logs', '--since', '2020-01-02T00:00Z', String(old)])).stdout).toBe('')
    expect((await drover(dir, ['logs', '--since', '2019-12-31T12:00Z', String(old)])).stdout).toBe('old output')
    expect((await drover(dir, ['logs', '--since', '00:00', String(recent)])).stdout).toBe('fresh')
    expect(await drover(dir, ['logs', '--since', '2999-01-01', String(recent)])).toMatchObject({exitCode: 2, stderr: "drover: --since: '2999-01-01' is in the future"})
    expect((await drover(dir, ['logs', '--since', '25:00', String(recent)])).exitCode).toBe(2)
  })

  it('refuses what does not fit together (exit 2)', async () => {
    const dir = makeStateDir()
    const id = await startShell(dir, 'x', 'echo x')
    for (const args of [
      ['logs', '-f', '--json', String(id), String(id)],
      ['logs', '--all', String(id)],
      ['logs', '--pretty', '--raw', String(id)],
      ['logs', '--since', '1h', '-n', '3', String(id)],
      ['logs'],
    ]) {
      const r = await drover(dir, args)
      expect(r.exitCode, args.join(' ')).toBe(2)
    }
  })
})
