// A state dir made by one Unix user, used by another: every command refuses it
// as that (exit 5), `start` too — it reads the state dir's config.json before
// opening the dir, and must not answer with that file's EACCES (exit 2) — and
// `doctor` says whose it is rather than "0 tasks · config.json". The second
// user is a real one: the built CLI runs under setpriv as nobody.

import {chownSync, existsSync, readFileSync} from 'node:fs'
import path from 'node:path'
import {execa} from 'execa'
import {afterEach, describe, expect, it} from 'vitest'
import {BIN, cleanupStateDirs, isAlive, makeStateDir, makeTempDir, readTask, startOk, waitFor} from '../helpers/cli.js'
import {snapshot} from '../fixtures/rel-state.js'

afterEach(() => cleanupStateDirs())

const NOBODY = 65534
// Running as another user needs root (to switch) and setpriv (util-linux).
const canSwitch = process.platform === 'linux' && process.getuid?.() === 0 && existsSync('/usr/bin/setpriv')

/** The built CLI as user nobody, with the state dir given. */
async function asNobody(stateDir: string, args: string[]) {
  const home = makeTempDir('drover-nobody-home-')
  chownSync(home, NOBODY, NOBODY)
  const r = await execa('/usr/bin/setpriv', ['--reuid', String(NOBODY), '--regid', String(NOBODY), '--clear-groups', '--', process.execPath, BIN, ...args], {
    env: {DROVER_STATE_DIR: stateDir, NO_COLOR: '1', HOME: home, PATH: process.env.PATH},
    reject: false,
    stdin: 'ignore',
  })
  return {stdout: String(r.stdout), stderr: String(r.stderr), exitCode: r.exitCode ?? -1}
}

describe.skipIf(!canSwitch)(`another user's state dir${canSwitch ? '' : ' [skipped: needs root on Linux and setpriv to run as a second user]'}`, () => {
  it('start, list and stop refuse it alike: exit 5, one line naming it, nothing written', async () => {
    const dir = makeStateDir()
    const id = await startOk(dir, ['--name', 'mine', '--', 'sleep', '1'])
    // the task's own runner gone, or its last writes to the folder (after the final record) would count as ours
    const runner = (JSON.parse(readFileSync(path.join(dir, 'tasks', String(id), 'runner.json'), 'utf8')) as {pid: number}).pid
    await waitFor(() => readTask(dir, id).status === 'succeeded' && !isAlive(runner))
    const was = snapshot(dir)
    for (const args of [['start', '--', 'true'], ['start', '--name', 'x', '--', 'true'], ['list'], ['stop', '--all']]) {
      const r = await asNobody(dir, args)
      expect(r.exitCode, `${JSON.stringify(args)}: ${r.stderr}`).toBe(5)
      expect(r.stderr).toBe(`drover: state dir ${dir} belongs to another user (uid ${process.getuid!()})`)
    }
    expect(snapshot(dir)).toEqual(was)
  })

  it('doctor says the dir belongs to another user, and counts no tasks and no config.json it could not read', async () => {
    const dir = makeStateDir()
    await startOk(dir, ['--', 'true'])
    await startOk(dir, ['--', 'true'])
    const r = await asNobody(dir, ['doctor'])
    expect(r.exitCode).toBe(1)
    const stateLines = r.stdout.split('\n').filter((line) => line.startsWith('  owner'))
    expect(stateLines).toEqual([expect.stringMatching(new RegExp(`^  owner uid ${process.getuid!()}, mode 700 · .* free · not read: belongs to another user \\(uid ${process.getuid!()}\\)$`))])
    expect(r.stdout).not.toMatch(/0 tasks|config\.json/)
    expect(r.stdout).toContain(`error: state dir: ${dir} belongs to another user (uid ${process.getuid!()}): drover refuses it`)
    const report = JSON.parse((await asNobody(dir, ['doctor', '--json'])).stdout)
    expect(report.stateDir).toMatchObject({tasks: 0, error: `belongs to another user (uid ${process.getuid!()})`, config: {present: false, error: null}})
  })
})
