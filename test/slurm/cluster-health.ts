// Before each Slurm test: the cluster's daemons are all there. One found dead
// (on CI, once, every test after some point failed with "Unable to contact
// slurm controller") is started again, and the end of its log is printed, so
// a run says what happened to it instead of failing every test after it.

import {spawnSync} from 'node:child_process'
import path from 'node:path'
import {beforeEach} from 'vitest'
import {ROOT} from '../helpers/cli.js'

beforeEach(() => {
  const healed = spawnSync(process.execPath, [path.join(ROOT, 'scripts', 'slurm-cluster.mjs'), 'heal'], {encoding: 'utf8', timeout: 90_000})
  const said = `${healed.stdout ?? ''}${healed.stderr ?? ''}`.trim()
  if (said) console.warn(said)
  if (healed.status !== 0) throw new Error(`the Slurm cluster is not up: ${said || healed.error?.message}`)
}, 90_000)
