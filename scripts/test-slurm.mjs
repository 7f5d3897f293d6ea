#!/usr/bin/env node
// Runs the Slurm suite (test/slurm) on a real single-node cluster. A cluster
// already up (scripts/slurm-cluster.mjs conf) is used as it is; otherwise, as
// root with Slurm and munge installed, one is brought up for the run and down
// after it. Without Slurm the suite is not run (and says so). Extra arguments
// go to vitest (e.g. a test file).

import {spawnSync} from 'node:child_process'
import path from 'node:path'
import {fileURLToPath} from 'node:url'

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
const cluster = (command) => spawnSync(process.execPath, [path.join(ROOT, 'scripts', 'slurm-cluster.mjs'), command], {encoding: 'utf8'})
const onPath = (program) => spawnSync('sh', ['-c', `command -v ${program}`], {stdio: 'ignore'}).status === 0

let conf = cluster('conf')
let ours = false
if (conf.status !== 0) {
  if (process.platform !== 'linux' || !['sbatch', 'slurmctld', 'slurmd', 'munged'].every(onPath) || process.getuid?.() !== 0) {
    console.log('test-slurm: no Slurm cluster here (needs slurm-wlm and munge, and root to bring one up); the Slurm suite is not run')
    process.exit(0)
  }
  conf = cluster('up')
  if (conf.status !== 0) {
    console.error(`test-slurm: the cluster did not come up: ${conf.stderr.trim()}`)
    process.exit(1)
  }
  ours = true
}
const run = spawnSync('npx', ['vitest', 'run', '--project', 'slurm', ...process.argv.slice(2)], {
  cwd: ROOT,
  stdio: 'inherit',
  env: {...process.env, SLURM_CONF: conf.stdout.trim()},
})
if (ours) cluster('down')
process.exit(run.status ?? 1)
