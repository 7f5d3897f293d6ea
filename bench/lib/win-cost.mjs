// What a live task costs on Windows, in programs started: drover under Wine
// (the Windows build of Node, node.exe), every process start counted from
// Linux. Wine starts each Windows process as a Linux process that executes
// its loader (/usr/lib/wine/wine64) with the program as its first argument,
// so `strace -f -e trace=execve` over the scenario (win-cost-driver.mjs) sees
// every CreateProcess drover makes — PowerShell, taskkill, the runner, the
// worker — whatever it is, with no stand-in counting itself. clone/fork
// results give each process its parent, so a start is put in the phase of
// the command it descends from (the task's runner descends from `start`:
// its starts are split by time into start, idle and stop).
//
// Needs strace and the Windows suite's set-up (scripts/install-windows.mjs:
// Wine, node.exe, a prefix with the stand-in powershell.exe that answers
// drover's CIM queries from the Win32 API); the case runs in a private copy
// of that prefix, with its own wineserver, removed at the end.

import {spawn, spawnSync} from 'node:child_process'
import {existsSync, readFileSync, writeFileSync} from 'node:fs'
import path from 'node:path'
import {installWindows, missingDebianPackages, WINE64 as WINE, winPath} from '../../scripts/install-windows.mjs'
import {nodeExe, privatePrefix} from '../../scripts/windows/wine.mjs'
import {row, skipped} from './report.mjs'
import {LIB, ROOT, intEnv} from './util.mjs'

// Wine's own services, started once per wineserver and by it: not drover's.
const WINE_SERVICES = new Set(['wineboot.exe', 'winemenubuilder.exe', 'services.exe', 'explorer.exe', 'winedevice.exe', 'plugplay.exe', 'svchost.exe', 'rpcss.exe'])

function missing() {
  if (process.platform !== 'linux') return 'runs under Wine on Linux only'
  if (missingDebianPackages() && process.getuid?.() !== 0) return 'no Wine or mingw-w64 (as root: node scripts/install-windows.mjs)'
  if (spawnSync('strace', ['-V']).status !== 0) return 'no strace (apt-get install strace)'
  return null
}

/** Every Windows process started, from the trace: {pid, parent, at, program}. */
export function parseTrace(text) {
  const parent = new Map()
  const starts = new Map()
  for (const line of text.split('\n')) {
    // a fork interrupted by another thread's call ends on a line of its own
    const resumed = /^(\d+)\s+[\d.]+\s+<\.\.\. (?:clone3?|v?fork) resumed>.*= (\d+)$/.exec(line)
    if (resumed) {
      parent.set(Number(resumed[2]), Number(resumed[1]))
      continue
    }
    const m = /^(\d+)\s+([\d.]+)\s+(\w+)\((.*)$/.exec(line)
    if (!m) continue
    const [, pidText, at, call, rest] = m
    const pid = Number(pidText)
    if (call === 'execve') {
      if (!/\) = 0$/.test(rest)) continue
      const exe = /^"([^"]*)", \["[^"]*", "((?:[^"\\]|\\.)*)"/.exec(rest)
      if (!exe || !/wine64$/.test(exe[1])) continue
      const program = exe[2].replaceAll('\\\\', '\\').split('\\').at(-1).toLowerCase()
      // wine64 re-executes itself once in the same pid: the last program counts.
      starts.set(pid, {pid, at: Number(at) * 1000, program})
    } else {
      const child = /= (\d+)$/.exec(rest)
      if (child) parent.set(Number(child[1]), pid)
    }
  }
  for (const start of starts.values()) start.parent = parent.get(start.pid) ?? null
  return {starts: [...starts.values()], parent}
}

function descendsFrom(pid, root, parent) {
  for (let at = pid, hops = 0; at !== undefined && hops < 10_000; at = parent.get(at), hops++) if (at === root) return true
  return false
}

const count = (list) => {
  const by = {}
  for (const s of list) by[s.program] = (by[s.program] ?? 0) + 1
  return Object.entries(by)
    .sort()
    .map(([program, n]) => `${n} ${program}`)
    .join(', ') || 'none'
}

export async function winCost(ctx) {
  const why = missing()
  if (why) return [skipped('windows: process starts', why)]
  const {dir} = installWindows()
  const machine = privatePrefix(dir)
  try {
    return await traced(ctx, machine.env, nodeExe(dir))
  } finally {
    machine.dispose()
  }
}

async function traced(ctx, env, node) {
  const work = ctx.dirs.fresh('wincost')
  const stateDir = path.join(work, 'state')
  const idleMs = intEnv('BENCH_WIN_IDLE_MS', 60_000)
  // wineserver and Wine's services up before the trace: their starts are Wine's, once.
  spawnSync('wineserver', ['-p'], {env, stdio: 'ignore'})
  spawnSync(WINE, [node, '-e', '0'], {env, stdio: 'ignore'})
  const settings = {
    wine: WINE,
    nodeExe: node,
    bin: winPath(path.join(ROOT, 'bin', 'run.js')),
    stateDir,
    stateDirWin: winPath(stateDir),
    lockScript: winPath(path.join(LIB, 'win-lock.mjs')),
    idleMs,
    workDir: work,
  }
  const phasesFile = path.join(work, 'phases.jsonl')
  const traceFile = path.join(work, 'trace.txt')
  writeFileSync(phasesFile, '')
  const traced = spawn(
    'strace',
    ['-f', '-qq', '-ttt', '-s', '512', '-e', 'trace=execve,clone,clone3,fork,vfork', '-e', 'signal=none', '-o', traceFile, process.execPath, path.join(LIB, 'win-cost-driver.mjs'), phasesFile, JSON.stringify(settings)],
    {env, stdio: ['ignore', 'ignore', 'inherit']},
  )
  // strace ends once every traced process has: the task's runner too, after the stop.
  const code = await new Promise((resolve) => traced.on('exit', resolve))
  if (code !== 0) throw new Error(`the traced scenario failed (exit ${code})`)
  const phases = Object.fromEntries(
    readFileSync(phasesFile, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line))
      .map((p) => [p.phase, p]),
  )
  const {starts, parent} = parseTrace(readFileSync(traceFile, 'utf8'))
  const drovers = starts.filter((s) => !WINE_SERVICES.has(s.program))
  // conhost.exe: the console host Windows (and Wine) starts beside every console program that has none.
  const helpers = (list) => list.filter((s) => s.program !== 'conhost.exe')
  const of = (name) => drovers.filter((s) => s.pid !== phases[name].pid && descendsFrom(s.pid, phases[name].pid, parent))
  const start = phases.start
  const fromStart = of('start')
  const inWindow = (list, from, to) => list.filter((s) => s.at >= from && s.at <= to)
  const phaseRows = [
    ['start (CLI and runner until `start` returned)', inWindow(fromStart, start.began, start.ended), 2],
    [`idle live task, ${Math.round(idleMs / 1000)} s`, inWindow(fromStart, phases.idle.began, phases.idle.ended), Math.max(1, Math.floor(idleMs / 60_000))],
    ['status ID', of('status'), 0],
    ['list', of('list'), 0],
    ['lock wait (3 s held by a live holder)', of('lock-wait'), 0],
    ['stop (CLI and runner until final)', [...of('stop'), ...inWindow(fromStart, phases['stop-final'].began, phases['stop-final'].ended + 5000)], 3],
  ]
  const rows = []
  for (const [name, list, goal] of phaseRows) {
    // the runner and the worker are the task itself, not its overhead
    const overhead = helpers(list).filter((s) => !(name.startsWith('start') && s.program === 'node.exe'))
    rows.push(row(`windows: programs started, ${name}`, overhead.length, null, null, 'programs', {maxValue: goal}, `all starts: ${count(list)}`))
  }
  rows.push(row('windows: lock wait', null, null, null, 'programs', null, phases['lock-result'].note ?? ''))
  return rows
}
