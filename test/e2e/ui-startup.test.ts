// `drover ui` costs the other commands nothing: its server and page load in
// its own command only (a lazy import), so `drover list` reads not one of
// its modules. Checked by recording every module the process loads.

import {readFileSync} from 'node:fs'
import path from 'node:path'
import {execa} from 'execa'
import {afterEach, describe, expect, it} from 'vitest'
import {BIN, cleanupStateDirs, drover, fixture, makeStateDir} from '../helpers/cli.js'

afterEach(() => cleanupStateDirs())

async function modulesLoaded(stateDir: string, args: string[]): Promise<string[]> {
  const record = path.join(makeStateDir(), 'imports.txt')
  await execa(process.execPath, ['--import', fixture('record-imports.mjs'), BIN, ...args], {
    env: {DROVER_STATE_DIR: stateDir, RECORD_IMPORTS: record, NO_COLOR: '1'},
    reject: false,
    timeout: 30_000,
  })
  return readFileSync(record, 'utf8').trim().split('\n')
}

describe('drover ui: start-up cost of other commands', () => {
  it('drover list loads nothing of the dashboard', async () => {
    const stateDir = makeStateDir()
    expect((await drover(stateDir, ['start', '--', process.execPath, '-e', '0'])).exitCode).toBe(0)
    const list = await modulesLoaded(stateDir, ['list'])
    // the recorder works: list's own modules are there
    expect(list.some((url) => url.endsWith('/dist/cli/commands/list.js'))).toBe(true)
    expect(list.filter((url) => url.includes('/dist/ui/') || url.includes('playwright'))).toEqual([])
    // and it would see the dashboard's modules where they load
    const ui = await modulesLoaded(stateDir, ['ui', '--host', '0.0.0.0'])
    expect(ui.some((url) => url.endsWith('/dist/ui/index.js'))).toBe(true)
  })
})
