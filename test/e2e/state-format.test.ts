// The state dir's format file, end to end: a state dir written by drover 0.1.0
// (test/fixtures/state-0.1.0.tar.gz, made by that release: see
// make-state-0.1.0.mjs) is listed, shown, started again, resumed and pruned by
// this drover, and gets its format file only from the first command that
// writes; a state dir of a newer format, or with a garbled format file, is
// refused (exit 5) by every entry — commands, completion, the API the MCP
// server and the dashboard open it with — with nothing changed on disk.

import {execFileSync} from 'node:child_process'
import {existsSync, readdirSync, readFileSync, renameSync, statSync, utimesSync, writeFileSync} from 'node:fs'
import path from 'node:path'
import {afterEach, describe, expect, it} from 'vitest'
import {cleanupStateDirs, drover, fixture, FIXTURES, json, makeStateDir, makeTempDir, readTask, waitFor} from '../helpers/cli.js'
import {snapshot} from '../helpers/snapshot.js'
import {BIN_MARK, MARKS, STATE_MARK, makeBin, pathIn} from '../fixtures/make-state-0.1.0.mjs'
import {openStateDir} from '../../src/api/drover.js'
import {completeTaskRefs} from '../../src/api/completion.js'
import {doctor} from '../../src/api/doctor.js'

afterEach(async () => {
  cleanupStateDirs()
})

interface OldState {
  state: string
  home: string
  env: Record<string, string>
}

/**
 * The 0.1.0 state dir, unpacked in a temp dir of the test's own with this
 * machine's paths put in for the fixture's marks. The state dir and <bin> go
 * to paths as long as their marks: records (and 0.1.0's summary, which
 * gives each record's length in bytes) hold them.
 */
function oldStateDir(): OldState {
  const root = makeTempDir('drover-old-')
  execFileSync('tar', ['-xzf', fixture('state-0.1.0.tar.gz'), '-C', root])
  const state = pathIn(root, 's')
  renameSync(path.join(root, 'state'), state)
  const home = path.join(root, 'home')
  const bin = pathIn(root, 'b')
  makeBin(bin, FIXTURES)
  const marks: [string, string][] = [
    [STATE_MARK, state],
    [BIN_MARK, bin],
    [MARKS.home, home],
    [MARKS.node, process.execPath],
    [MARKS.drover, path.resolve(FIXTURES, '..', '..')],
  ]
  const walk = (dir: string): string[] =>
    readdirSync(dir, {withFileTypes: true}).flatMap((e) => (e.isDirectory() ? walk(path.join(dir, e.name)) : [path.join(dir, e.name)]))
  for (const file of [...walk(state), ...walk(home)]) {
    const text = readFileSync(file, 'latin1')
    let out = text
    for (const [mark, real] of marks) out = out.replaceAll(mark, real)
    if (out === text) continue
    const {atime, mtime} = statSync(file)
    writeFileSync(file, out, 'latin1')
    utimesSync(file, atime, mtime)
  }
  const env = {HOME: home, PATH: `${bin}${path.delimiter}/usr/bin${path.delimiter}/bin`, FAKE_AGENT_TURN_MS: '50', FAKE_AGENT_TURNS: '2'}
  return {state, home, env}
}

const formatFile = (state: string) => path.join(state, 'format')

/** The state dir as snapshot() sees it (the derived index, a cache, left out). */
const stateOf = (state: string) => snapshot(state)


describe('a state dir of drover 0.1.0', () => {
  it('is listed and shown as it was, with nothing written; a command that writes gives it its format file', async () => {
    const {state, env} = oldStateDir()
    const before = stateOf(state)

    const list = await drover(state, ['list', '--json'], {env})
    expect(list.exitCode, list.stderr).toBe(0)
    const tasks = json(list).map((t: any) => [t.id, t.name, t.status])
    expect(tasks).toEqual([
      [1, 'hello', 'succeeded'],
      [2, 'agent', 'drained'],
      [3, 'queued', 'queued'],
    ])
    for (const args of [['list'], ['list', '--all'], ['status', 'agent'], ['status', '3', '--json'], ['logs', '1'], ['queue'], ['task-refs', '']]) {
      const r = await drover(state, args, {env})
      expect(r.exitCode, `${args.join(' ')}: ${r.stderr}`).toBe(0)
    }
    const status = json(await drover(state, ['status', 'agent', '--json'], {env}))
    expect(status.checkpoint).toMatchObject({mode: 'cooperative'})
    expect((await drover(state, ['logs', '1'], {env})).stdout).toBe('hello')
    expect(existsSync(formatFile(state))).toBe(false)
    expect(stateOf(state)).toEqual(before)

    // nor does a refusal, nor a stop of a task that already ended
    const refused = await drover(state, ['start', 'queued'], {env})
    expect(refused.exitCode, refused.stderr).toBe(4)
    const ended = await drover(state, ['stop', 'hello'], {env})
    expect([ended.exitCode, ended.stdout]).toEqual([0, 'task 1 already ended: succeeded (exit 0)'])
    const noQueue = await drover(state, ['queue', 'pause', 'nosuch'], {env})
    expect(noQueue.exitCode, noQueue.stderr).toBe(2)
    expect(stateOf(state)).toEqual(before)

    const again = await drover(state, ['start', 'hello'], {env})
    expect(again.exitCode, again.stderr).toBe(0)
    expect(readFileSync(formatFile(state), 'utf8')).toBe('drover-state 1\n')
    expect(statSync(formatFile(state)).mode & 0o777).toBe(0o600)
    // 0.1.0's caches went with the first write; index/ holds what they held
    expect(existsSync(path.join(state, 'summary'))).toBe(false)
    await waitFor(() => readTask(state, 1).status === 'succeeded' && readTask(state, 1).runs.length === 2, {message: 'task 1 to run again'})
  })

  it('resumes its drained agent, runs its queued task and prunes', async () => {
    const {state, env} = oldStateDir()
    const session = readTask(state, 2).agentInfo.sessionId

    const resume = await drover(state, ['resume', 'agent'], {env})
    expect(resume.exitCode, resume.stderr).toBe(0)
    await waitFor(() => readTask(state, 2).status === 'succeeded', {timeout: 30_000, message: 'the resumed agent to end'})
    const agent = readTask(state, 2)
    expect(agent.runs.at(-1)).toMatchObject({resumed: true})
    expect(agent.agentInfo.sessionId).toBe(session)
    expect(existsSync(formatFile(state))).toBe(true)

    const go = await drover(state, ['queue', 'resume', 'later'], {env})
    expect(go.exitCode, go.stderr).toBe(0)
    await waitFor(() => readTask(state, 3).status === 'succeeded', {message: 'the queued task to run'})

    const prune = await drover(state, ['prune', '--older-than', '0', '--json'], {env})
    expect(prune.exitCode, prune.stderr).toBe(0)
    expect(json(prune).removed.map((t: any) => t.id)).toEqual([1, 2, 3])
    expect(json(await drover(state, ['list', '--json'], {env}))).toEqual([])
  })

  it('prune alone gives it the format file, once it removed something', async () => {
    const {state, env} = oldStateDir()
    const before = stateOf(state)
    const refused = await drover(state, ['rm', '3'], {env})
    expect(refused.exitCode, refused.stderr).toBe(4)
    expect(stateOf(state)).toEqual(before)
    const prune = await drover(state, ['prune', '--older-than', '0', '--json'], {env})
    expect(prune.exitCode, prune.stderr).toBe(0)
    expect(json(prune).removed.map((t: any) => t.id)).toEqual([1]) // 2 keeps its checkpoint
    expect(readFileSync(formatFile(state), 'utf8')).toBe('drover-state 1\n')
  })
})

describe('a state dir drover cannot read the format of', () => {
  const COMMANDS = [['list'], ['status', '1'], ['logs', '1'], ['start', '--', 'true'], ['stop', '--all'], ['resume', '1'], ['prune', '--older-than', '0'], ['rm', '1'], ['queue'], ['wait', '1'], ['task-refs', '']]

  async function refusedEverywhere(state: string, message: RegExp): Promise<void> {
    const before = snapshot(state)
    for (const args of COMMANDS) {
      const r = await drover(state, args)
      expect(r.exitCode, `${args.join(' ')}: ${r.stdout}${r.stderr}`).toBe(5)
      const lines = r.stderr.trim().split('\n')
      expect(lines, args.join(' ')).toHaveLength(1)
      expect(lines[0]).toMatch(message)
    }
    const asJson = await drover(state, ['status', '1', '--json'])
    expect(asJson.exitCode).toBe(5)
    expect(json(asJson).error).toMatchObject({exitCode: 5, message: expect.stringMatching(message)})
    // the API the MCP server, the dashboard and `top` open it with, and completion
    await expect(openStateDir(state)).rejects.toMatchObject({exitCode: 5, message: expect.stringMatching(message)})
    await expect(completeTaskRefs({stateDir: state})).rejects.toMatchObject({exitCode: 5})
    const report = await doctor({stateDir: state, agents: [], timeoutMs: 1000})
    expect(report.ok).toBe(false)
    expect(report.problems[0]).toMatchObject({severity: 'error', subject: 'state dir', message: expect.stringMatching(message)})
    expect(snapshot(state)).toEqual(before)
  }

  it('a newer format: exit 5, upgrade drover, nothing changed', async () => {
    const {state} = oldStateDir()
    writeFileSync(formatFile(state), 'drover-state 2\n', {mode: 0o600})
    const said = `state dir ${state} was written by a newer drover (format 2; this drover reads up to 1): upgrade drover`
    await refusedEverywhere(state, new RegExp(`^(drover: )?${said.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`))
  })

  it('a garbled format file: exit 5, said as it is', async () => {
    const state = makeStateDir()
    expect((await drover(state, ['list'])).exitCode).toBe(0)
    for (const text of ['', 'drover-state\n', 'drover-state 0\n', 'format 1\n', `${'x'.repeat(100)}`]) {
      writeFileSync(formatFile(state), text)
      await refusedEverywhere(state, /has a format file drover cannot read: .*format holds ".*", not "drover-state <number>"$/)
    }
  })
})

describe('a new state dir', () => {
  it('gets its format file when drover makes it: a look makes none, a setting does', async () => {
    const parent = makeStateDir()
    const state = path.join(parent, 'new', 'state')
    const list = await drover(state, ['list'])
    expect(list.exitCode, list.stderr).toBe(0)
    expect(existsSync(path.join(parent, 'new'))).toBe(false)
    const set = await drover(state, ['queue', 'set', 'q', '--parallel', '1'])
    expect(set.exitCode, set.stderr).toBe(0)
    expect(readFileSync(formatFile(state), 'utf8')).toBe('drover-state 1\n')
    expect(readdirSync(state).sort()).toEqual(['format', 'index', 'locks', 'queues', 'tasks'])
  })
})
