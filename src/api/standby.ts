// The local standby runner bin/run.js boots for `start` before oclif loads
// (the two start-ups overlap; see runner/standby.ts) is only for a task that
// may run locally: one going to Slurm has its runner in a batch job. With
// --executor, DROVER_EXECUTOR or a named state dir, bin/run.js knows before
// booting it (runner/standby.ts, builtins only); with the default state dir it
// boots the runner first and asks here, once env-paths has found the state
// dir, whether its config.json says Slurm. A wrong guess costs a wasted
// runner or the overlap, never the task: `start` decides for itself.

import {readStateConfig} from '../state/config.js'
import {resolveStateDir} from '../state/statedir.js'
import {dropStandby} from '../runner/local-executor.js'

/** The state dir's executor, `local` without one (or with a bad config, which start refuses itself). */
function configuredExecutor(stateDir: string): string {
  try {
    return readStateConfig(stateDir).executor ?? 'local'
  } catch {
    return 'local'
  }
}

/** Lets the standby runner go when the default state dir's config.json sends new tasks to Slurm. Resolves once that is settled. */
export async function dropStandbyIfSlurm(env: NodeJS.ProcessEnv = process.env): Promise<void> {
  if (configuredExecutor(await resolveStateDir(undefined, env)) === 'slurm') dropStandby()
}
