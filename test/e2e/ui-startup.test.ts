// `drover ui` costs the other commands nothing: its server and page load in
// its own command only (a lazy import), so `drover list` reads not one of
// its modules. Checked by recording every module the process loads. And
// `--open` hands the URL to the desktop's opener.

import {chmodSync, existsSync, readFileSync, writeFileSync} from 'node:fs'
import path from 'node:path'
import {execa} from 'execa'
import {afterEach, describe, expect, it} from 'vitest'
import {BIN, cleanupStateDirs, drover, fixture, makeStateDir, waitFor} from '../helpers/cli.js'
import {startUi, stopUis} from '../helpers/ui.js'

afterEach(async () => {
  await stopUis()
  cleanupStateDirs()
})

async function modulesLoaded(stateDir: string, args: string[]): Promise<string[]> {
  const record = path.join(makeStateDir(), 'imports.txt')
  await execa(process.execPath, ['--require', fixture('record-reads.cjs'), '--import', fixture('record-imports.mjs'), BIN, ...args], {
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
    expect(list.some((url) => url.endsWith('/dist/cli-bundle/commands/list.js') || url.endsWith('/dist/cli-bundle/vendor/drover.cjs'))).toBe(true)
    expect(list.filter((url) => url.includes('/dist/ui/') || url.includes('playwright'))).toEqual([])
    // and it would see the dashboard's modules where they load
    const ui = await modulesLoaded(stateDir, ['ui', '--host', '0.0.0.0'])
    expect(ui.some((url) => url.endsWith('/dist/ui/index.js'))).toBe(true)
  })
})

describe('drover ui: --open, --port', () => {
  it('opens the printed URL with xdg-open', async () => {
    const bin = makeStateDir()
    const opened = path.join(bin, 'opened.txt')
    // a stand-in opener on PATH: it writes down what it was asked to open
    writeFileSync(path.join(bin, 'xdg-open'), `#!/bin/sh\nprintf '%s' "$1" > '${opened}'\n`)
    chmodSync(path.join(bin, 'xdg-open'), 0o755)
    const ui = await startUi(makeStateDir(), ['--open'], {PATH: `${bin}:${process.env.PATH}`})
    await waitFor(() => existsSync(opened) && readFileSync(opened, 'utf8') !== '', {message: 'xdg-open to be run'})
    expect(readFileSync(opened, 'utf8')).toBe(ui.url)
  })

  it('prints its address as one JSON object with --json', async () => {
    const child = execa(process.execPath, [BIN, 'ui', '--json', '--read-only'], {env: {DROVER_STATE_DIR: makeStateDir()}, reject: false})
    let stdout = ''
    child.stdout!.on('data', (data: Buffer) => (stdout += data.toString()))
    await waitFor(() => stdout.endsWith('\n'), {message: 'the address'})
    child.kill('SIGINT')
    expect((await child).exitCode).toBe(0)
    const printed = JSON.parse(stdout)
    expect(printed).toEqual({url: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+\/\?token=[\w-]{32}$/), host: '127.0.0.1', port: expect.any(Number), readOnly: true})
    expect(printed.url).toContain(`:${printed.port}/`)
  })

  it('listens on the --port asked for, and says so in one line (exit 2) when it is taken', async () => {
    const first = await startUi(makeStateDir())
    const again = await drover(makeStateDir(), ['ui', '--port', String(first.port)])
    expect(again.exitCode).toBe(2)
    expect(again.stderr.trim()).toBe(`drover: port ${first.port} is in use`)
    expect(again.stdout).toBe('')
  })
})
