// Where the state dir is and whether it is safe: flag > DROVER_STATE_DIR > the per-OS
// env-paths data dir (Linux, macOS and Windows injected through process.platform and the
// environment), creation 0700 with parents, and refusal of unusable or unsafe dirs.

import {chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync} from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import {afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi} from 'vitest'
import {hasPosix, posixOnly} from '../helpers/skips.js'

import {DroverError, ExitCode} from '../../src/base/errors.js'
import {ensureStateDir, formatPath, markStateFormat, readStateFormat, resolveStateDir, STATE_FORMAT} from '../../src/state/statedir.js'
import {
  allocateTaskId,
  appendEvent,
  createTaskLayout,
  raiseHighWater,
  taskPaths,
  writeRecord,
} from '../../src/state/store.js'
import {newRecord} from '../../src/tasks/launch.js'
import {snapshot} from '../helpers/snapshot.js'

const mode = (p: string) => statSync(p).mode & 0o777

// env-paths reads the home directory once, when it is first imported; vitest keeps
// node_modules outside its module registry, so vi.resetModules() cannot make it read
// HOME again. The fake HOME is therefore in place before anything imports it (each
// test file runs in a fresh worker), and the per-test overrides are platform and env.
const FAKE_HOME = path.join(os.tmpdir(), 'drover-fake-home')
const saved = {platform: Object.getOwnPropertyDescriptor(process, 'platform')!, env: {...process.env}}

function setPlatform(platform: NodeJS.Platform): void {
  Object.defineProperty(process, 'platform', {value: platform, configurable: true})
}

function setEnv(values: Record<string, string | undefined>): void {
  for (const [key, value] of Object.entries(values)) {
    if (value === undefined) delete process.env[key]
    else process.env[key] = value
  }
}

beforeAll(() => {
  process.env.HOME = FAKE_HOME
  process.env.USERPROFILE = FAKE_HOME
})

afterAll(() => {
  process.env.HOME = saved.env.HOME
  process.env.USERPROFILE = saved.env.USERPROFILE
})

describe('resolveStateDir', () => {
  beforeEach(() => {
    vi.resetModules()
    setEnv({DROVER_STATE_DIR: undefined, XDG_DATA_HOME: undefined, LOCALAPPDATA: undefined, APPDATA: undefined})
  })
  afterEach(() => {
    Object.defineProperty(process, 'platform', saved.platform)
    for (const key of ['DROVER_STATE_DIR', 'XDG_DATA_HOME', 'LOCALAPPDATA', 'APPDATA']) setEnv({[key]: saved.env[key]})
  })

  it('prefers the --state-dir flag over DROVER_STATE_DIR, and resolves it to an absolute path', async () => {
    const env = {DROVER_STATE_DIR: '/from/env'}
    expect(await resolveStateDir('/from/flag', env)).toBe(path.resolve('/from/flag'))
    expect(await resolveStateDir('relative/dir', env)).toBe(path.resolve('relative/dir'))
  })

  it('uses DROVER_STATE_DIR when there is no flag (an empty flag or variable counts as unset)', async () => {
    expect(await resolveStateDir(undefined, {DROVER_STATE_DIR: '/from/env'})).toBe(path.resolve('/from/env'))
    expect(await resolveStateDir('', {DROVER_STATE_DIR: '/from/env'})).toBe(path.resolve('/from/env'))
    setPlatform('linux')
    setEnv({XDG_DATA_HOME: '/xdg'})
    expect(await resolveStateDir(undefined, {DROVER_STATE_DIR: ''})).toBe(path.join('/xdg', 'drover'))
  })

  it('falls back on Linux to $XDG_DATA_HOME/drover, else ~/.local/share/drover', async () => {
    setPlatform('linux')
    setEnv({XDG_DATA_HOME: '/data/xdg'})
    expect(await resolveStateDir(undefined, {})).toBe(path.join('/data/xdg', 'drover'))
    setEnv({XDG_DATA_HOME: undefined})
    vi.resetModules()
    expect(await resolveStateDir(undefined, {})).toBe(path.join(FAKE_HOME, '.local', 'share', 'drover'))
  })

  it('falls back on macOS to ~/Library/Application Support/drover, ignoring XDG_DATA_HOME', async () => {
    setPlatform('darwin')
    setEnv({XDG_DATA_HOME: '/data/xdg'})
    expect(await resolveStateDir(undefined, {})).toBe(path.join(FAKE_HOME, 'Library', 'Application Support', 'drover'))
  })

  it('falls back on Windows to %LOCALAPPDATA%\\drover\\Data, else the profile\'s AppData\\Local', async () => {
    setPlatform('win32')
    setEnv({LOCALAPPDATA: '/Users/me/AppData/Local'})
    expect(await resolveStateDir(undefined, {})).toBe(path.join('/Users/me/AppData/Local', 'drover', 'Data'))
    setEnv({LOCALAPPDATA: undefined})
    expect(await resolveStateDir(undefined, {})).toBe(path.join(FAKE_HOME, 'AppData', 'Local', 'drover', 'Data'))
  })

  it('a flag or DROVER_STATE_DIR wins on every OS', async () => {
    for (const platform of ['linux', 'darwin', 'win32'] as const) {
      setPlatform(platform)
      expect(await resolveStateDir(undefined, {DROVER_STATE_DIR: '/env/dir'})).toBe(path.resolve('/env/dir'))
      expect(await resolveStateDir('/flag/dir', {DROVER_STATE_DIR: '/env/dir'})).toBe(path.resolve('/flag/dir'))
    }
  })
})

describe('ensureStateDir', () => {
  let root: string
  beforeEach(() => {
    root = mkdtempSync(path.join(os.tmpdir(), 'drover-statedir-'))
  })
  afterEach(() => {
    rmSync(root, {recursive: true, force: true})
  })

  const expectStateDirError = (fn: () => void, pattern: RegExp) => {
    let caught: unknown
    try {
      fn()
    } catch (error) {
      caught = error
    }
    expect(caught).toBeInstanceOf(DroverError)
    expect((caught as DroverError).exitCode).toBe(ExitCode.stateDir)
    expect((caught as DroverError).message).toMatch(pattern)
    expect((caught as DroverError).message).not.toContain('\n')
  }

  it('creates the dir and its missing parents 0700, with tasks/, locks/ and index/ inside', () => {
    const dir = path.join(root, 'a', 'b', 'state')
    ensureStateDir(dir)
    expect(statSync(dir).isDirectory()).toBe(true)
    if (hasPosix) {
      expect(mode(dir)).toBe(0o700)
      expect(mode(path.join(root, 'a'))).toBe(0o700)
      expect(mode(path.join(dir, 'tasks'))).toBe(0o700)
      expect(mode(path.join(dir, 'locks'))).toBe(0o700)
      expect(mode(path.join(dir, 'index'))).toBe(0o700)
    }
    expect(statSync(path.join(dir, 'index')).isDirectory()).toBe(true)
    ensureStateDir(dir) // a second time is a no-op
  })

  it('makes index/ in a state dir of an older drover that has none, so the next look can keep its listing of tasks/', () => {
    const dir = path.join(root, 'old')
    mkdirSync(path.join(dir, 'tasks', '1'), {recursive: true, mode: 0o700})
    chmodSync(dir, 0o700)
    ensureStateDir(dir)
    expect(readdirSync(path.join(dir, 'index'))).toEqual([])
  })

  it("removes 0.1.0's caches (summary/) when it gives the dir its format file, never before", () => {
    const dir = path.join(root, 'old')
    mkdirSync(path.join(dir, 'tasks', '1'), {recursive: true, mode: 0o700})
    mkdirSync(path.join(dir, 'summary'), {mode: 0o700})
    writeFileSync(path.join(dir, 'summary', 'seg-000000000001.ndjson'), '{"summary":1}\n')
    chmodSync(dir, 0o700)
    expect(ensureStateDir(dir)).toEqual({format: 1, marked: false})
    expect(readdirSync(path.join(dir, 'summary'))).toEqual(['seg-000000000001.ndjson'])
    expect(markStateFormat(dir)).toBe(true)
    expect(existsSync(path.join(dir, 'summary'))).toBe(false)
  })

  it('gives a state dir it makes its format file: one line, 0600', () => {
    const dir = path.join(root, 'new', 'state')
    expect(ensureStateDir(dir)).toEqual({format: STATE_FORMAT, marked: true})
    expect(readFileSync(formatPath(dir), 'utf8')).toBe(`drover-state ${STATE_FORMAT}\n`)
    if (hasPosix) expect(mode(formatPath(dir))).toBe(0o600)
    expect(readdirSync(dir).sort()).toEqual(['format', 'index', 'locks', 'tasks']) // no temp file left
    expect(ensureStateDir(dir)).toEqual({format: STATE_FORMAT, marked: true})
    // an empty dir made by hand is new to drover too
    const empty = path.join(root, 'empty')
    mkdirSync(empty, {mode: 0o700})
    expect(ensureStateDir(empty)).toEqual({format: STATE_FORMAT, marked: true})
  })

  it('reads a state dir of drover 0.1.0 (tasks/, no format file) as format 1, and writes nothing into it', () => {
    const dir = path.join(root, 'old')
    mkdirSync(path.join(dir, 'tasks', '1'), {recursive: true, mode: 0o700})
    mkdirSync(path.join(dir, 'locks'), {mode: 0o700})
    mkdirSync(path.join(dir, 'summary'), {mode: 0o700})
    chmodSync(dir, 0o700)
    const before = snapshot(dir)
    expect(ensureStateDir(dir)).toEqual({format: 1, marked: false})
    expect(snapshot(dir)).toEqual(before)
  })

  it('refuses a newer format, and a format file that names none, with exit 5 and nothing made', () => {
    const dir = path.join(root, 'newer')
    mkdirSync(dir, {mode: 0o700})
    writeFileSync(formatPath(dir), `drover-state ${STATE_FORMAT + 1}\n`)
    const before = snapshot(dir)
    const newer = `state dir ${dir} was written by a newer drover (format ${STATE_FORMAT + 1}; this drover reads up to ${STATE_FORMAT}): upgrade drover`
    expectStateDirError(() => ensureStateDir(dir), new RegExp(`^${newer.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`))
    expect(snapshot(dir)).toEqual(before) // no tasks/, locks/ or index/ made in it
    for (const text of ['', 'drover-state', 'drover-state 0\n', 'drover-state -1\n', 'drover-state 1.5\n', 'drover-state 1\nmore\n', 'DROVER-STATE 1\n', 'x'.repeat(1000)]) {
      writeFileSync(formatPath(dir), text)
      expectStateDirError(() => ensureStateDir(dir), /has a format file drover cannot read: .*format holds ".*", not "drover-state <number>"$/)
    }
    writeFileSync(formatPath(dir), 'x'.repeat(1000))
    expectStateDirError(() => readStateFormat(dir), /holds "x{32}…"/) // shown cut short, and read only so far
    for (const text of ['drover-state 1', 'drover-state 1\n', 'drover-state 1\r\n']) {
      writeFileSync(formatPath(dir), text)
      expect(readStateFormat(dir)).toEqual({format: 1, marked: true})
    }
  })

  posixOnly('symlinks').it('refuses a format file planted as a symlink', () => {
    const dir = path.join(root, 'planted')
    mkdirSync(dir, {mode: 0o700})
    writeFileSync(path.join(root, 'elsewhere'), 'drover-state 1\n')
    symlinkSync(path.join(root, 'elsewhere'), formatPath(dir))
    expectStateDirError(() => ensureStateDir(dir), /cannot read the format of state dir/)
  })

  it('markStateFormat never writes over a format file, and fails quietly where it cannot write', () => {
    const dir = path.join(root, 'marked')
    mkdirSync(dir, {mode: 0o700})
    writeFileSync(formatPath(dir), 'drover-state 9\n')
    expect(markStateFormat(dir)).toBe(true)
    expect(readFileSync(formatPath(dir), 'utf8')).toBe('drover-state 9\n')
    expect(readdirSync(dir)).toEqual(['format'])
    // a dir it cannot write in (gone here; read-only, full): no file, no throw — the dir is format 1 without it
    expect(markStateFormat(path.join(root, 'gone'))).toBe(false)
    expect(existsSync(path.join(root, 'gone'))).toBe(false)
  })

  it('refuses a file in its place with exit code 5', () => {
    const file = path.join(root, 'state')
    writeFileSync(file, 'not a dir')
    expectStateDirError(() => ensureStateDir(file), /not a directory/)
    expectStateDirError(() => ensureStateDir(path.join(file, 'below')), /state dir/)
  })

  it('refuses a missing dir when asked not to create it', () => {
    expectStateDirError(() => ensureStateDir(path.join(root, 'missing'), {create: false}), /does not exist/)
  })

  posixOnly('POSIX file modes').it('refuses a dir that group or others may write, naming the fix', () => {
    for (const unsafe of [0o770, 0o702, 0o777]) {
      const dir = path.join(root, `unsafe-${unsafe.toString(8)}`)
      mkdirSync(path.join(dir, 'tasks'), {recursive: true})
      chmodSync(dir, unsafe)
      expectStateDirError(() => ensureStateDir(dir), new RegExp(`writable by other users.*chmod 700 ${dir}$`))
    }
    const readable = path.join(root, 'readable')
    mkdirSync(readable)
    chmodSync(readable, 0o755)
    expect(() => ensureStateDir(readable)).not.toThrow()
  })

  posixOnly('POSIX file modes').it('never suggests chmod for a directory drover did not make, or one shared by design like /tmp', () => {
    const foreign = path.join(root, 'foreign')
    mkdirSync(foreign)
    chmodSync(foreign, 0o777)
    const shared = path.join(root, 'shared')
    mkdirSync(path.join(shared, 'tasks'), {recursive: true})
    chmodSync(shared, 0o1777)
    for (const dir of [foreign, shared]) {
      const escaped = path.join(dir, 'drover').replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
      // The whole advice after the mode: a subdirectory, and no chmod anywhere in it.
      expectStateDirError(() => ensureStateDir(dir), new RegExp(`writable by other users \\(mode \\d+\\); use a directory of its own inside it, which drover creates private: --state-dir ${escaped}$`))
    }
  })

  posixOnly('POSIX file modes and umask').it('keeps files 0600 and dirs 0700 even when the umask is 000', () => {
    const previous = process.umask(0)
    try {
      const dir = path.join(root, 'open', 'state')
      ensureStateDir(dir)
      const id = allocateTaskId(dir)
      const paths = taskPaths(dir, id)
      createTaskLayout(paths)
      writeRecord(dir, newRecord(id, {
        command: ['true'], shell: null, name: null, cwd: '/', env: {}, agent: 'generic',
        policies: {timeoutMs: null, idleTimeoutMs: null, maxOutputBytes: null},
      }))
      appendEvent(paths, {event: 'created'})
      raiseHighWater(dir, id + 5)
      for (const d of [path.join(root, 'open'), dir, path.join(dir, 'tasks'), path.join(dir, 'locks'), paths.dir, paths.requests, paths.session]) {
        expect([d, mode(d).toString(8)]).toEqual([d, '700'])
      }
      for (const f of [paths.record, paths.output, paths.events, path.join(dir, 'last-id')]) {
        expect([f, mode(f).toString(8)]).toEqual([f, '600'])
      }
    } finally {
      process.umask(previous)
    }
  })
})
