// The hot commands (list, status, start, logs, wait) run without oclif's
// Config.load (src/cli/hot.ts). What they print and how they exit must be
// what oclif's own execute() gives for the same words — runs, usage errors,
// missing tasks, under --json or not — and what only oclif does (user
// plugins, its debug tracing) must still reach oclif.

import {execa} from 'execa'
import {mkdirSync, writeFileSync} from 'node:fs'
import path from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {BIN, cleanupStateDirs, drover, makeStateDir, makeTempDir, ROOT, startOk, waitFor} from '../helpers/cli.js'
import {wineLacks} from '../helpers/skips.js'

let stateDir: string
let id: number

const env = (extra: Record<string, string> = {}) => ({...process.env, DROVER_STATE_DIR: stateDir, NO_COLOR: '1', NODE_ENV: undefined, DEBUG: undefined, ...extra})

async function hotRun(args: string[], extra: Record<string, string> = {}) {
  const r = await execa(process.execPath, [BIN, ...args], {env: env(extra), extendEnv: false, reject: false, stdin: 'ignore'})
  return {stdout: String(r.stdout), stderr: String(r.stderr), exitCode: r.exitCode}
}

/** oclif's execute() as installed, on drover's package: the way every command went before. */
async function oclifRun(args: string[]) {
  const script = `globalThis.oclif = {enableAutoTranspile: false}; const {execute} = await import('@oclif/core/execute'); await execute({args: process.argv.slice(1), dir: ${JSON.stringify(ROOT)}})`
  const r = await execa(process.execPath, ['--input-type=module', '-e', script, '--', ...args], {env: env(), extendEnv: false, reject: false, stdin: 'ignore', cwd: ROOT})
  return {stdout: String(r.stdout), stderr: String(r.stderr), exitCode: r.exitCode}
}

wineLacks('oclif run from an inline module beside it').describe('the hot commands', () => {
  beforeAll(async () => {
    stateDir = makeStateDir()
    id = await startOk(stateDir, ['--name', 'hot', '--', process.execPath, '-e', 'console.log("hello")'])
    await waitFor(async () => (await drover(stateDir, ['status', String(id), '--json'])).stdout.includes('"succeeded"'), {message: 'the task to end'})
  })
  afterAll(() => cleanupStateDirs())

  const lines = [
    ['list'],
    ['list', '--json'],
    ['list', '--all'],
    ['list', '-q'],
    ['list', '--bogus'],
    ['list', '--json', '--bogus'],
    ['list', '--statu', 'running'],
    ['list', 'stray'],
    ['status', 'ID'],
    ['status', 'ID', '--json'],
    ['status', 'hot'],
    ['status', '999'],
    ['status', '999', '--json'],
    ['status'],
    ['logs', 'ID'],
    ['logs', 'ID', '--json'],
    ['logs', '999'],
    ['logs', 'ID', '-n', 'x'],
    ['wait', 'ID'],
    ['wait', 'ID', '--json'],
    ['wait', '--bogus'],
    ['start'],
    ['start', '--bogus', '--', 'true'],
    ['start', '--json', '--after', '999', '--', 'true'],
  ]
  it.each(lines.map((words) => [words.join(' '), words]))('%s prints and exits as through oclif', async (_, words) => {
    const args = words.map((word) => (word === 'ID' ? String(id) : word))
    // ages ("3s ago") may tick between the two runs
    const aged = (r: {stdout: string; stderr: string; exitCode?: number}) => ({...r, stdout: r.stdout.replace(/\(\d+s ago\)/g, '(Ns ago)')})
    const [hot, oclif] = [await hotRun(args), await oclifRun(args)]
    expect(aged(hot)).toEqual(aged(oclif))
  })

  it('leaves a command to oclif when the user\'s data dir holds a package.json (oclif loads user plugins from it)', async () => {
    const data = makeTempDir('drover-data-home-')
    mkdirSync(path.join(data, 'drover'))
    writeFileSync(path.join(data, 'drover', 'package.json'), JSON.stringify({oclif: {plugins: [{type: 'user', name: 'drover-plugin-not-there'}]}}))
    const r = await hotRun(['list', '--json'], {XDG_DATA_HOME: data, DROVER_DATA_DIR: path.join(data, 'drover')})
    expect(r.exitCode).toBe(0)
    // oclif's warning of the plugin it could not find
    expect(r.stderr).toContain('drover-plugin-not-there')
  })

  it('leaves a command to oclif under DEBUG, whose tracing shows the config it loads', async () => {
    const r = await hotRun(['list', '--json'], {DEBUG: 'oclif:*'})
    expect(r.exitCode).toBe(0)
    expect(r.stderr).toMatch(/oclif:config/)
  })
})
