// `drover top` as a person uses it: in a real terminal (tmux), against real
// tasks in a temp state dir — the list, a task started from another shell
// appearing, the filter, the preview following output, stop with y/n, the
// terminal given back on q and on a hang-up, and a narrow window.

import {execa} from 'execa'
import {mkdtempSync, readFileSync, rmSync} from 'node:fs'
import os from 'node:os'
import path from 'node:path'
// @ts-expect-error -- a plain ES module of the benchmarks, without types
import {makeEndedTasks} from '../../bench/lib/make-tasks.mjs'
// @ts-expect-error -- a plain ES module of the benchmarks, without types
import {openPty} from '../../bench/lib/pty.mjs'
import {afterEach, describe, expect, it} from 'vitest'
import {BIN, cleanupStateDirs, drover, fixture, makeStateDir, readTask, startFakeClaude, startOk, waitFor} from '../helpers/cli.js'
import {cleanupRepos, GIT_IDENTITY, gitIn, makeRepo} from '../helpers/git.js'
import {openTop, type TopSession} from '../helpers/tmux.js'

const sessions: TopSession[] = []
afterEach(() => {
  for (const s of sessions.splice(0)) s.kill()
  cleanupStateDirs()
})

function top(stateDir: string, args: string[] = [], opts: Parameters<typeof openTop>[2] = {}): TopSession {
  const session = openTop(stateDir, args, opts)
  sessions.push(session)
  return session
}

/** The pane's shell has reported top's exit code and the tty's flags after it. */
const EXITED = /TOP-EXIT \d+\n.*echo/

/** The row of task `id` on the screen (the selected one starts with `>`). */
const rowOf = (screen: string, id: number) => screen.split('\n').find((line) => new RegExp(`^[> ] +${id}  `).test(line)) ?? ''

describe('drover top', () => {
  it('refuses to run without a terminal: exit 2, one line naming list and logs -f', async () => {
    const stateDir = makeStateDir()
    const r = await execa(process.execPath, [BIN, 'top'], {env: {DROVER_STATE_DIR: stateDir}, reject: false, stdin: 'ignore'})
    expect(r.exitCode).toBe(2)
    expect(r.stdout).toBe('')
    expect(r.stderr.trim().split('\n')).toHaveLength(1)
    expect(r.stderr).toMatch(/^drover: top needs a terminal \(stdin and stdout are not one\): use drover list .*drover logs -f/)
    const json = await execa(process.execPath, [BIN, 'top', '--json'], {env: {DROVER_STATE_DIR: stateDir}, reject: false, stdin: 'ignore'})
    expect(json.exitCode).toBe(2)
  })

  it('lists the tasks live: one started from another shell appears, one that ends changes; q gives the terminal back', async () => {
    const stateDir = makeStateDir()
    const sleeper = await startOk(stateDir, ['--name', 'sleeper', '--', 'sleep', '300'])
    const failed = await startOk(stateDir, ['--', 'sh', '-c', 'exit 3'])
    await waitFor(() => readTask(stateDir, failed).status === 'failed')
    const t = top(stateDir)
    let screen = await t.waitFor((s) => /sleeper +running/.test(rowOf(s, sleeper)) && /failed \(3\)/.test(rowOf(s, failed)))
    expect(screen).toMatch(/^drover top · 1 live · 0 queued · 1 ended/)
    expect(screen).toMatch(/ID +NAME +STATUS +RUNTIME +COMMAND/)
    // live first, then ended
    expect(screen.indexOf(rowOf(screen, sleeper))).toBeLessThan(screen.indexOf(rowOf(screen, failed)))
    expect(t.format('#{alternate_on}')).toBe('1')

    const began = Date.now()
    const added = await startOk(stateDir, ['--name', 'newcomer', '--', 'sleep', '300'])
    await t.waitFor((s) => /newcomer +running/.test(rowOf(s, added)))
    expect(Date.now() - began).toBeLessThan(5000)

    await drover(stateDir, ['stop', String(added)])
    screen = await t.waitFor((s) => /newcomer +stopped/.test(rowOf(s, added)))

    t.keys('q')
    screen = await t.waitFor(EXITED)
    expect(screen).toMatch(/^TOP-BEFORE\nTOP-EXIT 0\nicanon echo/)
    expect(screen).not.toMatch(/drover top/)
    expect(t.format('#{alternate_on} #{cursor_flag}')).toBe('0 1')
  })

  it('filters with /: Enter keeps the filter, Esc clears it', async () => {
    const stateDir = makeStateDir()
    const apple = await startOk(stateDir, ['--name', 'apple', '--', 'sleep', '300'])
    const pear = await startOk(stateDir, ['--name', 'pear', '--', 'sleep', '301'])
    const t = top(stateDir)
    await t.waitFor((s) => rowOf(s, apple) !== '' && rowOf(s, pear) !== '')
    t.keys('/')
    t.type('301')
    let screen = await t.waitFor((s) => rowOf(s, apple) === '' && rowOf(s, pear) !== '')
    expect(screen).toMatch(/\n\/301/)
    t.keys('Enter')
    screen = await t.waitFor(/filter: 301/)
    expect(rowOf(screen, apple)).toBe('')
    t.keys('Escape')
    screen = await t.waitFor((s) => rowOf(s, apple) !== '' && rowOf(s, pear) !== '')
    expect(screen).not.toMatch(/filter:/)
  })

  it('previews the selected task: output follows as written, the line being written included', async () => {
    const stateDir = makeStateDir()
    const quiet = await startOk(stateDir, ['--name', 'quiet', '--', 'sleep', '300'])
    const talker = await startOk(stateDir, [
      '--name', 'talker', '--', 'sh', '-c', 'for i in 1 2 3; do echo "early $i"; done; printf "asking> "; sleep 2; echo yes; for i in $(seq 1 400); do echo "late $i"; sleep 0.02; done; sleep 300',
    ])
    const t = top(stateDir)
    await t.waitFor((s) => rowOf(s, quiet).startsWith('>'))
    t.keys('j')
    let screen = await t.waitFor((s) => rowOf(s, talker).startsWith('>') && /── 2 talker · running/.test(s) && /early 1\nearly 2\nearly 3\nasking> /.test(s))
    screen = await t.waitFor(/asking> yes\nlate 1\n/)
    // following: the newest lines come into view
    screen = await t.waitFor(/late 400\n/, 20_000)
    // the pane's last line, just above the footer
    expect(screen.replace(/\n$/, '').split('\n').at(-2)).toBe('late 400')
    // full screen follows too; Esc goes back to the list
    t.keys('Enter')
    screen = await t.waitFor((s) => /^2 talker · running/.test(s) && /late 400\n/.test(s))
    t.keys('Escape')
    await t.waitFor(/ID +NAME +STATUS/)
  })

  it('stops the selected task after y, and not after n; the footer says what happened', async () => {
    const stateDir = makeStateDir()
    const id = await startOk(stateDir, ['--name', 'victim', '--', 'sleep', '300'])
    const t = top(stateDir)
    await t.waitFor((s) => rowOf(s, id).startsWith('>'))
    t.keys('s')
    await t.waitFor(/stop task 1 \(victim\)\? \(y\/n\)/)
    t.keys('n')
    await t.waitFor(/not done: stop task 1 \(victim\)/)
    expect(readTask(stateDir, id).status).toBe('running')
    t.keys('s')
    await t.waitFor(/stop task 1 \(victim\)\? \(y\/n\)/)
    t.keys('y')
    const screen = await t.waitFor(/task 1 stopped/, 20_000)
    expect(rowOf(screen, id)).toMatch(/victim +stopped/)
    expect(readTask(stateDir, id).status).toBe('stopped')
  })

  it('shows only the tasks --status and --queue ask for; a bad --status is refused (exit 2)', async () => {
    const stateDir = makeStateDir()
    expect((await drover(stateDir, ['queue', 'set', 'q', '--parallel', '1'])).exitCode).toBe(0)
    const inQueue = await startOk(stateDir, ['--queue', 'q', '--name', 'queued-one', '--', 'sleep', '300'])
    const outside = await startOk(stateDir, ['--name', 'outside', '--', 'sleep', '300'])
    const failed = await startOk(stateDir, ['--name', 'broken', '--', 'sh', '-c', 'exit 4'])
    await waitFor(() => readTask(stateDir, failed).status === 'failed')
    const byQueue = top(stateDir, ['--queue', 'q'])
    let screen = await byQueue.waitFor((s) => /queued-one +running +q /.test(rowOf(s, inQueue)))
    expect(screen).toMatch(/· queue q ·/)
    expect(rowOf(screen, outside) + rowOf(screen, failed)).toBe('')
    const byStatus = top(stateDir, ['--status', 'final'])
    screen = await byStatus.waitFor((s) => /broken +failed \(4\)/.test(rowOf(s, failed)))
    expect(rowOf(screen, outside) + rowOf(screen, inQueue)).toBe('')
    const bad = await execa(process.execPath, [BIN, 'top', '--status', 'sideways'], {env: {DROVER_STATE_DIR: stateDir}, reject: false, stdin: 'ignore'})
    expect(bad.exitCode).toBe(2)
    expect(bad.stderr).toMatch(/--status: unknown status 'sideways'/)
  })

  it('scrolls with the mouse wheel with --mouse', async () => {
    const stateDir = makeStateDir()
    const ids: number[] = []
    for (let i = 0; i < 5; i++) ids.push(await startOk(stateDir, ['--', 'sleep', String(300 + i)]))
    const t = top(stateDir, ['--mouse'])
    await t.waitFor((s) => rowOf(s, ids[0]).startsWith('>') && rowOf(s, ids[4]) !== '')
    // what the terminal sends for one turn of the wheel down (SGR mouse mode, which top asked for)
    t.type('\u001B[<65;10;5M')
    await t.waitFor((s) => rowOf(s, ids[3]).startsWith('>'))
  })

  it('has no actions with --read-only', async () => {
    const stateDir = makeStateDir()
    const id = await startOk(stateDir, ['--', 'sleep', '300'])
    const t = top(stateDir, ['--read-only'])
    const screen = await t.waitFor((s) => rowOf(s, id).startsWith('>'))
    expect(screen).toMatch(/read-only/)
    expect(screen).not.toMatch(/s stop/)
    t.keys('s')
    await t.waitFor(/read-only: no actions/)
    expect(readTask(stateDir, id).status).toBe('running')
  })

  it('fits a 60×20 window after a resize: no line wider, the columns that matter kept', async () => {
    const stateDir = makeStateDir()
    const id = await startOk(stateDir, ['--name', 'a-rather-long-task-name', '--', 'sh', '-c', `echo ${'wide '.repeat(40)}; sleep 300`])
    const t = top(stateDir)
    await t.waitFor((s) => /wide wide/.test(s) && rowOf(s, id) !== '')
    t.resize(60, 20)
    // the whole frame at the new size: the preview is drawn after the table, so a look between the two sees it blank
    const screen = await t.waitFor((s) => s.split('\n').length <= 21 && /STATUS/.test(s) && rowOf(s, id).length <= 60 && /^drover top/.test(s) && /wide wide/.test(s))
    const lines = screen.replace(/\n$/, '').split('\n')
    expect(lines).toHaveLength(20)
    for (const line of lines) expect([...line].length).toBeLessThanOrEqual(60)
    expect(rowOf(screen, id)).toMatch(/running/)
    expect(screen).toMatch(/wide wide/)
    expect(lines.at(-1)).toMatch(/move/)
  })

  it('shows its whole help in a 60×20 window: wrapped, scrolled with ↓ and End, any other key back', async () => {
    const stateDir = makeStateDir()
    const id = await startOk(stateDir, ['--', 'sleep', '300'])
    const t = top(stateDir, [], {width: 60, height: 20})
    await t.waitFor((s) => rowOf(s, id).startsWith('>'))
    t.keys('?')
    const first = await t.waitFor(/scroll/)
    const lines = first.replace(/\n$/, '').split('\n')
    expect(lines).toHaveLength(20)
    for (const line of lines) expect([...line].length).toBeLessThanOrEqual(60)
    // the title may be cut (the state dir's path); the help's lines never are
    expect(lines.slice(1).join('\n')).not.toContain('…')
    expect(first.replace(/\s+/g, ' ')).toContain('open the task full screen (q or Esc back)')
    t.keys('End')
    const last = await t.waitFor(/quit \(tasks keep running\)/)
    expect(last.replace(/\s+/g, ' ')).toContain('quitting top leaves them running.')
    t.keys('x')
    await t.waitFor((s) => /move/.test(s.replace(/\n$/, '').split('\n').at(-1) ?? '') && rowOf(s, id) !== '')
  })

  it('gives the terminal back when its session hangs up (SIGHUP) or it is told to end (SIGTERM, SIGINT)', async () => {
    const stateDir = makeStateDir()
    await startOk(stateDir, ['--', 'sleep', '300'])
    for (const [signal, code] of [['SIGHUP', 129], ['SIGTERM', 143], ['SIGINT', 130]] as const) {
      const t = top(stateDir)
      await t.waitFor(/drover top · 1 live/)
      expect(t.format('#{alternate_on}')).toBe('1')
      process.kill(t.topPid(), signal)
      const screen = await t.waitFor(EXITED)
      expect(screen).toMatch(new RegExp(`^TOP-BEFORE\\nTOP-EXIT ${code}\\nicanon echo`))
      expect(t.format('#{alternate_on} #{cursor_flag}')).toBe('0 1')
    }
  })

  it('gives the terminal back when it crashes: exit 1, the error on one line', async () => {
    const stateDir = makeStateDir()
    await startOk(stateDir, ['--', 'sleep', '300'])
    const t = top(stateDir, [], {nodeArgs: ['--import', fixture('top-crash.mjs')], env: {TOP_CRASH_AFTER_MS: '2500'}})
    await t.waitFor(/drover top · 1 live/)
    const screen = await t.waitFor(EXITED)
    expect(screen).toMatch(/^TOP-BEFORE\ndrover: top failed: injected crash\nTOP-EXIT 1\nicanon echo/)
    expect(t.format('#{alternate_on} #{cursor_flag}')).toBe('0 1')
  })

  it('honours NO_COLOR, and --color wins over it', async () => {
    const stateDir = makeStateDir()
    const id = await startOk(stateDir, ['--', 'sleep', '300'])
    await startOk(stateDir, ['--', 'sleep', '301'])
    const plain = top(stateDir)
    await plain.waitFor((s) => /running/.test(rowOf(s, id + 1)))
    expect(rowOf(plain.screenWithEscapes(), id + 1)).not.toMatch(/\u001B\[3\dm/)
    const coloured = top(stateDir, ['--color'])
    await coloured.waitFor((s) => /running/.test(rowOf(s, id + 1)))
    expect(coloured.screenWithEscapes()).toMatch(/\u001B\[36mrunning/)
  })
})

describe('drover top: start-up cost of other commands', () => {
  it('drover list loads nothing of the terminal UI; top does', async () => {
    const stateDir = makeStateDir()
    await startOk(stateDir, ['--', process.execPath, '-e', '0'])
    const modulesLoaded = async (args: string[]) => {
      const record = path.join(makeStateDir(), 'imports.txt')
      await execa(process.execPath, ['--require', fixture('record-reads.cjs'), '--import', fixture('record-imports.mjs'), BIN, ...args], {
        env: {DROVER_STATE_DIR: stateDir, RECORD_IMPORTS: record, NO_COLOR: '1'},
        reject: false,
        stdin: 'ignore',
        timeout: 30_000,
      })
      return readFileSync(record, 'utf8').trim().split('\n')
    }
    const list = await modulesLoaded(['list'])
    expect(list.some((url) => url.endsWith('/dist/cli-bundle/commands/list.js') || url.endsWith('/dist/cli-bundle/vendor/drover.cjs'))).toBe(true)
    expect(list.filter((url) => url.includes('/dist/tui/'))).toEqual([])
    // without a terminal top stops at its first check, after loading its module
    expect((await modulesLoaded(['top'])).some((url) => url.endsWith('/dist/tui/index.js'))).toBe(true)
  })
})

describe('drover top: agents and worktrees', () => {
  afterEach(() => cleanupRepos())

  it("drains a fake claude at a key, resumes it with a message, shows its transcript and raw events", async () => {
    const stateDir = makeStateDir()
    const id = await startFakeClaude(stateDir, 400)
    const t = top(stateDir)
    // the transcript, as logs --pretty words it, with the agent's turns in the row
    let screen = await t.waitFor((s) => /→ Bash /.test(s) && /claude +\d+ /.test(rowOf(s, id)))
    expect(screen).toMatch(/── 1 agent · running · \d+ turns · .*claude transcript \(p: raw\)/)
    expect(screen).not.toMatch(/"type":/)
    t.keys('p')
    screen = await t.waitFor(/"type":"(assistant|user)"/)
    t.keys('p')
    await t.waitFor((s) => /→ Bash /.test(s) && !/"type":/.test(s))

    t.keys('d')
    await t.waitFor(/drain task 1 \(agent\)\? \(y\/n\)/)
    t.keys('y')
    screen = await t.waitFor((s) => /agent +drained/.test(rowOf(s, id)), 30_000)
    expect(readTask(stateDir, id).status).toBe('drained')

    t.keys('r')
    await t.waitFor(/resume message \(Enter: the default, Esc: back\):/)
    t.type('carry on')
    t.keys('Enter')
    await t.waitFor(/resume task 1 \(agent\) with "carry on"\? \(y\/n\)/)
    t.keys('y')
    // the footer says what began the run once its row shows it running (the same event): resumed, never a bare "task 1 running"
    screen = await t.waitFor((s) => /agent +running/.test(rowOf(s, id)) && /task 1 (resumed: run 2, )?running\s*$/.test(s.replace(/\n$/, '').split('\n').at(-1)!), 20_000)
    expect(screen.replace(/\n$/, '').split('\n').at(-1)).toMatch(/task 1 resumed: run 2, running/)
    await waitFor(() => readTask(stateDir, id).runs.length === 2 && readTask(stateDir, id).status === 'running', {timeout: 20_000})
    expect(readTask(stateDir, id).runs[1].command).toContain('carry on')
    await t.waitFor((s) => /agent +running/.test(rowOf(s, id)))
    // TURNS is the session's, as list's: the row and the preview's title agree, which also says this run's
    screen = await t.waitFor((s) => /· session \d+ turns .*· this run \d+ turns?/.test(s))
    const [, sessionTurns, runTurns] = /· session (\d+) turns .*· this run (\d+) turns?/.exec(screen)!
    expect(Number(sessionTurns)).toBeGreaterThan(Number(runTurns))
    const rowTurns = Number(/claude +(\d+) /.exec(rowOf(screen, id))![1])
    expect(rowTurns).toBe(Number(sessionTurns))

    t.keys('c')
    await t.waitFor(/cancel task 1 \(agent\)\? \(y\/n\)/)
    t.keys('y')
    await t.waitFor((s) => /agent +cancelled/.test(rowOf(s, id)), 20_000)
  })

  it("shows a --worktree task's diff --stat and diff on v; a task without one says so", async () => {
    const stateDir = makeStateDir()
    const repo = makeRepo()
    const plain = await startOk(stateDir, ['--name', 'plain', '--', 'sleep', '300'])
    const r = await drover(stateDir, ['start', '--worktree', '--name', 'tree', '--', 'sh', '-c', 'echo two >> a.txt; echo new > b.txt; sleep 300'], {cwd: repo, env: GIT_IDENTITY})
    expect(r.exitCode, r.stderr).toBe(0)
    const tree = Number(r.stdout.trim())
    const t = top(stateDir)
    await t.waitFor((s) => rowOf(s, plain).startsWith('>'))
    t.keys('v')
    await t.waitFor(/task 1 has no worktree/)
    t.keys('j')
    await t.waitFor((s) => rowOf(s, tree).startsWith('>'))
    await waitFor(() => gitIn(readTask(stateDir, tree).worktree.path, 'status', '--porcelain').includes('b.txt'))
    t.keys('v')
    const screen = await t.waitFor(/diff against its base/)
    expect(screen).toMatch(/branch drover\/2-tree · base HEAD \([0-9a-f]{12}\)/)
    expect(screen).toMatch(/a\.txt +\| +1 \+/)
    expect(screen).toMatch(/\n\+two\n/)
    t.keys('q')
    await t.waitFor(/ID +NAME +STATUS/)
  })

  it('draws the newest tasks and the count of all at once, before its look over every task is done', {timeout: 60_000}, async () => {
    // Not a makeStateDir: its cleanup SIGKILLs the process groups of the pids records name, and these records' pids are made up.
    const dir = mkdtempSync(path.join(os.tmpdir(), 'drover-top-many-'))
    makeEndedTasks(dir, 3000, {outputBytes: 10})
    const pty = openPty([process.execPath, BIN, 'top'], {env: {...process.env, DROVER_STATE_DIR: dir, NO_COLOR: '1'}, cols: 160, rows: 30})
    try {
      // every frame as drawn (a pty, not a screen read now and then): the early header comes first, then the whole count
      await pty.waitFor(/drover top · 0 live · 0 queued · 3000 ended · reading older tasks…[\s\S]*drover top · 0 live · 0 queued · 3000 ended · \//, 45_000)
    } finally {
      pty.close()
      rmSync(dir, {recursive: true, force: true})
    }
  })

  it('quits on Ctrl-C with the terminal given back', async () => {
    const stateDir = makeStateDir()
    await startOk(stateDir, ['--', 'sleep', '300'])
    const t = top(stateDir)
    await t.waitFor(/drover top · 1 live/)
    t.keys('C-c')
    const screen = await t.waitFor(EXITED)
    expect(screen).toMatch(/^TOP-BEFORE\nTOP-EXIT 130\nicanon echo/)
    expect(t.format('#{alternate_on} #{cursor_flag}')).toBe('0 1')
  })
})
