// What is wrong, from the facts `doctor` gathered, one line each saying what
// to do. An `error` is something broken (drover refuses the state dir, a
// record cannot be read, a task runs unwatched, a process outlived its task,
// Slurm is used and does not answer): the exit code is 1. A `warning` is
// worth knowing and breaks nothing now (a stale lock the next taker removes,
// little free space, tasks a reboot interrupted).

import path from 'node:path'
import type {KnownAgent} from '../agents/known.js'
import type {AgentCheck} from '../agents/probe.js'
import {formatBytes} from '../base/parse.js'
import type {OsName} from '../platform/platform.js'
import type {ExecutorCheck} from '../runner/executor-health.js'
import {permissionHint} from '../state/statedir.js'
import type {StateDirHealth} from '../tasks/health.js'

export interface DoctorProblem {
  severity: 'error' | 'warning'
  /** what it is about: `agent claude`, `state dir`, `task 12`, `lock task-3.lock`, `executor slurm`, `environment`. */
  subject: string
  /** what is wrong. */
  message: string
  /** what to do about it. */
  fix: string
}

/** Below this the next task's output may not fit: an error. Below LOW_SPACE_BYTES: a warning. */
export const NO_SPACE_BYTES = 100 * 1024 * 1024
export const LOW_SPACE_BYTES = 1024 * 1024 * 1024

export interface ProblemInputs {
  agents: AgentCheck[]
  stateDir: StateDirHealth & {config: {path: string; error: string | null}}
  executors: ExecutorCheck[]
  environment: {executor: {value: string | null; valid: boolean}}
  known: readonly KnownAgent[]
  os: OsName
}

/** Ids for a line: the first few, then how many more (the JSON has them all). */
export function idList(ids: readonly number[], shown = 10): string {
  return ids.length <= shown ? ids.join(', ') : `${ids.slice(0, shown).join(', ')} and ${ids.length - shown} more`
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 'es'}`

export function problemsOf(inputs: ProblemInputs): DoctorProblem[] {
  const problems = [...agentProblems(inputs), ...stateDirProblems(inputs), ...executorProblems(inputs.executors), ...environmentProblems(inputs)]
  // errors first, each group in the order found
  return [...problems.filter((p) => p.severity === 'error'), ...problems.filter((p) => p.severity === 'warning')]
}

function agentProblems({agents, known}: ProblemInputs): DoctorProblem[] {
  const problems: DoctorProblem[] = []
  for (const agent of agents) {
    if (!agent.found) continue
    const subject = `agent ${agent.name}`
    const reinstall = `reinstall it (npm install -g ${known.find((k) => k.name === agent.name)?.npmPackage ?? agent.name}) or put a working one first on PATH`
    if (agent.flags && !agent.flags.readable) {
      problems.push({
        severity: 'error',
        subject,
        message: `drover cannot read ${agent.name}'s flags (${agent.flags.error}), so \`drover resume\` of its tasks fails`,
        fix: reinstall,
      })
    }
    if (agent.versionError !== null) problems.push({severity: 'warning', subject, message: `${agent.path} does not report its version (${agent.versionError})`, fix: reinstall})
  }
  return problems
}

function stateDirProblems({stateDir: s, os}: ProblemInputs): DoctorProblem[] {
  const problems: DoctorProblem[] = []
  const subject = 'state dir'
  if (s.owner && !s.owner.mine) {
    problems.push({severity: 'error', subject, message: `${s.path} belongs to another user (uid ${s.owner.uid}): drover refuses it`, fix: 'use a state dir of your own with --state-dir or DROVER_STATE_DIR'})
    return problems
  }
  if (s.error !== null) {
    problems.push({severity: 'error', subject, message: `${s.path} cannot be used: ${s.error}`, fix: 'fix its permissions, or use another one with --state-dir or DROVER_STATE_DIR'})
    return problems
  }
  if (s.formatError) {
    problems.push({severity: 'error', subject, message: s.formatError, fix: 'use the drover that wrote it (upgrade this one), or another state dir with --state-dir or DROVER_STATE_DIR'})
    return problems
  }
  if (s.exists && !s.isDirectory) {
    problems.push({severity: 'error', subject, message: `${s.path} is not a directory`, fix: 'move that file away, or use another state dir with --state-dir or DROVER_STATE_DIR'})
    return problems
  }
  if (s.owner && (s.owner.groupWritable || s.owner.worldWritable)) {
    const who = s.owner.worldWritable ? 'every user' : 'its group'
    problems.push({
      severity: 'error',
      subject,
      message: `${s.path} is writable by ${who} (mode ${s.owner.mode}): drover refuses it, since another user could plant records that make drover signal processes of their choice`,
      fix: permissionHint(s.path, Number.parseInt(s.owner.mode, 8)),
    })
  }
  if (s.space !== null && s.space.freeBytes < NO_SPACE_BYTES) {
    problems.push({severity: 'error', subject, message: `only ${formatBytes(s.space.freeBytes)} free where the state dir is: task output and records may not be written`, fix: 'free space there (`drover prune --older-than 7d` removes old tasks), or move the state dir'})
  } else if (s.space !== null && s.space.freeBytes < LOW_SPACE_BYTES) {
    problems.push({severity: 'warning', subject, message: `only ${formatBytes(s.space.freeBytes)} free where the state dir is`, fix: 'free space there (`drover prune --older-than 7d` removes old tasks)'})
  }
  if (s.config.error !== null) {
    problems.push({severity: 'error', subject: 'config.json', message: `${s.config.error}: every \`drover start\` refuses it`, fix: `correct or remove ${s.config.path}`})
  }
  for (const corrupt of s.corrupt) {
    problems.push({
      severity: 'error',
      subject: `task ${corrupt.id}`,
      message: `its record cannot be read (${corrupt.error})`,
      fix: `keep what you need from ${path.join(s.path, 'tasks', String(corrupt.id))}, then \`drover prune --include-corrupt\` removes it`,
    })
  }
  for (const task of s.unwatched) {
    const runner = task.runnerPid !== null ? ` (pid ${task.runnerPid})` : ''
    problems.push({
      severity: 'error',
      subject: `task ${task.id}`,
      message: `recorded ${task.status} but its runner${runner} is gone${task.workerAlive ? `; its worker (pid ${task.workerPid}) still runs, unwatched` : ''}`,
      fix: task.workerAlive
        ? `\`drover status ${task.id}\` starts a new runner that takes the worker over`
        : `\`drover status ${task.id}\` records it lost${task.executor === 'local' ? ' (and stops what it left)' : ''}; \`drover resume ${task.id}\` continues it`,
    })
  }
  for (const task of s.leftovers) {
    const pids = task.pids.join(' ')
    problems.push({
      severity: 'error',
      subject: `task ${task.id}`,
      message: `it ended (${task.status}) but ${plural(task.pids.length, 'process')} of it still ${task.pids.length === 1 ? 'runs' : 'run'} (pid ${task.pids.join(', ')})`,
      fix: os === 'win32' ? `stop them: taskkill /T /F ${task.pids.map((pid) => `/PID ${pid}`).join(' ')}` : `stop them: kill ${pids} (kill -9 ${pids} if they stay)`,
    })
  }
  for (const lock of s.staleLocks) {
    const holder = lock.holderPid === null ? 'no holder recorded' : `held by pid ${lock.holderPid}${lock.holderHost ? ` on ${lock.holderHost}` : ''}, which is gone`
    problems.push({
      severity: 'warning',
      subject: `lock ${lock.name}`,
      message: `stale lock (${holder})`,
      fix: 'nothing to do: the next drover command that needs it takes it over',
    })
  }
  if (s.interrupted.length > 0) {
    problems.push({
      severity: 'warning',
      subject: s.interrupted.length === 1 ? `task ${s.interrupted[0]}` : `tasks ${idList(s.interrupted)}`,
      message: 'lost while meant to run (a reboot or a crash ended them)',
      fix: '`drover resume --interrupted` continues them (`@reboot drover resume --interrupted -q` in crontab does it at every boot)',
    })
  }
  return problems
}

function executorProblems(executors: ExecutorCheck[]): DoctorProblem[] {
  const problems: DoctorProblem[] = []
  for (const check of executors) {
    if (!check.used) continue
    const subject = `executor ${check.name}`
    const why = `used by ${check.usedBy.join(', ')}`
    if (check.reachable === false) {
      const missing = check.commands.some((c) => c.path === null)
      problems.push({
        severity: 'error',
        subject,
        message: `${check.error} (${why}): tasks cannot be placed on it`,
        fix: missing
          ? "install Slurm's client commands (sbatch, squeue, scontrol, scancel) or put them on PATH"
          : check.error?.startsWith('SLURM_CONF') === true
            ? "point SLURM_CONF at the cluster's slurm.conf, or unset it"
            : 'check the controller and SLURM_CONF (`scontrol ping` must say UP)',
      })
    }
    if (check.unsharedStateDir !== null) {
      problems.push({severity: 'warning', subject, message: `${check.unsharedStateDir} (${why}): compute nodes other than this one cannot read it`, fix: 'use a state dir on a file system the nodes share (--state-dir or DROVER_STATE_DIR)'})
    }
  }
  return problems
}

function environmentProblems({environment}: ProblemInputs): DoctorProblem[] {
  if (environment.executor.valid) return []
  return [
    {
      severity: 'error',
      subject: 'environment',
      message: `DROVER_EXECUTOR=${environment.executor.value} names no executor: every \`drover start\` without --executor refuses it`,
      fix: 'set it to local or slurm, or unset it',
    },
  ]
}

/** The one line a person reads for a problem: `error: task 7: its record cannot be read (…); keep …`. */
export function problemLine(problem: DoctorProblem): string {
  return `${problem.severity}: ${problem.subject}: ${problem.message}; ${problem.fix}`
}
