// Reading a task's output: tailOffset's edge cases (no trailing newline, fewer lines
// than asked, empty file, lines spanning the 64 KiB read chunks), and followTask on a
// real file: order without duplicates, byte offsets, a partial line shown after a
// moment and never twice, a character never cut in two, truncation survived.

import {appendFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, truncateSync, writeFileSync} from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import fc from 'fast-check'
import {afterEach, beforeEach, describe, expect, it} from 'vitest'

import {followTask, tailOffset} from '../../src/tasks/follow.js'
import {newRecord} from '../../src/tasks/launch.js'
import {processStartTime} from '../../src/platform/platform.js'
import {type TaskRecord} from '../../src/state/record.js'
import {ensureStateDir} from '../../src/state/statedir.js'
import {allocateTaskId, createTaskLayout, taskPaths, writeFileAtomic, writeRecord} from '../../src/state/store.js'
import {waitFor} from '../helpers/cli.js'
import {moveTo} from '../helpers/record-moves.js'

let dir: string
beforeEach(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'drover-follow-'))
})
afterEach(() => {
  rmSync(dir, {recursive: true, force: true})
})

/** What `logs -n N` prints: the bytes from tailOffset on. */
function tail(content: string | Buffer, lines: number): string {
  const file = path.join(dir, 'out.log')
  writeFileSync(file, content)
  return readFileSync(file).subarray(tailOffset(file, lines)).toString('utf8')
}

/** The reference: the last N lines as a person counts them (a final line without newline counts). */
function reference(content: string, lines: number): string {
  if (lines <= 0) return ''
  const parts = content.split('\n')
  if (parts.at(-1) === '') parts.pop()
  const kept = parts.slice(-lines)
  return kept.join('\n') + (content.endsWith('\n') && kept.length > 0 ? '\n' : '')
}

describe('tailOffset', () => {
  it('returns the start of the last N lines', () => {
    expect(tail('a\nb\nc\n', 2)).toBe('b\nc\n')
    expect(tail('a\nb\nc\n', 1)).toBe('c\n')
  })

  it('counts a last line without its newline as a line', () => {
    expect(tail('a\nb\nc', 1)).toBe('c')
    expect(tail('a\nb\nc', 2)).toBe('b\nc')
  })

  it('gives the whole file when it has fewer lines than asked', () => {
    expect(tail('a\nb\n', 5)).toBe('a\nb\n')
    expect(tail('only', 3)).toBe('only')
  })

  it('handles an empty file, a missing file and zero lines', () => {
    expect(tail('', 3)).toBe('')
    expect(tailOffset(path.join(dir, 'missing.log'), 3)).toBe(0)
    expect(tail('a\nb\n', 0)).toBe('')
  })

  it('keeps empty lines as lines', () => {
    expect(tail('a\n\n\nb\n', 3)).toBe('\n\nb\n')
    expect(tail('\n\n', 1)).toBe('\n')
  })

  it('finds lines that span the 64 KiB read chunks', () => {
    const long = 'x'.repeat(70 * 1024)
    expect(tail(`first\n${long}\nlast\n`, 2)).toBe(`${long}\nlast\n`)
    expect(tail(`first\n${long}\nlast\n`, 3)).toBe(`first\n${long}\nlast\n`)
    // a newline sitting exactly on a chunk boundary
    const edge = 'y'.repeat(64 * 1024 - 1)
    expect(tail(`head\n${edge}\n${edge}\n`, 1)).toBe(`${edge}\n`)
    expect(tail(`head\n${'z'.repeat(200 * 1024)}`, 1)).toBe('z'.repeat(200 * 1024))
  })

  it('agrees with counting lines by hand, for any content', () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom('a', 'bb', '\n', 'é', '\n\n')).map((parts) => parts.join('')), fc.nat(6), (content, lines) => {
        expect(tail(content, lines)).toBe(reference(content, lines))
      }),
      {numRuns: 300},
    )
  })

  it('never splits a multi-byte character', () => {
    expect(tail('ä\nöü\n€\n', 2)).toBe('öü\n€\n')
  })
})

describe('followTask', () => {
  let stateDir: string
  let record: TaskRecord
  let output: string

  const spec = {
    command: ['true'], shell: null, name: null, cwd: '/', env: {}, agent: 'generic' as const,
    policies: {timeoutMs: null, idleTimeoutMs: null, maxOutputBytes: null},
  }

  // A running task whose "runner" is this test process, so reconcile sees it alive.
  beforeEach(() => {
    stateDir = path.join(dir, 'state')
    mkdirSync(stateDir, {mode: 0o700})
    ensureStateDir(stateDir)
    const id = allocateTaskId(stateDir)
    const paths = taskPaths(stateDir, id)
    createTaskLayout(paths)
    output = paths.output
    record = moveTo(newRecord(id, spec), {status: 'running'})
    writeRecord(stateDir, record)
    writeFileAtomic(paths.runner, JSON.stringify({pid: process.pid, startTime: processStartTime(process.pid)}))
  })

  function follow(offset = 0) {
    const chunks: {text: string; offset: number; bytes: number}[] = []
    const resets: string[] = []
    const abort = new AbortController()
    const done = followTask({
      stateDir,
      id: record.id,
      offset,
      write: (chunk, at) => void chunks.push({text: chunk.toString('utf8'), offset: at, bytes: chunk.length}),
      onReset: (reason) => void resets.push(reason),
      signal: abort.signal,
      pollMs: 20,
    })
    return {text: () => chunks.map((c) => c.text).join(''), chunks, resets, abort, done}
  }

  const end = (exitCode: number) =>
    writeRecord(stateDir, moveTo(record, {status: exitCode === 0 ? 'succeeded' : 'failed', exitCode, reason: `exit ${exitCode}`}))

  it('passes on every line in order, once, and returns the final record', async () => {
    const f = follow()
    let expected = ''
    for (let batch = 0; batch < 20; batch++) {
      let text = ''
      for (let i = 0; i < 10; i++) text += `line ${batch * 10 + i}\n`
      appendFileSync(output, text)
      expected += text
      if (batch % 5 === 0) await waitFor(() => f.text() === expected, {message: `batch ${batch}`})
    }
    end(4)
    const result = await f.done
    expect(result).toMatchObject({outcome: 'ended', record: {status: 'failed', exitCode: 4}})
    expect(f.text()).toBe(expected)
  })

  it('shows a partial line after a moment, never twice, and flushes an unfinished one at the end', async () => {
    const f = follow()
    appendFileSync(output, 'whole\nContinue? ')
    const written = Date.now()
    await waitFor(() => f.text() === 'whole\nContinue? ', {message: 'the prompt without its newline', interval: 5})
    // The bound is 200 ms; the margin is for a loaded machine.
    expect(Date.now() - written).toBeLessThan(1000)
    appendFileSync(output, 'yes\n10%\r')
    await waitFor(() => f.text().endsWith('10%\r'), {message: 'the first progress step'})
    appendFileSync(output, '20%\r')
    await waitFor(() => f.text().endsWith('20%\r'), {message: 'the second progress step'})
    appendFileSync(output, 'done\nlast without newline')
    // includes, not endsWith: on a slow machine the unfinished last line may already follow it
    await waitFor(() => f.text().includes('20%\rdone\n'), {message: 'the completed line'})
    end(0)
    await f.done
    expect(f.text()).toBe('whole\nContinue? yes\n10%\r20%\rdone\nlast without newline')
  })

  it('gives each chunk its byte offset, with no gap and no overlap', async () => {
    const f = follow()
    const parts = ['a\n', 'bé\n', 'partial ', 'line\n', '€€\n']
    for (const part of parts) {
      appendFileSync(output, part)
      await waitFor(() => f.text() === parts.slice(0, parts.indexOf(part) + 1).join(''), {message: part})
    }
    end(0)
    await f.done
    let next = 0
    for (const chunk of f.chunks) {
      expect(chunk.offset).toBe(next)
      next += chunk.bytes
    }
    expect(next).toBe(Buffer.byteLength(parts.join('')))
  })

  it('never cuts a multi-byte character when it shows a partial line', async () => {
    const f = follow()
    const euro = Buffer.from('€')
    appendFileSync(output, Buffer.concat([Buffer.from('price: '), euro.subarray(0, 2)]))
    await waitFor(() => f.text() === 'price: ', {message: 'the partial line up to the cut character'})
    appendFileSync(output, Buffer.concat([euro.subarray(2), Buffer.from('5\n')]))
    await waitFor(() => f.text() === 'price: €5\n', {message: 'the rest of the line'})
    end(0)
    await f.done
    expect(f.chunks.map((c) => c.text).join('')).not.toContain('\ufffd')
  })

  it('starts at the given offset', async () => {
    writeFileSync(output, 'old 1\nold 2\n')
    const f = follow(tailOffset(output, 1))
    appendFileSync(output, 'new\n')
    end(0)
    await f.done
    expect(f.text()).toBe('old 2\nnew\n')
  })

  it('survives truncation: says so and reads the file again from the start', async () => {
    const f = follow()
    appendFileSync(output, 'before 1\nbefore 2\n')
    await waitFor(() => f.text() === 'before 1\nbefore 2\n', {message: 'output before truncation'})
    truncateSync(output, 0)
    await waitFor(() => f.resets.includes('truncated'), {message: 'truncation notice'})
    appendFileSync(output, 'after\n')
    await waitFor(() => f.text().endsWith('after\n'), {message: 'output after truncation'})
    end(0)
    await f.done
    expect(f.text()).toBe('before 1\nbefore 2\nafter\n')
  })

  it('ends with the error of a failing write rather than swallowing it', async () => {
    writeFileSync(output, 'first\n')
    const broken = Object.assign(new Error('write EPIPE'), {code: 'EPIPE'})
    const done = followTask({stateDir, id: record.id, offset: 0, pollMs: 20, write: () => Promise.reject(broken)})
    await expect(done).rejects.toBe(broken)
  })

  it('stops when aborted, and when the task folder is removed', async () => {
    const f = follow()
    f.abort.abort()
    expect(await f.done).toEqual({outcome: 'aborted'})
    const g = follow()
    rmSync(taskPaths(stateDir, record.id).dir, {recursive: true})
    expect(await g.done).toEqual({outcome: 'removed'})
  })

  it('ends as lost when the runner is gone, rather than waiting forever', async () => {
    writeFileAtomic(taskPaths(stateDir, record.id).runner, JSON.stringify({pid: process.pid, startTime: 'not-ours'}))
    const f = follow()
    const result = await f.done
    expect(result).toMatchObject({outcome: 'ended', record: {status: 'lost'}})
  })
})
