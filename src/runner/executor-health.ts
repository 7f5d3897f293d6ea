// The executors as `drover doctor` sees them. The local one needs nothing but
// this machine. Slurm is looked at when something uses it — the state dir's
// config.json or DROVER_EXECUTOR makes it the default, or a live task runs on
// it: its client commands must be on PATH and its controller must answer
// (`scontrol ping`, which asks slurmctld and nothing else), and the state dir
// must not live in this machine's memory, where no compute node can read it.

import {existsSync} from 'node:fs'
import {currentPlatform, memoryFileSystem, resolveExecutable, type PlatformContext} from '../platform/platform.js'
import {pathExtValue, pathValue, runBriefly} from '../platform/inspect.js'

export interface SlurmCommand {
  name: string
  /** where PATH finds it, or null. */
  path: string | null
}

export interface ExecutorCheck {
  name: 'local' | 'slurm'
  /** something uses it (see `usedBy`); an executor nothing uses is not checked. */
  used: boolean
  /** what makes it used: "default", "config.json", "DROVER_EXECUTOR", "task 12". */
  usedBy: string[]
  /** it can place a runner now; null when it was not checked. */
  reachable: boolean | null
  /** Slurm: its client commands drover runs. */
  commands: SlurmCommand[]
  /** Slurm: what the controller answered (`Slurmctld(primary) at head is UP`). */
  controller: string | null
  tookMs: number | null
  error: string | null
  /** Slurm: why its nodes may not see the state dir (it is in this machine's memory), else null. */
  unsharedStateDir: string | null
}

export const SLURM_COMMANDS = ['sbatch', 'squeue', 'scontrol', 'scancel'] as const

export interface ExecutorInputs {
  stateDir: string
  /** the default executor's source: config.json's `executor`, DROVER_EXECUTOR's value. */
  configExecutor: string | null
  envExecutor: string | null
  /** ids of live tasks placed on Slurm. */
  slurmTasks: number[]
  env: NodeJS.ProcessEnv
  cwd: string
  timeoutMs: number
  ctx?: PlatformContext
}

export function localCheck(inputs: Pick<ExecutorInputs, 'configExecutor' | 'envExecutor'>): ExecutorCheck {
  const isDefault = (inputs.envExecutor ?? inputs.configExecutor ?? 'local') === 'local'
  return {name: 'local', used: true, usedBy: isDefault ? ['default'] : [], reachable: true, commands: [], controller: null, tookMs: null, error: null, unsharedStateDir: null}
}

export async function slurmCheck(inputs: ExecutorInputs): Promise<ExecutorCheck> {
  const ctx = inputs.ctx ?? currentPlatform()
  const usedBy = [
    ...(inputs.configExecutor === 'slurm' ? ['config.json'] : []),
    ...(inputs.envExecutor === 'slurm' ? ['DROVER_EXECUTOR'] : []),
    ...inputs.slurmTasks.map((id) => `task ${id}`),
  ]
  const check: ExecutorCheck = {name: 'slurm', used: usedBy.length > 0, usedBy, reachable: null, commands: [], controller: null, tookMs: null, error: null, unsharedStateDir: null}
  if (!check.used) return check
  const lookup = {pathEnv: pathValue(inputs.env, ctx), cwd: inputs.cwd, pathExt: pathExtValue(inputs.env, ctx)}
  check.commands = SLURM_COMMANDS.map((name) => ({name, path: resolveExecutable(name, lookup, ctx)}))
  const fs = memoryFileSystem(inputs.stateDir, ctx)
  if (fs) check.unsharedStateDir = `the state dir is on ${fs}, in this machine's memory`
  const missing = check.commands.filter((c) => c.path === null).map((c) => c.name)
  if (missing.length > 0) {
    check.reachable = false
    check.error = `${missing.join(', ')} not found on PATH`
    return check
  }
  // scontrol retries a missing config file for a minute before it says so
  const conf = inputs.env.SLURM_CONF
  if (conf && !existsSync(conf)) {
    check.reachable = false
    check.error = `SLURM_CONF names ${conf}, which does not exist`
    return check
  }
  const scontrol = check.commands.find((c) => c.name === 'scontrol')!.path!
  const ping = await runBriefly(scontrol, ['ping'], {env: inputs.env, cwd: inputs.cwd, timeoutMs: inputs.timeoutMs, ctx})
  check.tookMs = ping.tookMs
  const answer = `${ping.stdout}\n${ping.stderr}`.split(/\r?\n/).map((line) => line.trim()).filter(Boolean)
  check.controller = answer.find((line) => /slurmctld/i.test(line)) ?? answer[0] ?? null
  // scontrol ping exits 0 only when a controller answered; its line says UP (DOWN for each that did not)
  check.reachable = ping.code === 0 && check.controller !== null && /\bUP\b/.test(check.controller)
  if (!check.reachable) {
    check.error = ping.timedOut
      ? `scontrol ping did not answer within ${inputs.timeoutMs} ms${check.controller ? ` (${check.controller})` : ''}`
      : ping.error !== null
        ? `scontrol ping could not run: ${ping.error}`
        : `the controller does not answer (scontrol ping: ${check.controller ?? `exit ${ping.code}`})`
  }
  return check
}
