// The environment drover's own Node processes (runners, hook supervisors) boot
// with: without the variables of a task they may be started from, and without
// what Node would spend its boot on for nothing. Builtins only (none, in fact):
// bin/run.js and the runner's bundle both load this.

/** The variables that tie a process to a task: every process of the worker's tree inherits them. */
export const TASK_VARIABLES = ['DROVER_TASK_ID', 'DROVER_CONTROL_FILE', 'DROVER_SESSION_DIR', 'DROVER_RUN', 'DROVER_RESUME'] as const

/**
 * Variables Node acts on while it boots, which a runner never needs for
 * itself: NODE_EXTRA_CA_CERTS makes every Node process parse the whole file
 * before running a line (measured: ~100 ms of CPU for a 144-certificate
 * bundle, more than the runner's own boot), and a runner makes no TLS
 * connection. They reach the runner under a name of their own and are put
 * back into its environment at once (restoreDeferredEnv), before anything
 * is spawned, so the worker and the hooks inherit them as they were.
 */
const DEFERRED = ['NODE_EXTRA_CA_CERTS'] as const

/**
 * What every runner and hook supervisor boots with, and drops at once
 * (restoreDeferredEnv), so nothing it spawns inherits it: a process whose
 * environment, as it started, holds this is drover's own, owning a task of its
 * own. A task's tree scan leaves it and all below it alone — a runner started
 * from inside a task (an agent calling `drover start`) is a child of the task's
 * processes for a moment, and its task must outlive the one it was started from.
 */
export const RUNNER_MARK = 'DROVER_RUNNER=1'
const [RUNNER_MARK_NAME, RUNNER_MARK_VALUE] = RUNNER_MARK.split('=')
const deferredName = (name: string) => `DROVER_DEFERRED_${name}`

/**
 * The environment of a runner or hook supervisor drover starts from wherever
 * it runs — possibly from inside another task (an agent calling `drover
 * start`, `drover mcp` under claude): without that task's variables, so it is
 * never taken for one of that task's leftovers and its own worker gets its
 * own, and with the boot-time variables deferred (above).
 */
export function runnerEnv(env: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  const clean = {...env}
  for (const name of TASK_VARIABLES) delete clean[name]
  clean[RUNNER_MARK_NAME] = RUNNER_MARK_VALUE
  for (const name of DEFERRED) {
    delete clean[deferredName(name)]
    if (clean[name] === undefined) continue
    clean[deferredName(name)] = clean[name]
    delete clean[name]
  }
  return clean
}

/** In the runner, first thing: the deferred variables back under their own names, and the runner's mark gone. */
export function restoreDeferredEnv(env: NodeJS.ProcessEnv = process.env): void {
  delete env[RUNNER_MARK_NAME]
  for (const name of DEFERRED) {
    const saved = env[deferredName(name)]
    if (saved === undefined) continue
    env[name] = saved
    delete env[deferredName(name)]
  }
}
