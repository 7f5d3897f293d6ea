// The one writer of records, checked over the source like the settle path:
// every record write goes through src/runner/commit-record.ts, which names the
// status before the write, so the status hooks hear of every change whoever
// makes it. A module that imported writeRecord itself would change statuses
// no hook hears of.

import {readdirSync, readFileSync} from 'node:fs'
import path from 'node:path'
import {describe, expect, it} from 'vitest'
import {ROOT} from '../helpers/cli.js'

const SRC = path.join(ROOT, 'src')
const COMMIT = path.join('runner', 'commit-record.ts')
const STORE = path.join('state', 'store.ts')

function sources(dir: string): string[] {
  return readdirSync(dir, {withFileTypes: true}).flatMap((entry) => {
    const full = path.join(dir, entry.name)
    if (entry.isDirectory()) return sources(full)
    return entry.name.endsWith('.ts') ? [full] : []
  })
}

describe('one record writer', () => {
  it('only commit-record.ts writes records (store.ts defines writeRecord)', () => {
    const users = sources(SRC)
      .map((file) => [path.relative(SRC, file), readFileSync(file, 'utf8')] as const)
      .filter(([file, text]) => file !== COMMIT && file !== STORE && /\bwriteRecord\b/.test(text))
      .map(([file]) => file)
    expect(users).toEqual([])
    expect(readFileSync(path.join(SRC, COMMIT), 'utf8')).toMatch(/writeRecord\(stateDir, next\)/)
  })
})
