// The command line as scripts and people type it: stdin is never read for an
// argument, help and global flags work wherever people put them, mistakes end
// in one line with a hint (exit 2) and change nothing on disk, durations need
// a unit, --color beats NO_COLOR, and the state-dir hint never says chmod /tmp.

import {execa} from 'execa'
import {chmodSync, existsSync, mkdirSync, readdirSync} from 'node:fs'
import path from 'node:path'
import {afterEach, describe, expect, it} from 'vitest'
import {BIN, cleanupStateDirs, drover, fixture, json, makeStateDir, readOutput, readTask, waitFor, type CliResult} from '../helpers/cli.js'
import {snapshot} from '../helpers/snapshot.js'

afterEach(() => cleanupStateDirs())

/** The CLI as users run it (vitest's NODE_ENV=test would make oclif print developer warnings). */
const cli = (stateDir: string, args: string[], env: Record<string, string> = {}) =>
  drover(stateDir, args, {env: {NODE_ENV: 'production', ...env}})

/** A shell line with drover on PATH as `drover`, its stdin a real pipe from the shell. */
async function sh(stateDir: string, script: string): Promise<CliResult> {
  const result = await execa('sh', ['-c', script], {
    env: {DROVER_STATE_DIR: stateDir, NO_COLOR: '1', NODE_ENV: 'production', DROVER: `${process.execPath} ${BIN}`},
    reject: false,
    timeout: 60_000,
  })
  return {stdout: String(result.stdout), stderr: String(result.stderr), exitCode: result.exitCode ?? -1}
}

function expectUsageError(result: CliResult, pattern: RegExp): void {
  const context = `exit ${result.exitCode}\nstdout: ${result.stdout}\nstderr: ${result.stderr}`
  expect(result.exitCode, context).toBe(2)
  expect(result.stdout, context).toBe('')
  const lines = result.stderr.trim().split('\n')
  expect(lines, context).toHaveLength(1)
  expect(lines[0], context).toMatch(/^drover: /)
  expect(lines[0], context).toMatch(pattern)
  expect(lines[0], context).not.toMatch(/:\w+:|'\w+:\w+'/) // oclif's topic syntax (log:1)
}

describe('stdin is never an argument', () => {
  it('a read loop starts one task per line and keeps its input', async () => {
    const dir = makeStateDir()
    const result = await sh(dir, `printf 'a\\nb\\n' | while read f; do $DROVER start -- echo "$f" || exit 9; done`)
    expect(result.exitCode, result.stderr).toBe(0)
    expect(result.stdout.split('\n')).toEqual(['1', '2'])
    await waitFor(() => readTask(dir, 2).status === 'succeeded', {message: 'task 2 to succeed'})
    expect(readOutput(dir, 1)).toBe('a\n')
    expect(readOutput(dir, 2)).toBe('b\n')
  })

  it('`echo s1 | drover cancel` is a usage error and cancels nothing', async () => {
    const dir = makeStateDir()
    const start = await cli(dir, ['start', '--name', 's1', '--', process.execPath, '-e', 'setTimeout(() => {}, 300000)'])
    expect(start.exitCode, start.stderr).toBe(0)
    const result = await sh(dir, 'echo s1 | $DROVER cancel')
    expectUsageError(result, /no task given/)
    expect(readTask(dir, 1).status).toBe('running')
  })

  it('`echo x | drover stop --all` stops every running task', async () => {
    const dir = makeStateDir()
    const start = await cli(dir, ['start', '--', process.execPath, '-e', 'setTimeout(() => {}, 300000)'])
    expect(start.exitCode, start.stderr).toBe(0)
    const result = await sh(dir, 'echo x | $DROVER stop --all')
    expect(result.exitCode, result.stderr).toBe(0)
    expect(readTask(dir, 1).status).toBe('stopped')
  })

  it("a task's stdin is /dev/null, whatever drover's own stdin is", async () => {
    const dir = makeStateDir()
    const probe = "const fs = require('fs'); console.log(fs.readlinkSync('/proc/self/fd/0'), fs.readFileSync(0, 'utf8').length)"
    const result = await sh(dir, `echo secret | $DROVER start -- ${process.execPath} -e "${probe}"`)
    expect(result.exitCode, result.stderr).toBe(0)
    await waitFor(() => readTask(dir, 1).status === 'succeeded', {message: 'the probe to end'})
    expect(readOutput(dir, 1)).toBe('/dev/null 0\n')
  })
})

describe('help and global flags wherever people put them', () => {
  it('-h is help, for drover and for a command', async () => {
    const dir = makeStateDir()
    for (const [args, heading] of [
      [['-h'], /^USAGE\n {2}\$ drover \[COMMAND\]/m],
      [['start', '-h'], /^USAGE\n {2}\$ drover start \[FLAGS\] -- COMMAND/m],
      [['list', '-h'], /^USAGE\n {2}\$ drover list/m],
    ] as const) {
      const result = await cli(dir, [...args])
      expect(result.exitCode, `${args}: ${result.stderr}`).toBe(0)
      expect(result.stdout).toMatch(heading)
    }
    expect(readdirSync(dir)).toEqual([])
  })

  it('start --help: the examples right after the usage, the flags in groups (Limits, Queue, Agents, Worktree, Retry, Hooks, Slurm), GLOBAL last', async () => {
    const dir = makeStateDir()
    const help = (await cli(dir, ['start', '--help'])).stdout
    const headings = help.split('\n').filter((line) => /^[A-Z][A-Z ]+$/.test(line))
    expect(headings).toEqual(['USAGE', 'EXAMPLES', 'ARGUMENTS', 'FLAGS', 'LIMITS FLAGS', 'QUEUE FLAGS', 'AGENTS FLAGS', 'WORKTREE FLAGS', 'RETRY FLAGS', 'HOOKS FLAGS', 'SLURM FLAGS', 'GLOBAL FLAGS', 'DESCRIPTION'])
    const section = (name: string) => help.slice(help.indexOf(`\n${name}\n`), help.indexOf('\n\n', help.indexOf(`\n${name}\n`) + name.length + 2) + 1)
    expect(help.slice(help.indexOf('\nQUEUE FLAGS\n'), help.indexOf('\nAGENTS FLAGS\n'))).toMatch(/--after=.*--if-absent.*--priority=.*--queue=/s)
    expect(help.slice(help.indexOf('\nLIMITS FLAGS\n'), help.indexOf('\nQUEUE FLAGS\n'))).toMatch(/--max-tokens=N/)
    expect(section('FLAGS')).not.toMatch(/--timeout|--queue|--retry|--partition/)
    // the same for a command without groups: examples second
    expect((await cli(dir, ['list', '--help'])).stdout.split('\n').filter((line) => /^[A-Z][A-Z ]+$/.test(line)).slice(0, 2)).toEqual(['USAGE', 'EXAMPLES'])
  })

  it('-h after -- belongs to the command: start -- ls -h starts it', async () => {
    const dir = makeStateDir()
    const result = await cli(dir, ['start', '--', process.execPath, fixture('core-argv.mjs'), '-h'])
    expect(result.exitCode, result.stderr).toBe(0)
    expect(result.stdout).toBe('1')
    await waitFor(() => readTask(dir, 1).status === 'succeeded', {message: 'the task to end'})
    expect(readOutput(dir, 1)).toBe('["-h"]\n')
  })

  it('--state-dir, --json and --no-color before the command', async () => {
    const dir = makeStateDir()
    const other = makeStateDir()
    // Global flags move behind the command word; the task's own argv after -- stays as it was.
    const argv = ['--json', '--state-dir', 'x', '--', '-h']
    const start = await cli(other, ['--state-dir', dir, '--json', 'start', '--', process.execPath, fixture('core-argv.mjs'), ...argv])
    expect(start.exitCode, start.stderr).toBe(0)
    expect(json(start).id).toBe(1)
    await waitFor(() => readTask(dir, 1).status === 'succeeded', {message: 'the task to succeed'})
    expect(JSON.parse(readOutput(dir, 1))).toEqual(argv)
    expect(readdirSync(other)).toEqual([])

    const list = await cli(other, ['--json', `--state-dir=${dir}`, 'list'])
    expect(list.exitCode, list.stderr).toBe(0)
    expect(json(list).map((task: {id: number}) => task.id)).toEqual([1])
    const plain = await cli(dir, ['--no-color', 'list'], {NO_COLOR: ''})
    expect(plain.exitCode, plain.stderr).toBe(0)
    expect(plain.stdout).toMatch(/^ID +NAME +STATUS/)
  })

  it('a state dir that does not exist is read as empty and made by nothing but start and queue set', async () => {
    const dir = path.join(makeStateDir(), 'mistyped')
    // [argv, exit code, stdout (its last newline cut)]: what an empty state dir answers
    const looks: [string[], number, string][] = [
      [['list'], 0, ''],
      [['list', '--json'], 0, '[]'],
      [['list', '-q'], 0, ''],
      [['status', '3'], 3, ''],
      [['logs', '3'], 3, ''],
      [['wait', '3'], 3, ''],
      [['wait', '--all'], 0, ''],
      [['stop', '3'], 3, ''],
      [['stop', '--all'], 0, ''],
      [['cancel', '3'], 3, ''],
      [['drain', '--all'], 0, ''],
      [['resume', '--interrupted'], 0, ''],
      [['prune', '--keep', '0'], 0, 'no tasks to prune; 0 tasks kept'],
      [['rm', '3'], 3, ''],
      [['followups', '3'], 3, ''],
      [['diff', '1', '2'], 3, ''],
      [['compare', 'g'], 3, ''],
      [['merge', '3'], 3, ''],
      [['queue'], 0, ''],
      [['queue', 'pause', 'q'], 2, ''],
      [['queue', 'move', '3', '--first'], 3, ''],
    ]
    for (const [argv, exitCode, stdout] of looks) {
      const r = await cli(dir, ['--state-dir', dir, ...argv])
      expect({argv, exitCode: r.exitCode, stdout: r.stdout, made: existsSync(dir)}, r.stderr).toEqual({argv, exitCode, stdout, made: false})
    }
    const listed = await cli(dir, ['--state-dir', dir, 'list'])
    expect(listed.stderr).toBe(`no tasks in ${dir} (from --state-dir; it does not exist yet)`)
    const pruned = await cli(dir, ['--state-dir', dir, 'prune', '--keep', '0', '--json'])
    expect(json(pruned)).toMatchObject({removed: [], kept: 0})
    expect(existsSync(dir)).toBe(false)
    // a setting, then a task, make it
    expect((await cli(dir, ['--state-dir', dir, 'queue', 'set', 'q', '--parallel', '2'])).exitCode).toBe(0)
    expect(readdirSync(dir)).toContain('queues')
    const other = path.join(path.dirname(dir), 'started')
    const started = await cli(other, ['--state-dir', other, 'start', '--', 'true'])
    expect(started.exitCode, started.stderr).toBe(0)
    expect(readdirSync(path.join(other, 'tasks'))).toContain('1')
  })

  it('--version and --help after global flags answer as alone, and create nothing', async () => {
    const dir = path.join(makeStateDir(), 'never-made')
    const alone = await cli(dir, ['--version'])
    expect(alone.exitCode, alone.stderr).toBe(0)
    for (const argv of [['--state-dir', dir, '--version'], ['--json', `--state-dir=${dir}`, '--version']]) {
      const result = await cli(dir, argv)
      expect(result.exitCode, result.stderr).toBe(0)
      expect(result.stdout).toBe(alone.stdout)
    }
    const help = await cli(dir, ['--no-color', '--state-dir', dir, '--help'])
    expect(help.exitCode, help.stderr).toBe(0)
    expect(help.stdout).toMatch(/^Run long jobs/)
    expect(existsSync(dir)).toBe(false)
  })
})

describe('mistakes: one line, a hint, exit 2, nothing changed', () => {
  it('oclif topic syntax never shows; help for no command is our own error', async () => {
    const dir = makeStateDir()
    mkdirSync(path.join(dir, 'tasks'), {mode: 0o700})
    const was = snapshot(dir)
    expectUsageError(await cli(dir, ['log', '1']), /'log' is not a drover command — did you mean logs\?/)
    expectUsageError(await cli(dir, ['list', 'running']), /list takes no arguments.*--status running/)
    expectUsageError(await cli(dir, ['help', 'nosuch']), /no help for 'nosuch': not a drover command/)
    // the hidden listing completion runs is never suggested
    for (const args of [['task-ref'], ['help', 'task-ref']]) {
      const r = await cli(dir, args)
      expectUsageError(r, /not a drover command/)
      expect(r.stderr).not.toContain('task-refs')
    }
    expectUsageError(await cli(dir, ['list', '--staus', 'running']), /unknown flag: --staus \(did you mean --status\?\)/)
    expect(snapshot(dir)).toEqual(was)
  })

  it('list --follow points at logs -f and top; a flag missing its value is named as typed', async () => {
    const dir = makeStateDir()
    mkdirSync(path.join(dir, 'tasks'), {mode: 0o700})
    const was = snapshot(dir)
    for (const flag of ['--follow', '-f']) {
      expectUsageError(await cli(dir, ['list', flag]), new RegExp(`^drover: unknown flag: ${flag}: list shows the tasks once; follow a task's output with drover logs -f TASK, or watch every task live with drover top$`))
    }
    expectUsageError(await cli(dir, ['logs', '1', '-n']), /^drover: -n needs a value: -n VALUE$/)
    expectUsageError(await cli(dir, ['logs', '1', '--tail']), /^drover: --tail needs a value: --tail=VALUE$/)
    // the same line in a pipe, and as the first line behind head
    const piped = await sh(dir, '$DROVER list --follow 2>&1 | head -1; $DROVER logs 1 -n 2>&1 | cat')
    expect(piped.stdout.split('\n')).toEqual([
      "drover: unknown flag: --follow: list shows the tasks once; follow a task's output with drover logs -f TASK, or watch every task live with drover top",
      'drover: -n needs a value: -n VALUE',
    ])
    expect(snapshot(dir)).toEqual(was)
  })

  it('start: a flag of drover start after the -- is refused before any task exists', async () => {
    const dir = makeStateDir()
    mkdirSync(path.join(dir, 'tasks'), {mode: 0o700})
    const was = snapshot(dir)
    expectUsageError(await cli(dir, ['start', '--', '--name', 'x', 'sleep', '1']), /^drover: --name is a flag of drover start, after the --: flags before --, the command after it, e\.g\. drover start --name x -- sleep 1$/)
    expectUsageError(await cli(dir, ['start', '-q', '--', '--name=x', 'sleep', '1']), /e\.g\. drover start -q --name=x -- sleep 1$/)
    expectUsageError(await cli(dir, ['start', '--', '--shell', 'make']), /e\.g\. drover start --shell make$/)
    expectUsageError(await cli(dir, ['start', '--', '-x', 'sleep', '1']), /^drover: '-x' is an option, not a program: put drover's flags before -- and the command after it$/)
    expect((await sh(dir, '$DROVER start -- --name x sleep 1 2>&1 | head -1')).stdout).toMatch(/^drover: --name is a flag of drover start, after the --/)
    expect(snapshot(dir)).toEqual(was)
  })

  it('a misspelt task name gets a did-you-mean (logs, status, resume, stop), exit 3', async () => {
    const dir = makeStateDir()
    for (const name of ['fix', 'deploy']) expect((await cli(dir, ['start', '--name', name, '--', 'true'])).exitCode).toBe(0)
    for (const args of [['logs', 'fxi'], ['status', 'fxi'], ['resume', 'fxi'], ['stop', 'fxi']]) {
      const r = await cli(dir, args)
      expect(r.exitCode, JSON.stringify(args)).toBe(3)
      expect(r.stderr.trim(), JSON.stringify(args)).toBe('drover: no such task: fxi (did you mean fix?)')
    }
    expect((await cli(dir, ['logs', 'zzz'])).stderr.trim()).toBe('drover: no such task: zzz')
    expect(json(await cli(dir, ['status', 'fxi', '--json']))).toMatchObject({error: {exitCode: 3}, id: 'fxi', found: false, didYouMean: 'fix'})
    expect(json(await cli(dir, ['stop', 'fxi', '--json'])).missing).toEqual([{id: 'fxi', found: false, didYouMean: 'fix'}])
    expect((await sh(dir, '$DROVER logs fxi 2>&1 | head -1')).stdout).toBe('drover: no such task: fxi (did you mean fix?)')
  })

  it('start: a forgotten --, a command line in one argument, a directory', async () => {
    const dir = makeStateDir()
    const was = snapshot(dir)
    expectUsageError(await cli(dir, ['start', 'make', 'build']), /put it after --: drover start -- make build$/)
    expectUsageError(await cli(dir, ['start', '--', 'sleep 10']), /--shell 'sleep 10'/)
    expectUsageError(await cli(dir, ['start', '--', dir]), /is a directory/)
    expectUsageError(await cli(dir, ['start', '--', '.']), /'\.' is a directory/)
    expect(snapshot(dir)).toEqual(was)
  })

  it('a bare number is no duration: every flag but stop -t refuses it, with a hint', async () => {
    const dir = makeStateDir()
    const start = await cli(dir, ['start', '--', process.execPath, '-e', 'setTimeout(() => {}, 300000)'])
    expect(start.exitCode, start.stderr).toBe(0)
    await cli(dir, ['stop', '--no-wait', '1'])
    await waitFor(() => readTask(dir, 1).status === 'stopped', {message: 'task 1 to stop'})
    const was = snapshot(dir)
    for (const args of [
      ['prune', '--older-than', '7'],
      ['prune', '--keep', '1', '--lock-wait', '30'],
      ['start', '--timeout', '7', '--', 'true'],
      ['start', '--idle-timeout=7', '--', 'true'],
      ['drain', '--grace', '7', '1'],
      ['drain', '--kill-after', '7', '1'],
    ]) {
      expectUsageError(await cli(dir, args), /'7' has no unit: say 7d, 7h, 7m or 7s$|'30' has no unit/)
    }
    expect(snapshot(dir)).toEqual(was)
    // 0 is 0 in any unit; stop -t keeps docker's bare seconds.
    const prune = await cli(dir, ['prune', '--older-than', '0', '--dry-run'])
    expect(prune.exitCode, prune.stderr).toBe(0)
    const stop = await cli(dir, ['stop', '-t', '10', '1'])
    expect(stop.exitCode, stop.stderr).toBe(0)
  })
})

describe('colour and the state dir', () => {
  it('NO_COLOR=1 with --color colours: the flag wins', async () => {
    const dir = makeStateDir()
    const start = await cli(dir, ['start', '--', 'true'])
    expect(start.exitCode, start.stderr).toBe(0)
    await waitFor(() => readTask(dir, 1).status === 'succeeded', {message: 'the task to end'})
    const coloured = await cli(dir, ['list', '--color'], {NO_COLOR: '1'})
    expect(coloured.stdout).toContain('\u001B[32msucceeded\u001B[39m')
    const plain = await cli(dir, ['list'], {NO_COLOR: '1'})
    expect(plain.stdout).not.toContain('\u001B[')
  })

  it('a shared directory such as /tmp is never chmod-ed: a subdirectory is suggested', async () => {
    const shared = makeStateDir()
    chmodSync(shared, 0o1777)
    const result = await cli(shared, ['list', '--state-dir', shared])
    expect(result.exitCode).toBe(5)
    expect(result.stderr).not.toContain('chmod')
    expect(result.stderr.trim()).toMatch(new RegExp(`--state-dir ${path.join(shared, 'drover')}$`))
    expect(existsSync(path.join(shared, 'tasks'))).toBe(false)
    const inside = await cli(shared, ['list', '--state-dir', path.join(shared, 'drover')])
    expect(inside.exitCode, inside.stderr).toBe(0)
  })
})
