// Ctrl-C in a real terminal while stop, drain or cancel show their progress:
// exit 130, no ✖ list, one line saying the request carries on and how to
// check — and it does carry on; and a pty of no size (0 columns) gets whole rows. A pseudo-terminal from util-linux `script`;
// the Ctrl-C is the byte ^C typed into it, which the terminal turns into SIGINT.

import {execa} from 'execa'
import {execFileSync} from 'node:child_process'
import {afterEach, describe, expect, it} from 'vitest'
import {BIN, cleanupStateDirs, drover, fixture, makeStateDir, readTask, waitFor} from '../helpers/cli.js'

afterEach(() => cleanupStateDirs())

const hasScript = (() => {
  try {
    execFileSync('script', ['--version'], {stdio: 'ignore'})
    return true
  } catch {
    return false
  }
})()

const quote = (word: string) => `'${word.replace(/'/g, `'\\''`)}'`

/** Runs drover inside a pseudo-terminal, types Ctrl-C once `ready` shows, and returns what the terminal showed. */
async function interruptInTerminal(stateDir: string, args: string[], ready: RegExp) {
  // A pty made by script from a pipe has no size (0 columns): give it one, as a terminal would.
  const command = `stty cols 120 rows 30; exec ${[process.execPath, BIN, ...args].map(quote).join(' ')}`
  const child = execa('script', ['-qefc', command, '/dev/null'], {
    env: {DROVER_STATE_DIR: stateDir, NODE_ENV: 'production', TERM: 'xterm'},
    reject: false,
    timeout: 60_000,
    stdin: 'pipe',
  })
  let screen = ''
  child.stdout!.on('data', (chunk: Buffer) => (screen += chunk.toString()))
  await waitFor(() => ready.test(screen), {timeout: 20_000, message: `${ready} on the terminal; it shows: ${JSON.stringify(screen)}`})
  child.stdin!.write('\u0003')
  const result = await child
  // script leaves the pipe open on its stdin side; the exit code is drover's (-e).
  child.stdin!.end()
  return {exitCode: result.exitCode, screen: screen + String(result.stdout ?? '')}
}

describe.runIf(hasScript)('Ctrl-C while waiting on a terminal', () => {
  for (const verb of ['stop', 'drain', 'cancel'] as const) {
    it(`${verb}: exit 130, the request carries on, and drover says how to check`, async () => {
      const dir = makeStateDir()
      const start = await drover(dir, ['start', '--', process.execPath, fixture('rel-stubborn.mjs')])
      expect(start.exitCode, start.stderr).toBe(0)
      await waitFor(() => readTask(dir, 1).status === 'running', {message: 'task 1 to run'})
      const extra = verb === 'stop' ? ['-t', '3s'] : verb === 'drain' ? ['--grace', '3s', '--kill-after', '1s'] : []
      const run = await interruptInTerminal(dir, [verb, ...extra, '1'], /task 1: \w+ing/)
      expect(run.exitCode, run.screen).toBe(130)
      expect(run.screen).not.toContain('✖')
      expect(run.screen).not.toMatch(/Interrupted\.|at .*\.js:\d+/)
      expect(run.screen).toMatch(new RegExp(`the ${verb} of task 1 carries on without this command \\(check: drover status 1\\)`))
      // It does carry on: the runner ends the task without this command.
      const final = {stop: 'stopped', drain: 'drained', cancel: 'cancelled'}[verb]
      await waitFor(() => readTask(dir, 1).status === final, {timeout: 20_000, message: `task 1 to end ${final}`})
    })
  }
})

describe.runIf(hasScript)('a terminal that reports no size', () => {
  it('list on a pty of 0 columns prints whole rows, as to a pipe, not a row of … each', async () => {
    const dir = makeStateDir()
    const start = await drover(dir, ['start', '--name', 'sized', '--', process.execPath, '-e', 'console.log(1)'])
    expect(start.exitCode, start.stderr).toBe(0)
    await waitFor(() => readTask(dir, 1).status === 'succeeded', {message: 'task 1 to end'})
    const command = `stty cols 0 rows 0; exec ${[process.execPath, BIN, 'list'].map(quote).join(' ')}`
    const run = await execa('script', ['-qefc', command, '/dev/null'], {env: {DROVER_STATE_DIR: dir, NO_COLOR: '1', TERM: 'xterm'}, reject: false, timeout: 60_000})
    expect(run.exitCode, run.stdout).toBe(0)
    const lines = run.stdout.split(/\r?\n/).filter(Boolean)
    expect(lines[0]).toMatch(/^ID\s+NAME\s+STATUS\s+PID\s+STARTED\s+RUNTIME\s+COMMAND$/)
    expect(lines[1]).toMatch(/^1\s+sized\s+succeeded\s.*console\.log\(1\)/)
  })
})
