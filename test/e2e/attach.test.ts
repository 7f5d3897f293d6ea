// `drover attach` in a real terminal (tmux) with the fake claude, whose
// `claude --resume ID` is an interactive session on the terminal: a running
// agent is drained first, the session runs in the foreground and is recorded
// as an attached run, and `drover resume` sends the task back to the
// background; Ctrl-C ends the session and not drover; a closed terminal ends
// the session only, recorded; a stop from another shell reaches it; without a
// terminal, or for a task that runs no agent, exit 2.

import {execa} from 'execa'
import {existsSync, readFileSync} from 'node:fs'
import path from 'node:path'
import {afterEach, describe, expect, it} from 'vitest'
import {BIN, cleanupStateDirs, drover, fixture, isAlive, json, makeStateDir, makeTempDir, readOutput, readTask, waitFor} from '../helpers/cli.js'
import {openPane, type Pane} from '../helpers/tmux.js'

const FAKE_BIN = fixture('bin')
const panes: Pane[] = []
afterEach(() => {
  for (const pane of panes.splice(0)) pane.kill()
  cleanupStateDirs()
})

const sh = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`

function agentEnv(home: string): Record<string, string> {
  return {PATH: `${FAKE_BIN}${path.delimiter}${process.env.PATH}`, HOME: home, FAKE_AGENT_TURN_MS: '100', FAKE_AGENT_TURNS: '100000'}
}

/** A terminal running `drover attach ID`; the shell then says how it ended. */
function attachIn(stateDir: string, env: Record<string, string>, id: number): Pane {
  const exports = Object.entries({...env, DROVER_STATE_DIR: stateDir, NO_COLOR: '1', TERM: 'xterm-256color'})
    .map(([k, v]) => `${k}=${sh(v)}`)
    .join(' ')
  // job control, as in a person's shell: drover runs as the terminal's foreground job, the shell apart from it
  const script = `set -m; env ${exports} ${sh(process.execPath)} ${sh(BIN)} attach ${id}; echo "ATTACH-EXIT $?"; sleep 600`
  const pane = openPane('attach', ['bash', '-c', script], {width: 160, height: 40})
  panes.push(pane)
  return pane
}

async function runningClaude(stateDir: string, env: Record<string, string>, options: string[] = []): Promise<number> {
  const r = await drover(stateDir, ['start', ...options, '--', 'claude', '-p', 'build it', '--output-format', 'stream-json', '--verbose', '--model', 'opus'], {env})
  expect(r.exitCode, r.stderr).toBe(0)
  const id = Number(r.stdout.trim())
  await waitFor(() => readTask(stateDir, id).agentInfo?.sessionId, {timeout: 20_000, message: 'the session id'})
  return id
}

/** A fake claude at work, then attached to in a terminal: its interactive session on the screen. */
async function attachedClaude(): Promise<{stateDir: string; env: Record<string, string>; id: number; pane: Pane}> {
  const stateDir = makeStateDir()
  const env = agentEnv(makeTempDir('drover-home-'))
  const id = await runningClaude(stateDir, env)
  const pane = attachIn(stateDir, env, id)
  await pane.waitFor(/fake claude interactive/, 60_000)
  return {stateDir, env, id, pane}
}

describe('drover attach', () => {
  it('drains a running agent, runs its interactive session here as an attached run, and resume sends it back to the background', async () => {
    const stateDir = makeStateDir()
    const home = makeTempDir('drover-home-')
    const env = agentEnv(home)
    const id = await runningClaude(stateDir, env)
    const session = readTask(stateDir, id).agentInfo.sessionId
    const pane = attachIn(stateDir, env, id)
    let screen = await pane.waitFor(/fake claude interactive/, 60_000)
    expect(screen).toContain(`drover: draining task ${id} at its next safe point first…`)
    expect(screen).toContain(`--model opus --resume ${session} (quit it to hand the task back)`)
    let task = readTask(stateDir, id)
    expect(task.runs[0]).toMatchObject({status: 'drained'})
    expect(task.runs[1]).toMatchObject({run: 2, attached: true, status: 'running', command: [expect.stringMatching(/claude$/), '--model', 'opus', '--resume', session]})
    // drover is the attached run's runner: other shells see it alive
    expect(json(await drover(stateDir, ['status', String(id), '--json'], {env}))).toMatchObject({status: 'running', runnerAlive: true, workerAlive: true})

    pane.type('look at the failing test')
    pane.keys('Enter')
    await pane.waitFor(/working on "look at the failing test"/)
    pane.type('/exit')
    pane.keys('Enter')
    screen = await pane.waitFor(/ATTACH-EXIT \d+/)
    expect(screen).toContain(`drover: task ${id}: the attached session ended succeeded (exit 0); drover resume ${id} [--prompt "…"] sends it back to the background`)
    expect(screen).toMatch(/ATTACH-EXIT 0/)
    task = readTask(stateDir, id)
    expect(task.runs[1]).toMatchObject({attached: true, status: 'succeeded', exitCode: 0})
    const status = (await drover(stateDir, ['status', String(id)], {env})).stdout
    expect(status).toMatch(/^runs +#1 drained; #2 attached succeeded \(exit 0\)$/m)
    expect(readOutput(stateDir, id)).toMatch(/── drover: run 2 \(attached\) started \d{4}-\d\d-\d\d \d\d:\d\d:\d\d [+-]\d\d:\d\d ──/)

    const back = await drover(stateDir, ['resume', String(id), '--prompt', 'carry on with what we said'], {env})
    expect(back.exitCode, back.stderr).toBe(0)
    task = await waitFor(() => {
      const t = readTask(stateDir, id)
      return t.runs.length === 3 && t.status === 'running' ? t : null
    }, {timeout: 20_000, message: 'the task back in the background'})
    expect(task.runs[2]).toMatchObject({prompt: 'carry on with what we said', resumed: true})
    expect(task.runs[2].attached).toBeUndefined()
    await drover(stateDir, ['cancel', String(id)], {env})
  })

  it('Ctrl-C ends the interactive session, not drover: the run is recorded and the task stays resumable', async () => {
    const {stateDir, env, id, pane} = await attachedClaude()
    pane.keys('C-c')
    const screen = await pane.waitFor(/ATTACH-EXIT \d+/)
    expect(screen).toContain('fake claude: interrupted, bye')
    expect(screen).toMatch(/ATTACH-EXIT 0/)
    const task = readTask(stateDir, id)
    expect(task.runs[1]).toMatchObject({attached: true, status: 'succeeded'})
    expect(json(await drover(stateDir, ['status', String(id), '--json'], {env}))).toMatchObject({resume: `drover resume ${id}`, runnerAlive: false})
  })

  it("the attached run's changes reach the status hooks, and its end the exit hooks, as any run's", async () => {
    const stateDir = makeStateDir()
    const env = agentEnv(makeTempDir('drover-home-'))
    const log = (name: string) => path.join(stateDir, name)
    const onStatus = `printf "%s %s>%s\\n" "$DROVER_RUN" "$DROVER_PREV_STATUS" "$DROVER_STATUS" >> ${sh(log('changes'))}`
    const onExit = `printf "%s %s\\n" "$DROVER_RUN" "$DROVER_STATUS" >> ${sh(log('ends'))}`
    const id = await runningClaude(stateDir, env, ['--on-status', onStatus, '--on-exit', onExit])
    const pane = attachIn(stateDir, env, id)
    await pane.waitFor(/fake claude interactive/, 60_000)
    pane.keys('C-c')
    await pane.waitFor(/ATTACH-EXIT 0/)
    const lines = (file: string) => (existsSync(file) ? readFileSync(file, 'utf8').trim().split('\n') : [])
    // the attach process is the run's runner: the hooks' supervisors are the built runner's, not the CLI's
    expect(await waitFor(() => lines(log('changes')).length >= 7 && lines(log('changes')), {timeout: 30_000, message: 'every change told'})).toEqual([
      '1 >starting',
      '1 starting>running',
      '1 running>stopping',
      '1 stopping>drained',
      '2 drained>starting',
      '2 starting>running',
      '2 running>succeeded',
    ])
    expect(await waitFor(() => lines(log('ends')).length >= 2 && lines(log('ends')), {timeout: 30_000, message: 'both ends told'})).toEqual(['1 drained', '2 succeeded'])
  })

  it('a closed terminal ends the session only: drover records the run and leaves nothing running', async () => {
    const {stateDir, env, id, pane} = await attachedClaude()
    const worker = readTask(stateDir, id).worker.pid
    pane.kill()
    const task = await waitFor(() => {
      const t = readTask(stateDir, id)
      return t.runs.length === 2 && !['starting', 'running', 'stopping'].includes(t.status) ? t : null
    }, {timeout: 20_000, message: 'the attached run recorded'})
    // A closed terminal ends the session two ways at once: its input ends (the fake
    // agent then exits 0, as at the end of any input) and the hang-up comes as the
    // terminal's session leader dies. The kernel wakes readers first, so under load
    // the agent may end on its input before the signal reaches it (seen on Node 24).
    const {attached, status, signal, reason} = task.runs[1]
    expect([
      {attached: true, status: 'failed', signal: 'SIGHUP', reason: 'killed by SIGHUP'},
      {attached: true, status: 'succeeded', signal: null, reason: 'exit 0'},
    ]).toContainEqual({attached, status, signal, reason})
    expect(isAlive(worker)).toBe(false)
    // not retried, not lost: a person's session ended, and the task waits to be sent back
    const shown = json(await drover(stateDir, ['status', String(id), '--json'], {env}))
    expect(shown).toMatchObject({status, runnerAlive: false, resume: `drover resume ${id}`})
    const back = await drover(stateDir, ['resume', String(id)], {env})
    expect(back.exitCode, back.stderr).toBe(0)
    await drover(stateDir, ['cancel', String(id)], {env})
  })

  it('a stop from another shell reaches the attached session', async () => {
    const {stateDir, env, id, pane} = await attachedClaude()
    const stop = await drover(stateDir, ['stop', String(id)], {env})
    expect(stop.exitCode, stop.stderr).toBe(0)
    expect(readTask(stateDir, id).runs[1]).toMatchObject({attached: true, status: 'stopped'})
    await pane.waitFor(/ATTACH-EXIT 0/)
  })

  it('refuses without a terminal (exit 2), and a task that runs no agent (exit 2), changing nothing', async () => {
    const stateDir = makeStateDir()
    const home = makeTempDir('drover-home-')
    const env = agentEnv(home)
    const id = await runningClaude(stateDir, env)
    const piped = await execa(process.execPath, [BIN, 'attach', String(id)], {env: {...env, DROVER_STATE_DIR: stateDir}, reject: false, stdin: 'ignore'})
    expect([piped.exitCode, piped.stdout]).toEqual([2, ''])
    expect(piped.stderr).toBe(`drover: attach needs a terminal (stdin and stdout are not one): the agent's interactive session runs on it; drover logs -f ${id} follows a task without one`)
    expect(readTask(stateDir, id)).toMatchObject({status: 'running', runs: [expect.anything()]})
    await drover(stateDir, ['cancel', String(id)], {env})

    const generic = Number((await drover(stateDir, ['start', '--', 'sleep', '300'], {env})).stdout.trim())
    const pane = attachIn(stateDir, env, generic)
    const screen = await pane.waitFor(/ATTACH-EXIT \d+/)
    expect(screen).toContain(`drover: task ${generic} runs no agent drover knows (generic), so there is no interactive session to open`)
    expect(screen).toMatch(/ATTACH-EXIT 2/)
    expect(readTask(stateDir, generic)).toMatchObject({status: 'running', runs: [expect.anything()]})
    await drover(stateDir, ['cancel', String(generic)], {env})
  })
})
