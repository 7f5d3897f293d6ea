// readOutputPage: one bounded read at a byte cursor. Pages of a growing log,
// read between appends, add up to the log byte for byte; lines stay whole
// while the task runs, a line with no newline yet still shows, a character is
// never cut in two, and a cursor past the end (a replaced log) starts again.

import {appendFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync} from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import fc from 'fast-check'
import {afterEach, beforeEach, describe, expect, it} from 'vitest'
import {newRecord} from '../../src/tasks/launch.js'
import {readOutputPage} from '../../src/tasks/output-page.js'
import {type TaskRecord} from '../../src/state/record.js'
import {taskPaths} from '../../src/state/store.js'
import {moveTo} from '../helpers/record-moves.js'

let stateDir: string
let running: TaskRecord
let ended: TaskRecord
let output: string

const spec = {
  command: ['true'], shell: null, name: null, cwd: '/', env: {}, agent: 'generic' as const,
  policies: {timeoutMs: null, idleTimeoutMs: null, maxOutputBytes: null},
}

beforeEach(() => {
  stateDir = mkdtempSync(path.join(os.tmpdir(), 'drover-page-'))
  running = moveTo(newRecord(1, spec), {status: 'running'})
  ended = moveTo(running, {status: 'succeeded', exitCode: 0})
  const paths = taskPaths(stateDir, 1)
  mkdirSync(paths.dir, {recursive: true})
  output = paths.output
})
afterEach(() => rmSync(stateDir, {recursive: true, force: true}))

describe('readOutputPage', () => {
  it('ends a running task\'s page after its last newline, and the next page continues from there', () => {
    writeFileSync(output, 'one\ntwo\nthr')
    const first = readOutputPage(stateDir, running, {offset: 0})
    expect(first).toMatchObject({offset: 0, end: 8, size: 11, text: 'one\ntwo\n', more: true, complete: false, reset: false})
    appendFileSync(output, 'ee\n')
    expect(readOutputPage(stateDir, running, {offset: first.end})).toMatchObject({offset: 8, end: 14, text: 'three\n', more: false, complete: false})
  })

  it('shows a line that has no newline yet rather than nothing, and an ended task\'s last bytes whole', () => {
    writeFileSync(output, 'Continue? ')
    expect(readOutputPage(stateDir, running, {offset: 0})).toMatchObject({text: 'Continue? ', end: 10})
    writeFileSync(output, 'a\nno newline at the end')
    expect(readOutputPage(stateDir, ended, {offset: 0})).toMatchObject({text: 'a\nno newline at the end', complete: true, more: false})
  })

  it('is bounded by maxBytes, never cutting a character in two', () => {
    writeFileSync(output, 'ééééé')
    const page = readOutputPage(stateDir, running, {offset: 0, maxBytes: 5})
    expect(page).toMatchObject({text: 'éé', end: 4, more: true})
    // A limit smaller than a character still moves on by one.
    expect(readOutputPage(stateDir, running, {offset: 0, maxBytes: 1}).end).toBeGreaterThan(0)
  })

  it('starts at the last N lines without a cursor', () => {
    writeFileSync(output, 'a\nb\nc\n')
    expect(readOutputPage(stateDir, ended, {tail: 2})).toMatchObject({offset: 2, text: 'b\nc\n', complete: true})
    expect(readOutputPage(stateDir, ended, {tail: 0})).toMatchObject({offset: 6, text: '', size: 6})
  })

  it('starts again at 0 when the cursor is past the end, and reads a missing log as empty', () => {
    writeFileSync(output, 'new\n')
    expect(readOutputPage(stateDir, running, {offset: 100})).toMatchObject({offset: 0, text: 'new\n', reset: true})
    rmSync(output)
    expect(readOutputPage(stateDir, ended, {offset: 0})).toMatchObject({text: '', end: 0, complete: true})
  })

  it('pages read between appends add up to the log, byte for byte', () => {
    fc.assert(
      fc.property(fc.array(fc.string({unit: 'grapheme', maxLength: 40}), {maxLength: 30}), fc.integer({min: 1, max: 64}), (pieces, maxBytes) => {
        writeFileSync(output, '')
        let text = ''
        let cursor = 0
        const drain = (record: TaskRecord) => {
          for (;;) {
            const page = readOutputPage(stateDir, record, {offset: cursor, maxBytes})
            expect(page.offset).toBe(cursor)
            text += page.text
            if (page.end === cursor) return page
            cursor = page.end
          }
        }
        for (const piece of pieces) {
          appendFileSync(output, piece)
          drain(running)
        }
        const last = drain(ended)
        expect(last.complete).toBe(true)
        expect(text).toBe(pieces.join(''))
      }),
      {numRuns: 200},
    )
  })
})
