// Security: private modes even under umask 000, every -e value and URL credential masked
// in every view, commands never handed to a shell, and symlinks planted in the state dir (task
// folders, control files, request files and folders) never followed — nor strangers signalled.

import {execa} from 'execa'
import {existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync} from 'node:fs'
import path from 'node:path'
import {afterEach, describe, expect, it} from 'vitest'
import {processStartTime} from '../../src/platform/platform.js'
import {taskPaths} from '../../src/state/store.js'
import {BIN, cleanupStateDirs, drover, fixture, isAlive, json, makeStateDir, readOutput, readTask, waitFor, startOk} from '../helpers/cli.js'
import {deadIdentity, fabricateTask, killStrangers, snapshot, spawnStranger, waitDead} from '../fixtures/rel-state.js'

const node = process.execPath
const FINAL = ['succeeded', 'failed', 'stopped', 'cancelled', 'drained', 'lost']

afterEach(() => {
  killStrangers()
  cleanupStateDirs()
})


const waitFinal = (dir: string, id: number) =>
  waitFor(() => FINAL.includes(readTask(dir, id).status) && readTask(dir, id), {timeout: 30_000, message: `task ${id} to end`})

/** Every entry under dir whose mode is not 0700 (dirs) or 0600 (files). */
function looseModes(dir: string): string[] {
  const loose: string[] = []
  const walk = (current: string) => {
    for (const name of readdirSync(current)) {
      const full = path.join(current, name)
      const s = lstatSync(full)
      const mode = s.mode & 0o777
      if (s.isDirectory()) {
        if (mode !== 0o700) loose.push(`${path.relative(dir, full)} ${mode.toString(8)}`)
        walk(full)
      } else if (mode !== 0o600) loose.push(`${path.relative(dir, full)} ${mode.toString(8)}`)
    }
  }
  if ((lstatSync(dir).mode & 0o777) !== 0o700) loose.push(`. ${(lstatSync(dir).mode & 0o777).toString(8)}`)
  walk(dir)
  return loose
}

describe('permissions', () => {
  it('state dir 0700 and every file 0600 under umask 000, while a stop is pending and after the end', {timeout: 90_000}, async () => {
    const parent = makeStateDir()
    const dir = path.join(parent, 'fresh')
    // The umask is set in a shell in front of drover, as a user's login shell would.
    const run = (args: string[]) =>
      execa('sh', ['-c', 'umask 000; exec "$@"', 'sh', node, BIN, ...args], {
        env: {DROVER_STATE_DIR: dir, NODE_ENV: 'production'},
        reject: false,
      })
    const started = await run(['start', '--name', 'perm', '--', node, fixture('rel-stubborn.mjs')])
    expect(started.exitCode, String(started.stderr)).toBe(0)
    const id = Number(String(started.stdout).trim())
    // A long grace keeps the runner busy with the stop, so the request file and the control
    // word are on disk while we look.
    const stop = await run(['stop', '--time', '60', '--no-wait', String(id)])
    expect(stop.exitCode, String(stop.stderr)).toBe(0)
    await waitFor(() => readTask(dir, id).status === 'stopping', {message: 'stopping'})
    expect(readdirSync(taskPaths(dir, id).requests).length).toBeGreaterThan(0)
    expect(existsSync(taskPaths(dir, id).runner)).toBe(true)
    expect(looseModes(dir)).toEqual([])
    expect((await run(['cancel', String(id)])).exitCode).toBe(0)
    expect(readTask(dir, id).status).toBe('cancelled')
    expect((await run(['list'])).exitCode).toBe(0)
    expect(readdirSync(path.join(dir, 'tasks', String(id)))).toEqual(expect.arrayContaining(['task.json', 'output.log', 'events.ndjson']))
    expect(looseModes(dir)).toEqual([])
  })
})

describe('secrets in -e values and URLs', () => {
  // Every -e value is masked, whatever its name: drover cannot tell DB_PASS or AUTH
  // from a harmless setting, and names that look harmless hold secrets too.
  const env: Record<string, string> = {
    OPENAI_API_KEY: 'sk-one-1111',
    GITHUB_PAT: 'gh-two-2222',
    DB_PASS: 'pw-three-3333',
    PRIVATE_KEY_PEM: '-----BEGIN-four-4444',
    AUTH: 'basic-five-5555',
    DATABASE_URL: 'postgres://app:url-six-6666@db.internal/prod',
    PLAIN: 'visible-7777',
  }
  const urlArg = 'postgres://u:pw-eight-8888@h/db'
  const tokenArg = 'https://tok-nine-9999@example.com/repo.git'
  const secretValues = [...Object.values(env), 'pw-eight-8888', 'tok-nine-9999']
  const masked = Object.fromEntries(Object.keys(env).map((k) => [k, '***']))

  it('are *** in every view (list, status, start/list/status --json) unless --show-env; the record keeps them, 0600', {timeout: 90_000}, async () => {
    const dir = makeStateDir()
    const flags = Object.entries(env).flatMap(([k, v]) => ['-e', `${k}=${v}`])
    const start = await drover(dir, ['start', '--json', ...flags, '--', node, fixture('rel-argv.mjs'), urlArg, tokenArg])
    expect(start.exitCode, start.stderr).toBe(0)
    const id = json(start).id as number
    await waitFinal(dir, id)
    const views = [
      start,
      await drover(dir, ['list']),
      await drover(dir, ['list', '--all']),
      await drover(dir, ['list', '--json']),
      await drover(dir, ['status', String(id)]),
      await drover(dir, ['status', String(id), '--json']),
    ]
    for (const view of views) {
      expect(view.exitCode, view.stderr).toBe(0)
      for (const value of secretValues) expect(view.stdout + view.stderr).not.toContain(value)
    }
    expect(json(start).env).toEqual(masked)
    expect(json(views[3])[0].env).toEqual(masked)
    expect(json(views[5]).env).toEqual(masked)
    // Names stay visible; the URL keeps all but its password (or its token).
    expect(views[4].stdout).toMatch(/^env +OPENAI_API_KEY=\*\*\* GITHUB_PAT=\*\*\* DB_PASS=\*\*\* .*PLAIN=\*\*\*$/m)
    for (const view of [views[1].stdout, views[4].stdout]) {
      expect(view).toContain('postgres://u:***@h/db')
      expect(view).toContain('https://***@example.com/repo.git')
    }
    expect(json(views[5]).command.slice(-2)).toEqual(['postgres://u:***@h/db', 'https://***@example.com/repo.git'])

    const shown = await drover(dir, ['status', String(id), '--json', '--show-env'])
    expect(json(shown).env).toEqual(env)
    expect(json(shown).command.slice(-2)).toEqual([urlArg, tokenArg])
    expect(json(await drover(dir, ['list', '--json', '--show-env']))[0].env).toEqual(env)
    expect((await drover(dir, ['status', String(id), '--show-env'])).stdout).toContain(`DB_PASS=${env.DB_PASS}`)

    // The record must keep them (a restart needs them), so it is the record that stays private.
    expect(readTask(dir, id).env).toEqual(env)
    expect(lstatSync(taskPaths(dir, id).record).mode & 0o777).toBe(0o600)
    for (const file of ['events.ndjson', 'runner.log']) {
      const text = existsSync(path.join(taskPaths(dir, id).dir, file)) ? readFileSync(path.join(taskPaths(dir, id).dir, file), 'utf8') : ''
      for (const value of Object.values(env)) expect(text, file).not.toContain(value)
    }
  })
})

describe('no shell unless --shell', () => {
  it('arguments full of shell metacharacters reach the worker verbatim, and nothing they spell runs', {timeout: 60_000}, async () => {
    const dir = makeStateDir()
    const cwd = path.join(dir, 'work')
    mkdirSync(cwd)
    const args = [
      '$(touch pwned1)', '`touch pwned2`', '; touch pwned3', '| touch pwned4', '&& touch pwned5', '> pwned6', '< /etc/passwd',
      '*', '?', '[a-z]', '~', '$HOME', '${PATH}', '%PATH%', '!!', "'", '"', '\\', 'a b\tc', 'line1\nline2', '', '--', '-e', '--name=x',
      'ünï©ødé ✓', '\u202e', '#comment', '2>&1', '$((6*7))',
    ]
    const id = await startOk(dir, ['--cwd', cwd, '--', node, fixture('rel-argv.mjs'), ...args])
    await waitFinal(dir, id)
    const match = /^ARGV (.*) END$/m.exec(readOutput(dir, id))
    expect(match, readOutput(dir, id)).not.toBeNull()
    expect(JSON.parse(match![1])).toEqual(args)
    expect(readTask(dir, id).command).toEqual([node, fixture('rel-argv.mjs'), ...args])
    expect(readdirSync(cwd)).toEqual([])

    // A program name with metacharacters is a file name, not a script: one with
    // spaces that names no file is refused with a hint, and nothing runs.
    const odd = await drover(dir, ['start', '--cwd', cwd, '--', 'true; touch pwned7'])
    expect(odd.exitCode).toBe(2)
    expect(odd.stderr).toMatch(/--shell/)
    const named = await drover(dir, ['start', '--cwd', cwd, '--', 'true;touch;pwned8'])
    expect(named.exitCode).toBe(1)
    expect(named.stderr).toMatch(/command not found: true;touch;pwned8/)
    expect(readdirSync(cwd)).toEqual([])

    // The control: --shell does go through the shell.
    const shell = await startOk(dir, ['--cwd', cwd, '--shell', 'echo $((6*7)) > shell-ran'])
    await waitFinal(dir, shell)
    expect(readFileSync(path.join(cwd, 'shell-ran'), 'utf8')).toBe('42\n')
  })
})

describe('symlinks planted in the state dir', () => {
  it('a task folder that is a symlink is no task: never read, written, signalled or restarted through', {timeout: 90_000}, async () => {
    const dir = makeStateDir()
    fabricateTask(dir, {status: 'succeeded'})
    // Outside the state dir: a folder holding a record that names a live stranger with its
    // true start time — followed, it would look exactly like our own running worker.
    const stranger = await spawnStranger()
    const elsewhere = makeStateDir()
    const decoy = fabricateTask(elsewhere, {status: 'running', worker: stranger, runner: deadIdentity()})
    const id = 2
    symlinkSync(taskPaths(elsewhere, decoy).dir, taskPaths(dir, id).dir)
    // Renumber the decoy's record so it would match the planted id exactly.
    const record = readTask(elsewhere, decoy)
    writeFileSync(taskPaths(elsewhere, decoy).record, JSON.stringify({...record, id}), {mode: 0o600})
    const outside = snapshot(elsewhere)

    for (const args of [['status', '2'], ['stop', '-t', '1', '2'], ['cancel', '2'], ['drain', '--grace', '1s', '2'], ['start', '2'], ['logs', '2']]) {
      const result = await drover(dir, args)
      expect(result.exitCode, `${args.join(' ')}: ${result.stdout}${result.stderr}`).toBe(3)
    }
    const list = json(await drover(dir, ['list', '--json']))
    expect(list.map((t: any) => t.id)).toEqual([1])
    const prune = await drover(dir, ['prune', '--older-than', '0s'])
    expect(prune.exitCode, prune.stderr).toBe(0)
    expect(existsSync(taskPaths(dir, id).dir)).toBe(false)

    expect(isAlive(stranger.pid)).toBe(true)
    expect(processStartTime(stranger.pid)).toBe(stranger.startTime)
    expect(snapshot(elsewhere)).toEqual(outside)
  })

  it('a control file planted as a symlink: the stop goes on, the file it points at is untouched', {timeout: 90_000}, async () => {
    const dir = makeStateDir()
    const victim = path.join(makeStateDir(), 'precious.txt')
    writeFileSync(victim, 'precious\n', {mode: 0o600})
    const id = await startOk(dir, ['--', node, fixture('rel-stubborn.mjs')])
    const worker = readTask(dir, id).worker.pid as number
    // With the runner gone, `stop` writes the control word itself: the path the link was planted on.
    const runner = JSON.parse(readFileSync(taskPaths(dir, id).runner, 'utf8')).pid as number
    process.kill(runner, 'SIGKILL')
    await waitDead(runner, 'runner')
    rmSync(taskPaths(dir, id).control, {force: true})
    symlinkSync(victim, taskPaths(dir, id).control)
    const stop = await drover(dir, ['stop', '-t', '1', String(id)])
    expect(stop.exitCode, stop.stderr).toBe(0)
    expect(readTask(dir, id).status).toBe('stopped')
    await waitDead(worker, 'worker')
    expect(readFileSync(victim, 'utf8')).toBe('precious\n')
  })

  it('a requests folder or request file planted as a symlink: nothing is written, read or deleted through it', {timeout: 90_000}, async () => {
    const dir = makeStateDir()
    const victims = makeStateDir()
    writeFileSync(path.join(victims, 'notes.json'), '{"mine": true}\n', {mode: 0o600})
    writeFileSync(path.join(victims, 'x.stop.json'), '{"kind": "stop", "requestId": "planted", "graceMs": 0}\n', {mode: 0o600})
    const victimFile = path.join(victims, 'file.txt')
    writeFileSync(victimFile, 'keep\n', {mode: 0o600})
    const before = snapshot(victims)

    // A live runner whose requests/ is replaced by a link to someone's folder.
    const a = await startOk(dir, ['--', node, fixture('sleeper.mjs')])
    // The runner may re-create requests/ between the two calls: plant until the link stands.
    for (;;) {
      rmSync(taskPaths(dir, a).requests, {recursive: true, force: true})
      try {
        symlinkSync(victims, taskPaths(dir, a).requests)
        break
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
      }
    }
    // A live runner with a request file that is a link to someone's file.
    const b = await startOk(dir, ['--', node, fixture('sleeper.mjs')])
    symlinkSync(victimFile, path.join(taskPaths(dir, b).requests, '0-planted.stop.json'))

    const stop = await drover(dir, ['stop', '-t', '1', String(a), String(b)])
    expect(stop.exitCode, stop.stdout + stop.stderr).toBe(0)
    expect(readTask(dir, a).status).toBe('stopped')
    expect(readTask(dir, b).status).toBe('stopped')
    expect(snapshot(victims)).toEqual(before)
    expect(lstatSync(taskPaths(dir, a).requests).isDirectory()).toBe(true)
  })
})
