// `resume`: a new run that continues a task's persisted session — the agent's
// own conversation for an agent, the session dir for anything else.

import {existsSync} from 'node:fs'
import type {FlagTable} from '../agents/flags.js'
import {FlagLearningError, learnFlags} from '../agents/flags-cache.js'
import {conflictError, DroverError, ExitCode} from '../base/errors.js'
import {startNewRun} from './launch.js'
import {DEFAULT_RESUME_PROMPT, flagHelpArgv, resumeCommand, sessionRefusal} from '../agents/profiles.js'
import {resumeRefusal} from '../agents/resumable.js'
import {profileOf} from '../agents/registry.js'
import type {TaskRecord} from '../state/record.js'
import {budgetReached, checkBudget, givenLimits, type Budget} from '../agents/budget.js'
import {laterRunEnv} from '../process/worker.js'

export {DEFAULT_RESUME_PROMPT}
export {resumeRefusal, wasInterrupted} from '../agents/resumable.js'

export async function resumeTask(stateDir: string, record: TaskRecord, prompt: string, opts: {budget?: Partial<Budget>} = {}): Promise<TaskRecord> {
  const budget = opts.budget ? givenLimits(opts.budget) : undefined
  if (budget) checkBudget(record.agent, budget)
  // The agent's grammar is read before taking the task lock: `--help` of a
  // cold agent binary can take a second, and nobody else should wait for that.
  let flags: FlagTable | null = null
  const profile = profileOf(record.agent)
  if (profile && sessionRefusal(record) === null) {
    try {
      // In the task's cwd, where a relative launcher (`node cli.js`) resolves; a
      // vanished cwd is the run's to report, not a reason to refuse here.
      const cwd = existsSync(record.cwd) ? record.cwd : process.cwd()
      flags = learnFlags(stateDir, flagHelpArgv(record), {env: laterRunEnv(record), cwd, grammar: profile.helpGrammar})
    } catch (error) {
      if (!(error instanceof FlagLearningError)) throw error
      throw new DroverError(`task ${record.id} was not resumed: ${record.agent} ${error.message}`, ExitCode.failed, {id: record.id})
    }
  }
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
      return profile ? resumeCommand(current, prompt, flags).command : null
    },
  })
}
