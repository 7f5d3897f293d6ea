// The values every front-end shares — statuses, defaults, parsers of
// durations and sizes, the wording of outcomes, the error type — without the
// machinery behind them, so a command can check its flags before it loads
// anything heavy. All of it is also exported from the package (index.ts).

export {DroverError, ExitCode, noSuchTask, usageError} from '../base/errors.js'
export type {ExitCodeValue, MissingRef} from '../base/errors.js'
export {formatBytes, formatDuration, parseCount, parseDuration, parseEnvAssignment, parseGroupName, parseSince, parseSize, parseTaskName, parseTaskRef} from '../base/parse.js'
export {EXECUTOR_NAMES, FINAL_STATUSES, isFinalStatus, TASK_STATUSES} from '../state/record.js'
export type {AgentInfo, AgentProfileName, AgentUsage, CheckResult, CheckStatus, Checkpoint, DrainMode, ExecutorName, RunEntry, TaskCheck, TaskStatus} from '../state/record.js'
export {describeFsError, STATE_DIR_ENV} from '../state/statedir.js'
export {DEFAULT_DRAIN_GRACE_MS, DEFAULT_DRAIN_KILL_AFTER_MS, DEFAULT_STOP_GRACE_MS} from '../process/stop-plan.js'
export {DEFAULT_RESUME_PROMPT} from '../agents/profiles.js'
// the agents' names from their registry: the state layer stores any name, and one without a profile is handled as generic
export {AGENT_NAMES, agentsThat, GENERIC_AGENT, knownAgentNames, readsAgentEvents} from '../agents/registry.js'
export {headlessForms} from '../agents/headless.js'
export type {HeadlessForm} from '../agents/headless.js'
export {DEFAULT_RETRY_DELAY_MS} from '../runner/retry.js'
export {DEFAULT_HOOK_TIMEOUT_MS} from '../runner/exit-hooks.js'
export {checkLabel, describeOutcome, outcomeLabel, reasonDetail} from '../tasks/outcome.js'
export {DEFAULT_LOCK_WAIT_MS, hasCriterion, parsePruneStatuses} from '../tasks/prune-rules.js'
export type {PruneCriteria, PrunedTask, PruneOptions, PruneResult} from '../tasks/prune-rules.js'
