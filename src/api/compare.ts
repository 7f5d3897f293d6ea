// `drover compare GROUP`: a group's attempts side by side — how each ended,
// what its agent spent (turns, tokens, cost, time), what work it left in its
// worktree against the base (files, lines added and removed) and what its
// check made of that work — so a person (or an agent, through MCP) can pick
// the one to merge. One shape for every front-end: the CLI's table is drawn
// from it, `--json` prints it, MCP's compare tool returns it.

import type {CheckResult, EndCause, TaskRecord, TaskStatus, WorktreeMerge, WorktreeSummary} from '../state/record.js'
import {runtimeMs, sessionUsage, shownStatus} from './task-json.js'
import {maskUrlCredentials} from './task-json.js'

/** One attempt as compare shows it. */
export interface AttemptJson {
  id: number
  name: string | null
  agent: string
  status: TaskStatus
  cause: EndCause | null
  reason: string | null
  exitCode: number | null
  signal: string | null
  /** the agent's session totals (across resumes), as far as the agent reports them; null where it does not. */
  turns: number | null
  inputTokens: number | null
  outputTokens: number | null
  costUsd: number | null
  runtimeMs: number | null
  /** the work in its worktree against the base commit: read from git now (`present`), else as its last run left it; null without a worktree. */
  work: {
    files: number
    insertions: number
    deletions: number
    /** commits on its branch since the base. */
    commits: number
    uncommitted: boolean
    present: boolean
  } | null
  branch: string | null
  /** its branch was merged (`drover merge`): where, and when. */
  merged: WorktreeMerge | null
  /** its check (`start --check`) and the result for its last run; null without a check. */
  check: {command: string; result: CheckResult | null} | null
  /** ended, and its check (if any) done with. */
  settled: boolean
}

/** `drover compare`'s --json shape. */
export interface ComparisonJson {
  group: string
  /** the commit the attempts started from (the first attempt's, when they differ: `sameBase` false), or null without worktrees. */
  base: {ref: string; commit: string; branch: string | null} | null
  sameBase: boolean
  attempts: AttemptJson[]
  /** every attempt ended and checked: what is shown will not change by itself. */
  settled: boolean
}

export interface CompareOptions {
  /** wait until every attempt has ended and its check is done (or `timeoutMs` passed). */
  wait?: boolean
  timeoutMs?: number
  signal?: AbortSignal
  /** show credentials in URLs of the check's command and output (masked by default). */
  showEnv?: boolean
}

/** The group `ref` names (its name, or a task standing for it), its attempts side by side. */
export async function compareGroup(stateDir: string, ref: string, opts: CompareOptions = {}): Promise<ComparisonJson> {
  const [{groupTasks, resolveGroup}, {attemptSettled, settleAbandonedChecks, waitSettled, workOf}] = await Promise.all([import('../tasks/groups.js'), import('../tasks/compare.js')])
  const group = resolveGroup(stateDir, ref)
  let records = await settleAbandonedChecks(stateDir, await groupTasks(stateDir, group))
  if (opts.wait) records = await waitSettled(stateDir, records.map((r) => r.id), {timeoutMs: opts.timeoutMs, signal: opts.signal})
  const attempts = records.map((record) => attemptJson(record, workOf(record), attemptSettled(record), opts.showEnv ?? false))
  const bases = records.flatMap((r) => (r.worktree ? [r.worktree] : []))
  const first = bases[0]
  return {
    group,
    base: first ? {ref: first.base, commit: first.baseCommit, branch: first.baseBranch ?? null} : null,
    sameBase: bases.every((w) => w.baseCommit === first.baseCommit),
    attempts,
    settled: attempts.every((a) => a.settled),
  }
}

function attemptJson(record: TaskRecord, work: {summary: WorktreeSummary; present: boolean} | null, settled: boolean, show: boolean): AttemptJson {
  const usage = record.agentInfo ? sessionUsage(record.agentInfo) : null
  const check = record.check
  return {
    id: record.id,
    name: record.name,
    agent: record.agent,
    status: shownStatus(record),
    cause: record.cause,
    reason: record.reason,
    exitCode: record.exitCode,
    signal: record.signal,
    // a turn count of 0 from an agent that reports none is no figure
    turns: usage && usage.turns > 0 ? usage.turns : null,
    inputTokens: usage?.inputTokens ?? null,
    outputTokens: usage?.outputTokens ?? null,
    costUsd: usage?.costUsd ?? null,
    runtimeMs: runtimeMs(record),
    work: work && {
      files: work.summary.filesChanged,
      insertions: work.summary.insertions,
      deletions: work.summary.deletions,
      commits: work.summary.commits,
      uncommitted: work.summary.uncommitted,
      present: work.present,
    },
    branch: record.worktree?.branch ?? null,
    merged: record.worktree?.merged ?? null,
    check: check
      ? {
          command: show ? check.command : maskUrlCredentials(check.command),
          result: check.result && (show ? check.result : {...check.result, output: maskUrlCredentials(check.result.output)}),
        }
      : null,
    settled,
  }
}
