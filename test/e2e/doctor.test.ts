// `drover doctor` through the CLI, on real state dirs: exit 0 when all is
// well, 1 with one line per problem saying what to do, the --json shape,
// API key variables shown as present and never by value, and nothing on
// disk changed — whatever it finds. The agents on PATH are the fixtures'
// fake claude and codex (real programs answering --version and --help as
// the real ones do).

import {spawn} from 'node:child_process'
import {chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync} from 'node:fs'
import {hostname, tmpdir} from 'node:os'
import path from 'node:path'
import {afterAll, afterEach, describe, expect, it} from 'vitest'
import {processStartTime} from '../../src/platform/platform.js'
import {taskPaths} from '../../src/state/store.js'
import {cleanupStateDirs, killLeftovers, leftoverList, drover, FIXTURES, isAlive, json, makeStateDir, makeTempDir, waitFor, type CliResult} from '../helpers/cli.js'
import {snapshot} from '../helpers/snapshot.js'
import {deadIdentity, fabricateTask} from '../fixtures/rel-state.js'

const spawned = leftoverList()
afterEach(() => {
  killLeftovers(spawned)
  cleanupStateDirs()
})

// node for the fake agents' `#!/usr/bin/env node` and nothing else of this
// machine's PATH (where Slurm's commands may be: CI installs them)
const NODE_DIR = mkdtempSync(path.join(tmpdir(), 'drover-doctor-node-'))
symlinkSync(process.execPath, path.join(NODE_DIR, 'node'))
const BASE_PATH = NODE_DIR
afterAll(() => rmSync(NODE_DIR, {recursive: true, force: true}))

/** doctor with a PATH holding the fake agents (or not) and a HOME of its own. */
function doctor(stateDir: string, args: string[] = [], env: Record<string, string> = {}, agents = true): Promise<CliResult> {
  const home = makeTempDir('drover-doctor-home-')
  const pathEnv = agents ? [path.join(FIXTURES, 'bin'), BASE_PATH].join(path.delimiter) : BASE_PATH
  return drover(stateDir, ['doctor', ...args], {env: {PATH: pathEnv, HOME: home, DROVER_EXECUTOR: '', ...env}})
}

const problemLines = (r: CliResult) => r.stdout.split('\n').filter((line) => /^(error|warning): /.test(line))

describe('drover doctor', () => {
  it('all well: exit 0, the agents found with their versions and readable flags, "No problems found"', async () => {
    const dir = makeStateDir()
    fabricateTask(dir, {status: 'succeeded'})
    const r = await doctor(dir)
    expect(r.exitCode, r.stdout + r.stderr).toBe(0)
    expect(r.stderr).toBe('')
    expect(r.stdout).toMatch(new RegExp(`claude +${path.join(FIXTURES, 'bin', 'claude')} +2\\.1\\.332 \\(--version: \\d+ ms\\) +flags read: \\d+`))
    expect(r.stdout).toMatch(/codex +\S+ +0\.171\.0/)
    expect(r.stdout).toMatch(/gemini +not found on PATH/)
    expect(r.stdout).toContain(`State dir  ${dir}  (from DROVER_STATE_DIR)`)
    expect(r.stdout).toMatch(/owner you, mode 700 · [\d.]+ [KMGT]?i?B free · 1 task/)
    expect(r.stdout).toMatch(/No problems found \(\d+/)
    expect(problemLines(r)).toEqual([])
  })

  it('--json: the report, JSON only on stdout, in a stable shape', async () => {
    const dir = makeStateDir()
    const r = await doctor(dir, ['--json'])
    expect(r.exitCode).toBe(0)
    const report = json(r)
    expect(Object.keys(report)).toEqual(['ok', 'drover', 'agents', 'stateDir', 'executors', 'environment', 'problems', 'tookMs'])
    expect(report.ok).toBe(true)
    expect(report.drover).toEqual({version: expect.any(String), node: process.version, platform: process.platform, arch: process.arch})
    expect(report.agents.map((a: any) => a.name)).toEqual(['claude', 'codex', 'gemini', 'qwen', 'copilot', 'opencode'])
    expect(Object.keys(report.agents[0])).toEqual(['name', 'found', 'path', 'realPath', 'version', 'versionTookMs', 'versionError', 'flags', 'sessionStore'])
    expect(report.agents[0]).toMatchObject({found: true, version: '2.1.332', flags: {readable: true, error: null}})
    expect(report.agents[2]).toMatchObject({name: 'gemini', found: false, path: null, flags: null})
    expect(Object.keys(report.stateDir).sort()).toEqual(
      ['path', 'exists', 'isDirectory', 'error', 'format', 'formatError', 'owner', 'space', 'tasks', 'corrupt', 'staleLocks', 'unwatched', 'leftovers', 'leftoverScan', 'interrupted', 'slurmTasks', 'source', 'config'].sort(),
    )
    expect(report.stateDir).toMatchObject({path: dir, source: 'environment', format: 1, formatError: null, owner: {mode: '700', mine: true}, config: {present: false, error: null}})
    expect(report.executors.map((e: any) => [e.name, e.used, e.reachable])).toEqual([
      ['local', true, true],
      ['slurm', false, null],
    ])
    expect(report.problems).toEqual([])
  })

  it('something broken: exit 1, one line per problem saying what to do, and nothing on disk changed', async () => {
    const dir = makeStateDir()
    const corrupt = fabricateTask(dir, {status: 'succeeded'})
    writeFileSync(taskPaths(dir, corrupt).record, '{"id": 1,')
    const unwatched = fabricateTask(dir, {status: 'running', runner: deadIdentity(), worker: deadIdentity()})
    const ended = fabricateTask(dir, {status: 'succeeded', worker: deadIdentity()})
    // a real process of the ended task: what a child that left the tree with setsid looks like
    const child = spawn('sleep', ['600'], {stdio: 'ignore', detached: true, env: {...process.env, DROVER_CONTROL_FILE: taskPaths(dir, ended).control}})
    child.unref()
    spawned.push(child.pid!)
    await waitFor(() => processStartTime(child.pid!))
    const lock = path.join(dir, 'locks', `task-${ended}.lock`)
    mkdirSync(lock)
    writeFileSync(path.join(lock, 'owner.json'), JSON.stringify({...deadIdentity(), host: hostname()}))
    const before = snapshot(dir)

    const r = await doctor(dir)
    expect(r.exitCode, r.stdout).toBe(1)
    expect(problemLines(r)).toEqual([
      expect.stringMatching(new RegExp(`^error: task ${corrupt}: its record cannot be read \\(task.json is corrupt: .*\\); keep what you need from ${taskPaths(dir, corrupt).dir}, then \`drover prune --include-corrupt\` removes it$`)),
      `error: task ${unwatched}: recorded running but its runner (pid ${readRunner(dir, unwatched).pid}) is gone; \`drover status ${unwatched}\` records it lost (and stops what it left); \`drover resume ${unwatched}\` continues it`,
      `error: task ${ended}: it ended (succeeded) but 1 process of it still runs (pid ${child.pid}); stop them: kill ${child.pid} (kill -9 ${child.pid} if they stay)`,
      expect.stringMatching(new RegExp(`^warning: lock task-${ended}\\.lock: stale lock \\(held by pid \\d+ on ${hostname()}, which is gone\\); nothing to do: the next drover command that needs it takes it over$`)),
    ])
    expect(snapshot(dir)).toEqual(before)
    expect(isAlive(child.pid!)).toBe(true)

    const asJson = await doctor(dir, ['--json'])
    expect(asJson.exitCode).toBe(1)
    const report = json(asJson)
    expect(report.ok).toBe(false)
    expect(report.problems.map((p: any) => [p.severity, p.subject])).toEqual([
      ['error', `task ${corrupt}`],
      ['error', `task ${unwatched}`],
      ['error', `task ${ended}`],
      ['warning', `lock task-${ended}.lock`],
    ])
    expect(report.stateDir.corrupt).toEqual([{id: corrupt, error: expect.stringContaining('corrupt')}])
    expect(report.stateDir.leftovers).toEqual([{id: ended, status: 'succeeded', pids: [child.pid]}])
    expect(snapshot(dir)).toEqual(before)
  })

  it('a group-writable state dir is a problem to fix (exit 1 with the chmod), not a refusal (exit 5)', async () => {
    const dir = makeStateDir()
    fabricateTask(dir, {status: 'succeeded'})
    chmodSync(dir, 0o770)
    const r = await doctor(dir)
    expect(r.exitCode, r.stderr).toBe(1)
    expect(problemLines(r)).toEqual([
      `error: state dir: ${dir} is writable by its group (mode 770): drover refuses it, since another user could plant records that make drover signal processes of their choice; if only you should write it, run: chmod 700 ${dir}`,
    ])
    chmodSync(dir, 0o700)
  })

  it('API key variables: which are set, never their values', async () => {
    const dir = makeStateDir()
    const secret = 'sk-ant-doctor-SECRET-4242'
    for (const args of [[], ['--json']]) {
      const r = await doctor(dir, args, {ANTHROPIC_API_KEY: secret, OPENAI_API_KEY: `${secret}-openai`, GEMINI_API_KEY: ''})
      expect(r.exitCode).toBe(0)
      expect(r.stdout + r.stderr).not.toContain('SECRET')
      if (args.length === 0) {
        expect(r.stdout).toMatch(/ANTHROPIC_API_KEY +set +\(claude, opencode\)/)
        expect(r.stdout).toMatch(/GEMINI_API_KEY +not set/)
      } else {
        const keys = Object.fromEntries(json(r).environment.apiKeys.map((k: any) => [k.name, k]))
        expect(keys.ANTHROPIC_API_KEY).toEqual({name: 'ANTHROPIC_API_KEY', agents: ['claude', 'opencode'], present: true})
        expect(keys.OPENAI_API_KEY.present).toBe(true)
        expect(keys.GEMINI_API_KEY.present).toBe(false)
        expect(keys.CODEX_API_KEY.present).toBe(false)
      }
    }
  })

  it('a state dir that does not exist yet: reported, not created, exit 0', async () => {
    const parent = makeStateDir()
    const dir = path.join(parent, 'later')
    const r = await doctor(parent, ['--state-dir', dir, '--json'])
    expect(r.exitCode).toBe(0)
    expect(json(r).stateDir).toMatchObject({path: dir, source: 'option', exists: false, error: null})
    expect(existsSync(dir)).toBe(false)
  })

  it('Slurm made the default but its commands are missing, a bad DROVER_EXECUTOR, a bad config.json: errors, each with its fix', async () => {
    const dir = makeStateDir()
    writeFileSync(path.join(dir, 'config.json'), JSON.stringify({executor: 'slurm'}))
    const r = await doctor(dir)
    expect(r.exitCode).toBe(1)
    expect(problemLines(r)).toEqual([
      "error: executor slurm: sbatch, squeue, scontrol, scancel not found on PATH (used by config.json): tasks cannot be placed on it; install Slurm's client commands (sbatch, squeue, scontrol, scancel) or put them on PATH",
    ])
    expect(r.stdout).toMatch(/slurm +unreachable \(used by config\.json\)/)

    writeFileSync(path.join(dir, 'config.json'), '{"executor": ')
    const bad = await doctor(dir, [], {DROVER_EXECUTOR: 'nomad'})
    expect(bad.exitCode).toBe(1)
    expect(problemLines(bad)).toEqual([
      expect.stringMatching(/^error: config\.json: .*config\.json: not valid JSON .*: every `drover start` refuses it; correct or remove .*config\.json$/),
      'error: environment: DROVER_EXECUTOR=nomad names no executor: every `drover start` without --executor refuses it; set it to local or slurm, or unset it',
    ])
  })

  it('Slurm reachable: its controller answers scontrol ping', async () => {
    const dir = makeStateDir()
    // Slurm's client commands as scripts (the real cluster: test/slurm/config.test.ts)
    const bin = makeTempDir('drover-doctor-slurm-')
    for (const name of ['sbatch', 'squeue', 'scancel']) writeFileSync(path.join(bin, name), '#!/bin/sh\nexit 0\n', {mode: 0o755})
    writeFileSync(path.join(bin, 'scontrol'), '#!/bin/sh\n[ "$1" = ping ] && echo "Slurmctld(primary) at head is UP"\n', {mode: 0o755})
    const r = await doctor(dir, ['--json'], {DROVER_EXECUTOR: 'slurm', PATH: [bin, path.join(FIXTURES, 'bin'), BASE_PATH].join(path.delimiter)})
    expect(r.exitCode, r.stdout).toBe(0)
    expect(json(r).executors[1]).toMatchObject({name: 'slurm', used: true, usedBy: ['DROVER_EXECUTOR'], reachable: true, controller: 'Slurmctld(primary) at head is UP', error: null})
    writeFileSync(path.join(bin, 'scontrol'), '#!/bin/sh\necho "Slurmctld(primary) at head is DOWN"; exit 1\n', {mode: 0o755})
    const down = await doctor(dir, [], {DROVER_EXECUTOR: 'slurm', PATH: [bin, BASE_PATH].join(path.delimiter)})
    expect(down.exitCode).toBe(1)
    expect(problemLines(down)).toEqual([
      'error: executor slurm: the controller does not answer (scontrol ping: Slurmctld(primary) at head is DOWN) (used by DROVER_EXECUTOR): tasks cannot be placed on it; check the controller and SLURM_CONF (`scontrol ping` must say UP)',
    ])
  })

  it('a bad --timeout is a usage error (exit 2)', async () => {
    const r = await doctor(makeStateDir(), ['--timeout', 'soon'])
    expect(r.exitCode).toBe(2)
    expect(r.stderr).toContain("--timeout: invalid duration 'soon'")
  })
})

describe('drover doctor --paths', () => {
  it('prints the state dir and where it came from, its hooks dir, on-exit hook and config file; checks and creates nothing', async () => {
    const home = makeTempDir('drover-paths-home-')
    // cron's bare environment: no DROVER_STATE_DIR, so the default under HOME (never "/hooks")
    const bare = await drover('', ['doctor', '--paths'], {env: {DROVER_STATE_DIR: '', HOME: home, XDG_DATA_HOME: '', PATH: BASE_PATH}})
    const dir = path.join(home, '.local', 'share', 'drover')
    expect(bare).toMatchObject({exitCode: 0, stderr: ''})
    expect(bare.stdout.split('\n')).toEqual([
      `state dir  ${dir}  (the per-OS default; DROVER_STATE_DIR is not set)`,
      `hooks dir  ${path.join(dir, 'hooks')}`,
      `on-exit    ${path.join(dir, 'hooks', 'on-exit')}`,
      `on-status  ${path.join(dir, 'hooks', 'on-status')}`,
      `config     ${path.join(dir, 'config.json')}`,
    ])
    expect(existsSync(dir)).toBe(false)

    const spaced = path.join(home, 'a dir')
    const r = await drover(spaced, ['doctor', '--paths', '--json'], {env: {PATH: BASE_PATH}})
    expect(r.exitCode).toBe(0)
    expect(json(r)).toEqual({
      stateDir: spaced,
      source: 'environment',
      hooksDir: path.join(spaced, 'hooks'),
      onExitHook: path.join(spaced, 'hooks', 'on-exit'),
      onStatusHook: path.join(spaced, 'hooks', 'on-status'),
      configFile: path.join(spaced, 'config.json'),
    })
    expect(json(await drover(spaced, ['doctor', '--paths', '--json', '--state-dir', home]))).toMatchObject({stateDir: home, source: 'option'})
    expect(existsSync(spaced)).toBe(false)
  })
})

function readRunner(dir: string, id: number): {pid: number} {
  return JSON.parse(readFileSync(taskPaths(dir, id).runner, 'utf8'))
}
