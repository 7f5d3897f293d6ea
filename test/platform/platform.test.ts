import {spawn, spawnSync, type ChildProcess} from 'node:child_process'
import {existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterEach, describe, expect, it} from 'vitest'
import {linuxOnly} from '../helpers/skips.js'
import {killLeftovers, leftoverList} from '../helpers/cli.js'
import {
  type CommandRunner,
  type PlatformContext,
  currentPlatform,
  identityInTable,
  identityState,
  processTable,
  isProcessAlive,
  isSameProcess,
  listDescendants,
  listGroupMembers,
  listProcessesWithEnv,
  processStartTime,
  resolveExecutable,
  removeTree,
  busyRetryDelays,
  retryOnBusy,
  retryOnBusySync,
  withErrorCode,
  signalIdentity,
  startedNoEarlierThan,
  signalNumber,
  signalProcessGroup,
  signalChildGroup,
  workerSpawnOptions,
  exitShowsSignal,
  slurmUnavailable,
  argvTooLong,
  memoryFileSystem,
} from '../../src/platform/platform.js'


/** Poll until cond() holds; orphans are reaped slowly here, so deadlines are generous. */
async function waitFor(cond: () => boolean, what: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (!cond()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}

/** Independent reader of /proc/<pid>/stat fields after comm, for cross-checking the module. */
function procFields(pid: number): string[] | null {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'utf8')
    return text.slice(text.lastIndexOf(')') + 2).trim().split(' ')
  } catch {
    return null
  }
}
const childrenOf = (ppid: number): number[] =>
  readdirSync('/proc')
    .filter((n) => /^\d+$/.test(n))
    .map(Number)
    .filter((pid) => procFields(pid)?.[1] === String(ppid))

// Leftovers: every group leader and pid a test started, SIGKILLed after each test.
const groups = leftoverList()
const pids = leftoverList()
afterEach(() => {
  killLeftovers(pids, groups)
})

function spawnDetached(file: string, args: string[], stdout: 'ignore' | 'pipe' = 'ignore'): ChildProcess {
  const child = spawn(file, args, {...workerSpawnOptions(), stdio: ['ignore', stdout, 'ignore']})
  if (child.pid === undefined) throw new Error('spawn failed')
  groups.push(child.pid)
  return child
}
const spawnSleeper = () => spawnDetached(process.execPath, ['-e', 'setInterval(() => {}, 1000)'])
/** First line a fixture prints (its grandchildren's pids, as JSON). */
const firstLine = (child: ChildProcess) =>
  new Promise<number[]>((resolve) => {
    let buf = ''
    child.stdout!.on('data', (d) => {
      buf += String(d)
      if (buf.includes('\n')) resolve(JSON.parse(buf.slice(0, buf.indexOf('\n'))))
    })
  })
const exited = (child: ChildProcess) =>
  new Promise<void>((resolve) => (child.exitCode !== null || child.signalCode !== null ? resolve() : child.once('exit', () => resolve())))

linuxOnly('/proc and POSIX process groups').describe('linux, real processes', () => {
  it('reports a stable digit start time and tells processes apart', () => {
    const child = spawnSleeper()
    const pid = child.pid!
    const start = processStartTime(pid)
    expect(start).toMatch(/^\d+$/)
    expect(processStartTime(pid)).toBe(start)
    expect(start).toBe(procFields(pid)![19])
    expect(isProcessAlive(pid)).toBe(true)
    expect(isSameProcess({pid, startTime: start!})).toBe(true)
    expect(isSameProcess({pid, startTime: String(Number(start) + 1)})).toBe(false)
    // Same start string, other pid: not the recorded process.
    expect(processStartTime(process.pid)).not.toBe(start)
  })

  it("signals a child's group while the child lives, and after its exit only while a member of the group is left", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'drover-group-'))
    try {
      const pidFile = join(dir, 'member')
      const child = spawn('sh', ['-c', `sleep 300 & echo $! > '${pidFile}'; exit 0`], {detached: true, stdio: 'ignore'})
      await exited(child)
      await waitFor(() => existsSync(pidFile) && readFileSync(pidFile, 'utf8').trim() !== '', 'the member')
      const member = Number(readFileSync(pidFile, 'utf8'))
      groups.push(child.pid!)
      expect(listGroupMembers(child.pid!).map((p) => p.pid)).toContain(member)
      signalChildGroup(child.pid, true, 'SIGKILL')
      await waitFor(() => !isProcessAlive(member), 'the member to die')
      // the group is empty now: its number is signalled no more (it could be anyone's)
      const emptied = listGroupMembers(child.pid!)
      expect(emptied).toEqual([])
      expect(() => signalChildGroup(child.pid, true, 'SIGKILL')).not.toThrow()
    } finally {
      rmSync(dir, {recursive: true, force: true})
    }
  })

  it('returns null for a process that is gone and for pids that are never ours', async () => {
    const child = spawnSleeper()
    const pid = child.pid!
    child.kill('SIGKILL')
    await exited(child) // Node reaps its own children
    expect(processStartTime(pid)).toBeNull()
    expect(isProcessAlive(pid)).toBe(false)
    for (const bad of [0, -1, 1.5, Number.NaN]) expect(processStartTime(bad)).toBeNull()
  })

  it('treats a zombie as dead', async () => {
    // The background sleep exits first; its parent became `sleep 5` via exec and never reaps it.
    const child = spawnDetached('sh', ['-c', 'sleep 0.1 & exec sleep 5'])
    const parent = child.pid!
    let zombie = 0
    await waitFor(() => {
      zombie = childrenOf(parent).find((pid) => procFields(pid)?.[0] === 'Z') ?? 0
      return zombie !== 0
    }, 'a zombie grandchild')
    expect(processStartTime(zombie)).toBeNull()
    expect(isProcessAlive(zombie)).toBe(false)
    expect(listDescendants(parent).map((d) => d.pid)).not.toContain(zombie)
  })

  it('lists children, grandchildren and setsid escapees with their start times', async () => {
    const script = `
      const {spawn} = require('node:child_process')
      const a = spawn('sleep', ['30'], {stdio: 'ignore'})
      const b = spawn('setsid', ['sleep', '30'], {stdio: 'ignore'})
      const c = spawn('sh', ['-c', 'sleep 30 & wait'], {stdio: 'ignore'})
      console.log(JSON.stringify([a.pid, b.pid, c.pid]))
      setInterval(() => {}, 1000)`
    const child = spawnDetached(process.execPath, ['-e', script], 'pipe')
    const root = child.pid!
    const known = await firstLine(child)
    pids.push(...known)
    const setsidPid = known[1]
    // setsid execs in place (the spawned child is not a group leader), so it leaves our group.
    await waitFor(() => procFields(setsidPid)?.[3] === String(setsidPid), 'setsid to take effect')
    let found: number[] = []
    await waitFor(() => {
      found = listDescendants(root).map((d) => d.pid)
      return known.every((p) => found.includes(p)) && found.length >= 4 // + the shell's sleep
    }, 'all descendants')
    pids.push(...found)
    const snapshot = listDescendants(root)
    expect(snapshot.map((d) => d.pid)).not.toContain(root)
    for (const d of snapshot) expect(d.startTime).toBe(processStartTime(d.pid))
    expect(listDescendants(known[0])).toEqual([]) // a leaf
  })

  it('kills a whole group and sweeps the setsid escapee from the snapshot', async () => {
    const script = `
      const {spawn} = require('node:child_process')
      const a = spawn('sleep', ['30'], {stdio: 'ignore'})
      const b = spawn('setsid', ['sleep', '30'], {stdio: 'ignore'})
      console.log(JSON.stringify([a.pid, b.pid]))
      setInterval(() => {}, 1000)`
    const child = spawnDetached(process.execPath, ['-e', script], 'pipe')
    const root = child.pid!
    const [inGroup, escapee] = await firstLine(child)
    pids.push(inGroup, escapee)
    await waitFor(() => procFields(escapee)?.[3] === String(escapee), 'setsid to take effect')
    const snapshot = listDescendants(root)
    expect(snapshot.map((d) => d.pid).sort()).toEqual([inGroup, escapee].sort())

    expect(signalProcessGroup(root, 'SIGKILL')).toBe(true)
    await exited(child)
    await waitFor(() => !isProcessAlive(inGroup), 'the group to die')
    const survivor = snapshot.find((d) => d.pid === escapee)!
    expect(isSameProcess(survivor)).toBe(true) // the group kill cannot reach it

    expect(signalIdentity(survivor, 'SIGKILL')).toBe(true)
    await waitFor(() => [root, inGroup, escapee].every((p) => !isProcessAlive(p)), 'every process to die')
  })

  it('returns false for a group that no longer exists and refuses dangerous pgids', async () => {
    const child = spawnSleeper()
    child.kill('SIGKILL')
    await exited(child)
    expect(signalProcessGroup(child.pid!, 'SIGTERM')).toBe(false)
    for (const bad of [0, 1, -5, 2.5]) expect(() => signalProcessGroup(bad, 'SIGTERM')).toThrow(RangeError)
  })

  it('finds processes by a mark in their environment, and only on Linux', async () => {
    const mark = `drover-test-${process.pid}-${Date.now()}`
    const child = spawn('sleep', ['30'], {stdio: 'ignore', env: {...process.env, DROVER_TEST_MARK: mark}})
    try {
      await waitFor(() => processStartTime(child.pid!) !== null, 'sleep start time')
      expect(listProcessesWithEnv({DROVER_TEST_MARK: mark})).toEqual([{pid: child.pid!, startTime: processStartTime(child.pid!)}])
      expect(listProcessesWithEnv({DROVER_TEST_MARK: `${mark}-other`})).toEqual([])
      expect(listProcessesWithEnv({DROVER_TEST_MARK: mark}, fakeContext('darwin', () => '').ctx)).toEqual([])
    } finally {
      child.kill('SIGKILL')
    }
  })

  it('signals an identity only when the start time matches', async () => {
    const child = spawnSleeper()
    const pid = child.pid!
    const startTime = processStartTime(pid)!
    expect(signalIdentity({pid, startTime: `${startTime}1`}, 'SIGKILL')).toBe(false)
    await new Promise((resolve) => setTimeout(resolve, 200))
    expect(child.exitCode === null && child.signalCode === null).toBe(true)
    expect(isSameProcess({pid, startTime})).toBe(true)

    expect(signalIdentity({pid, startTime}, 'SIGTERM')).toBe(true)
    await exited(child)
    expect(child.signalCode).toBe('SIGTERM')
    expect(signalIdentity({pid, startTime}, 'SIGKILL')).toBe(false)
  })

  it('spawns workers as leaders of their own group', () => {
    expect(workerSpawnOptions()).toEqual({detached: true, windowsHide: false})
    const child = spawnSleeper()
    expect(procFields(child.pid!)![2]).toBe(String(child.pid)) // pgrp
  })
})

linuxOnly('symlinks').describe('removeTree', () => {
  const dirs: string[] = []
  afterEach(() => {
    for (const d of dirs.splice(0)) rmSync(d, {recursive: true, force: true})
  })
  const tmp = () => {
    const d = mkdtempSync(join(tmpdir(), 'drover-platform-'))
    dirs.push(d)
    return d
  }

  it('removes a tree but never what its symlinks point to', async () => {
    const base = tmp()
    const outside = join(base, 'outside')
    mkdirSync(outside)
    writeFileSync(join(outside, 'keep.txt'), 'keep')
    const tree = join(base, 'tree')
    mkdirSync(join(tree, 'a', 'b'), {recursive: true})
    writeFileSync(join(tree, 'a', 'b', 'f.txt'), 'x')
    symlinkSync(outside, join(tree, 'a', 'link'))
    await removeTree(tree)
    expect(existsSync(tree)).toBe(false)
    expect(readFileSync(join(outside, 'keep.txt'), 'utf8')).toBe('keep')
  })

  it('unlinks a symlink target itself and ignores a missing path', async () => {
    const base = tmp()
    const real = join(base, 'real')
    mkdirSync(real)
    writeFileSync(join(real, 'keep.txt'), 'keep')
    const link = join(base, 'link')
    symlinkSync(real, link)
    await removeTree(link)
    expect(existsSync(link)).toBe(false)
    expect(readFileSync(join(real, 'keep.txt'), 'utf8')).toBe('keep')
    await expect(removeTree(join(base, 'missing'))).resolves.toBeUndefined()
  })
})

describe('retryOnBusy', () => {
  const failing = (codes: string[]) => {
    let calls = 0
    const fn = async () => {
      const code = codes[calls++]
      if (code) throw Object.assign(new Error(code), {code})
      return 'ok'
    }
    return {fn, calls: () => calls}
  }
  const noRun: CommandRunner = () => {
    throw new Error('unexpected command')
  }

  it('retries busy errors on Windows until the call succeeds', async () => {
    const f = failing(['EBUSY', 'EPERM'])
    await expect(retryOnBusy(f.fn, {os: 'win32', run: noRun}, [1, 1, 1])).resolves.toBe('ok')
    expect(f.calls()).toBe(3)
  })

  it('gives up on Windows after the attempts run out', async () => {
    const f = failing(['EBUSY', 'ENOTEMPTY', 'EBUSY', 'EBUSY'])
    await expect(retryOnBusy(f.fn, {os: 'win32', run: noRun}, [1, 1])).rejects.toMatchObject({code: 'EBUSY'})
    expect(f.calls()).toBe(3)
  })

  it('does not retry other errors, nor anything outside Windows', async () => {
    const other = failing(['ENOENT'])
    await expect(retryOnBusy(other.fn, {os: 'win32', run: noRun})).rejects.toMatchObject({code: 'ENOENT'})
    expect(other.calls()).toBe(1)
    const busy = failing(['EBUSY', 'EBUSY'])
    await expect(retryOnBusy(busy.fn, {os: 'linux', run: noRun})).rejects.toMatchObject({code: 'EBUSY'})
    expect(busy.calls()).toBe(1)
  })

  it('backs off on Windows for about 3 s in all (EACCES too), and not at all elsewhere', () => {
    const delays = busyRetryDelays({os: 'win32', run: noRun})
    const total = delays.reduce((a, b) => a + b, 0)
    expect(total).toBeGreaterThanOrEqual(2000)
    expect(total).toBeLessThanOrEqual(5000)
    expect([...delays]).toEqual([...delays].sort((a, b) => a - b))
    expect(busyRetryDelays({os: 'linux', run: noRun})).toEqual([])
    expect(busyRetryDelays({os: 'darwin', run: noRun})).toEqual([])
  })

  it('the synchronous form waits and retries the same way (EACCES, EPERM, EBUSY)', () => {
    let calls = 0
    const codes = ['EACCES', 'EPERM', 'EBUSY']
    const began = Date.now()
    const result = retryOnBusySync(() => {
      const code = codes[calls++]
      if (code) throw Object.assign(new Error(code), {code})
      return 'ok'
    }, {os: 'win32', run: noRun}, [30, 30, 30])
    expect(result).toBe('ok')
    expect(calls).toBe(4)
    expect(Date.now() - began).toBeGreaterThanOrEqual(85)
    let linuxCalls = 0
    expect(() =>
      retryOnBusySync(() => {
        linuxCalls++
        throw Object.assign(new Error('EPERM'), {code: 'EPERM'})
      }, {os: 'linux', run: noRun}),
    ).toThrow('EPERM')
    expect(linuxCalls).toBe(1)
  })
})

describe('withErrorCode (Node 24 rmSync answers a busy folder with code "")', () => {
  // What Node 24.22's fs.rmSync throws for a folder with a mount inside, as it throws it.
  const node24 = (text: string) =>
    Object.assign(new Error(`, Unknown error: ${text} '/x/.trash-1'`), {code: '', errno: -4094, syscall: 'rm', path: '/x/.trash-1'})
  const noRun: CommandRunner = () => {
    throw new Error('unexpected command')
  }

  it("recovers EBUSY (and the others' codes) from the OS's text, and says it as Node 20 does", () => {
    expect(withErrorCode(node24('Device or resource busy'))).toMatchObject({code: 'EBUSY', message: "EBUSY: Device or resource busy, rm '/x/.trash-1'"})
    expect(withErrorCode(node24('Resource busy'))).toMatchObject({code: 'EBUSY'})
    expect(withErrorCode(node24('The process cannot access the file because it is being used by another process.'))).toMatchObject({code: 'EBUSY'})
    expect(withErrorCode(node24('Directory not empty'))).toMatchObject({code: 'ENOTEMPTY'})
    expect(withErrorCode(node24('Access is denied.'))).toMatchObject({code: 'EPERM'})
    const coded = Object.assign(new Error('ENOENT: no such file'), {code: 'ENOENT', errno: -2})
    expect(withErrorCode(coded)).toMatchObject({code: 'ENOENT', message: 'ENOENT: no such file'})
    expect(withErrorCode(node24('Something else'))).toMatchObject({code: ''})
  })

  it('retries it on Windows like EBUSY, a code-less one too, and rethrows it with its code', () => {
    let calls = 0
    expect(() =>
      retryOnBusySync(() => {
        calls++
        throw node24('Device or resource busy')
      }, {os: 'win32', run: noRun}, [1, 1]),
    ).toThrow(expect.objectContaining({code: 'EBUSY', message: expect.stringContaining('EBUSY')}))
    expect(calls).toBe(3)
    let unknown = 0
    expect(() =>
      retryOnBusySync(() => {
        unknown++
        throw node24('Der Prozess kann nicht auf die Datei zugreifen')
      }, {os: 'win32', run: noRun}, [1]),
    ).toThrow('Unknown error')
    expect(unknown).toBe(2)
  })
})

/** A fake runner: answers by the first matching rule and records every call. */
function fakeContext(os: string, answer: (file: string, args: string[]) => string) {
  const calls: Array<[string, string[]]> = []
  const ctx: PlatformContext = {
    os,
    run(file, args) {
      calls.push([file, args])
      return answer(file, args)
    },
  }
  return {ctx, calls}
}
const exitError = (status: number) => Object.assign(new Error(`exit ${status}`), {status})

describe('darwin, faked ps', () => {
  const psStat = (pid: number) => ['ps', ['-o', 'stat=', '-o', 'lstart=', '-p', String(pid)]]

  it('parses lstart and treats zombies, empty output and failures as gone', () => {
    const outputs: Record<number, string> = {123: 'Ss   Mon Nov 30 04:31:07 2026\n', 124: 'Z    Mon Nov 30 04:31:07 2026\n', 125: ''}
    const {ctx, calls} = fakeContext('darwin', (_file, args) => {
      const out = outputs[Number(args.at(-1))]
      if (out === undefined) throw exitError(1)
      return out
    })
    expect(processStartTime(123, ctx)).toBe('Mon Nov 30 04:31:07 2026')
    expect(calls).toEqual([psStat(123)])
    expect(processStartTime(124, ctx)).toBeNull()
    expect(processStartTime(125, ctx)).toBeNull()
    expect(processStartTime(126, ctx)).toBeNull()
    expect(isSameProcess({pid: 123, startTime: 'Mon Nov 30 04:31:07 2026'}, ctx)).toBe(true)
    expect(isSameProcess({pid: 123, startTime: 'Mon Nov 30 04:31:08 2026'}, ctx)).toBe(false)
    expect(isProcessAlive(124, ctx)).toBe(false)
  })

  it('walks ppid links from ps -A and skips zombies and vanished processes', () => {
    const table = '    1     0\n  100     1\n  200   100\n  201   100\n  202   100\n  300   200\n  400     1\n  500   400\n'
    const {ctx, calls} = fakeContext('darwin', (_file, args) => {
      if (args[0] === '-A') return table
      const pid = Number(args.at(-1))
      if (pid === 201) return 'Z    Mon Nov 30 04:31:07 2026\n'
      if (pid === 202) throw exitError(1)
      return `S    Mon Nov 30 04:31:${String(pid % 60).padStart(2, '0')} 2026\n`
    })
    expect(listDescendants(100, ctx)).toEqual([
      {pid: 200, startTime: 'Mon Nov 30 04:31:20 2026'},
      {pid: 300, startTime: 'Mon Nov 30 04:31:00 2026'},
    ])
    expect(calls[0]).toEqual(['ps', ['-A', '-o', 'pid=', '-o', 'ppid=']])
    expect(calls.slice(1).map((c) => c[1].at(-1))).toEqual(['200', '201', '202', '300'])
  })

  it('spawns workers detached without windowsHide', () => {
    expect(workerSpawnOptions(fakeContext('darwin', () => '').ctx)).toEqual({detached: true, windowsHide: false})
  })
})

describe('win32, faked PowerShell and taskkill', () => {
  const startCmd = (pid: number) => [
    'powershell.exe',
    [
      '-NoProfile',
      '-NonInteractive',
      '-Command',
      `(Get-CimInstance Win32_Process -Filter 'ProcessId=${pid}' -ErrorAction Stop).CreationDate.ToFileTimeUtc()`,
    ],
  ]

  it('reads the start time and rejects junk and failures', () => {
    const {ctx, calls} = fakeContext('win32', (_file, args) => {
      const cmd = args[3]
      if (cmd.includes('ProcessId=4242')) return '133456789012345678\r\n'
      if (cmd.includes('ProcessId=4243')) return 'Get-CimInstance : access denied\r\n'
      if (cmd.includes('ProcessId=4244')) return ''
      throw exitError(1)
    })
    expect(processStartTime(4242, ctx)).toBe('133456789012345678')
    expect(calls).toEqual([startCmd(4242)])
    expect(processStartTime(4243, ctx)).toBeNull()
    expect(processStartTime(4244, ctx)).toBeNull()
    expect(processStartTime(4245, ctx)).toBeNull()
  })

  it('lists descendants from CIM and ignores links to a recycled parent pid', () => {
    const listing = [
      '0 0 0',
      '4 0 133000000000000000',
      '100 4 133000000000001000',
      '200 100 133000000000002000',
      '300 200 133000000000003000',
      // ParentProcessId 100, but created before 100 existed: its real parent died and 100 was recycled.
      '150 100 132999999999999999',
      '400 4 133000000000004000',
      '',
    ].join('\r\n')
    const {ctx, calls} = fakeContext('win32', () => listing)
    expect(listDescendants(100, ctx)).toEqual([
      {pid: 200, startTime: '133000000000002000'},
      {pid: 300, startTime: '133000000000003000'},
    ])
    expect(calls).toEqual([
      [
        'powershell.exe',
        [
          '-NoProfile',
          '-NonInteractive',
          '-Command',
          "Get-CimInstance Win32_Process | ForEach-Object { if ($_.CreationDate) { '{0} {1} {2}' -f $_.ProcessId, $_.ParentProcessId, $_.CreationDate.ToFileTimeUtc() } }",
        ],
      ],
    ])
    expect(listDescendants(999, ctx)).toEqual([]) // root gone: no provable descendants
  })

  it('kills trees with taskkill: /T /F for SIGKILL, /T alone as a close request', () => {
    const {ctx, calls} = fakeContext('win32', () => 'SUCCESS\r\n')
    expect(signalProcessGroup(4242, 'SIGKILL', ctx)).toBe(true)
    expect(signalProcessGroup(4242, 'SIGTERM', ctx)).toBe(true)
    expect(calls).toEqual([
      ['taskkill', ['/T', '/F', '/PID', '4242']],
      ['taskkill', ['/T', '/PID', '4242']],
    ])
  })

  it('reports a missing process as false once it is really gone, and rethrows a failed forced kill of a live one', () => {
    const gone = fakeContext('win32', (file) => {
      if (file === 'taskkill') throw exitError(128)
      return '' // no such process: CIM answers nothing
    })
    expect(signalProcessGroup(4242, 'SIGKILL', gone.ctx)).toBe(false)
    expect(gone.calls).toEqual([['taskkill', ['/T', '/F', '/PID', '4242']], startCmd(4242)])

    const stubborn = fakeContext('win32', (file) => {
      if (file === 'taskkill') throw exitError(1)
      return '133456789012345678\r\n' // still alive
    })
    expect(() => signalProcessGroup(4242, 'SIGKILL', stubborn.ctx)).toThrow('exit 1')
    // Without /F, taskkill refuses windowless console processes: best effort, the caller escalates.
    expect(signalProcessGroup(4242, 'SIGTERM', stubborn.ctx)).toBe(true)
  })

  it("does not believe exit 128 about a live process (Wine's answer without /F)", () => {
    const {ctx} = fakeContext('win32', (file) => {
      if (file === 'taskkill') throw exitError(128)
      return '133456789012345678\r\n' // alive all along
    })
    // A close request that did nothing is still best effort, not "already gone"…
    expect(signalProcessGroup(4242, 'SIGTERM', ctx)).toBe(true)
    // …and a forced kill that did nothing is an error, not a success.
    expect(() => signalProcessGroup(4242, 'SIGKILL', ctx)).toThrow('exit 128')
  })

  it('a taskkill without /T (exit 1, as Wine\'s) still ends the process itself; the caller sweeps the rest', () => {
    let alive = true
    const {ctx, calls} = fakeContext('win32', (file, args) => {
      if (file === 'taskkill') {
        if (args.includes('/T')) throw exitError(1) // "invalid option"
        alive = false
        return 'SUCCESS\r\n'
      }
      return alive ? '133456789012345678\r\n' : ''
    })
    expect(signalProcessGroup(4242, 'SIGKILL', ctx)).toBe(true)
    expect(calls.filter(([file]) => file === 'taskkill')).toEqual([
      ['taskkill', ['/T', '/F', '/PID', '4242']],
      ['taskkill', ['/F', '/PID', '4242']],
    ])
    expect(alive).toBe(false)
  })

  it('signals an identity without /T, and only when the start time matches', () => {
    const {ctx, calls} = fakeContext('win32', (file) => (file === 'taskkill' ? 'SUCCESS\r\n' : '133456789012345678\r\n'))
    expect(signalIdentity({pid: 4242, startTime: '133456789012345679'}, 'SIGKILL', ctx)).toBe(false)
    expect(calls).toEqual([startCmd(4242)])
    calls.length = 0
    expect(signalIdentity({pid: 4242, startTime: '133456789012345678'}, 'SIGKILL', ctx)).toBe(true)
    expect(signalIdentity({pid: 4242, startTime: '133456789012345678'}, 'SIGINT', ctx)).toBe(true)
    expect(calls).toEqual([startCmd(4242), ['taskkill', ['/F', '/PID', '4242']], startCmd(4242), ['taskkill', ['/PID', '4242']]])
  })

  it('compares start times only of one form, and never guesses', () => {
    expect(startedNoEarlierThan('1000', '999')).toBe(true)
    expect(startedNoEarlierThan('1000', '1000')).toBe(true)
    expect(startedNoEarlierThan('999', '1000')).toBe(false)
    expect(startedNoEarlierThan('133456789012345679', '133456789012345678')).toBe(true)
    expect(startedNoEarlierThan('Tue Dec  1 06:00:01 2026', 'Tue Dec  1 06:00:00 2026')).toBe(true)
    expect(startedNoEarlierThan('Tue Dec  1 05:59:59 2026', 'Tue Dec  1 06:00:00 2026')).toBe(false)
    expect(startedNoEarlierThan('1000', 'Tue Dec  1 06:00:00 2026')).toBe(false)
    expect(startedNoEarlierThan('unknown', 'unknown')).toBe(false)
  })

  it('sends nothing for SIGCONT: Windows has no frozen process to wake, and taskkill would end it', () => {
    const {ctx, calls} = fakeContext('win32', (file) => (file === 'taskkill' ? 'SUCCESS\r\n' : '133456789012345678\r\n'))
    expect(signalIdentity({pid: 4242, startTime: '133456789012345678'}, 'SIGCONT', ctx)).toBe(false)
    expect(calls.filter(([file]) => file === 'taskkill')).toEqual([])
  })

  it('identityState: a pid that does not exist is gone with no PowerShell; a failed query is unknown, never another process', () => {
    const exists = new Set([4242])
    let answer = '133456789012345678\r\n'
    const {ctx, calls} = fakeContext('win32', () => answer)
    ctx.exists = (pid) => exists.has(pid)
    expect(identityState({pid: 4243, startTime: '133456789012345678'}, ctx)).toBe('gone')
    expect(calls).toEqual([])
    expect(identityState({pid: 4242, startTime: '133456789012345678'}, ctx)).toBe('same')
    expect(identityState({pid: 4242, startTime: '133456789012345677'}, ctx)).toBe('other')
    answer = '' // Wine's stub: exit 0, nothing printed
    expect(identityState({pid: 4242, startTime: '133456789012345678'}, ctx)).toBe('unknown')
    expect(isSameProcess({pid: 4242, startTime: '133456789012345678'}, ctx)).toBe(false)
    calls.length = 0
    // recorded without a start time: nothing to compare, nothing asked
    expect(identityState({pid: 4242, startTime: 'unknown'}, ctx)).toBe('unknown')
    expect(calls).toEqual([])
  })

  it('processTable: one query for every process; an empty answer is no table at all', () => {
    const listing = ['100 4 133000000000001000', '200 100 133000000000002000', ''].join('\r\r\n')
    const {ctx, calls} = fakeContext('win32', () => listing)
    const table = processTable(ctx)!
    expect(identityInTable({pid: 200, startTime: '133000000000002000'}, table)).toBe('same')
    expect(identityInTable({pid: 200, startTime: '133000000000002001'}, table)).toBe('other')
    expect(identityInTable({pid: 300, startTime: '133000000000002000'}, table)).toBe('gone')
    expect(identityInTable({pid: 200, startTime: '133000000000002000'}, null)).toBe('unknown')
    expect(calls).toHaveLength(1)
    expect(processTable(fakeContext('win32', () => '').ctx)).toBeNull()
    expect(processTable(fakeContext('linux', () => listing).ctx)).toBeNull()
  })

  it('spawns workers detached and hidden', () => {
    expect(workerSpawnOptions(fakeContext('win32', () => '').ctx)).toEqual({detached: true, windowsHide: true})
  })
})

describe('what has no Windows meaning', () => {
  const ctx = (os: string): PlatformContext => ({os, run: () => ''})
  it('Slurm is refused on win32 with a sentence, and available elsewhere', () => {
    expect(slurmUnavailable(ctx('win32'))).toMatch(/^--executor slurm is not available on Windows: .+/)
    expect(slurmUnavailable(ctx('linux'))).toBeNull()
    expect(slurmUnavailable(ctx('darwin'))).toBeNull()
  })
  it('exits carry a signal everywhere but Windows', () => {
    expect(exitShowsSignal(ctx('win32'))).toBe(false)
    expect(exitShowsSignal(ctx('linux'))).toBe(true)
    expect(exitShowsSignal(ctx('darwin'))).toBe(true)
  })
})

describe('argvTooLong', () => {
  const ctx = (os: string): PlatformContext => ({os, run: () => ''})
  const KiB = 1024
  it('holds each argument to 128 KiB with its NUL on Linux, the whole line to 32,767 characters on Windows, and leaves macOS to the OS', () => {
    expect(argvTooLong(['claude', '-p', 'x'.repeat(128 * KiB - 1)], ctx('linux'))).toBeNull()
    expect(argvTooLong(['claude', '-p', 'x'.repeat(128 * KiB)], ctx('linux'))).toBe(`an argument of ${128 * KiB} bytes, where Linux takes at most ${128 * KiB - 1}`)
    // bytes, not characters: é is two
    expect(argvTooLong(['é'.repeat(64 * KiB)], ctx('linux'))).not.toBeNull()
    // many arguments each under the cap: the OS's whole limit is far above them
    expect(argvTooLong(Array.from({length: 8}, () => 'x'.repeat(100 * KiB)), ctx('linux'))).toBeNull()
    expect(argvTooLong(['a', 'x'.repeat(32_765)], ctx('win32'))).toBeNull()
    expect(argvTooLong(['a', 'x'.repeat(32_766)], ctx('win32'))).toBe('a command line of 32768 characters, where Windows takes at most 32767')
    expect(argvTooLong(['a', 'x'.repeat(512 * KiB)], ctx('darwin'))).toBeNull()
  })

  linuxOnly('the Linux limit').it("is the real kernel's: one byte more and the OS refuses to start it", () => {
    const run = (arg: string) => spawnSync('/bin/true', [arg]).error?.message ?? 'started'
    expect(run('x'.repeat(128 * KiB - 1))).toBe('started')
    expect(run('x'.repeat(128 * KiB))).toMatch(/E2BIG/)
  })
})

describe('signalNumber and currentPlatform', () => {
  it('maps signal names to numbers for 128 + n exit codes', () => {
    expect(signalNumber('SIGTERM')).toBe(15)
    expect(signalNumber('SIGKILL')).toBe(9)
    expect(signalNumber('SIGINT')).toBe(2)
    expect(() => signalNumber('SIGNOPE')).toThrow(RangeError)
  })

  it('describes this machine and runs commands for real', () => {
    const ctx = currentPlatform()
    expect(ctx.os).toBe(process.platform)
    expect(ctx.run(process.execPath, ['-e', 'process.stdout.write(process.env.LC_ALL)'])).toBe('C')
    expect(() => ctx.run(process.execPath, ['-e', 'process.exit(3)'])).toThrow()
  })
})

describe('listGroupMembers', () => {
  it('darwin: members of the group by ps -A pgid, the leader itself left out, start times checked', () => {
    const table = '  100   100\n  200   100\n  201   100\n  300   300\n'
    const {ctx, calls} = fakeContext('darwin', (_file, args) => {
      if (args[0] === '-A') return table
      if (Number(args.at(-1)) === 201) return 'Z    Mon Nov 30 04:31:07 2026\n'
      return 'S    Mon Nov 30 04:31:07 2026\n'
    })
    expect(listGroupMembers(100, ctx)).toEqual([{pid: 200, startTime: 'Mon Nov 30 04:31:07 2026'}])
    expect(calls[0]).toEqual(['ps', ['-A', '-o', 'pid=', '-o', 'pgid=']])
  })

  it('win32 has no groups to ask about; a bad pid has no members', () => {
    const {ctx, calls} = fakeContext('win32', () => '')
    expect(listGroupMembers(100, ctx)).toEqual([])
    expect(listGroupMembers(0, currentPlatform())).toEqual([])
    expect(calls).toEqual([])
  })

  linuxOnly('process groups and sessions read from /proc').it('linux: a background job of a detached leader is found after the leader is gone', async () => {
    const leader = spawn('sh', ['-c', 'sleep 30 & echo $!'], {detached: true, stdio: ['ignore', 'pipe', 'ignore']})
    const job = Number(await new Promise<string>((resolve) => leader.stdout!.once('data', (d) => resolve(String(d).trim()))))
    try {
      await new Promise((resolve) => leader.once('exit', resolve))
      expect(listGroupMembers(leader.pid!).map((m) => m.pid)).toContain(job)
    } finally {
      process.kill(job, 'SIGKILL')
    }
  })
})

describe('resolveExecutable', () => {
  const files = new Set(['/usr/bin/claude', '/opt/x/bin/codex', 'C:\\tools\\codex.CMD', '/w/rel/tool'])
  const runnable = (file: string) => files.has(file)

  it('posix: the first PATH entry that has it; a name with a slash against cwd; null when nowhere', () => {
    const ctx = fakeContext('linux', () => '').ctx
    expect(resolveExecutable('codex', {pathEnv: '/usr/bin:/opt/x/bin', cwd: '/w'}, ctx, runnable)).toBe('/opt/x/bin/codex')
    expect(resolveExecutable('claude', {pathEnv: '/usr/bin:/opt/x/bin', cwd: '/w'}, ctx, runnable)).toBe('/usr/bin/claude')
    expect(resolveExecutable('rel/tool', {pathEnv: '', cwd: '/w'}, ctx, runnable)).toBe('/w/rel/tool')
    expect(resolveExecutable('nope', {pathEnv: '/usr/bin', cwd: '/w'}, ctx, runnable)).toBeNull()
  })

  it('win32: ; between entries and PATHEXT tried in order', () => {
    const ctx = fakeContext('win32', () => '').ctx
    expect(resolveExecutable('codex', {pathEnv: 'C:\\nothing;C:\\tools', cwd: 'C:\\w', pathExt: '.EXE;.CMD'}, ctx, runnable)).toBe('C:\\tools\\codex.CMD')
    expect(resolveExecutable('codex', {pathEnv: 'C:\\tools', cwd: 'C:\\w', pathExt: '.EXE'}, ctx, runnable)).toBeNull()
  })
})

describe('memoryFileSystem', () => {
  it("names tmpfs and ramfs by Linux's statfs types, and nothing else or elsewhere", () => {
    const linux = fakeContext('linux', () => '').ctx
    expect(memoryFileSystem('/x', linux, () => 0x01021994)).toBe('tmpfs')
    expect(memoryFileSystem('/x', linux, () => 0x858458f6)).toBe('ramfs')
    // ext4, NFS: nothing a path can tell
    expect(memoryFileSystem('/x', linux, () => 0xef53)).toBeNull()
    expect(memoryFileSystem('/x', linux, () => 0x6969)).toBeNull()
    expect(memoryFileSystem('/x', fakeContext('darwin', () => '').ctx, () => 0x01021994)).toBeNull()
    expect(memoryFileSystem('/x', linux, () => { throw new Error('ENOENT') })).toBeNull()
  })

  linuxOnly('/proc/self/mounts').it('reads the real type of mounted directories, as /proc/self/mounts names them', () => {
    const mounts = readFileSync('/proc/self/mounts', 'utf8').split('\n').map((line) => line.split(' '))
    const tmpfs = mounts.find((m) => m[2] === 'tmpfs' && existsSync(m[1]))
    const disk = mounts.find((m) => ['ext4', 'xfs', 'btrfs'].includes(m[2]) && existsSync(m[1]))
    if (tmpfs) expect(memoryFileSystem(tmpfs[1])).toBe('tmpfs')
    if (disk) expect(memoryFileSystem(disk[1])).toBeNull()
    expect(tmpfs ?? disk).toBeDefined()
  })
})
