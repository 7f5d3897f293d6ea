// The standby runner `bin/run.js` boots for `start`: it must be the one that
// runs the task, and it must never outlive a `start` that did not need it.

import {existsSync, readdirSync, readFileSync, writeFileSync} from 'node:fs'
import path from 'node:path'
import {afterEach, describe, expect, it} from 'vitest'
import {cleanupStateDirs, drover, makeStateDir, makeTempDir, readTask, ROOT, waitFor, type CliResult} from '../helpers/cli.js'

afterEach(() => cleanupStateDirs())

/**
 * Runner processes of this checkout that are still waiting for a task; with
 * `stateDir`, only those started for it (other suites run from this checkout
 * at the same time, booting standbys of their own).
 */
function standbyRunners(stateDir?: string): number[] {
  const found: number[] = []
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue
    try {
      const argv = readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0')
      if (!argv.some((arg) => arg.startsWith(ROOT) && arg.endsWith('runner.cjs')) || !argv.includes('--standby')) continue
      if (stateDir !== undefined && !readFileSync(`/proc/${entry}/environ`, 'utf8').split('\0').includes(`DROVER_STATE_DIR=${stateDir}`)) continue
      found.push(Number(entry))
    } catch {
      // gone meanwhile
    }
  }
  return found
}

const cmdline = (pid: number) => readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0')

describe.skipIf(process.platform !== 'linux')('standby runner', () => {
  it('runs the task: the runner of a started task is the one booted on standby', async () => {
    const dir = makeStateDir()
    const start = await drover(dir, ['start', '--', process.execPath, '-e', 'setTimeout(() => {}, 30000)'])
    expect(start.exitCode, start.stderr).toBe(0)
    const id = Number(start.stdout.trim())
    expect(readTask(dir, id).status).toBe('running')
    const runner = JSON.parse(readFileSync(`${dir}/tasks/${id}/runner.json`, 'utf8')) as {pid: number}
    expect(cmdline(runner.pid)).toContain('--standby')
    const stop = await drover(dir, ['cancel', String(id)])
    expect(stop.exitCode, stop.stderr).toBe(0)
  })

  it('exits with a start that fails before it needs a runner, touching nothing', async () => {
    const dir = makeStateDir()
    const before = new Set(standbyRunners())
    const bad = await drover(dir, ['start', '--no-such-flag', '--', 'true'])
    expect(bad.exitCode).toBe(2)
    const usage = await drover(dir, ['start'])
    expect(usage.exitCode).toBe(2)
    await waitFor(() => standbyRunners().every((pid) => before.has(pid)), {timeout: 10_000, message: 'standby runners to exit'})
    // usage errors are found before the state dir is even opened
    expect(existsSync(`${dir}/tasks`) ? readdirSync(`${dir}/tasks`) : []).toEqual([])
  })

  it('boots without NODE_EXTRA_CA_CERTS, and the worker gets it as it was', async () => {
    const dir = makeStateDir()
    // a shell worker: a Node one would warn that the file does not exist
    const script = 'echo "$NODE_EXTRA_CA_CERTS $(env | grep -c ^DROVER_DEFERRED_)"; exec sleep 30'
    const start = await drover(dir, ['start', '--shell', script], {env: {NODE_EXTRA_CA_CERTS: '/no/such/ca.pem'}})
    expect(start.exitCode, start.stderr).toBe(0)
    const id = Number(start.stdout.trim())
    await waitFor(() => readFileSync(`${dir}/tasks/${id}/output.log`, 'utf8').includes('\n'), {message: 'the worker to print'})
    expect(readFileSync(`${dir}/tasks/${id}/output.log`, 'utf8')).toBe('/no/such/ca.pem 0\n')
    const runner = JSON.parse(readFileSync(`${dir}/tasks/${id}/runner.json`, 'utf8')) as {pid: number}
    // what the runner booted with: the variable under its deferred name only
    const booted = readFileSync(`/proc/${runner.pid}/environ`, 'utf8').split('\0')
    expect(booted.filter((v) => v.startsWith('NODE_EXTRA_CA_CERTS='))).toEqual([])
    expect(booted).toContain('DROVER_DEFERRED_NODE_EXTRA_CA_CERTS=/no/such/ca.pem')
    expect((await drover(dir, ['cancel', String(id)])).exitCode).toBe(0)
  })

  /** The standby runners for `stateDir` that came up while `drover start` ran, looked for every few ms. */
  async function standbysDuring(stateDir: string, run: () => Promise<CliResult>): Promise<{result: CliResult; seen: Set<number>}> {
    const before = new Set(standbyRunners(stateDir))
    const seen = new Set<number>()
    const poll = setInterval(() => {
      for (const pid of standbyRunners(stateDir)) if (!before.has(pid)) seen.add(pid)
    }, 5)
    try {
      return {result: await run(), seen}
    } finally {
      clearInterval(poll)
    }
  }

  it('is not booted for a task going to Slurm: --executor slurm, DROVER_EXECUTOR=slurm, or the state dir\'s config.json', async () => {
    // No sbatch on PATH: each start fails at once (recorded failed, exit 1), with nothing asked of any network.
    const noSlurm = {PATH: makeTempDir('drover-nopath-')}
    const command = ['--', process.execPath, '-e', '0']
    const localDir = makeStateDir()
    const local = await standbysDuring(localDir, () => drover(localDir, ['start', ...command], {env: {DROVER_EXECUTOR: ''}}))
    expect(local.result.exitCode, local.result.stderr).toBe(0)
    // the same look sees the standby of a local start (it becomes the task's runner; its forks look alike until they exec)
    expect(local.seen.size).toBeGreaterThan(0)

    const configured = makeStateDir()
    writeFileSync(path.join(configured, 'config.json'), '{"executor": "slurm"}')
    for (const [dir, args, env] of [
      [makeStateDir(), ['--executor', 'slurm'], {DROVER_EXECUTOR: ''}],
      [makeStateDir(), ['--executor=slurm'], {DROVER_EXECUTOR: 'local'}],
      [makeStateDir(), [], {DROVER_EXECUTOR: 'slurm'}],
      [configured, [], {DROVER_EXECUTOR: ''}],
    ] as const) {
      const slurm = await standbysDuring(dir, () => drover(dir, ['start', '--json', ...args, ...command], {env: {...env, ...noSlurm}}))
      expect(slurm.result.exitCode, slurm.result.stdout).toBe(1)
      expect(JSON.parse(slurm.result.stdout)).toMatchObject({executor: 'slurm', status: 'failed', reason: expect.stringMatching(/^sbatch not found/)})
      expect(slurm.seen.size, JSON.stringify(args)).toBe(0)
    }
  })
})
