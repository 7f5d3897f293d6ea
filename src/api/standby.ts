// The local standby runner bin/run.js boots for `start` before oclif loads
// (the two start-ups overlap; see runner/local-executor.ts) — but only for a
// task that may run locally: one going to Slurm has its runner in a batch job.
// Which executor the start will use is worked out here as `start` itself does
// (--executor, DROVER_EXECUTOR, the state dir's config.json, local), reading
// argv before oclif parses it. It is only a guess to save a process: `start`
// decides for itself, and a wrong guess costs a wasted runner or the overlap.

import {readStateConfig} from '../state/config.js'
import {resolveStateDir} from '../state/statedir.js'
import {dropStandby, prespawnRunner} from '../runner/local-executor.js'

/** `--flag VALUE` or `--flag=VALUE` among drover's own words (before `--`): the last one given. */
export function flagValue(words: readonly string[], flag: string): string | undefined {
  let value: string | undefined
  for (let i = 0; i < words.length; i++) {
    if (words[i] === '--') break
    if (words[i] === flag && i + 1 < words.length) value = words[++i]
    else if (words[i].startsWith(`${flag}=`)) value = words[i].slice(flag.length + 1)
  }
  return value
}

/** The state dir's executor, `local` without one (or with a bad config, which start refuses itself). */
function configuredExecutor(stateDir: string): string {
  try {
    return readStateConfig(stateDir).executor ?? 'local'
  } catch {
    return 'local'
  }
}

/**
 * Boots the standby runner for `start <args>` unless the task goes to Slurm.
 * The flag and the environment are read at once; the config too when the
 * state dir is named (--state-dir, DROVER_STATE_DIR). The default state dir
 * takes loading env-paths to find, which would hold the standby back for
 * everyone: it is booted first, then let go if the config there says Slurm.
 * Resolves when that is settled.
 */
export async function prespawnForStart(args: readonly string[], env: NodeJS.ProcessEnv = process.env): Promise<void> {
  const asked = flagValue(args, '--executor') ?? (env.DROVER_EXECUTOR || undefined)
  if (asked !== undefined) {
    if (asked !== 'slurm') prespawnRunner()
    return
  }
  const named = flagValue(args, '--state-dir') || env.DROVER_STATE_DIR
  if (named) {
    if (configuredExecutor(await resolveStateDir(named, env)) !== 'slurm') prespawnRunner()
    return
  }
  prespawnRunner()
  if (configuredExecutor(await resolveStateDir(undefined, env)) === 'slurm') dropStandby()
}
