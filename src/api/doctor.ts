// `drover doctor` as a library call: one report of everything drover depends
// on — the agents it knows (on PATH? which version? can resume read their
// flags? their session store?), the state dir (owner, mode, free space,
// corrupt records, stale locks, tasks whose runner is gone, processes of ended
// tasks), the executors (Slurm reachable when used) and the environment (API
// key variables: present or not, never their values). Every front-end (CLI,
// MCP, dashboard) shows this same object. Read-only: it creates, rewrites and
// signals nothing, and runs agents only with `--version` and `--help`.

import path from 'node:path'
import {knownAgents, type KnownAgent} from '../agents/known.js'
import {probeAgent, type AgentCheck} from '../agents/probe.js'
import {currentPlatform} from '../platform/platform.js'
import {readStateConfig} from '../state/config.js'
import {EXECUTOR_NAMES, type ExecutorName} from '../state/record.js'
import {resolveStateDir, STATE_DIR_ENV} from '../state/statedir.js'
import {localCheck, slurmCheck, type ExecutorCheck} from '../runner/executor-health.js'
import {inspectStateDir, type StateDirHealth} from '../tasks/health.js'
import {problemsOf, type DoctorProblem} from './doctor-problems.js'

export type {AgentCheck, AgentFlagsCheck, SessionStoreCheck} from '../agents/probe.js'
export type {ExecutorCheck, SlurmCommand} from '../runner/executor-health.js'
export type {CorruptRecord, LeftoverProcesses, StaleLock, StateDirHealth, UnwatchedTask} from '../tasks/health.js'
export type {DoctorProblem} from './doctor-problems.js'
export {problemLine} from './doctor-problems.js'

/** How long each `--version`, `--help` or `scontrol ping` may take by default. */
export const DEFAULT_DOCTOR_TIMEOUT_MS = 20_000

export interface DoctorOptions {
  /** the state dir to look at (default: $DROVER_STATE_DIR, else the per-OS default). */
  stateDir?: string
  /** the environment agents are looked up in (PATH, HOME, the API key variables); default process.env. */
  env?: NodeJS.ProcessEnv
  cwd?: string
  timeoutMs?: number
  /** the caller's drover version, shown in the report. */
  version?: string
  /** which agents to look at (default: every agent drover knows). */
  agents?: readonly KnownAgent[]
}

export interface ApiKeyVariable {
  name: string
  /** the agents that read it. */
  agents: string[]
  /** set and not empty. Its value is never read into the report. */
  present: boolean
}

export interface StateDirReport extends StateDirHealth {
  /** where the path came from: the option, $DROVER_STATE_DIR, or the per-OS default. */
  source: 'option' | 'environment' | 'default'
  config: {path: string; present: boolean; executor: ExecutorName | null; error: string | null}
}

export interface DoctorReport {
  /** no problem of severity `error`: what the exit code 0 means. */
  ok: boolean
  drover: {version: string | null; node: string; platform: string; arch: string}
  agents: AgentCheck[]
  stateDir: StateDirReport
  executors: ExecutorCheck[]
  environment: {
    apiKeys: ApiKeyVariable[]
    /** DROVER_EXECUTOR as set (not a secret), and whether it names an executor. */
    executor: {value: string | null; valid: boolean}
  }
  /** everything wrong, errors first; each says what to do. */
  problems: DoctorProblem[]
  tookMs: number
}

export async function doctor(options: DoctorOptions = {}): Promise<DoctorReport> {
  const began = performance.now()
  const env = options.env ?? process.env
  const cwd = options.cwd ?? process.cwd()
  const timeoutMs = options.timeoutMs ?? DEFAULT_DOCTOR_TIMEOUT_MS
  const known = options.agents ?? knownAgents()
  const source: StateDirReport['source'] = options.stateDir ? 'option' : env[STATE_DIR_ENV] ? 'environment' : 'default'
  const dir = await resolveStateDir(options.stateDir, env)

  // the agents' version and help calls run while the state dir is read
  const agentsDone = Promise.all(known.map((agent) => probeAgent(agent, {env, cwd, timeoutMs})))
  const health = inspectStateDir(dir)
  // a state dir drover cannot use is not looked into for its config.json either (another user's: every read is EACCES)
  const stateDir: StateDirReport = {...health, source, config: health.error === null ? configOf(dir) : {path: path.join(dir, 'config.json'), present: false, executor: null, error: null}}
  const envExecutor = env.DROVER_EXECUTOR ? env.DROVER_EXECUTOR : null
  const inputs = {stateDir: dir, configExecutor: stateDir.config.executor, envExecutor, slurmTasks: stateDir.slurmTasks, env, cwd, timeoutMs}
  const [agents, slurm] = await Promise.all([agentsDone, slurmCheck(inputs)])
  const executors = [localCheck(inputs), slurm]

  const environment = {
    apiKeys: apiKeyVariables(known, env),
    executor: {value: envExecutor, valid: envExecutor === null || EXECUTOR_NAMES.includes(envExecutor as ExecutorName)},
  }
  const problems = problemsOf({agents, stateDir, executors, environment, known, os: currentPlatform().os})
  return {
    ok: problems.every((p) => p.severity !== 'error'),
    drover: {version: options.version ?? null, node: process.version, platform: process.platform, arch: process.arch},
    agents,
    stateDir,
    executors,
    environment,
    problems,
    tookMs: Math.round(performance.now() - began),
  }
}

function configOf(dir: string): StateDirReport['config'] {
  const file = path.join(dir, 'config.json')
  try {
    const config = readStateConfig(dir)
    return {path: file, present: config.source !== undefined, executor: config.executor ?? null, error: null}
  } catch (error) {
    return {path: file, present: true, executor: null, error: (error as Error).message}
  }
}

/** Which API key variables are set: names only — a value is never copied, measured or shown. */
function apiKeyVariables(known: readonly KnownAgent[], env: NodeJS.ProcessEnv): ApiKeyVariable[] {
  const byName = new Map<string, string[]>()
  for (const agent of known) for (const name of agent.apiKeyVars) byName.set(name, [...(byName.get(name) ?? []), agent.name])
  return [...byName].map(([name, agents]) => ({name, agents, present: typeof env[name] === 'string' && env[name] !== ''}))
}
