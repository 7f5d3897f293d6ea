// The one settle path, checked over the source like the import rule: a run
// ends or pauses only through src/runner/settle.ts, which alone calls
// settledRecord; transition() refuses an ending; and no module writes a record
// it moved to an ending status by hand ({...record, status: 'failed'}). And
// the one record writer: every write goes through src/runner/commit-record.ts,
// which names the status before it, so the status hooks hear of every change
// whoever makes it (a module calling writeRecord itself would change statuses
// no hook hears of).

import {readdirSync, readFileSync} from 'node:fs'
import path from 'node:path'
import {describe, expect, it} from 'vitest'
import {ROOT} from '../helpers/cli.js'
import {newRecord} from '../../src/tasks/launch.js'
import {FINAL_STATUSES, transition} from '../../src/state/record.js'

const SRC = path.join(ROOT, 'src')
const SETTLE = path.join('runner', 'settle.ts')
const RECORD = path.join('state', 'record.ts')
const COMMIT = path.join('runner', 'commit-record.ts')
const STORE = path.join('state', 'store.ts')

function sources(dir: string): string[] {
  return readdirSync(dir, {withFileTypes: true}).flatMap((entry) => {
    const full = path.join(dir, entry.name)
    if (entry.isDirectory()) return sources(full)
    return entry.name.endsWith('.ts') ? [full] : []
  })
}

const files = new Map(sources(SRC).map((file) => [path.relative(SRC, file), readFileSync(file, 'utf8')]))
const ENDING = [...FINAL_STATUSES, 'waiting'].join('|')

/** Files (other than the allowed ones) whose text matches. */
const offenders = (pattern: RegExp, allowed: string[]) => [...files].filter(([file, text]) => !allowed.includes(file) && pattern.test(text)).map(([file]) => file)

describe('one settle path', () => {
  it('only settle.ts calls settledRecord (record.ts defines it)', () => {
    expect(offenders(/\bsettledRecord\b/, [SETTLE, RECORD])).toEqual([])
    expect(files.get(SETTLE)).toMatch(/settledRecord\(/)
  })

  it('no module moves a record to an ending status by hand', () => {
    // a record spread with a literal ending status, the way the 16 old call sites wrote theirs
    const byHand = new RegExp(`\\.\\.\\.\\s*[\\w.()]*[rR]ecord\\b[^;{}]*,\\s*status:\\s*'(${ENDING})'`)
    expect(offenders(byHand, [SETTLE, RECORD])).toEqual([])
    // …and the rule sees such a write where there is one
    expect(byHand.test("writeRecord(stateDir, {...read.record, status: 'failed', reason})")).toBe(true)
  })

  it('transition() refuses every ending, so a status written elsewhere fails at once', () => {
    const spec = {command: ['true'], shell: null, name: null, cwd: '/', env: {}, agent: 'generic' as const, policies: {timeoutMs: null, idleTimeoutMs: null, maxOutputBytes: null}}
    const running = transition(newRecord(1, spec), {status: 'running'})
    for (const status of [...FINAL_STATUSES, 'waiting' as const]) {
      expect(() => transition(running, {status}), status).toThrow(/settle\.ts/)
    }
    expect(transition(running, {status: 'stopping'}).status).toBe('stopping')
  })
})

describe('one record writer', () => {
  it('only commit-record.ts writes records (store.ts defines writeRecord)', () => {
    expect(offenders(/\bwriteRecord\b/, [COMMIT, STORE])).toEqual([])
    expect(files.get(COMMIT)).toMatch(/writeRecord\(stateDir, next\)/)
  })
})
