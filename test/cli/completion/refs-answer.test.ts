// `drover task-refs` is what a completion script runs on every Tab, so
// bin/run.js answers it without loading oclif. The answer must be the one the
// oclif command gives — oclif's own execute() is run beside the built CLI —
// and any other shape of command line must still reach oclif.

import {execa} from 'execa'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {refsAnswer} from '../../../src/cli/completion/refs-answer.js'
import {BIN, ROOT} from '../../helpers/cli.js'
import {endTasks, stateWithTasks, type Tasks} from './shells.js'

let tasks: Tasks
beforeAll(async () => {
  tasks = await stateWithTasks()
}, 60_000)
afterAll(() => endTasks(tasks))

const env = () => ({...process.env, DROVER_STATE_DIR: tasks.stateDir, NODE_ENV: undefined})

async function droverRun(args: string[]) {
  const r = await execa(process.execPath, [BIN, ...args], {env: env(), extendEnv: false, reject: false, stdin: 'ignore'})
  return {stdout: String(r.stdout), stderr: String(r.stderr), exitCode: r.exitCode}
}

/** oclif's execute() as installed, on drover's package: what the oclif command prints. */
async function oclifRun(args: string[]) {
  const script = `const {execute} = await import('@oclif/core/execute'); await execute({args: process.argv.slice(1), dir: ${JSON.stringify(ROOT)}})`
  const r = await execa(process.execPath, ['--input-type=module', '-e', script, '--', ...args], {env: env(), extendEnv: false, reject: false, stdin: 'ignore', cwd: ROOT})
  return {stdout: String(r.stdout), stderr: String(r.stderr), exitCode: r.exitCode}
}

describe('drover task-refs', () => {
  it.each([[[]], [['--', 'sl']], [['7']], [['--json']], [['--state-dir', '<dir>', '--', '']], [['--state-dir=<dir>', ':']]])('prints what the oclif command prints: %j', async (shape) => {
    const args = ['task-refs', ...shape.map((a) => a.replace('<dir>', tasks.stateDir))]
    const [ours, oclif] = await Promise.all([droverRun(args), oclifRun(args)])
    expect(ours).toEqual(oclif)
    expect(ours.exitCode).toBe(0)
    expect(ours.stdout).toContain('sleeper')
  })

  it('answers the shapes the scripts send without oclif, and leaves every other one to it', async () => {
    const argv = (...a: string[]) => ['task-refs', ...a]
    process.env.DROVER_STATE_DIR = tasks.stateDir
    try {
      expect(await refsAnswer(argv('--state-dir', tasks.stateDir, '--', 'x'))).toContain(`${tasks.sleeper}\tsleeper running`)
      for (const other of [argv('--json'), argv('--bogus'), argv('a', 'b'), argv('--state-dir'), ['list']]) expect(await refsAnswer(other)).toBeNull()
    } finally {
      delete process.env.DROVER_STATE_DIR
    }
    const bad = await droverRun(['task-refs', '--bogus'])
    expect(bad).toMatchObject({exitCode: 2, stderr: 'drover: unknown flag: --bogus'})
  })
})
