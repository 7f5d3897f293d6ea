// Following for scripts, end to end: `start --follow` keeps stdout for the task's own
// output (the id goes to stderr), and under --json both `start --follow` and `logs -f`
// stream NDJSON — output lines with byte offsets, a partial line then its rest, the
// final record — and still exit with the task's own code.

import {execa} from 'execa'
import {afterEach, describe, expect, it, vi} from 'vitest'

import {BIN, cleanupStateDirs, fixture, makeStateDir, readOutput, readTask, waitFor} from '../helpers/cli.js'
import {drover, follow, gated, killFollowers, ndjson, startOk} from '../helpers/follow.js'

const node = process.execPath
vi.setConfig({testTimeout: 120_000})

afterEach(() => {
  killFollowers()
  cleanupStateDirs()
})

/** Checks that output objects tile output.log: each starts where the last ended, and the texts add up to it. */
function expectTiled(events: any[], id: number, log: string, from = 0) {
  const outputs = events.filter((e) => e.type === 'output')
  let next = from
  for (const event of outputs) {
    expect(event).toMatchObject({id, offset: next})
    expect(event.end - event.offset).toBe(Buffer.byteLength(event.text))
    next = event.end
  }
  expect(outputs.map((e) => e.text).join('')).toBe(Buffer.from(log).subarray(from).toString())
}

describe('start --follow', () => {
  it('leaves stdout to the task\'s output and says the id on stderr', async () => {
    const dir = makeStateDir()
    const result = await drover(dir, ['start', '--follow', '--', node, fixture('counter.mjs'), '3', '1', '4'])
    expect(result.exitCode).toBe(4)
    expect(result.stdout).toBe('line 1\nline 2\nline 3\n')
    const id = Number(/task (\d+) started/.exec(result.stderr)?.[1])
    expect(readTask(dir, id)).toMatchObject({status: 'failed', exitCode: 4})
  })

  it("shows an agent's transcript on a terminal as logs -f does; --raw gives the stream, --pretty the transcript in a pipe", async () => {
    const dir = makeStateDir()
    const agent = [node, fixture('agent-failing-tool.mjs')]
    const quote = (arg: string) => `'${arg.replaceAll("'", "'\\''")}'`
    const onTerminal = (args: string[]) =>
      execa('script', ['-qfec', [node, BIN, 'start', '--follow', ...args, '--agent', 'claude', '--', ...agent].map(quote).join(' '), '/dev/null'], {
        env: {DROVER_STATE_DIR: dir, NO_COLOR: '1'},
        reject: false,
        stdin: 'ignore',
        timeout: 60_000,
      })
    const pretty = await onTerminal([])
    expect(pretty.exitCode).toBe(0)
    const screen = String(pretty.stdout).replaceAll('\r\n', '\n')
    expect(screen).toContain('→ Bash npm test\n')
    expect(screen).toContain('    FAIL test/math.test.ts > adds\n')
    expect(screen).not.toContain('"type":')
    const raw = String((await onTerminal(['--raw'])).stdout)
    expect(raw).toContain('{"type":"system","subtype":"init"')
    // piped: raw by default, the transcript when asked
    expect((await drover(dir, ['start', '--follow', '--agent', 'claude', '--', ...agent])).stdout).toMatch(/^\{"type":"system"/)
    const piped = await drover(dir, ['start', '--follow', '--pretty', '--agent', 'claude', '--', ...agent])
    expect(piped.exitCode).toBe(0)
    expect(piped.stdout).toMatch(/^● session 00000000-0000-4000-8000-000000000001/)
    expect(piped.stdout).toContain('✔ done · $0.0100 · 1 turn')
    expect((await drover(dir, ['start', '--pretty', '--', node, '-e', '0'])).stderr).toMatch(/--follow/)
  })

  it('under --json streams started, output and end objects, and exits with the task\'s code', async () => {
    const dir = makeStateDir()
    const result = await drover(dir, ['start', '--follow', '--json', '--', node, fixture('counter.mjs'), '3', '1', '4'])
    expect(result.exitCode).toBe(4)
    const events = ndjson(result.stdout)
    const id = events[0].id
    expect(events[0]).toMatchObject({type: 'started', id, task: {id, command: [node, fixture('counter.mjs'), '3', '1', '4']}})
    expect(events.at(-1)).toMatchObject({type: 'end', id, exitCode: 4, task: {id, status: 'failed', exitCode: 4}})
    expect(events.slice(1, -1).map((e) => e.text)).toEqual(['line 1\n', 'line 2\n', 'line 3\n'])
    expectTiled(events, id, readOutput(dir, id))
  })

  it('under --json a task that fails to start ends the stream at once with exit 1', async () => {
    const dir = makeStateDir()
    const result = await drover(dir, ['start', '--follow', '--json', '--', 'no-such-command-for-drover'])
    expect(result.exitCode).toBe(1)
    const events = ndjson(result.stdout)
    expect(events.map((e) => e.type)).toEqual(['started', 'end'])
    expect(events[1]).toMatchObject({exitCode: 1, task: {status: 'failed'}})
  })
})

describe('logs -f --json', () => {
  it('follows a running task as NDJSON, a partial line included, and exits with its code', async () => {
    const dir = makeStateDir()
    const worker = gated(dir)
    const id = await startOk(dir, worker.command)
    await worker.next({write: 'before\n'})
    const f = follow(dir, ['logs', '-f', '--json', String(id)])
    await worker.next({write: 'one\ntwo\nContinue? '})
    await waitFor(() => f.stdout().includes('Continue? '), {message: 'the prompt as an output object'})
    expect(f.child.exitCode).toBeNull()
    await worker.next({write: 'yes\n'})
    await waitFor(() => f.stdout().includes('"yes\\n"'), {message: 'the rest of the line'})
    const sofar = ndjson(f.stdout())
    expect(sofar.map((e) => e.text)).toEqual(['before\n', 'one\n', 'two\n', 'Continue? ', 'yes\n'])
    await worker.next({write: 'bye\n', exit: 7})
    const result = await f.child
    expect(result.exitCode).toBe(7)
    const events = ndjson(String(result.stdout))
    expect(events.at(-1)).toMatchObject({type: 'end', id, exitCode: 7, task: {status: 'failed', exitCode: 7}})
    expectTiled(events, id, readOutput(dir, id))

    // --offset carries on after any object of the stream.
    const resumeAt = events[2].end
    const rest = await drover(dir, ['logs', '-f', '--json', '--offset', String(resumeAt), String(id)])
    expect(rest.exitCode).toBe(7)
    const restEvents = ndjson(rest.stdout)
    expect(restEvents.filter((e) => e.type === 'output').map((e) => e.text)).toEqual(['Continue? yes\n', 'bye\n'])
    expectTiled(restEvents, id, readOutput(dir, id), resumeAt)
  })

  it('gives 128 + the signal number in the end object and as the exit code', async () => {
    const dir = makeStateDir()
    const worker = gated(dir)
    const id = await startOk(dir, worker.command)
    const f = follow(dir, ['logs', '-f', '--json', String(id)])
    await worker.next({write: 'about to die\n'})
    await waitFor(() => f.stdout().includes('about to die'), {message: 'output before the signal'})
    await worker.next({signal: 'SIGTERM'})
    const result = await f.child
    expect(result.exitCode).toBe(143)
    expect(ndjson(String(result.stdout)).at(-1)).toMatchObject({type: 'end', exitCode: 143, task: {signal: 'SIGTERM'}})
  })
})
