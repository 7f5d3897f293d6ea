// A closed pipe ends the reader: `drover logs -f ID | head -1` and friends end
// as soon as head does — quietly, with 141 (what a shell reports for SIGPIPE),
// and the task keeps running. Real shell pipelines; the latency is measured
// from the moment the reader is gone to the moment drover has exited.

import {execa} from 'execa'
import {afterEach, describe, expect, it} from 'vitest'
import {BIN, cleanupStateDirs, drover, isAlive, makeStateDir, readTask, waitFor} from '../helpers/cli.js'
import {ensureStateDir} from '../../src/state/statedir.js'
import {makeTask} from '../fixtures/prune-state.js'

afterEach(() => cleanupStateDirs())

// The issue asks for 100 ms; a loaded two-core machine gets a generous margin, and a
// drover that waits for the task's next output (or its end, 300 s away) still fails.
const PROMPT_MS = 1000

const SILENT_AFTER_TWO_LINES = `${process.execPath} -e "console.log('one'); console.log('two'); console.log('three'); setTimeout(() => {}, 300000)"`

/**
 * Runs `DROVER … | head -N` in sh and reports drover's exit status, what head
 * printed, drover's stderr, and how long drover lived after head (and with it
 * the pipe's only reader) was gone.
 */
async function pipeline(stateDir: string, droverArgs: string, headLines: number) {
  const script = [
    `{ $DROVER ${droverArgs} 2>"$ERR"; echo $? > "$ERR.code"; date +%s%N > "$ERR.end"; } | { head -${headLines}; date +%s%N > "$ERR.head"; }`,
    'wait',
    'echo "code=$(cat "$ERR.code") head=$(cat "$ERR.head") end=$(cat "$ERR.end")"',
    'cat "$ERR"',
  ].join('\n')
  const err = `${stateDir}/drover.err`
  const result = await execa('sh', ['-c', script], {
    env: {DROVER_STATE_DIR: stateDir, NO_COLOR: '1', NODE_ENV: 'production', DROVER: `${process.execPath} ${BIN}`, ERR: err},
    reject: false,
    timeout: 30_000,
  })
  expect(result.timedOut, `still running after 30 s: ${result.stdout}`).toBe(false)
  const lines = String(result.stdout).split('\n')
  const at = lines.findIndex((line) => line.startsWith('code='))
  const [, code, headEnd, droverEnd] = /^code=(\d+) head=(\d+) end=(\d+)$/.exec(lines[at]) ?? []
  return {
    printed: lines.slice(0, at),
    exitCode: Number(code),
    lateMs: (Number(droverEnd) - Number(headEnd)) / 1e6,
    stderr: lines.slice(at + 1).join('\n'),
  }
}

describe('a closed pipe ends the reader promptly and quietly; the task runs on', () => {
  it('logs -f ID | head -1 on a task that has gone silent', async () => {
    const dir = makeStateDir()
    const start = await drover(dir, ['start', '--shell', SILENT_AFTER_TWO_LINES])
    expect(start.exitCode, start.stderr).toBe(0)
    await waitFor(() => readTask(dir, 1).status === 'running', {message: 'task 1 to run'})
    const run = await pipeline(dir, 'logs -f 1', 1)
    expect(run.printed).toEqual(['one'])
    expect(run.exitCode, run.stderr).toBe(141)
    expect(run.stderr).toBe('')
    expect(run.lateMs, `drover ended ${run.lateMs} ms after head`).toBeLessThan(PROMPT_MS)
    expect(readTask(dir, 1).status).toBe('running')
    expect(isAlive(readTask(dir, 1).worker.pid)).toBe(true)
  })

  it('start --follow -- … | head -2', async () => {
    const dir = makeStateDir()
    const run = await pipeline(dir, `start --follow --shell "${SILENT_AFTER_TWO_LINES.replace(/"/g, '\\"')}"`, 2)
    // The id may be on stdout or stderr (where it belongs when following): two lines either way.
    expect(run.printed).toHaveLength(2)
    expect(run.printed.at(-1)).toMatch(/^(one|two)$/)
    expect(run.exitCode, run.stderr).toBe(141)
    expect(run.stderr).not.toMatch(/Error|at .*\.js/)
    expect(run.lateMs, `drover ended ${run.lateMs} ms after head`).toBeLessThan(PROMPT_MS)
    expect(readTask(dir, 1).status).toBe('running')
  })

  it('list | head -1 with more tasks than a pipe holds: no stack trace, 141', {timeout: 60_000}, async () => {
    const dir = makeStateDir()
    // More rows than a pipe holds (64 KiB), so drover is still writing when head leaves.
    ensureStateDir(dir)
    for (let i = 0; i < 1500; i++) makeTask(dir, {status: 'succeeded'})
    const run = await pipeline(dir, 'list --all', 1)
    expect(run.printed[0]).toMatch(/^ID +NAME/)
    expect(run.stderr).toBe('')
    expect(run.exitCode).toBe(141)
    // Output that fits the pipe (or, as compact --json, is one line head reads whole) is written whole: a success.
    for (const args of ['--help', 'list --json']) {
      const small = await pipeline(dir, args, 1)
      expect(small.stderr, args).toBe('')
      expect([0, 141], args).toContain(small.exitCode)
    }
  })
})
