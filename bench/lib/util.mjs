// Shared plumbing of the benchmark: where things live, private temp dirs,
// timing a command with hrtime, statistics, polling with deadlines, and
// reading a process's memory from /proc.

import {spawnSync} from 'node:child_process'
import {chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync} from 'node:fs'
import path from 'node:path'
import {fileURLToPath} from 'node:url'

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..')
export const BIN = path.join(ROOT, 'bin', 'run.js')
export const LIB = path.join(ROOT, 'bench', 'lib')
// Inside the repo (gitignored) rather than os.tmpdir(): the throughput case
// needs a real disk, and both sides of every comparison use the same one.
export const TMP = path.join(ROOT, 'bench', '.tmp')

const made = []

/** A private (0700) directory for one case; removed by removeTempDirs(). */
export function makeTempDir(prefix) {
  mkdirSync(TMP, {recursive: true, mode: 0o700})
  const dir = mkdtempSync(path.join(TMP, `${prefix}-`))
  chmodSync(dir, 0o700)
  made.push(dir)
  return dir
}

/**
 * Ends whatever tasks in our state dirs are still alive (a case that failed
 * half-way may leave some), then removes the dirs. A runner finishing at that
 * moment may still be writing, hence the retries; a dir that stays is only
 * reported, never fatal.
 */
export function removeTempDirs() {
  for (const dir of made.splice(0)) {
    reapTasks(dir)
    try {
      rmSync(dir, {recursive: true, force: true, maxRetries: 5, retryDelay: 200})
    } catch (error) {
      process.stderr.write(`bench: could not remove ${dir}: ${error.message}\n`)
    }
  }
}

/** `/proc/<pid>/stat` start time, the same field drover records to recognise its processes. */
function startTimeOf(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19]
  } catch {
    return null
  }
}

/**
 * SIGKILLs the runner and worker group of every task in a state dir whose
 * recorded identity still matches. Every task drover started has a live hint
 * until `list` finds it ended, so where there is an index only the hinted
 * tasks are looked at (100,000 generated ended ones are not read twice).
 */
export function reapTasks(stateDir) {
  let ids
  try {
    const live = path.join(stateDir, 'live')
    ids = readdirSync(existsSync(live) ? live : path.join(stateDir, 'tasks')).filter((name) => /^\d+$/.test(name))
  } catch {
    return
  }
  for (const id of ids) {
    for (const [file, group] of [['runner.json', false], ['task.json', true]]) {
      try {
        const data = JSON.parse(readFileSync(path.join(stateDir, 'tasks', id, file), 'utf8'))
        const identity = group ? data.worker : data
        if (identity?.pid && startTimeOf(identity.pid) === identity.startTime) kill(group ? -identity.pid : identity.pid, 'SIGKILL')
      } catch {
        // no such file, or not JSON: nothing of ours to end
      }
    }
  }
}

export const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms))

/** Wall-clock milliseconds with sub-millisecond precision, comparable across processes. */
export const wallNow = () => performance.timeOrigin + performance.now()

export async function waitFor(check, {timeout = 15_000, interval = 20, message = 'condition'} = {}) {
  const deadline = Date.now() + timeout
  for (;;) {
    const value = await check()
    if (value) return value
    if (Date.now() > deadline) throw new Error(`timed out after ${timeout} ms waiting for ${message}`)
    await sleep(interval)
  }
}

/**
 * Variables that change what Node does before any script runs, or what
 * drover's oclif does: NODE_EXTRA_CA_CERTS makes every Node parse a CA bundle
 * at start (Node 20: `node -e 0` 73 ms with this machine's bundle, 21 ms
 * without), NODE_OPTIONS adds flags, NODE_COMPILE_CACHE caches, OpenSSL's may
 * load a config. Most users' shells set none of them; the floor and drover
 * must both run without them, or every ratio is flattered.
 */
export const BOOT_VARIABLE = /^(NODE_.*|UV_THREADPOOL_SIZE|OPENSSL_CONF|OPENSSL_MODULES|SSL_CERT_FILE|SSL_CERT_DIR)$/

/** Removes the boot variables from this process's environment, which every command the bench runs inherits; returns the names it removed. */
export function clearBootVariables(env = process.env) {
  const removed = Object.keys(env).filter((name) => BOOT_VARIABLE.test(name))
  for (const name of removed) delete env[name]
  return removed.sort()
}

export function envFor(stateDir, extra = {}) {
  return {...process.env, DROVER_STATE_DIR: stateDir, NO_COLOR: '1', ...extra}
}

/** Runs a command to completion; throws with its stderr when it exits with a code not in `ok`. */
export function run(file, args, opts = {}) {
  return decoded(spawnChecked(file, args, opts))
}

/** run() with its output left as bytes. */
function spawnChecked(file, args, {env = process.env, ok = [0], cwd = ROOT, input} = {}) {
  const result = spawnSync(file, args, {env, cwd, input, stdio: [input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'], maxBuffer: 1 << 30})
  if (result.error) throw result.error
  if (!ok.includes(result.status)) {
    throw new Error(`${[file, ...args].join(' ')} exited ${result.status ?? result.signal}:\n${String(result.stderr).slice(-2000)}`)
  }
  return result
}

const decoded = (result) => ({stdout: String(result.stdout), stderr: String(result.stderr), status: result.status})

/** Milliseconds one run of the command took, start of spawn to exit. */
export function timeRun(file, args, opts = {}) {
  return timed(file, args, opts).ms
}

/**
 * The run's result with `ms`, the milliseconds from spawn to exit, and
 * `cpuMs`, the user + system CPU time of the process and the children it
 * waited for (Linux: from /proc, in clock ticks of 10 ms, so meaningful as a
 * mean over many runs; null elsewhere). CPU time is the steadier number on a
 * loaded machine: waiting for a core does not count.
 */
export function timed(file, args, opts = {}) {
  const cpuBefore = childCpuMs()
  const begin = process.hrtime.bigint()
  const result = spawnChecked(file, args, opts)
  const ms = Number(process.hrtime.bigint() - begin) / 1e6
  const cpuAfter = childCpuMs()
  // decoded once the clock stopped: `list --json` at 100,000 tasks prints 97 MB, whose decoding in
  // this process is no part of the command's time
  return {...decoded(result), ms, cpuMs: cpuBefore === null || cpuAfter === null ? null : cpuAfter - cpuBefore}
}

/** cutime + cstime of this process (its waited-for children), in ms; null without /proc. */
function childCpuMs() {
  try {
    const stat = readFileSync('/proc/self/stat', 'utf8')
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    return (Number(fields[13]) + Number(fields[14])) * 10
  } catch {
    return null
  }
}

/** Wall and CPU milliseconds of one run (see timed). */
export function timeRunCpu(file, args, opts = {}) {
  const {ms, cpuMs} = timed(file, args, opts)
  return {ms, cpuMs}
}

export function drover(stateDir, args, opts = {}) {
  return run(process.execPath, [BIN, ...args], {...opts, env: envFor(stateDir, opts.env)})
}

export function droverJson(stateDir, args, opts = {}) {
  return JSON.parse(drover(stateDir, [...args, '--json'], opts).stdout)
}

/**
 * Times `once` `runs` times after one untimed warm-up (page cache, JIT caches
 * of the node binary), and returns the median with the spread.
 */
export function measure(once, runs) {
  once()
  const samples = []
  for (let i = 0; i < runs; i++) samples.push(once())
  return summary(samples)
}

/** Median and spread of wall times; samples may be {ms, cpuMs}, whose CPU times give `cpuMean`. */
export function summary(samples) {
  const walls = samples.map((s) => (typeof s === 'number' ? s : s.ms))
  const cpus = samples.map((s) => (typeof s === 'number' ? null : s.cpuMs))
  const sorted = [...walls].sort((a, b) => a - b)
  const cpuMean = cpus.length > 0 && cpus.every((c) => c !== null) ? cpus.reduce((a, b) => a + b, 0) / cpus.length : null
  return {median: percentile(sorted, 50), min: sorted[0], max: sorted.at(-1), n: sorted.length, samples: walls, cpuMean}
}

/** Nearest-rank percentile of an ascending array. */
export function percentile(sorted, p) {
  if (sorted.length === 0) return NaN
  if (p === 50 && sorted.length % 2 === 0) {
    const mid = sorted.length / 2
    return (sorted[mid - 1] + sorted[mid]) / 2
  }
  const rank = Math.ceil((p / 100) * sorted.length)
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1]
}

export const median = (values) => percentile([...values].sort((a, b) => a - b), 50)

/**
 * The median over rounds of a ÷ b, each round's sample of one command over
 * the same round's sample of the other (summaries of interleaved(), samples
 * in round order; rounds where both ran). The machine's speed drifting in a
 * run (this 2-core VM's `node -e 0` moved 66–118 ms between the cases of one
 * run) moves both samples of a round alike, where a ratio of two medians
 * takes each side's median from different stretches of the run.
 */
export function pairedRatio(a, b) {
  const n = Math.min(a.samples.length, b.samples.length)
  return median(Array.from({length: n}, (_, i) => a.samples[i] / b.samples[i]))
}

/** kB from /proc/<pid>/status (VmRSS) and /proc/<pid>/smaps_rollup (Pss), or null when gone. */
export function memoryOf(pid) {
  try {
    const rss = /VmRSS:\s+(\d+)\s*kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))
    const pss = /^Pss:\s+(\d+)\s*kB/m.exec(readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8'))
    return {rssKb: rss ? Number(rss[1]) : null, pssKb: pss ? Number(pss[1]) : null}
  } catch {
    return null
  }
}

export function isAlive(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3)
    return state !== 'Z' && state !== 'X'
  } catch {
    return false
  }
}

/** Pids whose parent is `pid`, from /proc. */
export function childrenOf(pid) {
  try {
    return readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number)
  } catch {
    return []
  }
}

/** Sends `signal` to a pid or a process group (negative), ignoring one already gone. */
export function kill(pid, signal = 'SIGTERM') {
  try {
    process.kill(pid, signal)
  } catch {
    // gone already: what we wanted
  }
}

export function commandExists(name) {
  return spawnSync('sh', ['-c', `command -v ${name}`], {stdio: 'ignore'}).status === 0
}

export function intEnv(name, fallback) {
  const raw = process.env[name]
  if (raw === undefined || raw === '') return fallback
  const n = Number(raw)
  if (!Number.isSafeInteger(n) || n < 1) throw new Error(`${name} must be a positive integer, got '${raw}'`)
  return n
}
