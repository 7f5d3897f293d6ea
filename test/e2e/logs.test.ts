// `drover logs` end to end against real workers: the whole log by default (with -f too,
// into a file), -n N and -n all; -f seeing every line once and in order, exiting with the
// task's code (128 + signal), showing a prompt or progress bar without its newline,
// surviving truncation, saying why a lost task exits 1, and leaving the task running on Ctrl-C.

import {execa} from 'execa'
import {readFileSync, truncateSync} from 'node:fs'
import path from 'node:path'
import {afterEach, describe, expect, it, vi} from 'vitest'

import {BIN, cleanupStateDirs, fixture, isAlive, makeStateDir, readOutput, readTask, waitFor} from '../helpers/cli.js'
import {drover, follow, gated, killFollowers, spawnDrover, startOk, waitFinal} from '../helpers/follow.js'

const node = process.execPath
vi.setConfig({testTimeout: 120_000})

afterEach(() => {
  killFollowers()
  cleanupStateDirs()
})

describe('logs -n', () => {
  it('prints the whole log by default, with -f too, or only the last N lines', async () => {
    const dir = makeStateDir()
    const id = await startOk(dir, ['--', node, fixture('counter.mjs'), '60', '1', '0'])
    await waitFinal(dir, id)
    const all = Array.from({length: 60}, (_, i) => `line ${i + 1}\n`).join('')
    expect((await drover(dir, ['logs', String(id)])).stdout).toBe(all)
    expect((await drover(dir, ['logs', String(id), '-n', 'all'])).stdout).toBe(all)
    expect((await drover(dir, ['logs', String(id), '-n', '3'])).stdout).toBe('line 58\nline 59\nline 60\n')
    expect((await drover(dir, ['logs', String(id), '--tail', '1'])).stdout).toBe('line 60\n')
    expect((await drover(dir, ['logs', String(id), '-n', '0'])).stdout).toBe('')
    expect((await drover(dir, ['logs', String(id), '-n', '80'])).stdout).toBe(all)
    expect(await drover(dir, ['logs', String(id), '-f'])).toMatchObject({exitCode: 0, stdout: all})
    expect(await drover(dir, ['logs', String(id), '-f', '-n', 'all'])).toMatchObject({exitCode: 0, stdout: all})
    expect(await drover(dir, ['logs', String(id), '-f', '-n', '2'])).toMatchObject({exitCode: 0, stdout: 'line 59\nline 60\n'})
    for (const bad of ['-1', 'some', '2x']) {
      const result = await drover(dir, ['logs', String(id), '-n', bad])
      expect(result.exitCode, `-n ${bad}`).toBe(2)
      expect(result.stderr, `-n ${bad}`).toContain('expected a number of lines or "all"')
    }
  })

  it('-f > file keeps the start of a running task\'s log', async () => {
    const dir = makeStateDir()
    const worker = gated(dir)
    const id = await startOk(dir, worker.command)
    let early = ''
    for (let i = 1; i <= 120; i++) early += `early ${i}\n`
    await worker.next({write: early})
    const file = path.join(makeStateDir(), 'build.log')
    const child = spawnDrover(dir, ['logs', '-f', String(id)], {stdout: {file}})
    await waitFor(() => readFileSync(file, 'utf8') === early, {message: 'the early output in build.log'})
    await worker.next({write: 'late\n', exit: 0})
    expect((await child).exitCode).toBe(0)
    expect(readFileSync(file, 'utf8')).toBe(`${early}late\n`)
  })
})

describe('logs -f', () => {
  it('started before the worker writes, sees every line once and in order, and exits with the task\'s code', async () => {
    const dir = makeStateDir()
    const worker = gated(dir)
    const id = await startOk(dir, worker.command)
    const f = follow(dir, ['logs', '-f', String(id)])
    let expected = ''
    for (let batch = 0; batch < 6; batch++) {
      let text = ''
      for (let i = 0; i < 40; i++) text += `batch ${batch} line ${i}\n`
      expected += text
      await worker.next({write: text})
      await waitFor(() => f.stdout().length >= expected.length, {timeout: 20_000, message: `batch ${batch} in logs -f`})
      expect(f.stdout()).toBe(expected)
    }
    await worker.next({write: 'last words\n', exit: 7})
    const result = await f.child
    expect(result.exitCode).toBe(7)
    expect(String(result.stdout)).toBe(`${expected}last words\n`)
  })

  it('exits with 128 + the signal number when a signal ended the task', async () => {
    const dir = makeStateDir()
    const worker = gated(dir)
    const id = await startOk(dir, worker.command)
    const f = follow(dir, ['logs', '-f', String(id)])
    await worker.next({write: 'about to die\n'})
    await waitFor(() => f.stdout().includes('about to die'), {message: 'output before the signal'})
    await worker.next({signal: 'SIGTERM'})
    const result = await f.child
    expect(result.exitCode).toBe(143)
    expect(readTask(dir, id)).toMatchObject({status: 'failed', signal: 'SIGTERM', exitCode: null})
  })

  it('shows a prompt and a progress bar without waiting for a newline, and never repeats them', async () => {
    const dir = makeStateDir()
    const worker = gated(dir)
    const id = await startOk(dir, worker.command)
    const f = follow(dir, ['logs', '-f', String(id)])
    await worker.next({write: 'complete\nContinue? '})
    await waitFor(() => f.stdout() === 'complete\nContinue? ', {timeout: 5000, message: 'the prompt without its newline'})
    await worker.next({write: 'yes\n10%\r'})
    await waitFor(() => f.stdout().endsWith('yes\n10%\r'), {timeout: 5000, message: 'the first progress step'})
    await worker.next({write: '20%\r'})
    await waitFor(() => f.stdout().endsWith('10%\r20%\r'), {timeout: 5000, message: 'the second progress step'})
    await worker.next({write: 'no newline at the end', exit: 3})
    const result = await f.child
    expect(result.exitCode).toBe(3)
    expect(String(result.stdout)).toBe('complete\nContinue? yes\n10%\r20%\rno newline at the end')
  })

  it('shows a prompt on a terminal too (a pseudo-terminal made by script)', async () => {
    const dir = makeStateDir()
    const worker = gated(dir)
    const id = await startOk(dir, worker.command)
    const quote = (arg: string) => `'${arg.replaceAll("'", "'\\''")}'`
    const child = execa('script', ['-qfec', [node, BIN, 'logs', '-f', String(id)].map(quote).join(' '), '/dev/null'], {
      env: {DROVER_STATE_DIR: dir, NO_COLOR: '1'},
      reject: false,
      stdin: 'ignore',
      timeout: 90_000,
    })
    let screen = ''
    child.stdout!.on('data', (chunk) => (screen += chunk))
    try {
      await worker.next({write: 'Continue? '})
      await waitFor(() => screen.includes('Continue? '), {timeout: 5000, message: 'the prompt on the terminal'})
      await worker.next({write: 'yes\n', exit: 0})
      expect((await child).exitCode).toBe(0)
      expect(screen.replaceAll('\r\n', '\n')).toBe('Continue? yes\n')
    } finally {
      child.kill('SIGKILL')
    }
  })

  it('survives output.log being truncated while following', async () => {
    const dir = makeStateDir()
    const worker = gated(dir)
    const id = await startOk(dir, worker.command)
    const f = follow(dir, ['logs', '-f', String(id)])
    await worker.next({write: 'before 1\nbefore 2\n'})
    await waitFor(() => f.stdout() === 'before 1\nbefore 2\n', {message: 'output before truncation'})
    truncateSync(path.join(dir, 'tasks', String(id), 'output.log'), 0)
    await waitFor(() => f.stderr().includes('truncated'), {message: 'the truncation notice'})
    await worker.next({write: 'after\n'})
    await waitFor(() => f.stdout().endsWith('after\n'), {message: 'output after truncation'})
    await worker.next({write: 'done\n', exit: 0})
    const result = await f.child
    expect(result.exitCode).toBe(0)
    expect(String(result.stdout)).toBe('before 1\nbefore 2\nafter\ndone\n')
    expect(readOutput(dir, id)).toBe('after\ndone\n')
  })

  it('on Ctrl-C stops following, says the task is still running, and leaves it running', async () => {
    const dir = makeStateDir()
    const worker = gated(dir)
    const id = await startOk(dir, worker.command)
    const f = follow(dir, ['logs', '-f', String(id)])
    await worker.next({write: 'working\n'})
    await waitFor(() => f.stdout().includes('working'), {message: 'output in logs -f'})
    f.child.kill('SIGINT')
    const result = await f.child
    expect(result.exitCode).toBe(130)
    expect(String(result.stderr)).toMatch(new RegExp(`task ${id} is still running`))
    const record = readTask(dir, id)
    expect(record.status).toBe('running')
    expect(isAlive(record.worker.pid)).toBe(true)
    // and the task still finishes normally afterwards
    await worker.next({exit: 0})
    expect(await waitFinal(dir, id)).toMatchObject({status: 'succeeded'})
  })

  it('says on stderr, in one line, why it exits 1 when the task is lost', async () => {
    const dir = makeStateDir()
    const worker = gated(dir)
    const id = await startOk(dir, worker.command)
    const f = follow(dir, ['logs', '-f', String(id)])
    await worker.next({write: 'working\n'})
    await waitFor(() => f.stdout().includes('working'), {message: 'output in logs -f'})
    // A reboot: runner and worker gone at once (a live worker would be adopted instead).
    const runner = JSON.parse(readFileSync(path.join(dir, 'tasks', String(id), 'runner.json'), 'utf8'))
    process.kill(runner.pid, 'SIGKILL')
    process.kill(-readTask(dir, id).worker.pid, 'SIGKILL')
    const result = await f.child
    expect(result.exitCode).toBe(1)
    expect(readTask(dir, id).status).toBe('lost')
    const stderr = String(result.stderr).trim()
    expect(stderr.split('\n')).toHaveLength(1)
    expect(stderr).toMatch(new RegExp(`^drover: task ${id} is lost: runner vanished`))
    expect(stderr).toContain(`drover status ${id}`)
  })
})
