// `--version` and piped help are answered by bin/run.js without loading oclif.
// Each answer must be byte for byte what oclif itself prints — oclif's own
// execute() is run beside the built CLI for every command's help — and
// anything else (a bad flag, an unknown command, colour asked for) must still
// reach oclif.

import {execa} from 'execa'
import {readFileSync} from 'node:fs'
import path from 'node:path'
import {describe, expect, it} from 'vitest'
import {helpIsPlain, helpSubject, helpText, USER_AGENT_MARK, versionLine} from '../../src/cli/fast-paths.js'
import {BIN, ROOT} from '../helpers/cli.js'

const manifest = JSON.parse(readFileSync(path.join(ROOT, 'oclif.manifest.json'), 'utf8')) as {commands: Record<string, unknown>}
const COMMANDS = Object.keys(manifest.commands)

/** The environment of a plain run as users have it: no colour forced, no width set, not NODE_ENV=test. */
function plainEnv(extra: Record<string, string> = {}): Record<string, string | undefined> {
  return {...process.env, OCLIF_COLUMNS: undefined, FORCE_COLOR: undefined, NO_COLOR: undefined, NODE_ENV: undefined, ...extra}
}

async function droverRun(args: string[], env = plainEnv()) {
  const r = await execa(process.execPath, [BIN, ...args], {env, extendEnv: false, reject: false, stdin: 'ignore'})
  return {stdout: String(r.stdout), stderr: String(r.stderr), exitCode: r.exitCode}
}

/** oclif's execute() as installed, on drover's package: what oclif prints for these words. */
async function oclifRun(args: string[], env = plainEnv()) {
  const script = `const {execute} = await import('@oclif/core/execute'); await execute({args: process.argv.slice(1), dir: ${JSON.stringify(ROOT)}})`
  const r = await execa(process.execPath, ['--input-type=module', '-e', script, '--', ...args], {env, extendEnv: false, reject: false, stdin: 'ignore', cwd: ROOT})
  return {stdout: String(r.stdout), stderr: String(r.stderr), exitCode: r.exitCode}
}

describe('the built CLI prints what oclif prints', () => {
  it('for --version', async () => {
    const [ours, oclif] = await Promise.all([droverRun(['--version']), oclifRun(['--version'])])
    expect(ours).toEqual(oclif)
    expect(ours.stdout).toMatch(/^drover\/\d+\.\d+\.\d+ \S+-\S+ node-v/)
  })

  it.each([[[]], [['--help']], [['-h']], [['help']]])('for drover’s own help: %j', async (args) => {
    const [ours, oclif] = await Promise.all([droverRun(args), oclifRun(args)])
    expect(ours).toEqual(oclif)
    expect(ours.stdout).toContain('COMMANDS')
  })

  const sameHelp = async (id: string) => {
    const oclif = await oclifRun([id, '--help'])
    expect(oclif.exitCode).toBe(0)
    for (const args of [[id, '--help'], [id, '-h'], ['help', id]]) {
      expect(await droverRun(args), args.join(' ')).toEqual(oclif)
    }
  }
  // Four CLI processes a case, one after the other: under Wine on a busy machine (where oclif
  // renders help itself, on Windows) that outlasts the unit default of 20 s.
  it.each(COMMANDS)('for the help of %s, in each way of asking', sameHelp, 90_000)

  it('with colour forced, where oclif decides (and colours)', async () => {
    const env = plainEnv({FORCE_COLOR: '1'})
    const [ours, oclif] = await Promise.all([droverRun(['list', '--help'], env), oclifRun(['list', '--help'], env)])
    expect(ours).toEqual(oclif)
    expect(ours.stdout).toContain('\u001B[')
  })

  it('at a width set by OCLIF_COLUMNS', async () => {
    const env = plainEnv({OCLIF_COLUMNS: '200'})
    const [ours, plain] = await Promise.all([droverRun(['start', '--help'], env), droverRun(['start', '--help'])])
    expect(ours).toEqual(await oclifRun(['start', '--help'], env))
    expect(ours.stdout).not.toEqual(plain.stdout)
  })
})

describe('what still goes to oclif', () => {
  it('a bad flag: the usage error, exit 2', async () => {
    const r = await droverRun(['list', '--bogus'])
    expect(r.exitCode).toBe(2)
    expect(r.stderr).toContain('unknown flag: --bogus')
  })

  it('help for a command that does not exist: exit 2 with a suggestion', async () => {
    const r = await droverRun(['help', 'lst'])
    expect(r.exitCode).toBe(2)
    expect(r.stderr).toContain('did you mean list?')
  })

  it('--version after global flags is --version (oclif alone would take the flag for a command)', async () => {
    const [ours, oclif, alone] = await Promise.all([droverRun(['--json', '--state-dir', 'x', '--version']), oclifRun(['--json', '--version']), droverRun(['--version'])])
    expect(oclif.exitCode).not.toBe(0)
    expect(ours).toEqual(alone)
  })
})

describe('helpSubject', () => {
  it.each([
    [[], ''],
    [['--help'], ''],
    [['-h'], ''],
    [['help'], ''],
    [['list', '--help'], 'list'],
    [['list', '-h'], 'list'],
    [['help', 'list'], 'list'],
    [['list'], null],
    [['list', '--help', '--json'], null],
    [['--help', 'list'], null],
    [['help', '--json'], null],
    [['start', '--', '-h'], null],
  ])('%j → %j', (argv, subject) => {
    expect(helpSubject(argv)).toBe(subject)
  })
})

describe('helpText and the rest', () => {
  it('fills in the user agent, and knows only the subjects rendered', () => {
    const rendered = {'': `VERSION\n  ${USER_AGENT_MARK}\n`, list: 'list help\n'}
    expect(helpText(rendered, '', 'drover/1.0.0 linux-x64 node-v20.0.0')).toBe('VERSION\n  drover/1.0.0 linux-x64 node-v20.0.0\n')
    expect(helpText(rendered, '', null)).toBeNull()
    expect(helpText(rendered, 'list', null)).toBe('list help\n')
    expect(helpText(rendered, 'nosuch', 'x')).toBeNull()
    expect(helpText(rendered, '__proto__', 'x')).toBeNull()
  })

  it('serves help only to a pipe without OCLIF_COLUMNS or FORCE_COLOR', () => {
    expect(helpIsPlain({}, false, 'linux')).toBe(true)
    expect(helpIsPlain({}, undefined, 'linux')).toBe(true)
    expect(helpIsPlain({}, true, 'linux')).toBe(false)
    expect(helpIsPlain({OCLIF_COLUMNS: '100'}, false, 'linux')).toBe(false)
    expect(helpIsPlain({FORCE_COLOR: '0'}, false, 'linux')).toBe(false)
    // Windows continues example lines with ^ or a backtick, not the build's backslash: oclif renders it
    expect(helpIsPlain({}, false, 'win32')).toBe(false)
    expect(helpIsPlain({}, false, 'darwin')).toBe(true)
  })

  it('answers --version only as the first word, and not when more version flags are configured', () => {
    const pjson = {name: 'drover', version: '1.2.3'}
    expect(versionLine(['list', '--version'], pjson)).toBeNull()
    expect(versionLine(['--version'], {...pjson, oclif: {additionalVersionFlags: ['-v']}})).toBeNull()
  })
})
