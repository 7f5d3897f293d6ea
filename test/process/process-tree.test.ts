// ProcessTree and executeStopPlan: real process trees on this OS (a child that
// ignores SIGTERM, a grandchild that left the group with setsid, a stranger
// whose start time differs), and the Windows mapping of a plan's steps to
// taskkill through an injected win32 PlatformContext.

import {spawn, type ChildProcess} from 'node:child_process'
import {existsSync, mkdtempSync, readFileSync, rmSync} from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import {afterEach, describe, expect, it} from 'vitest'
import {linuxOnly} from '../helpers/skips.js'
import {isSameProcess, processStartTime, type CommandRunner, type PlatformContext, type ProcessIdentity} from '../../src/platform/platform.js'
import {executeStopPlan, ProcessTree, type StopHooks} from '../../src/process/process-tree.js'
import {planFor, type StopPlan} from '../../src/process/stop-plan.js'
import {fixture, isAlive, killLeftovers, waitFor} from '../helpers/cli.js'


const groups: number[] = []
const pids: number[] = []
const dirs: string[] = []
afterEach(() => {
  killLeftovers(pids, groups)
  for (const dir of dirs.splice(0)) rmSync(dir, {recursive: true, force: true})
})

function tempDir(): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'drover-tree-'))
  dirs.push(dir)
  return dir
}

function spawnGroup(args: string[], env: NodeJS.ProcessEnv = {}): {child: ChildProcess; identity: ProcessIdentity; output: () => string} {
  const child = spawn(process.execPath, args, {detached: true, stdio: ['ignore', 'pipe', 'ignore'], env: {...process.env, ...env}})
  groups.push(child.pid!)
  let text = ''
  child.stdout!.on('data', (chunk: Buffer) => (text += chunk.toString()))
  const startTime = processStartTime(child.pid!)
  if (!startTime) throw new Error('worker died at once')
  return {child, identity: {pid: child.pid!, startTime}, output: () => text}
}

/** Starts control-tree.mjs and waits until its child and setsid grandchild are in place. */
async function spawnTree(): Promise<{identity: ProcessIdentity; tree: {worker: number; child: number; escapee: number}}> {
  const pidsFile = path.join(tempDir(), 'pids.json')
  const {identity} = spawnGroup([fixture('control-tree.mjs'), pidsFile])
  const tree = await waitFor(() => existsSync(pidsFile) && JSON.parse(readFileSync(pidsFile, 'utf8')), {timeout: 15_000, message: 'the tree'})
  pids.push(tree.child, tree.escapee)
  return {identity, tree}
}

function recordingHooks(plan: () => StopPlan): StopHooks & {words: string[]; signals: string[]} {
  const words: string[] = []
  const signals: string[] = []
  return {
    words,
    signals,
    currentPlan: plan,
    writeControl: (word) => words.push(word),
    event: (name, extra) => {
      if (name === 'signal') signals.push(String(extra.signal))
    },
  }
}

linuxOnly('/proc, POSIX signals, setsid').describe('ProcessTree on real processes', () => {
  it('a stop leaves nothing of the tree alive: SIGTERM-ignoring child and setsid grandchild included', async () => {
    const {identity, tree} = await spawnTree()
    const sid = (pid: number) => readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ')[3]
    expect(sid(tree.escapee)).not.toBe(sid(tree.worker)) // the grandchild really left the session and group
    const processTree = new ProcessTree(identity, () => !isSameProcess(identity))
    const hooks = recordingHooks(() => planFor('stop', {graceMs: 500}))
    const outcome = await executeStopPlan(processTree, hooks)
    expect(hooks.words).toEqual(['STOP'])
    expect(hooks.signals).toEqual(['SIGTERM', 'SIGKILL'])
    expect(outcome.forced).toBe(true)
    expect(outcome.killedAfterMs).toBeGreaterThanOrEqual(500)
    for (const pid of [tree.worker, tree.child, tree.escapee]) {
      await waitFor(() => !isAlive(pid), {timeout: 10_000, message: `pid ${pid} to die`})
    }
    expect(processTree.gone()).toBe(true)
  })

  it('remembers a grandchild from its snapshot, so it is swept even after its parent died and it was re-parented', async () => {
    const {identity, tree} = await spawnTree()
    const processTree = new ProcessTree(identity, () => !isSameProcess(identity))
    processTree.snapshot()
    process.kill(tree.child, 'SIGKILL')
    await waitFor(() => !isAlive(tree.child), {timeout: 10_000, message: 'the child to die'})
    expect(isAlive(tree.escapee)).toBe(true)
    processTree.signal('SIGKILL')
    await waitFor(() => !isAlive(tree.escapee) && !isAlive(tree.worker), {timeout: 10_000, message: 'the tree to die'})
  })

  it('a worker that exits on the control word alone ends the plan unforced', async () => {
    const control = path.join(tempDir(), 'control')
    const {identity} = spawnGroup([fixture('control-word.mjs'), 'STOP'], {DROVER_CONTROL_FILE: control})
    const {writeFileSync} = await import('node:fs')
    const processTree = new ProcessTree(identity, () => !isSameProcess(identity))
    const hooks = recordingHooks(() => planFor('drain', {graceMs: 20_000}))
    hooks.writeControl = (word) => {
      hooks.words.push(word)
      writeFileSync(control, `${word}\n`)
    }
    const began = Date.now()
    const outcome = await executeStopPlan(processTree, hooks)
    expect(hooks.words).toEqual(['STOP'])
    expect(hooks.signals).toEqual([])
    expect(outcome).toMatchObject({forced: false, killedAfterMs: null})
    expect(outcome.plan.cause).toBe('drain')
    expect(Date.now() - began).toBeLessThan(20_000)
  })

  it('a stronger plan that replaces the current one starts from its own first step', async () => {
    const {identity, output} = spawnGroup([fixture('control-word.mjs'), 'never'], {DROVER_CONTROL_FILE: path.join(tempDir(), 'control')})
    // It prints its first line only after its SIGTERM handler is in place.
    await waitFor(() => output().includes('listening'), {timeout: 15_000, message: 'the listener to be up'})
    const processTree = new ProcessTree(identity, () => !isSameProcess(identity))
    let plan = planFor('drain', {graceMs: 60_000})
    let replaced = false
    const hooks = recordingHooks(() => plan)
    hooks.waitReplaced = (ms, gone) =>
      new Promise((resolve) => {
        const deadline = Date.now() + ms
        const check = () => {
          if (gone()) return resolve('gone')
          if (!replaced && hooks.words.length === 1) {
            replaced = true
            plan = planFor('cancel')
            return resolve('replaced')
          }
          if (Date.now() >= deadline) return resolve('timeout')
          setTimeout(check, 50)
        }
        setTimeout(check, 100)
      })
    const outcome = await executeStopPlan(processTree, hooks)
    expect(outcome.plan.cause).toBe('cancel')
    // drain's STOP, then cancel's own STOP + SIGTERM, then SIGKILL: the fixture ignores SIGTERM.
    expect(hooks.words).toEqual(['STOP', 'STOP'])
    expect(hooks.signals).toEqual(['SIGTERM', 'SIGKILL'])
    expect(outcome.killedAfterMs).toBeGreaterThanOrEqual(2000)
    expect(outcome.killedAfterMs).toBeLessThan(60_000)
    await waitFor(() => !isAlive(identity.pid), {timeout: 10_000, message: 'the worker to die'})
  })

  it('never signals a pid whose start time is not the recorded one', async () => {
    const {identity: real} = spawnGroup([fixture('sleeper.mjs'), '120'])
    const stranger: ProcessIdentity = {pid: real.pid, startTime: String(Number(real.startTime) + 1)}
    const processTree = new ProcessTree(stranger, () => !isSameProcess(stranger))
    const hooks = recordingHooks(() => planFor('cancel'))
    const outcome = await executeStopPlan(processTree, hooks)
    processTree.signal('SIGKILL')
    processTree.sweep()
    expect(outcome.plan.cause).toBe('cancel')
    expect(processTree.gone()).toBe(true)
    expect(isAlive(real.pid)).toBe(true)
    expect(isSameProcess(real)).toBe(true)
  })
})

// A tiny Windows: processes with parents and start times, PowerShell answering
// the identity and listing scripts, taskkill closing or killing (sub)trees.
class FakeWindows {
  readonly log: string[][] = []
  /** Wine 8's taskkill: no /T (exit 1), and exit 128 for a live windowless process asked without /F. */
  constructor(private readonly wineTaskkill = false) {}

  private readonly procs = new Map<number, {ppid: number; start: string; alive: boolean; closesOnRequest: boolean}>()

  add(pid: number, ppid: number, closesOnRequest: boolean): ProcessIdentity {
    const start = String(133_000_000_000_000_000n + BigInt(pid))
    this.procs.set(pid, {ppid, start, alive: true, closesOnRequest})
    return {pid, startTime: start}
  }

  alive(pid: number): boolean {
    return this.procs.get(pid)?.alive === true
  }

  readonly ctx: PlatformContext = {
    os: 'win32',
    run: ((file, args) => {
      if (file === 'powershell.exe') {
        const script = args.at(-1)!
        const one = /ProcessId=(\d+)/.exec(script)
        if (one) {
          const proc = this.procs.get(Number(one[1]))
          if (!proc?.alive) throw Object.assign(new Error('no such process'), {status: 1})
          return `${proc.start}\r\n`
        }
        return [...this.procs].filter(([, p]) => p.alive).map(([pid, p]) => `${pid} ${p.ppid} ${p.start}`).join('\r\n')
      }
      if (file === 'taskkill') {
        this.log.push(['taskkill', ...args])
        const pid = Number(args.at(-1))
        if (this.wineTaskkill && args.includes('/T')) throw Object.assign(new Error('invalid option'), {status: 1})
        if (!this.alive(pid)) throw Object.assign(new Error('not found'), {status: 128})
        const force = args.includes('/F')
        if (this.wineTaskkill && !force && !this.procs.get(pid)!.closesOnRequest) throw Object.assign(new Error('not found'), {status: 128})
        const targets = args.includes('/T') ? [pid, ...this.descendants(pid)] : [pid]
        for (const target of targets) {
          const proc = this.procs.get(target)!
          if (force || proc.closesOnRequest) proc.alive = false
        }
        return 'SUCCESS\r\n'
      }
      throw new Error(`unexpected command ${file}`)
    }) satisfies CommandRunner,
  }

  private descendants(pid: number): number[] {
    const out: number[] = []
    for (const [child, p] of this.procs) if (p.ppid === pid && p.alive) out.push(child, ...this.descendants(child))
    return out
  }
}

function windowsHooks(win: FakeWindows, plan: StopPlan): StopHooks {
  return {currentPlan: () => plan, writeControl: (word) => win.log.push(['control', word])}
}

const taskkills = (win: FakeWindows) => win.log.filter((entry) => entry[0] === 'taskkill').map((entry) => entry.slice(1).join(' '))

describe('the Windows mapping of a plan (injected win32 context)', () => {
  it('stop: the control word first, then taskkill /T, then taskkill /T /F only after the grace', async () => {
    const win = new FakeWindows()
    const worker = win.add(4242, 1000, false)
    win.add(4300, 4242, false)
    const tree = new ProcessTree(worker, () => !win.alive(4242), win.ctx)
    const began = Date.now()
    const outcome = await executeStopPlan(tree, windowsHooks(win, planFor('stop', {graceMs: 300})))
    const kills = taskkills(win)
    expect(win.log[0]).toEqual(['control', 'STOP'])
    expect(kills[0]).toBe('/T /PID 4242')
    const firstForced = kills.findIndex((k) => k.includes('/F'))
    expect(kills.slice(0, firstForced).every((k) => !k.includes('/F'))).toBe(true)
    expect(kills[firstForced]).toBe('/T /F /PID 4242')
    expect(outcome.killedAfterMs).toBeGreaterThanOrEqual(300)
    expect(Date.now() - began).toBeGreaterThanOrEqual(300)
    expect(win.alive(4242) || win.alive(4300)).toBe(false)
  })

  it('a tree that closes on the polite taskkill /T is never forced', async () => {
    const win = new FakeWindows()
    const worker = win.add(500, 4, true)
    win.add(501, 500, true)
    const tree = new ProcessTree(worker, () => !win.alive(500), win.ctx)
    const outcome = await executeStopPlan(tree, windowsHooks(win, planFor('stop', {graceMs: 5000})))
    expect(taskkills(win)[0]).toBe('/T /PID 500')
    expect(taskkills(win).some((k) => k.includes('/F'))).toBe(false)
    expect(outcome.killedAfterMs).toBeNull()
    expect(win.alive(501)).toBe(false)
  })

  it('cancel: the same mapping with its 2 s grace', async () => {
    const win = new FakeWindows()
    const worker = win.add(77, 4, false)
    const tree = new ProcessTree(worker, () => !win.alive(77), win.ctx)
    const outcome = await executeStopPlan(tree, windowsHooks(win, planFor('cancel')))
    expect(win.log[0]).toEqual(['control', 'STOP'])
    expect(taskkills(win)[0]).toBe('/T /PID 77')
    expect(taskkills(win)).toContain('/T /F /PID 77')
    expect(outcome.killedAfterMs).toBeGreaterThanOrEqual(2000)
    expect(win.alive(77)).toBe(false)
  })

  it("a taskkill without /T (Wine's) still stops the whole tree, from the descendants it recorded", async () => {
    const win = new FakeWindows(true)
    const worker = win.add(600, 4, false) // cmd /c
    win.add(601, 600, false) // node.exe
    win.add(602, 601, false) // its node.exe child
    const tree = new ProcessTree(worker, () => !win.alive(600), win.ctx)
    const outcome = await executeStopPlan(tree, windowsHooks(win, planFor('cancel')))
    expect(outcome.killedAfterMs).toBeGreaterThanOrEqual(2000)
    for (const pid of [600, 601, 602]) expect(win.alive(pid), `pid ${pid}`).toBe(false)
    // /T refused, each process then ended on its own /F
    expect(taskkills(win)).toEqual(expect.arrayContaining(['/T /F /PID 600', '/F /PID 600', '/F /PID 601', '/F /PID 602']))
  })

  it('a recorded worker whose start time no longer matches gets no taskkill at all', async () => {
    const win = new FakeWindows()
    const real = win.add(900, 4, false)
    const recorded: ProcessIdentity = {pid: 900, startTime: String(BigInt(real.startTime) - 1n)}
    const tree = new ProcessTree(recorded, () => !isSameProcess(recorded, win.ctx), win.ctx)
    await executeStopPlan(tree, windowsHooks(win, planFor('stop', {graceMs: 100})))
    expect(taskkills(win)).toEqual([])
    expect(win.alive(900)).toBe(true)
  })
})
