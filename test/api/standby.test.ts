// bin/run.js's standby runner for `start` on the path that needs the default
// state dir (found through env-paths, so the runner is booted first): the
// config there saying Slurm lets the booted runner go at once, while one
// saying local keeps it waiting for its task. Real runners, children of this
// process. (The verdict before booting: test/runner/standby.test.ts.)

import {mkdirSync, readdirSync, readFileSync, writeFileSync} from 'node:fs'
import path from 'node:path'
import {afterEach, describe, expect, it} from 'vitest'
import {linuxOnly} from '../helpers/skips.js'
import {cleanupStateDirs, isAlive, makeTempDir, ROOT, waitFor} from '../helpers/cli.js'

// The built modules, as bin/run.js loads them: the standby they boot is the bundled runner.
const {dropStandbyIfSlurm} = (await import(path.join(ROOT, 'dist/api/standby.js'))) as typeof import('../../src/api/standby.js')
const {prespawnRunner} = (await import(path.join(ROOT, 'dist/runner/standby.js'))) as typeof import('../../src/runner/standby.js')
const {dropStandby} = (await import(path.join(ROOT, 'dist/runner/local-executor.js'))) as typeof import('../../src/runner/local-executor.js')

// env-paths reads the process's own environment for the default state dir.
const savedXdg = process.env.XDG_DATA_HOME
afterEach(() => {
  if (savedXdg === undefined) delete process.env.XDG_DATA_HOME
  else process.env.XDG_DATA_HOME = savedXdg
  dropStandby()
  cleanupStateDirs()
})

/** This process's children that are runners on standby. */
function ownStandbys(): number[] {
  return readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .filter((entry) => {
      try {
        const stat = readFileSync(`/proc/${entry}/stat`, 'utf8')
        const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1])
        return ppid === process.pid && isAlive(Number(entry)) && readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0').includes('--standby')
      } catch {
        return false
      }
    })
    .map(Number)
}

function defaultStateDirWith(config: string): NodeJS.ProcessEnv {
  const data = makeTempDir('drover-xdg-')
  mkdirSync(path.join(data, 'drover'), {mode: 0o700})
  writeFileSync(path.join(data, 'drover', 'config.json'), config)
  process.env.XDG_DATA_HOME = data
  return {}
}

linuxOnly('XDG_DATA_HOME for the default state dir').describe("start's standby runner with the default state dir", () => {
  it("is let go when the state dir's config says slurm", async () => {
    const env = defaultStateDirWith('{"executor": "slurm"}')
    prespawnRunner()
    await dropStandbyIfSlurm(env)
    await waitFor(() => ownStandbys().length === 0, {timeout: 15_000, message: 'the unused standby to exit'})
  })

  it('is kept for a local task', async () => {
    const env = defaultStateDirWith('{"executor": "local"}')
    prespawnRunner()
    await dropStandbyIfSlurm(env)
    const [standby] = await waitFor(() => ownStandbys(), {timeout: 5000, message: 'a standby runner'}).then((pids) => (pids.length > 0 ? pids : Promise.reject(new Error('none'))))
    await new Promise((resolve) => setTimeout(resolve, 1500))
    expect(isAlive(standby)).toBe(true)
    dropStandby()
    await waitFor(() => !isAlive(standby), {timeout: 15_000, message: 'the dropped standby to exit'})
  })
})
