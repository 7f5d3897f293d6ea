// What a run's end does to the follow-ups queued for its task (state/followups.ts).
// A run that ended well — succeeded, or drained for a follow-up asked for
// `--now` — hands the first one to the next run: the record written is that
// run, opened at once with the agent's resume command, and the same runner
// goes on to run it (runner/main.ts). A run that failed, was stopped or was
// cancelled drops them (those queued with --keep stay, but not past a cancel),
// each drop recorded. A drain by request or a lost runner leaves them queued
// for the next resume; an attached run (a person in a terminal) leaves them too.

import {existsSync} from 'node:fs'
import {budgetReached} from '../agents/budget.js'
import type {FlagTable, HelpGrammar} from '../agents/flags.js'
import {flagHelpArgv, resumeCommand, sessionRefusal} from '../agents/profiles.js'
import {profileOf} from '../agents/registry.js'
import {laterRunEnv} from '../process/worker.js'
import {pendingFollowups, type Followup} from '../state/followups.js'
import {beginRun, type DroppedFollowup, type TaskRecord} from '../state/record.js'
import {taskPaths} from '../state/store.js'

/** How many dropped follow-ups a record keeps (the journal has every one). */
const DROPS_KEPT = 20

export interface FollowupsAtEnd {
  /** the record to write: the next run, opened for `delivered`; or the ended one, naming what it dropped. */
  record: TaskRecord
  delivered: Followup | null
  dropped: DroppedFollowup[]
}

/**
 * agents/flags-cache.ts's learnFlags, passed in by the runner: it loads
 * node:crypto, which the commands that settle a run without delivering need not.
 */
export type LearnFlags = (stateDir: string, argv: string[], opts: {env: NodeJS.ProcessEnv; cwd: string; grammar?: HelpGrammar}) => FlagTable

/**
 * `deliver`: the ending may hand a follow-up on (the runner's own end of a
 * run that went well), learning the agent's grammar with it. null when the
 * pending follow-ups stay as they are.
 */
export function followupsAtEnd(stateDir: string, ended: TaskRecord, deliver: LearnFlags | null): FollowupsAtEnd | null {
  const run = ended.runs.at(-1)
  if (!run || run.attached) return null
  const pending = pendingFollowups(taskPaths(stateDir, ended.id), ended)
  if (pending.length === 0) return null
  if (deliver) {
    const next = pending[0]
    const opened = openRun(stateDir, ended, next, deliver)
    if (typeof opened !== 'string') return {record: opened, delivered: next, dropped: []}
    return withDrops(ended, pending.filter((f) => !f.keep), `not delivered: ${opened}`)
  }
  if (ended.status === 'cancelled') return withDrops(ended, pending, `task ${ended.id} was cancelled`)
  if (ended.status === 'failed' || ended.status === 'stopped' || ended.status === 'skipped') {
    const how = ended.status === 'failed' ? `failed${ended.reason ? ` (${ended.reason})` : ''}` : (ended.reason ?? ended.status)
    return withDrops(ended, pending.filter((f) => !f.keep), `run ${run.run} ${how}`)
  }
  return null
}

/** The next run, delivering `followup`, or why the session cannot go on. */
function openRun(stateDir: string, ended: TaskRecord, followup: Followup, learnFlags: LearnFlags): TaskRecord | string {
  const profile = profileOf(ended.agent)
  if (!profile) return `${ended.agent} is no agent drover can continue`
  const refusal = sessionRefusal(ended)
  if (refusal) return refusal
  const spent = budgetReached(ended.policies, ended.agentInfo?.session ?? null)
  if (spent) return `the task has used its budget (${spent})`
  let command: string[]
  try {
    // Learnt when the follow-up was queued: this reads the cache, unless the agent was upgraded since.
    const flags = learnFlags(stateDir, flagHelpArgv(ended), {env: laterRunEnv(ended), cwd: existsSync(ended.cwd) ? ended.cwd : process.cwd(), grammar: profile.helpGrammar})
    command = resumeCommand(ended, followup.prompt, flags).command
  } catch (error) {
    return `${ended.agent}: ${(error as Error).message}`
  }
  const next = beginRun(ended, true, command, new Date().toISOString(), 'starting', {prompt: followup.prompt, followup: followup.n})
  return {...next, attempt: 1, retryAt: null}
}

function withDrops(ended: TaskRecord, dropped: Followup[], reason: string): FollowupsAtEnd | null {
  if (dropped.length === 0) return null
  const droppedAt = new Date().toISOString()
  const run = ended.runs.length
  const notes = dropped.map((f): DroppedFollowup => ({n: f.n, prompt: f.prompt, queuedAt: f.at, droppedAt, run, reason}))
  return {record: {...ended, droppedFollowups: [...(ended.droppedFollowups ?? []), ...notes].slice(-DROPS_KEPT)}, delivered: null, dropped: notes}
}
