// The shape of everything drover knows about one agent CLI. Each agent is one
// module under src/agents/ (claude.ts, codex.ts, gemini.ts, …) exporting one
// AgentProfile; registry.ts lists them. The generic code around them (the
// event reader, the resume command, transcripts, budgets, the runner, `doctor`)
// asks the profile and never names an agent, so adding the next agent is one
// new module and its tests. Node builtins only: the runner loads every profile.

import type {AgentInfo, AgentUsage} from '../state/record.js'
import type {HelpGrammar, Token} from './flags.js'
import type {TranscriptItem} from './transcript-items.js'

/** An agent's name, as registry.ts lists it and a record stores it; `generic` (any other program) has no profile. */
export type AgentName = string

export interface UsageLimit {
  /** the agent's own words (one line). */
  message: string
  /** when the limit lifts (ISO), when the message says; else null. */
  resetAt: string | null
}

/**
 * What one run's event reader keeps while it folds an agent's events. A fold
 * changes `info` (a copy, written back after the event) and its own
 * bookkeeping; `sessionCost` is set when the agent itself reported the
 * session's total cost (claude), which then wins over base + this run.
 */
export interface FoldState {
  info: AgentInfo
  /** the session's totals before this run (null on a first run). */
  readonly base: AgentUsage | null
  /** ids of tool calls started and not finished: a drain's safe point is when this is empty. */
  readonly tools: Set<string>
  /** the profile's own bookkeeping across events (a message id, tokens so far). */
  scratch: Record<string, unknown>
  sessionCost: number | null
}

/** Where an agent logs its usage apart from stdout, and how one line of it reads. */
export interface UsageLog {
  /** the log of this session, for the worker's environment (its HOME, its agent's own home variable). */
  path(sessionId: string, env: NodeJS.ProcessEnv): string
  /** the tokens one event of the log records, with the event's id and time (ms); null for any other event. */
  usage(event: Record<string, unknown>): LoggedUsage | null
}

export interface LoggedUsage {
  id: string
  at: number
  inputTokens: number
  outputTokens: number
}

/** An agent's argv split where its own arguments start. */
export interface AgentArgs {
  /** a launcher's tokens after the program (`node cli.js`), and a subcommand (codex `exec`, opencode `run`). */
  head: string[]
  /** the agent's (or its subcommand's) own arguments. */
  rest: string[]
}

export interface ResumeInput {
  program: string
  head: string[]
  /** the original arguments after `head`, classified with the installed agent's grammar. */
  tokens: Token[]
  sessionId: string
  prompt: string
  /** the task's working directory, where the resume runs. */
  cwd: string
}

export type InteractiveInput = Omit<ResumeInput, 'prompt'>

/** Where an agent keeps its sessions: what `doctor` checks and `resume` relies on. */
export interface SessionStore {
  /** the store's directory (or file) for this HOME and working directory. */
  path(home: string, cwd: string): string
  /** in words, for docs and `doctor`. */
  describe: string
}

/**
 * How drover writes an agent's headless command for a prompt (`drover start
 * --agent NAME --prompt P`), as the agent's own docs give it: its print mode,
 * the prompt, its JSON event format; then a permission mode, a model and
 * flags, from config.json's `agents.NAME` and the caller (headless.ts puts
 * them together). Checked against each real binary's --help in the
 * real-agent suite.
 */
export interface HeadlessGrammar {
  /**
   * The argv after the program, with `after` (permission, model, flags) where
   * no flag of theirs can take the prompt. A prompt the documented form would
   * misread (a leading `-`; one word, which may be a subcommand) goes where
   * only a prompt can be: after `--`, or as `--prompt=…`.
   */
  argv(prompt: string, after: string[]): string[]
  /** the flag that names a model, first; then its other spellings (`-m`), which in extra flags mean a model is named already. */
  modelFlags: string[]
  /** the permission modes config.json's `agents.NAME.permissionMode` may name, each as the argv it adds. */
  permissionModes: Record<string, string[]>
  /** the mode a headless run gets when none is configured (copilot's -p needs one); null: none is added. */
  defaultPermissionMode: string | null
  /** flags that, among the extra flags, decide the permissions already: no mode is added then. */
  permissionFlags: string[]
}

export interface AgentProfile {
  name: AgentName
  /** the product's name, for people. */
  title: string
  /** the npm package it installs from, and the version drover's real-agent suite pins. */
  npmPackage: string
  testedVersion: string
  /** program names (basename, no extension) that are this agent. */
  binaries: string[]
  /** argv after the program that prints its version (`--version`). */
  versionArgv: string[]
  /** argv after the program (and `head`) that prints the flags a resume learns the grammar from. */
  helpArgv(head: string[]): string[]
  /** how its help text's `[array]` options take values (yargs-based agents), when it matters. */
  helpGrammar?: HelpGrammar
  /** the headless command line drover reads, as a person writes it. */
  headless: string
  /** how drover writes that command for a prompt (`start --agent NAME --prompt P`). */
  start: HeadlessGrammar
  /** environment variables that hold its API keys (names only: `doctor` says which are set). */
  apiKeyEnv: string[]
  sessionStore: SessionStore
  /**
   * Where the session id comes from: `stream` (an event names it early),
   * `preset` (drover gives `--session-id` at launch, since the stream names it
   * only at the end).
   */
  sessionSource: 'stream' | 'preset'
  /** preset only: the argv with a new session's id given, or null when the command already picks a session. */
  presetSession?(argv: string[], id: string): string[] | null
  /** flags that pick a session: a resume drops them and names its own. */
  sessionFlags: string[]
  /** flags under which the agent saves nothing to continue. */
  noPersistenceFlags: string[]
  /** where a resume may run: anywhere, only in the session's cwd (drover runs it there), or told with a flag. */
  cwdRule: 'any' | 'same-cwd' | 'dir-flag'
  splitArgs(args: string[], program: string): AgentArgs
  /** the command that continues the session (every kept token verbatim, in order). */
  resumeArgv(input: ResumeInput): string[]
  /** the interactive mode on the session, as a person writes it (`claude --resume <id>`): for help and docs. */
  interactive: string
  /**
   * The interactive mode on the same session, for a person at a terminal
   * (`drover attach`): the launcher kept, the flags that shape the session
   * (model, permissions, directories) carried over, the session named, no prompt.
   */
  interactiveArgv(input: InteractiveInput): string[]
  /** folds one JSON event (its `type` given) into `state`. */
  fold(state: FoldState, type: string, event: Record<string, unknown>): void
  /** the agent said its run is over (a budget reached now is not stopped: the run ends by itself). */
  runEnding(lastEvent: string | null): boolean
  /** the stream shows the run succeeded (used when no exit status is known, or exit 0 must be checked). */
  reportedSuccess(info: AgentInfo): boolean
  /**
   * Exit 0 without the agent's own success event: gemini exits 0 when
   * SIGTERMed mid-turn. `interrupted` makes such a run failed, not succeeded.
   */
  exitZeroWithoutResult: 'success' | 'interrupted'
  /** a provider's usage or rate limit this event reports, or null. */
  usageLimit(type: string, event: Record<string, unknown>, now: number): UsageLimit | null
  /**
   * A file beside stdout where the agent records the tokens of each model
   * call, for an agent that prints none (copilot: its session's events.jsonl,
   * `session.usage_record`). Followed while the run lives; only the calls
   * made since the run began count as this run's.
   */
  usageLog?: UsageLog
  /** what the usage it reports allows: a budget it cannot be held to is refused at start. */
  reports: {turns: boolean; tokens: boolean; cost: boolean}
  /**
   * How a drain ends it: `hook` (drover adds a hook that refuses tool calls
   * after STOP: cooperative), `safe-point` (SIGTERM when no tool call runs).
   */
  drain: 'hook' | 'safe-point'
  /** the processes it leaves and how drover reaches them, for docs and `doctor`. */
  leftovers: string
  /** the items one event holds for a person (`logs --pretty`, MCP, the dashboard). */
  transcript(type: string, event: Record<string, unknown>): TranscriptItem[]
}
