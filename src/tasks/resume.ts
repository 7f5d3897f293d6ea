// `resume`: a new run that continues a task's persisted session — the agent's
// own conversation for an agent, the session dir for anything else.

import {existsSync} from 'node:fs'
import type {FlagTable} from '../agents/flags.js'
import {FlagLearningError, learnFlags} from '../agents/flags-cache.js'
import {conflictError, DroverError, ExitCode, usageError} from '../base/errors.js'
import {startNewRun} from './launch.js'
import {DEFAULT_RESUME_PROMPT, flagHelpArgv, resumeCommand, sessionRefusal} from '../agents/profiles.js'
import {resumeRefusal} from '../agents/resumable.js'
import {profileOf} from '../agents/registry.js'
import {pendingFollowups, removeFollowup} from '../state/followups.js'
import type {RunAbout, TaskRecord} from '../state/record.js'
import {appendEvent, taskPaths} from '../state/store.js'
import {budgetReached, checkBudget, givenLimits, type Budget} from '../agents/budget.js'
import {laterRunEnv} from '../process/worker.js'

export {DEFAULT_RESUME_PROMPT}
export {resumeRefusal, wasInterrupted} from '../agents/resumable.js'

/** A prompt is for an agent's conversation: a program without a profile runs its command again and has none to take. */
export function refuseNoAgent(record: TaskRecord): void {
  if (profileOf(record.agent)) return
  throw usageError(`task ${record.id} runs no agent drover can continue (${record.agent}), so it takes no prompt: \`drover resume ${record.id}\` runs its command again with DROVER_RESUME=1`)
}

/**
 * The agent's grammar, read before any task lock is taken: `--help` of a
 * cold agent binary can take a second, and nobody else should wait for that.
 * null for a program without a profile, or a session that cannot go on.
 */
export function learnAgentFlags(stateDir: string, record: TaskRecord): FlagTable | null {
  const profile = profileOf(record.agent)
  if (!profile || sessionRefusal(record) !== null) return null
  try {
    // In the task's cwd, where a relative launcher (`node cli.js`) resolves; a
    // vanished cwd is the run's to report, not a reason to refuse here.
    const cwd = existsSync(record.cwd) ? record.cwd : process.cwd()
    return learnFlags(stateDir, flagHelpArgv(record), {env: laterRunEnv(record), cwd, grammar: profile.helpGrammar})
  } catch (error) {
    if (!(error instanceof FlagLearningError)) throw error
    throw new DroverError(`task ${record.id} was not resumed: ${record.agent} ${error.message}`, ExitCode.failed, {id: record.id})
  }
}

/**
 * `prompt` undefined: what the task waits to be told — the prompt of a run
 * whose worker never started (a reboot between a follow-up's delivery and its
 * run), or for a run that ended (not one cut short: drained, lost, waiting) a
 * follow-up still queued (kept through a failure, left by an attached
 * session) — else "Continue from where you left off."
 */
export async function resumeTask(stateDir: string, record: TaskRecord, prompt: string | undefined, opts: {budget?: Partial<Budget>} = {}): Promise<TaskRecord> {
  if (prompt !== undefined) refuseNoAgent(record)
  const budget = opts.budget ? givenLimits(opts.budget) : undefined
  if (budget) checkBudget(record.agent, budget)
  const flags = learnAgentFlags(stateDir, record)
  const profile = profileOf(record.agent)
  const paths = taskPaths(stateDir, record.id)
  let taken: number | null = null
  return startNewRun(stateDir, record.id, {
    resumed: true,
    policies: budget,
    prepare(current) {
      const refusal = resumeRefusal(current)
      if (refusal) throw conflictError(refusal, {id: current.id, status: current.status})
      // A run that would be drained at its first look at the stream is not started.
      const spent = budgetReached(current.policies, current.agentInfo?.session ?? null)
      if (spent) {
        throw conflictError(`task ${current.id} has used its budget (${spent}); resume it with a higher one (--max-cost, --max-turns or --max-tokens) to continue`, {
          id: current.id,
          status: current.status,
        })
      }
      // generic, or an agent this drover does not know: the same command again, with DROVER_RESUME=1
      if (!profile) return {command: null}
      const awaited = prompt !== undefined ? {prompt} : awaitedPrompt(paths, current)
      const about = {...awaited, prompt: awaited.prompt ?? DEFAULT_RESUME_PROMPT}
      taken = about.followup ?? null
      return {command: resumeCommand(current, about.prompt, flags).command, about}
    },
    opened(next) {
      if (taken === null) return
      removeFollowup(paths, taken)
      appendEvent(paths, {event: 'followup', run: next.runs.length, followup: taken})
    },
  })
}

function awaitedPrompt(paths: ReturnType<typeof taskPaths>, record: TaskRecord): RunAbout {
  const last = record.runs.at(-1)
  if (last && last.startedAt === null && last.prompt) return {prompt: last.prompt, followup: last.followup ?? null}
  // work cut short goes on first: the follow-ups were meant for after it
  if (['drained', 'lost', 'waiting'].includes(record.status)) return {}
  const next = pendingFollowups(paths, record)[0]
  return next ? {prompt: next.prompt, followup: next.n} : {}
}
