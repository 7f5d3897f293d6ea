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
import {fixture, isAlive, killLeftovers, leftoverList, waitFor} from '../helpers/cli.js'


const groups = leftoverList()
const pids = leftoverList()
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

  it("leaves a drover runner started from inside the tree alone, and all below it: it owns a task of its own", async () => {
    const pidsFile = path.join(tempDir(), 'pids')
    // the "runner": in a session of its own, its boot environment holds the mark; its child is its worker
    const runner = `DROVER_RUNNER=1 setsid sh -c 'sleep 302 & echo $$ $! > ${pidsFile}; wait'`
    const worker = spawn('sh', ['-c', `${runner} & exec sleep 300`], {detached: true, stdio: 'ignore'})
    groups.push(worker.pid!)
    const [inner, innerWorker] = await waitFor(() => existsSync(pidsFile) && readFileSync(pidsFile, 'utf8').trim().split(' ').map(Number), {timeout: 15_000, message: 'the runner and its worker'})
    pids.push(inner, innerWorker)
    const identity = {pid: worker.pid!, startTime: processStartTime(worker.pid!)!}
    const processTree = new ProcessTree(identity, () => !isSameProcess(identity))
    processTree.snapshot()
    expect(processTree.identities().map((known) => known.pid)).not.toContain(inner)
    expect(processTree.identities().map((known) => known.pid)).not.toContain(innerWorker)
    // seen between its fork and its exec, it would have been remembered: asked again before any signal
    processTree.remember([{pid: inner, startTime: processStartTime(inner)!}])
    processTree.signal('SIGKILL')
    await waitFor(() => !isAlive(worker.pid!), {timeout: 10_000, message: 'the worker to die'})
    expect(isAlive(inner)).toBe(true)
    expect(isAlive(innerWorker)).toBe(true)
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
// the identity and listing scripts (or failing, as Wine's empty stub does),
// kill(pid, 0) and TerminateProcess, and taskkill closing or killing (sub)trees.
class FakeWindows {
  readonly log: string[][] = []
  /** PowerShell answers nothing, exit 0 (Wine's stub). */
  broken = false
  /** Wine 8's taskkill: no /T (exit 1), and exit 128 for a live windowless process asked without /F. */
  constructor(private readonly wineTaskkill = false) {}

  private readonly procs = new Map<number, {ppid: number; start: string; alive: boolean; closesOnRequest: boolean}>()

  add(pid: number, ppid: number, closesOnRequest: boolean, start = String(133_000_000_000_000_000n + BigInt(pid))): ProcessIdentity {
    this.procs.set(pid, {ppid, start, alive: true, closesOnRequest})
    return {pid, startTime: start}
  }

  alive(pid: number): boolean {
    return this.procs.get(pid)?.alive === true
  }

  /** The control file's word reaches a worker that closes on request. */
  control(word: string): void {
    this.log.push(['control', word])
    if (word !== 'STOP') return
    for (const proc of this.procs.values()) if (proc.closesOnRequest) proc.alive = false
  }

  readonly ctx: PlatformContext = {
    os: 'win32',
    exists: (pid) => this.alive(pid),
    terminate: (pid) => {
      this.log.push(['terminate', String(pid)])
      if (!this.alive(pid)) return false
      this.procs.get(pid)!.alive = false
      return true
    },
    run: ((file, args) => {
      if (file === 'powershell.exe') {
        const script = args.at(-1)!
        const one = /ProcessId=(\d+)/.exec(script)
        this.log.push(['powershell', one ? 'one' : 'table'])
        if (this.broken) return ''
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
  return {currentPlan: () => plan, writeControl: (word) => win.control(word)}
}

const taskkills = (win: FakeWindows) => win.log.filter((entry) => entry[0] === 'taskkill').map((entry) => entry.slice(1).join(' '))
const terminated = (win: FakeWindows) => win.log.filter((entry) => entry[0] === 'terminate').map((entry) => Number(entry[1]))
/** Programs started: what a stop costs on Windows. */
const programs = (win: FakeWindows) => win.log.filter((entry) => entry[0] === 'powershell' || entry[0] === 'taskkill').length

describe('the Windows mapping of a plan (injected win32 context)', () => {
  it('stop: the control word first, nothing started for SIGTERM, then one table read and TerminateProcess of the tree after the grace', async () => {
    const win = new FakeWindows()
    const worker = win.add(4242, 1000, false)
    win.add(4300, 4242, false)
    win.add(4301, 4300, false)
    // the runner's own child: its handle confirms it while it lives
    const tree = new ProcessTree(worker, () => !win.alive(4242), win.ctx, {group: true, ownChild: true})
    const began = Date.now()
    const outcome = await executeStopPlan(tree, windowsHooks(win, planFor('stop', {graceMs: 300})))
    expect(win.log[0]).toEqual(['control', 'STOP'])
    expect(taskkills(win)).toEqual([])
    expect(terminated(win).sort()).toEqual([4242, 4300, 4301])
    expect(win.log.filter((entry) => entry[0] === 'powershell')).toEqual([['powershell', 'table']])
    expect(outcome.killedAfterMs).toBeGreaterThanOrEqual(300)
    expect(Date.now() - began).toBeGreaterThanOrEqual(300)
    expect(win.alive(4242) || win.alive(4300) || win.alive(4301)).toBe(false)
  })

  it('a worker that ends on the control word is never forced, and the stop starts no program', async () => {
    const win = new FakeWindows()
    const worker = win.add(500, 4, true)
    const tree = new ProcessTree(worker, () => !win.alive(500), win.ctx, {group: true, ownChild: true})
    const outcome = await executeStopPlan(tree, windowsHooks(win, planFor('stop', {graceMs: 5000})))
    expect(outcome.killedAfterMs).toBeNull()
    expect(programs(win)).toBe(0)
    expect(terminated(win)).toEqual([])
  })

  it('cancel: the same mapping with its 2 s grace', async () => {
    const win = new FakeWindows()
    const worker = win.add(77, 4, false)
    const tree = new ProcessTree(worker, () => !win.alive(77), win.ctx, {group: true, ownChild: true})
    const outcome = await executeStopPlan(tree, windowsHooks(win, planFor('cancel')))
    expect(win.log[0]).toEqual(['control', 'STOP'])
    expect(terminated(win)).toContain(77)
    expect(outcome.killedAfterMs).toBeGreaterThanOrEqual(2000)
    expect(win.alive(77)).toBe(false)
    expect(programs(win)).toBeLessThanOrEqual(1)
  })

  it("Wine's taskkill (no /T) is not needed: the whole recorded tree is ended by TerminateProcess, each confirmed by one table", async () => {
    const win = new FakeWindows(true)
    const worker = win.add(600, 4, false) // cmd /c
    win.add(601, 600, false) // node.exe
    win.add(602, 601, false) // its node.exe child
    const tree = new ProcessTree(worker, () => !win.alive(600), win.ctx)
    const outcome = await executeStopPlan(tree, windowsHooks(win, planFor('cancel')))
    expect(outcome.killedAfterMs).toBeGreaterThanOrEqual(2000)
    for (const pid of [600, 601, 602]) expect(win.alive(pid), `pid ${pid}`).toBe(false)
    expect(taskkills(win)).toEqual([])
    expect(terminated(win).sort()).toEqual([600, 601, 602])
  })

  it('a recorded worker whose start time no longer matches is never ended', async () => {
    const win = new FakeWindows()
    const real = win.add(900, 4, false)
    const recorded: ProcessIdentity = {pid: 900, startTime: String(BigInt(real.startTime) - 1n)}
    const tree = new ProcessTree(recorded, 'identity', win.ctx)
    await executeStopPlan(tree, windowsHooks(win, planFor('stop', {graceMs: 100})))
    expect(taskkills(win)).toEqual([])
    expect(terminated(win)).toEqual([])
    expect(win.alive(900)).toBe(true)
  })

  it('PowerShell answering nothing: no process whose identity is unconfirmed is ended', async () => {
    const win = new FakeWindows()
    win.broken = true
    const worker = win.add(610, 4, false)
    win.add(611, 610, false)
    // a worker that is not our child (a lost task's, stopped by a command): only a table could confirm it
    const tree = new ProcessTree(worker, 'identity', win.ctx)
    tree.remember([{pid: 611, startTime: String(133_000_000_000_000_000n + 611n)}])
    await executeStopPlan(tree, windowsHooks(win, planFor('cancel')))
    expect(terminated(win)).toEqual([])
    expect(taskkills(win)).toEqual([])
    expect(win.alive(610) && win.alive(611)).toBe(true)
  })

  it('PowerShell answering nothing: the own child is still ended, its tree through taskkill /T on its pid', async () => {
    const win = new FakeWindows()
    win.broken = true
    const worker = win.add(620, 4, false)
    win.add(621, 620, false)
    const tree = new ProcessTree(worker, () => !win.alive(620), win.ctx, {group: true, ownChild: true})
    tree.remember([{pid: 621, startTime: String(133_000_000_000_000_000n + 621n)}])
    await executeStopPlan(tree, windowsHooks(win, planFor('stop', {graceMs: 100})))
    expect(taskkills(win)).toEqual(['/T /F /PID 620'])
    expect(win.alive(620) || win.alive(621)).toBe(false)
    // 621 was never confirmed by a table: taskkill's own walk of the worker's tree reached it, not drover
    expect(terminated(win)).not.toContain(621)
  })

  it('a worker that is not our child ends by its pid vanishing, without a program started per poll', async () => {
    const win = new FakeWindows()
    const worker = win.add(700, 4, false)
    const tree = new ProcessTree(worker, 'identity', win.ctx)
    expect(tree.workerGone()).toBe(false)
    win.ctx.terminate!(700)
    expect(tree.workerGone()).toBe(true)
    expect(programs(win)).toBe(0)
  })

  it("after the own child exits, one table finds its children (its pid as their parent, started before its exit) and not a later owner's", () => {
    const win = new FakeWindows()
    const worker = win.add(800, 4, false)
    // FILETIME of the worker's end, as the runner saw it: after its child started
    const endedMs = Number((133_000_000_000_000_000n + 900n) / 10_000n - 11_644_473_600_000n) + 1
    win.add(801, 800, false) // the worker's child, started just after it
    win.add(805, 801, false) // and its grandchild
    win.add(802, 800, false, String((BigInt(endedMs) + 11_644_473_600_000n + 5000n) * 10_000n)) // a child of a later process under pid 800
    let exited = false
    const tree = new ProcessTree(worker, () => exited, win.ctx, {group: true, ownChild: true})
    win.ctx.terminate!(800)
    exited = true
    tree.workerEnded(endedMs)
    const left = tree.leftovers()
    expect(left.map((p) => p.pid).sort()).toEqual([801, 805])
    expect(programs(win)).toBe(1)
    tree.signal('SIGKILL') // the leftover plan's last step
    expect(win.alive(801) || win.alive(805)).toBe(false)
    expect(win.alive(802)).toBe(true)
  })

  it('a worker pid taken by another process is seen at the next table read', () => {
    const win = new FakeWindows()
    const recorded: ProcessIdentity = {pid: 710, startTime: '133000000000000001'}
    win.add(710, 4, false) // a stranger under the same pid
    const tree = new ProcessTree(recorded, 'identity', win.ctx)
    expect(tree.workerGone()).toBe(false) // nothing read yet: no program started to ask
    expect(programs(win)).toBe(0)
    tree.snapshot()
    expect(tree.workerGone()).toBe(true)
    expect(programs(win)).toBe(1)
  })
})
