// Reading and writing task.json: one parse that checks every field against
// the schema in record.ts and names what is wrong (a RecordError), so a
// damaged record shows as corrupt instead of misleading its readers.

import {CHECK_STATUSES, type CheckStatus, DRAIN_MODES, type DrainMode, type EndCause, isEndCause, isEndingStatus, type RunEntry, EXECUTOR_NAMES, type ExecutorName, SCHEMA_VERSION, TASK_STATUSES, type TaskRecord, type TaskStatus} from './record.js'

export class RecordError extends Error {
  /** @param newer the record is of a schemaVersion above this drover's: not damaged, just not ours to read. */
  constructor(message: string, readonly newer = false) {
    super(message)
    this.name = 'RecordError'
  }
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v)
const isStringOrNull = (v: unknown) => v === null || typeof v === 'string'
const isIntOrNull = (v: unknown) => v === null || Number.isSafeInteger(v)
const isAgentName = (v: unknown) => typeof v === 'string' && v !== ''

function check(condition: boolean, field: string): void {
  if (!condition) throw new RecordError(`field '${field}' is missing or has the wrong type`)
}

/** Parse and validate task.json text. Throws RecordError naming what is wrong. */
export function decodeRecord(text: string): TaskRecord {
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch (error) {
    throw new RecordError(`not valid JSON (${(error as Error).message})`)
  }
  return checkRecord(value)
}

/** Validates a parsed record (as decodeRecord does after JSON.parse). Throws RecordError naming what is wrong. */
export function checkRecord(value: unknown): TaskRecord {
  if (!isObject(value)) throw new RecordError('not a JSON object')
  if (value.schemaVersion !== SCHEMA_VERSION) {
    if (Number.isSafeInteger(value.schemaVersion) && (value.schemaVersion as number) > SCHEMA_VERSION) {
      throw new RecordError(`written by a newer drover (schemaVersion ${value.schemaVersion as number}; this drover reads up to ${SCHEMA_VERSION}): upgrade drover`, true)
    }
    throw new RecordError(`unsupported schemaVersion ${JSON.stringify(value.schemaVersion)} (expected ${SCHEMA_VERSION})`)
  }
  const r = value
  check(Number.isSafeInteger(r.id) && (r.id as number) > 0, 'id')
  check(isStringOrNull(r.name), 'name')
  check(r.group === undefined || isStringOrNull(r.group), 'group')
  check(Array.isArray(r.command) && r.command.length > 0 && r.command.every((a) => typeof a === 'string'), 'command')
  check(isStringOrNull(r.shell), 'shell')
  check(typeof r.cwd === 'string', 'cwd')
  check(isObject(r.env) && Object.values(r.env).every((v) => typeof v === 'string'), 'env')
  // any name: one a newer drover knows reads as itself, handled as generic (src/agents/registry.ts)
  check(isAgentName(r.agent), 'agent')
  check(isObject(r.policies), 'policies')
  const p = r.policies as Record<string, unknown>
  check(isIntOrNull(p.timeoutMs) && isIntOrNull(p.idleTimeoutMs) && isIntOrNull(p.maxOutputBytes), 'policies')
  check(TASK_STATUSES.includes(r.status as TaskStatus), 'status')
  check(r.desired === 'running' || r.desired === 'stopped', 'desired')
  check(isStringOrNull(r.reason), 'reason')
  check(isIntOrNull(r.exitCode), 'exitCode')
  check(isStringOrNull(r.signal), 'signal')
  check(typeof r.createdAt === 'string', 'createdAt')
  check(isStringOrNull(r.startedAt) && isStringOrNull(r.endedAt), 'startedAt/endedAt')
  check(r.worker === null || isIdentity(r.worker), 'worker')
  check(Array.isArray(r.runs) && r.runs.every(isRunEntry), 'runs')
  check(r.agentInfo === null || isAgentInfo(r.agentInfo), 'agentInfo')
  check(r.checkpoint === null || isCheckpoint(r.checkpoint), 'checkpoint')
  check(r.executable === undefined || isStringOrNull(r.executable), 'executable')
  check(r.pathEnv === undefined || isStringOrNull(r.pathEnv), 'pathEnv')
  check(r.agentHooks === undefined || typeof r.agentHooks === 'boolean', 'agentHooks')
  check(r.keepChildren === undefined || typeof r.keepChildren === 'boolean', 'keepChildren')
  check(r.executor === undefined || EXECUTOR_NAMES.includes(r.executor as ExecutorName), 'executor')
  check(r.slurm === undefined || r.slurm === null || isSlurmPlacement(r.slurm), 'slurm')
  check(r.host === undefined || isStringOrNull(r.host), 'host')
  check(r.queue === undefined || isStringOrNull(r.queue), 'queue')
  check(r.priority === undefined || Number.isSafeInteger(r.priority), 'priority')
  check(r.after === undefined || isIdList(r.after), 'after')
  check(r.afterEnded === undefined || isIdList(r.afterEnded), 'afterEnded')
  check(r.queuedAt === undefined || isStringOrNull(r.queuedAt), 'queuedAt')
  check(r.onExit === undefined || isStringOrNull(r.onExit), 'onExit')
  check(r.hookTimeoutMs === undefined || isIntOrNull(r.hookTimeoutMs), 'hookTimeoutMs')
  check(r.onStatus === undefined || isStringOrNull(r.onStatus), 'onStatus')
  check(r.notify === undefined || (Array.isArray(r.notify) && r.notify.every((t) => typeof t === 'string')), 'notify')
  check(r.retryMax === undefined || (Number.isSafeInteger(r.retryMax) && (r.retryMax as number) >= 0), 'retryMax')
  check(r.retryDelayMs === undefined || isIntOrNull(r.retryDelayMs), 'retryDelayMs')
  check(r.retryOnTimeout === undefined || typeof r.retryOnTimeout === 'boolean', 'retryOnTimeout')
  check(r.attempt === undefined || (Number.isSafeInteger(r.attempt) && (r.attempt as number) >= 1), 'attempt')
  check(r.retryAt === undefined || isStringOrNull(r.retryAt), 'retryAt')
  check(p.maxCostUsd === undefined || p.maxCostUsd === null || (typeof p.maxCostUsd === 'number' && Number.isFinite(p.maxCostUsd)), 'policies')
  check(p.maxTurns === undefined || isIntOrNull(p.maxTurns), 'policies')
  check(p.maxTokens === undefined || isIntOrNull(p.maxTokens), 'policies')
  check(r.worktree === undefined || r.worktree === null || isWorktree(r.worktree), 'worktree')
  check(p.onLimit === undefined || p.onLimit === 'wait' || p.onLimit === 'fail', 'policies')
  check(r.waitUntil === undefined || isStringOrNull(r.waitUntil), 'waitUntil')
  check(r.limitWaits === undefined || Number.isSafeInteger(r.limitWaits), 'limitWaits')
  check(r.built === undefined || r.built === null || isBuiltFrom(r.built), 'built')
  check(r.check === undefined || r.check === null || isTaskCheck(r.check), 'check')
  check(r.droppedFollowups === undefined || (Array.isArray(r.droppedFollowups) && r.droppedFollowups.every(isDroppedFollowup)), 'droppedFollowups')
  return withDefaults(r as unknown as TaskRecord)
}

/**
 * Fields added after schema 1 was first written are optional on disk: a record
 * written by an earlier drover still decodes, to the value that reproduces what
 * that drover did.
 */
function withDefaults(r: TaskRecord): TaskRecord {
  const record = r as TaskRecord & Record<string, unknown>
  record.executable ??= null
  record.pathEnv ??= null
  record.agentHooks ??= true
  record.keepChildren ??= false
  record.executor ??= 'local'
  record.slurm ??= null
  record.host ??= null
  record.queue ??= null
  record.priority ??= 0
  record.after ??= []
  record.afterEnded ??= []
  record.queuedAt ??= null
  record.onExit ??= null
  record.hookTimeoutMs ??= null
  record.retryMax ??= 0
  record.retryDelayMs ??= null
  record.retryOnTimeout ??= false
  record.attempt ??= 1
  record.retryAt ??= null
  record.worktree ??= null
  for (const run of record.runs) {
    run.outputOffset ??= null
    run.cause = causeOf(run)
  }
  record.cause = causeOf(record)
  if (record.agentInfo) {
    record.agentInfo.session ??= null
    record.agentInfo.error ??= null
  }
  if (record.checkpoint) {
    record.checkpoint.mode ??= record.checkpoint.forced ? 'forced' : 'cooperative'
    record.checkpoint.tookMs ??= null
  }
  return record
}

/**
 * A record's (or a run's) cause as stored: a known one as it is, one a newer
 * drover wrote as null. Where none was stored — records written before causes
 * existed — it is derived once here from what that drover wrote for the same
 * ending (the one place a reason is read: the migration of those records).
 */
function causeOf(entry: Pick<RunEntry, 'status' | 'reason' | 'exitCode' | 'signal'> & {cause?: unknown}): EndCause | null {
  if (entry.cause !== undefined) return isEndCause(entry.cause) ? entry.cause : null
  return isEndingStatus(entry.status) ? legacyCause(entry) : null
}

export function legacyCause({status, reason, exitCode, signal}: Pick<RunEntry, 'status' | 'reason' | 'exitCode' | 'signal'>): EndCause | null {
  const why = reason ?? ''
  const unknownExit = why.startsWith('exit code unknown')
  switch (status) {
    case 'skipped':
      return 'dependency'
    case 'lost':
      return why.startsWith('runner interrupted') ? 'runner-interrupted' : 'runner-lost'
    case 'cancelled':
      return 'cancel'
    case 'stopped':
      return why.startsWith('killed after') ? 'stop-killed' : 'stop'
    case 'drained':
      return why.startsWith('budget') ? 'budget' : 'drain'
    case 'waiting':
      return 'usage-limit'
    case 'succeeded':
      return unknownExit ? 'exit-unknown' : 'exit'
    case 'failed': {
      const policy = /^(timeout|idle|output limit)\b/.exec(why)?.[1]
      if (policy) return policy === 'output limit' ? 'output-limit' : (policy as 'timeout' | 'idle')
      if (why.startsWith('runner error')) return 'runner-error'
      if (why.startsWith('command not found')) return 'not-found'
      if (/^(runner exited before|working directory|permission denied|cannot start|sbatch|Slurm)/.test(why)) return 'not-started'
      if (unknownExit) return 'exit-unknown'
      if (why.includes('usage limit')) return 'usage-limit'
      if (exitCode === 0) return 'agent-error'
      if (exitCode !== null) return 'exit'
      return signal ? 'signal' : null
    }
    default:
      return null
  }
}

// Every field is checked, nested ones too: `status` renders them all, and a
// record that decodes must never make a command crash later (costUsd.toFixed).
function isAgentUsage(v: unknown): v is Record<string, unknown> {
  return (
    isObject(v) &&
    Number.isSafeInteger(v.turns) &&
    (v.costUsd === null || (typeof v.costUsd === 'number' && Number.isFinite(v.costUsd))) &&
    isIntOrNull(v.inputTokens) &&
    isIntOrNull(v.outputTokens)
  )
}

function isAgentInfo(v: unknown): boolean {
  return (
    isAgentUsage(v) &&
    isStringOrNull(v.sessionId) &&
    isStringOrNull(v.lastEvent) &&
    (v.session === undefined || v.session === null || isAgentUsage(v.session)) &&
    (v.error === undefined || isStringOrNull(v.error)) &&
    (v.limit === undefined || v.limit === null || (isObject(v.limit) && typeof v.limit.message === 'string' && isStringOrNull(v.limit.resetAt)))
  )
}

function isCheckpoint(v: unknown): boolean {
  return (
    isObject(v) &&
    isAgentName(v.profile) &&
    isStringOrNull(v.sessionId) &&
    typeof v.sessionDir === 'string' &&
    typeof v.forced === 'boolean' &&
    (v.mode === undefined || DRAIN_MODES.includes(v.mode as DrainMode)) &&
    (v.tookMs === undefined || isIntOrNull(v.tookMs)) &&
    typeof v.at === 'string'
  )
}

function isSlurmPlacement(v: unknown): boolean {
  return (
    isObject(v) &&
    isStringOrNull(v.jobId) &&
    isStringOrNull(v.partition) &&
    isStringOrNull(v.time) &&
    isIntOrNull(v.cpus) &&
    isStringOrNull(v.mem) &&
    isIntOrNull(v.drainBeforeLimitS) &&
    Array.isArray(v.opts) &&
    v.opts.every((a) => typeof a === 'string')
  )
}

const isIdList = (v: unknown) => Array.isArray(v) && v.every((id) => Number.isSafeInteger(id) && id > 0)
function isWorktree(v: unknown): boolean {
  if (!isObject(v)) return false
  const strings = ['repo', 'path', 'branch', 'base', 'baseCommit'].every((k) => typeof v[k] === 'string')
  const s = v.summary
  const summary =
    s === null ||
    (isObject(s) &&
      typeof s.head === 'string' &&
      typeof s.uncommitted === 'boolean' &&
      typeof s.at === 'string' &&
      ['commits', 'filesChanged', 'insertions', 'deletions'].every((k) => Number.isSafeInteger(s[k])))
  const m = v.merged
  const merged = m === undefined || m === null || (isObject(m) && ['into', 'mode', 'commit', 'at'].every((k) => typeof m[k] === 'string') && Number.isSafeInteger(m.commits))
  const baseBranch = v.baseBranch === undefined || isStringOrNull(v.baseBranch)
  return strings && typeof v.baseDirty === 'boolean' && (v.createdBranch === undefined || typeof v.createdBranch === 'boolean') && summary && merged && baseBranch
}

const isStrings = (v: unknown) => Array.isArray(v) && v.every((a) => typeof a === 'string')

function isBuiltFrom(v: unknown): boolean {
  return isObject(v) && typeof v.prompt === 'string' && isStringOrNull(v.model) && isStringOrNull(v.permissionMode) && isStrings(v.configFlags) && isStrings(v.extraArgs)
}

function isTaskCheck(v: unknown): boolean {
  if (!isObject(v) || typeof v.command !== 'string' || !isIntOrNull(v.timeoutMs)) return false
  const r = v.result
  if (r === null) return true
  return (
    isObject(r) &&
    Number.isSafeInteger(r.run) &&
    CHECK_STATUSES.includes(r.status as CheckStatus) &&
    isIntOrNull(r.exitCode) &&
    isStringOrNull(r.signal) &&
    isStringOrNull(r.reason) &&
    typeof r.output === 'string' &&
    Number.isSafeInteger(r.outputBytes) &&
    typeof r.startedAt === 'string' &&
    isStringOrNull(r.endedAt) &&
    (r.checker === null || isIdentity(r.checker))
  )
}

const isArgv = (v: unknown) => Array.isArray(v) && v.length > 0 && v.every((a) => typeof a === 'string')

function isIdentity(v: unknown): boolean {
  return isObject(v) && Number.isSafeInteger(v.pid) && (v.pid as number) > 0 && typeof v.startTime === 'string'
}

function isDroppedFollowup(v: unknown): boolean {
  return isObject(v) && Number.isSafeInteger(v.n) && typeof v.prompt === 'string' && typeof v.queuedAt === 'string' && typeof v.droppedAt === 'string' && Number.isSafeInteger(v.run) && typeof v.reason === 'string'
}

function isRunEntry(v: unknown): boolean {
  return (
    isObject(v) &&
    Number.isSafeInteger(v.run) &&
    isStringOrNull(v.startedAt) &&
    isStringOrNull(v.endedAt) &&
    TASK_STATUSES.includes(v.status as TaskStatus) &&
    isIntOrNull(v.exitCode) &&
    isStringOrNull(v.signal) &&
    isStringOrNull(v.reason) &&
    typeof v.resumed === 'boolean' &&
    (v.command === null || isArgv(v.command)) &&
    (v.outputOffset === undefined || isIntOrNull(v.outputOffset)) &&
    (v.prompt === undefined || isStringOrNull(v.prompt)) &&
    (v.followup === undefined || isIntOrNull(v.followup)) &&
    (v.attached === undefined || typeof v.attached === 'boolean')
  )
}

export function encodeRecord(record: TaskRecord): string {
  // engineWait is reconcile's word of the moment, never the record's
  const {engineWait: _, ...kept} = record
  return JSON.stringify(kept, null, 2) + '\n'
}
