// The Slurm suite runs against the single-node cluster of
// scripts/slurm-cluster.mjs (scripts/test-slurm.mjs brings it up when needed).
// Every drover call gets the cluster's SLURM_CONF, the Slurm executor by
// default, and a short heartbeat so staleness shows in seconds.

import {execFileSync, spawnSync} from 'node:child_process'
import os from 'node:os'
import path from 'node:path'
import {drover, ROOT, type CliResult} from '../helpers/cli.js'

function findConf(): string {
  if (process.env.SLURM_CONF) return process.env.SLURM_CONF
  const found = spawnSync(process.execPath, [path.join(ROOT, 'scripts', 'slurm-cluster.mjs'), 'conf'], {encoding: 'utf8'})
  if (found.status !== 0) throw new Error('no Slurm cluster: run `node scripts/slurm-cluster.mjs up` (as root), or npm run test:slurm')
  return found.stdout.trim()
}

export const SLURM_CONF = findConf()
export const HEARTBEAT_MS = 500

export const slurmEnv = (extra: Record<string, string> = {}): Record<string, string> => ({
  SLURM_CONF,
  DROVER_EXECUTOR: 'slurm',
  DROVER_HEARTBEAT_MS: String(HEARTBEAT_MS),
  ...extra,
})

export function onCluster(stateDir: string, args: string[], opts: {env?: Record<string, string>; cwd?: string; timeout?: number} = {}): Promise<CliResult> {
  return drover(stateDir, args, {...opts, env: slurmEnv(opts.env)})
}

/** A Slurm client command against the test cluster. */
export function slurmCmd(command: string, args: string[]): string {
  return execFileSync(command, args, {encoding: 'utf8', env: {...process.env, SLURM_CONF}})
}

/** The job's state word as squeue shows it, or null once squeue no longer knows it. */
export function jobState(jobId: string): string | null {
  const out = spawnSync('squeue', ['-h', '-t', 'all', '-o', '%T', '-j', jobId], {encoding: 'utf8', env: {...process.env, SLURM_CONF}})
  return out.status === 0 ? out.stdout.trim() || null : null
}

/** Cancels every job of the cluster that is still pending or running: one test's leftovers must not hold the next one's CPUs. */
export function cancelAllJobs(): void {
  spawnSync('scancel', ['-u', os.userInfo().username], {env: {...process.env, SLURM_CONF}})
}
