// Cross-process locks: a second acquirer waits for a live holder (in this process or
// another), gives up with LockBusyError naming the holder, and takes over a lock whose
// holder died (dead pid, recycled pid, or an owner file never written).

import {spawn, type ChildProcess} from 'node:child_process'
import {existsSync, mkdirSync, readdirSync, rmSync, utimesSync, watch, writeFileSync} from 'node:fs'
import path from 'node:path'
import {afterEach, describe, expect, it} from 'vitest'

import {acquireLock, FOREIGN_STALE_MS, LockBusyError, stateLockPath, WIN_TRUSTED_HOLD_MS, withLock} from '../../src/state/lock.js'
import {hostname} from 'node:os'
import {readFileSync} from 'node:fs'
import {processStartTime} from '../../src/platform/platform.js'
import {ensureStateDir} from '../../src/state/statedir.js'
import {cleanupStateDirs, fixture, isAlive, makeStateDir, waitFor} from '../helpers/cli.js'
import {childrenKilledAfterEach} from '../helpers/sleepers.js'
import {fakeWindows} from '../helpers/fake-windows.js'
import {linuxOnly} from '../helpers/skips.js'

afterEach(() => cleanupStateDirs())
// registered after the clean-up, so run before it, as the kill came first
const children = childrenKilledAfterEach()

function lockPath(): string {
  const dir = makeStateDir()
  ensureStateDir(dir)
  return stateLockPath(dir, 'test')
}

const settled = <T>(promise: Promise<T>) => {
  const state: {done: boolean; value?: T; error?: unknown} = {done: false}
  promise.then(
    (value) => Object.assign(state, {done: true, value}),
    (error) => Object.assign(state, {done: true, error}),
  )
  return state
}

function holdInChild(lock: string): Promise<{child: ChildProcess; out: () => string}> {
  const child = spawn(process.execPath, [fixture('core-lock-holder.mjs'), lock], {stdio: ['pipe', 'pipe', 'inherit']})
  children.push(child)
  let out = ''
  child.stdout!.on('data', (chunk) => (out += chunk))
  return waitFor(() => out.includes('held') && {child, out: () => out}, {message: 'child to hold the lock'})
}

function plantOwner(lock: string, owner: unknown): void {
  mkdirSync(lock, {mode: 0o700})
  writeFileSync(path.join(lock, 'owner.json'), JSON.stringify(owner))
}

describe('acquireLock', () => {
  it('makes a second acquirer in the same process wait until the first releases', async () => {
    const lock = lockPath()
    const release = await acquireLock(lock)
    const second = settled(acquireLock(lock, {waitMs: 10_000, pollMs: 10}))
    // give the waiter many poll rounds: it must still be waiting
    await new Promise((resolve) => setTimeout(resolve, 200))
    expect(second.done).toBe(false)
    release()
    await waitFor(() => second.done, {message: 'second acquirer'})
    expect(second.error).toBeUndefined()
    ;(second.value as () => void)()
    expect(existsSync(lock)).toBe(false)
  })

  it('serialises critical sections: withLock bodies never overlap', async () => {
    const lock = lockPath()
    let inside = 0
    let overlapped = false
    const body = async () => {
      inside++
      if (inside > 1) overlapped = true
      await new Promise((resolve) => setTimeout(resolve, 5))
      inside--
    }
    await Promise.all(Array.from({length: 8}, () => withLock(lock, body, {pollMs: 2})))
    expect(overlapped).toBe(false)
  })

  it('waits for a holder in another process, and fails fast naming it when told not to wait', async () => {
    const lock = lockPath()
    const {child, out} = await holdInChild(lock)
    const busy = await acquireLock(lock, {waitMs: 0}).then(
      () => null,
      (error: unknown) => error,
    )
    expect(busy).toBeInstanceOf(LockBusyError)
    expect((busy as LockBusyError).holder?.pid).toBe(child.pid)
    expect((busy as LockBusyError).message).toContain(`pid ${child.pid}`)

    const waiting = settled(acquireLock(lock, {waitMs: 20_000}))
    await new Promise((resolve) => setTimeout(resolve, 200))
    expect(waiting.done).toBe(false)
    child.stdin!.end()
    await waitFor(() => waiting.done, {message: 'lock after the child released it'})
    expect(out()).toContain('released')
    expect(waiting.error).toBeUndefined()
    ;(waiting.value as () => void)()
  })

  linuxOnly('inotify (fs.watch sees every folder made)').it('waiting for a live holder makes no steal lock: a waiter killed mid-poll leaves none stale', async () => {
    const lock = lockPath()
    const {child} = await holdInChild(lock)
    const made: string[] = []
    const watcher = watch(path.dirname(lock), (_event, name) => made.push(String(name)))
    await expect(acquireLock(lock, {waitMs: 400, pollMs: 10})).rejects.toBeInstanceOf(LockBusyError)
    await new Promise((resolve) => setTimeout(resolve, 50))
    watcher.close()
    expect(made.filter((name) => name.includes('.steal'))).toEqual([])
    child.stdin!.end()
  })

  it('takes over a lock whose holder was killed', async () => {
    const lock = lockPath()
    const {child} = await holdInChild(lock)
    child.kill('SIGKILL')
    await waitFor(() => !isAlive(child.pid!), {timeout: 10_000, message: 'holder to die'})
    const release = await acquireLock(lock, {waitMs: 5000})
    expect(existsSync(path.join(lock, 'owner.json'))).toBe(true)
    release()
    // the takeover leaves no helper dirs behind
    expect(readdirSync(path.dirname(lock)).filter((name) => name.startsWith('test.lock'))).toEqual([])
  })

  it('takes over a lock naming a live pid with another start time (a recycled pid)', async () => {
    const lock = lockPath()
    plantOwner(lock, {pid: process.pid, startTime: `${processStartTime(process.pid)}0`})
    // older than a hold Windows trusts without asking (WIN_TRUSTED_HOLD_MS); elsewhere age does not matter
    const then = new Date(Date.now() - 2 * WIN_TRUSTED_HOLD_MS)
    utimesSync(path.join(lock, 'owner.json'), then, then)
    const release = await acquireLock(lock, {waitMs: 0})
    release()
  })

  it('respects a lock held by this very process (same pid and start time)', async () => {
    const lock = lockPath()
    plantOwner(lock, {pid: process.pid, startTime: processStartTime(process.pid)})
    await expect(acquireLock(lock, {waitMs: 100, pollMs: 10})).rejects.toBeInstanceOf(LockBusyError)
  })

  it('leaves an ownerless lock alone while it may still be being created, then takes it over', async () => {
    const lock = lockPath()
    mkdirSync(lock, {mode: 0o700})
    await expect(acquireLock(lock, {waitMs: 0})).rejects.toBeInstanceOf(LockBusyError)
    const old = new Date(Date.now() - 60_000)
    utimesSync(lock, old, old)
    const release = await acquireLock(lock, {waitMs: 0})
    release()
  })

  it("names its host, and a lock of another host's process is never judged by that pid here: taken over only once far older than any hold", async () => {
    const lock = lockPath()
    const release = await acquireLock(lock)
    expect(JSON.parse(readFileSync(path.join(lock, 'owner.json'), 'utf8'))).toMatchObject({pid: process.pid, host: hostname()})
    release()
    // a runner on a node holds it: its pid names no process here (or a stranger)
    plantOwner(lock, {pid: 999_999, startTime: '1', host: 'node7'})
    await expect(acquireLock(lock, {waitMs: 100, pollMs: 10})).rejects.toBeInstanceOf(LockBusyError)
    const recent = new Date(Date.now() - FOREIGN_STALE_MS / 2)
    utimesSync(lock, recent, recent)
    await expect(acquireLock(lock, {waitMs: 0})).rejects.toBeInstanceOf(LockBusyError)
    const old = new Date(Date.now() - FOREIGN_STALE_MS - 60_000)
    utimesSync(lock, old, old)
    const taken = await acquireLock(lock, {waitMs: 0})
    taken()
    // this host's own lock with a dead holder, written before hosts were: taken over at once, as ever
    plantOwner(lock, {pid: 999_999, startTime: '1'})
    ;(await acquireLock(lock, {waitMs: 0}))()
    plantOwner(lock, {pid: 999_999, startTime: '1', host: hostname()})
    ;(await acquireLock(lock, {waitMs: 0}))()
  })

  linuxOnly('SIGSTOP and /proc/<pid>/stat').it('a lock holds its owner from the moment it exists: no one can see it ownerless and take it from a maker held up before writing it', async () => {
    const lock = lockPath()
    const child = spawn(process.execPath, [fixture('core-lock-churn.mjs'), lock, '1000000'], {stdio: ['ignore', 'pipe', 'inherit']})
    children.push(child)
    await new Promise((resolve) => child.once('spawn', resolve))
    const stopped = () => readFileSync(`/proc/${child.pid}/stat`, 'utf8').split(') ')[1].startsWith('T')
    let seen = 0
    let ownerless = 0
    // The maker held up at random moments (as a busy disk holds it up): whenever
    // its lock is there, its owner is in it. Frozen, nothing races the look.
    for (let round = 0; round < 400; round++) {
      await new Promise((resolve) => setTimeout(resolve, Math.random() * 3))
      child.kill('SIGSTOP')
      while (!stopped()) await new Promise((resolve) => setImmediate(resolve))
      if (existsSync(lock)) {
        seen++
        if (!existsSync(path.join(lock, 'owner.json'))) ownerless++
      }
      child.kill('SIGCONT')
    }
    expect(seen).toBeGreaterThan(10)
    expect(ownerless).toBe(0)
  })

  it('a take-over removes only the lock it judged stale: a fresh lock put in its place meanwhile is put back', async () => {
    const lock = lockPath()
    const dead = {pid: 999_990, startTime: 'Mon Jan  1 00:00:00 2024', host: hostname()}
    const fresh = {pid: 999_991, startTime: 'Tue Jan  2 00:00:00 2024', host: hostname()}
    plantOwner(lock, dead)
    let swapped = false
    let asked = 0
    // ps as macOS answers it: while the dead holder is judged again (under the
    // steal lock, before the removal), another contender removes its lock and a
    // third takes the lock afresh.
    const ctx = {
      os: 'darwin' as const,
      run: (_cmd: string, args: string[]) => {
        const pid = Number(args.at(-1))
        if (pid === dead.pid) {
          if (++asked === 2) {
            swapped = true
            rmSync(lock, {recursive: true})
            plantOwner(lock, fresh)
          }
          return ''
        }
        if (pid === fresh.pid) return `S    ${fresh.startTime}`
        if (pid === process.pid) return 'S    Wed Jan  3 00:00:00 2024'
        return ''
      },
    }
    await expect(acquireLock(lock, {waitMs: 0, platform: ctx})).rejects.toBeInstanceOf(LockBusyError)
    expect(swapped).toBe(true)
    expect(JSON.parse(readFileSync(path.join(lock, 'owner.json'), 'utf8'))).toEqual(fresh)
    expect(readdirSync(path.dirname(lock)).filter((name) => name.includes('.released') || name.includes('.steal'))).toEqual([])
  })

  it('a release called twice does not remove a lock someone else took in between', async () => {
    const lock = lockPath()
    const first = await acquireLock(lock)
    first()
    const second = await acquireLock(lock)
    first()
    expect(existsSync(lock)).toBe(true)
    second()
    expect(existsSync(lock)).toBe(false)
  })

  it('a release into a grave frees the lock in one rename and leaves its dir there for the caller; an unusable grave releases in place', async () => {
    const lock = lockPath()
    const grave = path.join(path.dirname(path.dirname(lock)), 'grave')
    const release = await acquireLock(lock)
    release(grave)
    expect(existsSync(lock)).toBe(false)
    expect(readdirSync(grave)).toEqual(['owner.json'])
    expect(JSON.parse(readFileSync(path.join(grave, 'owner.json'), 'utf8')).pid).toBe(process.pid)
    // Free at once: a waiter-less acquire gets it; a second release of the first holder touches nothing.
    const next = await acquireLock(lock, {waitMs: 0})
    release(grave)
    expect(existsSync(lock)).toBe(true)
    // A grave already taken (a non-empty folder): the ordinary release, nothing left behind in locks/.
    next(grave)
    expect(existsSync(lock)).toBe(false)
    expect(readdirSync(path.dirname(lock))).toEqual([])
    expect(readdirSync(grave)).toEqual(['owner.json'])
  })
})

// Windows, with the platform injected: PowerShell (the only way to read a
// start time there) is counted and may fail as Wine's empty stub does; whether
// a pid exists is asked of the real OS, for real processes of this test.
describe('win32 holders: judged without PowerShell while they live', () => {
  const windows = fakeWindows
  const age = (lock: string, ms: number) => {
    const then = new Date(Date.now() - ms)
    utimesSync(path.join(lock, 'owner.json'), then, then)
  }
  async function deadPid(): Promise<number> {
    const child = spawn(process.execPath, ['-e', '0'])
    await new Promise((resolve) => child.on('exit', resolve))
    return child.pid!
  }

  it('waiting for a live holder starts no program, and gives up busy', async () => {
    const {ctx, calls} = windows()
    const lock = lockPath()
    const release = await acquireLock(lock, {platform: ctx})
    const owner = JSON.parse(readFileSync(path.join(lock, 'owner.json'), 'utf8'))
    expect(owner).toMatchObject({pid: process.pid, host: hostname()})
    expect(typeof owner.startedAt).toBe('number')
    await expect(acquireLock(lock, {waitMs: 300, pollMs: 10, platform: ctx})).rejects.toBeInstanceOf(LockBusyError)
    expect(calls).toEqual([])
    release()
  })

  it('a holder whose pid no longer exists is taken over at once, without PowerShell', async () => {
    const {ctx, calls} = windows()
    const lock = lockPath()
    mkdirSync(lock)
    writeFileSync(path.join(lock, 'owner.json'), JSON.stringify({pid: await deadPid(), startTime: '133000000000000000', host: hostname()}))
    const release = await acquireLock(lock, {waitMs: 0, platform: ctx})
    expect(calls).toEqual([])
    release()
  })

  it('PowerShell failing: an old lock of a live pid keeps excluding (never stolen on a failed query)', async () => {
    const {ctx, calls} = windows(() => '')
    const lock = lockPath()
    mkdirSync(lock)
    writeFileSync(path.join(lock, 'owner.json'), JSON.stringify({pid: process.pid, startTime: 'unknown', startedAt: Math.round(performance.timeOrigin), host: hostname()}))
    age(lock, 5 * 60_000)
    await expect(acquireLock(lock, {waitMs: 200, pollMs: 20, platform: ctx})).rejects.toBeInstanceOf(LockBusyError)
    expect(calls.length).toBeGreaterThan(0)
    // Past a foreign host's staleness even a holder nobody can check is given up on.
    age(lock, FOREIGN_STALE_MS + 60_000)
    const release = await acquireLock(lock, {waitMs: 0, platform: ctx})
    release()
  })

  it('an old lock whose live pid now has another start time is stale; one that matches is held, asked once', async () => {
    const recorded = '133000000000000000'
    const oldLock = () => {
      const lock = lockPath()
      mkdirSync(lock)
      writeFileSync(path.join(lock, 'owner.json'), JSON.stringify({pid: process.pid, startTime: recorded, host: hostname()}))
      age(lock, 5 * 60_000)
      return lock
    }
    const same = windows(() => `${recorded}\r\n`)
    await expect(acquireLock(oldLock(), {waitMs: 300, pollMs: 10, platform: same.ctx})).rejects.toBeInstanceOf(LockBusyError)
    expect(same.calls).toHaveLength(1) // confirmed once, not once per poll
    const other = windows(() => '133000000000099999\r\n')
    const release = await acquireLock(oldLock(), {waitMs: 0, platform: other.ctx})
    release()
  })

  it('a holder that recorded only its own clock is matched on it within a tolerance', async () => {
    const startedAt = Date.parse('2026-12-02T07:00:00Z')
    const filetime = (ms: number) => String((BigInt(ms) + 11644473600000n) * 10_000n)
    const write = (lock: string) => {
      mkdirSync(lock)
      writeFileSync(path.join(lock, 'owner.json'), JSON.stringify({pid: process.pid, startTime: 'unknown', startedAt, host: hostname()}))
      age(lock, 5 * 60_000)
    }
    const held = lockPath()
    write(held)
    await expect(acquireLock(held, {waitMs: 0, platform: windows(() => filetime(startedAt - 400)).ctx})).rejects.toBeInstanceOf(LockBusyError)
    const reused = lockPath()
    write(reused)
    const release = await acquireLock(reused, {waitMs: 0, platform: windows(() => filetime(startedAt + 60_000)).ctx})
    release()
  })
})
