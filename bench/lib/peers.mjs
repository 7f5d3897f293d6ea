// The peers drover is measured beside (nq, task-spooler, pm2, tail): whether
// each is installed, its version, and a private sandbox for each so the
// benchmark never touches a user's own queues or pm2 daemon.

import {spawnSync} from 'node:child_process'
import {readFileSync, realpathSync} from 'node:fs'
import path from 'node:path'
import {commandExists, kill, makeTempDir, run} from './util.mjs'

function dpkgVersion(pkg) {
  const result = spawnSync('dpkg-query', ['-W', '-f', '${Version}', pkg], {encoding: 'utf8'})
  return result.status === 0 && result.stdout.trim() ? result.stdout.trim() : null
}

/**
 * Which peers are here. A missing peer is reported with how to get it; every
 * case that needs it is skipped and says so in RESULTS.md.
 */
export function detectPeers() {
  const peers = {}
  // BENCH_WITHOUT=pm2,tsp leaves peers out as if missing (a quicker run, or a check of the skip path).
  const without = new Set((process.env.BENCH_WITHOUT ?? '').split(',').map((s) => s.trim()))
  const found = (key, name, binary, version, install) => {
    if (without.has(binary)) peers[key] = {name, binary, available: false, version: null, note: `\`${binary}\` left out (BENCH_WITHOUT)`}
    else if (!commandExists(binary)) peers[key] = {name, binary, available: false, version: null, note: `\`${binary}\` not found (${install})`}
    else peers[key] = {name, binary, available: true, version: version() ?? 'unknown'}
  }
  found('nq', 'nq', 'nq', () => dpkgVersion('nq'), 'Debian package nq')
  found('task-spooler', 'task-spooler', 'tsp', () => dpkgVersion('task-spooler') ?? firstLine(['tsp', '-V'], /v([\d.]+)/), 'Debian package task-spooler')
  found('pm2', 'pm2', 'pm2', pm2Version, 'npm install -g pm2')
  found('tail', 'tail (coreutils)', 'tail', () => dpkgVersion('coreutils') ?? firstLine(['tail', '--version'], /([\d.]+)/), 'coreutils')
  return peers
}

/** From its package.json: `pm2 --version` would start a daemon. */
function pm2Version() {
  const bin = spawnSync('sh', ['-c', 'command -v pm2'], {encoding: 'utf8'}).stdout.trim()
  let dir = path.dirname(realpathSync(bin))
  for (let i = 0; i < 4; i++, dir = path.dirname(dir)) {
    try {
      const pkg = JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8'))
      if (pkg.name === 'pm2') return pkg.version
    } catch {
      // not here: one level up
    }
  }
  return null
}

function firstLine(argv, pattern) {
  const result = spawnSync(argv[0], argv.slice(1), {encoding: 'utf8', timeout: 20_000})
  const match = pattern.exec(`${result.stdout}\n${result.stderr}`)
  return match ? match[1] : null
}

/** nq keeps its queue in NQDIR; each sandbox gets its own. */
export function nqSandbox() {
  const dir = makeTempDir('nq')
  const env = {...process.env, NQDIR: dir}
  return {
    env,
    dir,
    /** Pid of the job whose queue file `nq` created last (the file is named ,<time>.<job pid>). */
    jobPids() {
      return run('sh', ['-c', 'ls -1 "$NQDIR"'], {env}).stdout.split('\n').filter((f) => f.startsWith(',')).map((f) => Number(f.split('.').at(-1)))
    },
  }
}

/**
 * task-spooler's server is per socket: a private TS_SOCKET gives a private
 * queue and server, and TMPDIR keeps its output files in our temp dir.
 */
export function tspSandbox(slots = 4) {
  const dir = makeTempDir('tsp')
  const env = {...process.env, TS_SOCKET: path.join(dir, 'socket'), TMPDIR: dir, TS_SLOTS: String(slots)}
  return {
    env,
    close() {
      spawnSync('tsp', ['-K'], {env, stdio: 'ignore', timeout: 10_000})
    },
  }
}

/** A private PM2_HOME: its own daemon, killed at the end. */
export function pm2Sandbox() {
  const dir = makeTempDir('pm2')
  const env = {...process.env, PM2_HOME: dir}
  return {
    env,
    daemonPid() {
      try {
        return Number(readFileSync(path.join(dir, 'pm2.pid'), 'utf8').trim())
      } catch {
        return null
      }
    },
    close() {
      const pid = this.daemonPid()
      spawnSync('pm2', ['kill'], {env, stdio: 'ignore', timeout: 30_000})
      if (pid) kill(pid, 'SIGKILL')
    },
  }
}
