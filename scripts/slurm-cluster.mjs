#!/usr/bin/env node
// A single-node Slurm cluster on this machine, for the Slurm tests: munge,
// slurmctld and slurmd from the distribution's packages, everything under one
// temp dir, bound to 127.0.0.1. Needs root (the daemons run as root, munged as
// `munge`).
//
//   node scripts/slurm-cluster.mjs up [--cpus N]   prints the SLURM_CONF path (a node of N CPUs, default 2)
//   node scripts/slurm-cluster.mjs down            stops the daemons by pid file
//   node scripts/slurm-cluster.mjs conf            prints the SLURM_CONF path if up
//   node scripts/slurm-cluster.mjs heal            starts again any daemon found dead, saying so with its log's end
//
// The cluster's dir is remembered in $TMPDIR/drover-slurm-cluster (one per
// machine). Daemons are stopped by their pid files after checking the pid is
// still that daemon: nothing here kills by name. pid 1 may not reap orphans,
// so a stopped daemon can stay a zombie; that counts as stopped.

import {execFileSync, spawnSync} from 'node:child_process'
import {chmodSync, chownSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync} from 'node:fs'
import {randomBytes} from 'node:crypto'
import os from 'node:os'
import path from 'node:path'

const POINTER = path.join(os.tmpdir(), 'drover-slurm-cluster')
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms))

function run(file, args, opts = {}) {
  return execFileSync(file, args, {encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], ...opts})
}

function clusterDir() {
  try {
    const dir = readFileSync(POINTER, 'utf8').trim()
    return existsSync(path.join(dir, 'slurm.conf')) ? dir : null
  } catch {
    return null
  }
}

function pidAlive(pid, name) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    const comm = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'))
    const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3)
    return comm === name && state !== 'Z'
  } catch {
    return false
  }
}

function readPid(file) {
  try {
    const pid = Number(readFileSync(file, 'utf8').trim())
    return Number.isSafeInteger(pid) && pid > 0 ? pid : null
  } catch {
    return null
  }
}

async function stopDaemon(file, name) {
  const pid = readPid(file)
  if (pid === null || !pidAlive(pid, name)) return
  process.kill(pid, 'SIGTERM')
  const deadline = Date.now() + 10_000
  while (pidAlive(pid, name) && Date.now() < deadline) await sleep(50)
  if (pidAlive(pid, name)) process.kill(pid, 'SIGKILL')
}

async function down() {
  const dir = clusterDir()
  if (!dir) return
  await stopDaemon(path.join(dir, 'run', 'slurmd.pid'), 'slurmd')
  await stopDaemon(path.join(dir, 'run', 'slurmctld.pid'), 'slurmctld')
  await stopDaemon(path.join(dir, 'run', 'munged.pid'), 'munged')
  rmSync(dir, {recursive: true, force: true})
  rmSync(POINTER, {force: true})
}

async function waitFor(what, check, ms) {
  const deadline = Date.now() + ms
  for (;;) {
    if (check()) return
    if (Date.now() > deadline) throw new Error(`slurm-cluster: ${what} did not come up within ${ms / 1000}s`)
    await sleep(100)
  }
}

async function startMunged(dir) {
  const key = path.join(dir, 'munge', 'munge.key')
  run('runuser', [
    '-u',
    'munge',
    '--',
    'munged',
    `--socket=${dir}/munge/munge.socket.2`,
    `--key-file=${key}`,
    `--log-file=${dir}/munge/munged.log`,
    `--pid-file=${dir}/munge/munged.pid`,
    `--seed-file=${dir}/munge/munged.seed`,
    // a munged started again finds its dead predecessor's socket and lock
    '--force',
  ])
  // munged writes its pid file in its own (munge-owned) dir; `down` reads it from run/.
  await waitFor('munged', () => pidAlive(readPid(path.join(dir, 'munge', 'munged.pid')), 'munged'), 10_000)
  writeFileSync(path.join(dir, 'run', 'munged.pid'), readFileSync(path.join(dir, 'munge', 'munged.pid')))
}

const slurmEnv = (conf) => ({...process.env, SLURM_CONF: conf})
const controllerUp = (conf) => spawnSync('scontrol', ['ping'], {env: slurmEnv(conf), encoding: 'utf8'}).stdout.includes('UP')

async function startSlurmctld(conf) {
  run('slurmctld', ['-f', conf], {env: slurmEnv(conf)})
  await waitFor('slurmctld', () => controllerUp(conf), 20_000)
}

async function startSlurmd(conf) {
  run('slurmd', ['-f', conf], {env: slurmEnv(conf)})
  await waitFor('slurmd', () => /idle|mix|alloc/.test(spawnSync('sinfo', ['-h', '-o', '%T'], {env: slurmEnv(conf), encoding: 'utf8'}).stdout), 30_000)
}

/** The last lines of a daemon's log, on one line: what it said before it went. */
function logTail(file, lines = 6) {
  try {
    return readFileSync(file, 'utf8').trimEnd().split('\n').slice(-lines).join(' | ')
  } catch {
    return '(no log)'
  }
}

/**
 * A cluster that is up stays up for the whole suite, or says why not: every
 * daemon found dead is reported with the end of its log and started again,
 * and a controller alive but not answering is reported. Prints nothing when
 * all is well; exits 1 when the cluster is not up at all or a daemon does not
 * come back.
 */
async function heal() {
  const dir = clusterDir()
  if (!dir) throw new Error('slurm-cluster: no cluster is up')
  const conf = path.join(dir, 'slurm.conf')
  const daemons = [
    {name: 'munged', pid: path.join(dir, 'run', 'munged.pid'), log: path.join(dir, 'munge', 'munged.log'), start: () => startMunged(dir)},
    {name: 'slurmctld', pid: path.join(dir, 'run', 'slurmctld.pid'), log: path.join(dir, 'log', 'slurmctld.log'), start: () => startSlurmctld(conf)},
    {name: 'slurmd', pid: path.join(dir, 'run', 'slurmd.pid'), log: path.join(dir, 'log', 'slurmd.log'), start: () => startSlurmd(conf)},
  ]
  for (const daemon of daemons) {
    const pid = readPid(daemon.pid)
    if (pid !== null && pidAlive(pid, daemon.name)) continue
    console.log(`slurm-cluster: ${daemon.name} (pid ${pid ?? '?'}) was not running at ${new Date().toISOString()}; its log ended: ${logTail(daemon.log)}`)
    await daemon.start()
    console.log(`slurm-cluster: ${daemon.name} started again`)
  }
  if (!controllerUp(conf)) {
    console.log(`slurm-cluster: slurmctld (pid ${readPid(daemons[1].pid)}) is running but does not answer scontrol ping; its log ends: ${logTail(daemons[1].log)}`)
  }
}

async function up(cpus) {
  if (process.getuid?.() !== 0) throw new Error('slurm-cluster: run as root (the Slurm daemons need it)')
  const existing = clusterDir()
  if (existing) {
    console.log(path.join(existing, 'slurm.conf'))
    return
  }
  const dir = mkdtempSync(path.join(os.tmpdir(), 'drover-slurm-'))
  // munged runs as `munge` and must reach its own folder inside.
  chmodSync(dir, 0o711)
  for (const sub of ['run', 'log', 'spool/ctld', 'spool/d', 'munge']) mkdirSync(path.join(dir, sub), {recursive: true})
  const munge = Number(run('id', ['-u', 'munge']).trim())
  const mungeGid = Number(run('id', ['-g', 'munge']).trim())
  const key = path.join(dir, 'munge', 'munge.key')
  writeFileSync(key, randomBytes(1024), {mode: 0o400})
  for (const p of [path.join(dir, 'munge'), key]) chownSync(p, munge, mungeGid)
  await startMunged(dir)

  const host = os.hostname()
  // The node has exactly `cpus` CPUs whatever this machine has, so the tests
  // (20 tasks through 2 CPUs, a job pending for Resources) mean the same on a
  // laptop and a 64-core runner: the topology slurmd detects is dropped, and
  // config_overrides lets slurmd run a node described unlike its hardware.
  const node = run('slurmd', ['-C']).split('\n')[0].trim()
  const nodeLine = node.replace(/CPUs=\d+/, `CPUs=${cpus}`).replace(/ Boards=\S+ SocketsPerBoard=\S+ CoresPerSocket=\S+ ThreadsPerCore=\S+/, '')
  const conf = path.join(dir, 'slurm.conf')
  writeFileSync(
    conf,
    `ClusterName=drover
SlurmctldHost=${host}(127.0.0.1)
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=${dir}/munge/munge.socket.2,cred_expire=10
StateSaveLocation=${dir}/spool/ctld
SlurmdSpoolDir=${dir}/spool/d
SlurmctldPidFile=${dir}/run/slurmctld.pid
SlurmdPidFile=${dir}/run/slurmd.pid
SlurmctldLogFile=${dir}/log/slurmctld.log
SlurmdLogFile=${dir}/log/slurmd.log
SlurmctldPort=6817
SlurmdPort=6818
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
MpiDefault=none
SchedulerParameters=batch_sched_delay=0
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
JobCompType=jobcomp/filetxt
JobCompLoc=${dir}/log/jobcomp.txt
MinJobAge=300
KillWait=5
SlurmdTimeout=10
ReturnToService=2
SlurmdParameters=config_overrides
${nodeLine} NodeAddr=127.0.0.1
PartitionName=debug Nodes=${host} Default=YES MaxTime=INFINITE State=UP
`,
  )
  await startSlurmctld(conf)
  await startSlurmd(conf)
  writeFileSync(POINTER, dir + '\n')
  console.log(conf)
}

const [command, ...rest] = process.argv.slice(2)
const cpusAt = rest.indexOf('--cpus')
const cpus = cpusAt === -1 ? 2 : Number(rest[cpusAt + 1])
if (!Number.isSafeInteger(cpus) || cpus < 1) {
  console.error('slurm-cluster: --cpus needs a positive whole number')
  process.exit(2)
}
try {
  if (command === 'up') await up(cpus)
  else if (command === 'down') await down()
  else if (command === 'heal') await heal()
  else if (command === 'conf') {
    const dir = clusterDir()
    if (!dir) process.exit(1)
    console.log(path.join(dir, 'slurm.conf'))
  } else {
    console.error('usage: slurm-cluster.mjs up [--cpus N] | down | conf | heal')
    process.exit(2)
  }
} catch (error) {
  console.error(error.message)
  process.exit(1)
}
