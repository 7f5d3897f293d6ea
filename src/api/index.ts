// drover's programmatic API: what `import {openStateDir} from 'drover'` gives a
// Node script, and the one way every front-end (the CLI, the MCP server, the
// dashboard) reaches drover. openStateDir() → Drover; results are the plain
// `--json` shapes; errors are DroverError with the documented exit codes.
// (The CLI imports the files below directly rather than this barrel, so each
// command loads only what it uses: start-up time is a feature.)

export {openStateDir, Drover, DEFAULT_RECENT} from './drover.js'
export type {JournalEntry, ListFilter, OutputChunk, RmResult, StartedTaskJson, TaskEvent, TaskRef} from './drover.js'
export {agentCommand, prepareStart, startDefaults, DEFAULT_MAX_OUTPUT_BYTES} from './start-options.js'
export type {AgentDefaults, BuiltCommand, BuiltFrom, HeadlessRequest, PreparedStart, SlurmDefaults, SlurmOptions, StartOptions, StateConfig} from './start-options.js'
export type {QueueDetail, QueueInfo, QueueMember, QueueStartOptions} from './queues.js'
export {isFanOut, MAX_ATTEMPTS, parseAttempts, prepareFanOut} from './fanout.js'
export type {AttemptSpec, FanOutOptions, FanOutResult, PreparedFanOut} from './fanout.js'
export type {AttemptJson, CompareOptions, ComparisonJson} from './compare.js'
export type {QueueMove} from '../tasks/queue-move.js'
export type {WaitOptions, WaitResult, WaitSelection} from './wait.js'
export type {DiffOptions, DiffResult, PairDiffResult, WorktreeStatus, WorktreeSummary} from './worktrees.js'
export type {MergeMode, MergeOptions, MergeResult} from './merge.js'
export type {Budget} from './budget.js'
export type {ControlBatch, ControlHandle, ControlManyOptions, ControlRequest, ControlResult, DrainResult, ResumeManyOptions, ResumeResult, TaskSelection} from './batch.js'
export type {AttachOptions} from './attach.js'
export type {DroppedFollowup, FollowupJson, FollowupSent, FollowupsJson, SendFollowupOptions, WithdrawnJson} from './followups.js'
export type {FollowOutputOptions, FollowResult, OutputFrom, OutputReset} from './output.js'
export {DEFAULT_PAGE_BYTES} from './output-page.js'
export type {OutputPage, PageOptions} from './output-page.js'
export type {UsagePoint} from './usage.js'
export {commandLine, escapeControls, exitCodeOf, quoteArg} from './task-json.js'
export type {CorruptTaskJson, HookFailureJson, TaskDetailJson, TaskJson} from './task-json.js'
export type {TaskRow} from './task-row.js'
export * from './values.js'
export {doctor, DEFAULT_DOCTOR_TIMEOUT_MS, problemLine} from './doctor.js'
export type {
  AgentCheck,
  AgentFlagsCheck,
  ApiKeyVariable,
  CorruptRecord,
  DoctorOptions,
  DoctorProblem,
  DoctorReport,
  ExecutorCheck,
  LeftoverProcesses,
  SessionStoreCheck,
  SlurmCommand,
  StaleLock,
  StateDirHealth,
  StateDirReport,
  UnwatchedTask,
} from './doctor.js'
