// One agent as doctor sees it, with real programs on a real PATH: the fake
// claude and codex of the fixtures (their --version and --help are the real
// ones' text), an agent missing, one whose help has no options, one that
// hangs — and the session store, looked up under the HOME given.

import {chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import path from 'node:path'
import {afterEach, describe, expect, it} from 'vitest'
import {posixOnly} from '../helpers/skips.js'
import {knownAgents, storeRoot, type KnownAgent} from '../../src/agents/known.js'
import {AGENTS} from '../../src/agents/registry.js'
import {probeAgent, versionFrom} from '../../src/agents/probe.js'
import {FIXTURES, isAlive, waitFor} from '../helpers/cli.js'

const dirs: string[] = []
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, {recursive: true, force: true})
})

function tempDir(): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'drover-probe-'))
  dirs.push(dir)
  return dir
}

const agent = (name: string) => knownAgents().find((a) => a.name === name)!
// node for the fixtures' `#!/usr/bin/env node`, and /bin for sh
const basePath = [path.dirname(process.execPath), '/usr/bin', '/bin'].join(path.delimiter)

function env(home: string, binDir: string, extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  return {HOME: home, PATH: [binDir, basePath].join(path.delimiter), ...extra}
}

// POSIX: sh scripts, `sleep`, modes and uids (Windows: test/platform/inspect.test.ts with the platform injected)
posixOnly('sh scripts, sleep, modes and uids').describe('probeAgent', () => {
  it('finds the fake claude and codex: path, version, a readable flag grammar, the session store under HOME', async () => {
    const home = tempDir()
    const bin = path.join(FIXTURES, 'bin')
    mkdirSync(path.join(home, '.claude', 'projects'), {recursive: true})
    const claude = await probeAgent(agent('claude'), {env: env(home, bin), cwd: home, timeoutMs: 20_000})
    expect(claude).toMatchObject({
      name: 'claude',
      found: true,
      path: path.join(bin, 'claude'),
      realPath: path.join(bin, 'claude'),
      version: '2.1.332',
      versionError: null,
      flags: {readable: true, error: null},
      sessionStore: {path: path.join(home, '.claude', 'projects'), present: true},
    })
    expect(claude.flags!.count).toBeGreaterThan(50)
    expect(claude.versionTookMs).toBeGreaterThan(0)
    const codex = await probeAgent(agent('codex'), {env: env(home, bin), cwd: home, timeoutMs: 20_000})
    expect(codex).toMatchObject({found: true, version: '0.171.0', flags: {readable: true}, sessionStore: {path: path.join(process.env.CODEX_HOME || path.join(home, '.codex'), 'sessions'), present: false}})
  })

  it('a session store kept per working directory is checked at its root; a store that is a file counts when present', async () => {
    const home = tempDir()
    const root = (name: string) => storeRoot(AGENTS.find((a) => a.name === name)!, home)
    expect(root('claude')).toBe(path.join(home, '.claude', 'projects'))
    expect(root('qwen')).toBe(path.join(home, '.qwen', 'projects'))
    expect(root('gemini')).toBe(path.join(home, '.gemini', 'tmp'))
    expect(root('copilot')).toBe(path.join(process.env.COPILOT_HOME || path.join(home, '.copilot'), 'session-state'))
    const db = path.join(process.env.XDG_DATA_HOME || path.join(home, '.local', 'share'), 'opencode', 'opencode.db')
    expect(root('opencode')).toBe(db)
    if (!process.env.XDG_DATA_HOME) {
      mkdirSync(path.dirname(db), {recursive: true})
      writeFileSync(db, '')
      const opencode = await probeAgent(agent('opencode'), {env: {HOME: home, PATH: tempDir()}, cwd: home, timeoutMs: 5000})
      expect(opencode.sessionStore).toEqual({path: db, present: true})
    }
  })

  it('an agent not on PATH is not found, and nothing is run', async () => {
    const home = tempDir()
    // PATH: an empty folder alone (this machine's own dirs may hold a claude)
    const r = await probeAgent(agent('claude'), {env: {HOME: home, PATH: tempDir()}, cwd: home, timeoutMs: 5000})
    expect(r).toMatchObject({found: false, path: null, version: null, versionTookMs: null, flags: null})
  })

  it('a help text without options is an unreadable grammar; a failing --version says how it failed', async () => {
    const home = tempDir()
    const bin = tempDir()
    const file = path.join(bin, 'claude')
    writeFileSync(file, '#!/bin/sh\nif [ "$1" = --version ]; then echo "segfault in launcher" >&2; exit 139; fi\necho "Usage: claude [prompt]"\n')
    chmodSync(file, 0o755)
    const r = await probeAgent(agent('claude'), {env: env(home, bin), cwd: home, timeoutMs: 5000})
    expect(r).toMatchObject({found: true, version: null, versionError: '`claude --version` exited 139: segfault in launcher'})
    expect(r.flags).toMatchObject({readable: false, count: 0, error: '`claude --help` printed no options drover could read'})
  })

  it('gives up on an agent that hangs, kills what it started, and reports the timeout', async () => {
    const home = tempDir()
    const bin = tempDir()
    const pids = path.join(home, 'pids')
    const file = path.join(bin, 'codex')
    writeFileSync(file, `#!/bin/sh\nsleep 600 &\necho $! >> '${pids}'\nwait\n`)
    chmodSync(file, 0o755)
    const r = await probeAgent(agent('codex'), {env: env(home, bin), cwd: home, timeoutMs: 400})
    expect(r.versionError).toBe('`codex --version` did not answer within 400 ms')
    expect(r.flags).toMatchObject({readable: false, error: '`codex exec --help` did not answer within 400 ms'})
    const children = readFileSync(pids, 'utf8').trim().split('\n').map(Number)
    expect(children).toHaveLength(2)
    for (const pid of children) await waitFor(() => !isAlive(pid), {timeout: 5000, message: `sleep ${pid} to die`})
  })

  it('runs --version and --help with update checks and telemetry switched off', async () => {
    const home = tempDir()
    const bin = tempDir()
    const file = path.join(bin, 'quiet')
    writeFileSync(file, '#!/bin/sh\nif [ "$DISABLE_AUTOUPDATER$COPILOT_AUTO_UPDATE$GEMINI_CLI_NO_RELAUNCH" = 1falsetrue ]; then echo "quiet 1.0.0"; else echo "loud 0.0.1"; fi\n')
    chmodSync(file, 0o755)
    const quiet: KnownAgent = {...agent('claude'), name: 'quiet', binaries: ['quiet']}
    expect((await probeAgent(quiet, {env: env(home, bin), cwd: home, timeoutMs: 5000})).version).toBe('1.0.0')
  })
})

describe('versionFrom', () => {
  it('takes the version number out of what agents print', () => {
    expect(versionFrom('2.1.332 (Claude Code)\n')).toBe('2.1.332')
    expect(versionFrom('codex-cli 0.171.0\n')).toBe('0.171.0')
    expect(versionFrom('\n  gemini 0.61.0-preview.2\n')).toBe('0.61.0-preview.2')
    expect(versionFrom('nightly build\n')).toBe('nightly build')
    expect(versionFrom('')).toBeNull()
  })
})
