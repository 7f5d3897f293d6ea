// The Slurm case: `start` until recorded running and `stop` until final, for a
// task on the single-node Slurm cluster of scripts/slurm-cluster.mjs, beside
// the same task run locally and beside bare sbatch/scancel on the same cluster
// (submit until squeue says RUNNING; scancel until it no longer does). Skipped
// when no cluster is up.

import {spawnSync} from 'node:child_process'
import path from 'node:path'
import {row, skipped} from './report.mjs'
import {BIN, ROOT, envFor, summary, timed, waitFor} from './util.mjs'

const node = process.execPath

function clusterConf() {
  if (process.env.SLURM_CONF) return process.env.SLURM_CONF
  const found = spawnSync(node, [path.join(ROOT, 'scripts', 'slurm-cluster.mjs'), 'conf'], {encoding: 'utf8'})
  return found.status === 0 ? found.stdout.trim() : null
}

const jobState = (env, jobId) => spawnSync('squeue', ['-h', '-t', 'all', '-o', '%T', '-j', jobId], {encoding: 'utf8', env}).stdout.trim()

/** One sample of drover: start (until running) and stop (until final), ms each. */
async function droverSample(stateDir, extraEnv) {
  const env = envFor(stateDir, extraEnv)
  const started = timed(node, [BIN, 'start', '--', 'sleep', '300'], {env})
  const id = started.stdout.trim()
  const stopped = timed(node, [BIN, 'stop', id, '-t', '2'], {env})
  return {start: started.ms, stop: stopped.ms}
}

/** One sample of bare Slurm: sbatch until RUNNING, scancel until it is not. */
async function bareSample(env) {
  const begin = performance.now()
  const submitted = spawnSync('sbatch', ['--parsable', '-o', '/dev/null', '--export=NONE'], {input: '#!/bin/sh\nexec sleep 300\n', encoding: 'utf8', env})
  const jobId = submitted.stdout.trim().split(';')[0]
  await waitFor(() => jobState(env, jobId) === 'RUNNING', {timeout: 30_000, interval: 10, message: `job ${jobId} to run`})
  const start = performance.now() - begin
  const cancelled = performance.now()
  spawnSync('scancel', [jobId], {env})
  await waitFor(() => !['RUNNING', 'COMPLETING'].includes(jobState(env, jobId)), {timeout: 60_000, interval: 10, message: `job ${jobId} to end`})
  return {start, stop: performance.now() - cancelled}
}

export async function slurm(ctx) {
  const conf = clusterConf()
  if (!conf) return [skipped('slurm: start and stop', 'no Slurm cluster up (node scripts/slurm-cluster.mjs up, as root)')]
  const env = {...process.env, SLURM_CONF: conf}
  const runs = Math.max(3, Math.ceil(ctx.runs / 3))
  const local = ctx.dirs.fresh('slurm-local')
  const onSlurm = ctx.dirs.fresh('slurm-slurm')
  const samples = {local: [], slurm: [], bare: []}
  for (let i = 0; i < runs; i++) {
    samples.local.push(await droverSample(local, {DROVER_EXECUTOR: 'local'}))
    samples.slurm.push(await droverSample(onSlurm, {SLURM_CONF: conf, DROVER_EXECUTOR: 'slurm'}))
    samples.bare.push(await bareSample(env))
  }
  const s = (name, part) => summary(samples[name].map((x) => x[part])).median
  return [
    row('slurm: `start` → running, bare `sbatch` → RUNNING', s('slurm', 'start'), 'bare sbatch', s('bare', 'start'), 'ms'),
    row('slurm: `start` → running, Slurm vs local', s('slurm', 'start'), 'local start', s('local', 'start'), 'ms'),
    row('slurm: `stop` → final, bare `scancel` → ended', s('slurm', 'stop'), 'bare scancel', s('bare', 'stop'), 'ms', null, 'scancel waits the cluster\'s KillWait before SIGKILL; drover\'s stop ends a TERM-heeding worker at once'),
    row('slurm: `stop` → final, Slurm vs local', s('slurm', 'stop'), 'local stop', s('local', 'stop'), 'ms'),
  ]
}
