// What doctor asks of the OS: the PATH variable, running a Windows .cmd
// launcher, ownership and modes (none judged on Windows), free space, running
// a program briefly with a timeout that kills its whole group, and finding
// processes by a variable in their environment. Real processes here; Windows
// through an injected platform.

import {spawn} from 'node:child_process'
import {chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import path from 'node:path'
import {afterEach, describe, expect, it} from 'vitest'
import {linuxOnly, posixOnly} from '../helpers/skips.js'
import {diskSpace, livePids, ownershipOf, pathExtValue, pathValue, processesWithVariable, programLaunch, runBriefly} from '../../src/platform/inspect.js'
import {processStartTime, type PlatformContext} from '../../src/platform/platform.js'
import {isAlive, waitFor} from '../helpers/cli.js'

const win: PlatformContext = {os: 'win32', run: () => ''}
const linux: PlatformContext = {os: 'linux', run: () => ''}
const dirs: string[] = []
const pids: number[] = []

afterEach(() => {
  for (const pid of pids.splice(0)) {
    try {
      process.kill(pid, 'SIGKILL')
    } catch {
      // gone
    }
  }
  for (const dir of dirs.splice(0)) rmSync(dir, {recursive: true, force: true})
})

function tempDir(): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'drover-inspect-'))
  dirs.push(dir)
  return dir
}

function script(dir: string, name: string, body: string): string {
  const file = path.join(dir, name)
  writeFileSync(file, `#!/bin/sh\n${body}\n`)
  chmodSync(file, 0o755)
  return file
}

describe('pathValue, pathExtValue', () => {
  it('Windows spells PATH in any case; elsewhere it is PATH', () => {
    expect(pathValue({Path: 'C:\\bin'}, win)).toBe('C:\\bin')
    expect(pathExtValue({PathExt: '.EXE;.CMD'}, win)).toBe('.EXE;.CMD')
    expect(pathValue({Path: '/bin'}, linux)).toBeUndefined()
    expect(pathValue({PATH: '/bin'}, linux)).toBe('/bin')
    expect(pathExtValue({PATHEXT: '.EXE'}, linux)).toBeUndefined()
  })
})

describe('programLaunch', () => {
  it('runs a Windows .cmd launcher through cmd.exe, quoted, verbatim', () => {
    expect(programLaunch('C:\\Program Files\\nodejs\\claude.cmd', ['--version'], {ComSpec: 'C:\\Windows\\system32\\cmd.exe'}, win)).toEqual({
      file: 'C:\\Windows\\system32\\cmd.exe',
      args: ['/d', '/s', '/c', '""C:\\Program Files\\nodejs\\claude.cmd" --version"'],
      verbatim: true,
    })
    expect(programLaunch('C:\\tools\\codex.BAT', ['exec', '--help'], {}, win).args.at(-1)).toBe('"C:\\tools\\codex.BAT exec --help"')
  })

  it('runs anything else directly', () => {
    expect(programLaunch('C:\\tools\\codex.exe', ['--version'], {}, win)).toEqual({file: 'C:\\tools\\codex.exe', args: ['--version'], verbatim: false})
    expect(programLaunch('/usr/bin/claude.cmd', ['--version'], {}, linux)).toEqual({file: '/usr/bin/claude.cmd', args: ['--version'], verbatim: false})
  })
})

describe('ownershipOf', () => {
  it('reads owner and group/other write bits on Unix', () => {
    expect(ownershipOf({uid: 1000, mode: 0o40700}, linux, 1000)).toEqual({uid: 1000, mine: true, mode: '700', groupWritable: false, worldWritable: false})
    expect(ownershipOf({uid: 0, mode: 0o40775}, linux, 1000)).toEqual({uid: 0, mine: false, mode: '775', groupWritable: true, worldWritable: false})
    expect(ownershipOf({uid: 0, mode: 0o41777}, linux, 1000)).toMatchObject({mode: '1777', groupWritable: true, worldWritable: true})
  })

  it('judges nothing on Windows, where Node makes the mode up and ACLs decide', () => {
    expect(ownershipOf({uid: 0, mode: 0o40666}, win, null)).toBeNull()
  })
})

describe('diskSpace', () => {
  it('gives free and total bytes of a real file system, null for a missing path', () => {
    const space = diskSpace(tmpdir())!
    expect(space.freeBytes).toBeGreaterThan(0)
    expect(space.totalBytes).toBeGreaterThanOrEqual(space.freeBytes)
    expect(diskSpace(path.join(tempDir(), 'missing'))).toBeNull()
  })
})

// POSIX: sh scripts and `sleep`
posixOnly('sh scripts and sleep').describe('runBriefly', () => {
  const opts = {env: process.env, cwd: tmpdir(), timeoutMs: 10_000}

  it('collects the exit code and both outputs, with stdin closed', async () => {
    const dir = tempDir()
    const file = script(dir, 'tool', 'echo out; echo err >&2; read line && echo "read $line"; exit 3')
    const r = await runBriefly(file, [], opts)
    expect(r).toMatchObject({code: 3, stdout: 'out\n', stderr: 'err\n', timedOut: false, error: null})
    expect(r.tookMs).toBeGreaterThanOrEqual(0)
  })

  it('says why a program could not start', async () => {
    const r = await runBriefly(path.join(tempDir(), 'missing'), [], opts)
    expect(r).toMatchObject({code: null, error: 'ENOENT', timedOut: false})
  })

  it('kills the whole group of a program that runs past the timeout, its children too', async () => {
    const dir = tempDir()
    const pidFile = path.join(dir, 'child.pid')
    const file = script(dir, 'hangs', `sleep 600 & echo $! > '${pidFile}'; wait`)
    const r = await runBriefly(file, ['--version'], {...opts, timeoutMs: 300})
    expect(r).toMatchObject({code: null, timedOut: true})
    expect(r.tookMs).toBeGreaterThanOrEqual(300)
    const child = Number(readFileSync(pidFile, 'utf8'))
    pids.push(child)
    await waitFor(() => !isAlive(child), {timeout: 5000, message: 'the child of the timed-out program to die'})
  })
})

describe('livePids', () => {
  linuxOnly('/proc').it('lists the pids alive now, this one among them, not one that exited', async () => {
    const child = spawn('sleep', ['0'], {stdio: 'ignore'})
    await new Promise((resolve) => child.once('exit', resolve))
    const pids = livePids()!
    expect(pids.has(process.pid)).toBe(true)
    expect(pids.has(child.pid!)).toBe(false)
  })

  it('is null where the OS keeps no /proc: every identity is then checked on its own', () => {
    expect(livePids(win)).toBeNull()
  })
})

describe('processesWithVariable', () => {
  linuxOnly('/proc/<pid>/environ').it('finds a live process by a variable of its environment, with the value', async () => {
    const mark = `/tmp/drover-mark-${process.pid}-${Date.now()}`
    const marked = spawn('sleep', ['600'], {stdio: 'ignore', env: {...process.env, DROVER_TEST_MARK: mark}})
    const unmarked = spawn('sleep', ['600'], {stdio: 'ignore'})
    pids.push(marked.pid!, unmarked.pid!)
    await waitFor(() => processStartTime(marked.pid!) !== null && readFileSync(`/proc/${marked.pid}/environ`, 'utf8').includes(mark), {message: 'sleep exec'})
    const found = processesWithVariable('DROVER_TEST_MARK').filter((p) => p.value === mark)
    expect(found).toEqual([{pid: marked.pid, startTime: processStartTime(marked.pid!), value: mark}])
    expect(processesWithVariable('DROVER_TEST_MARK').some((p) => p.pid === unmarked.pid)).toBe(false)
  })

  it('reads no environments where the OS does not offer them cheaply', () => {
    expect(processesWithVariable('PATH', win)).toEqual([])
    expect(processesWithVariable('PATH', {os: 'darwin', run: () => ''})).toEqual([])
  })
})
