import * as Args from '@oclif/core/args'
import * as Flags from '@oclif/core/flags'
import {BaseCommand} from '../base-command.js'
import {AGENT_NAMES, agentsThat, EXECUTOR_NAMES, headlessForms, knownAgentNames, readsAgentEvents, usageError} from '../../api/values.js'
import {prepareStart, startDefaults} from '../../api/start-options.js'
import {isFanOut, type FanOutResult} from '../../api/fanout.js'
import {suggest} from '../../api/suggest.js'
import type {TaskJson} from '../../api/task-json.js'
import {followToStdout} from '../render/follow-stdout.js'
import {painter} from '../render/color.js'
import {agentFlagBeforeDashes, promptFromFlags} from '../prompt-input.js'
import {DEFAULT_MAX_OUTPUT, startOptions} from '../start-flags.js'


// Where the runner runs; Slurm's placement. See docs/slurm.md.
const SLURM_FLAGS = {
  executor: Flags.string({helpGroup: 'Slurm', description: 'where the task runs: local, or slurm (a batch job; the state dir must be shared with the nodes) (default: $DROVER_EXECUTOR, else the state dir\'s config.json, else local)', options: [...EXECUTOR_NAMES]}),
  partition: Flags.string({helpGroup: 'Slurm', description: 'slurm: the partition to submit to (sbatch -p)'}),
  time: Flags.string({helpGroup: 'Slurm', description: 'slurm: the job\'s time limit (sbatch --time: minutes or [D-]HH:MM:SS; default: a little past --timeout)'}),
  cpus: Flags.integer({helpGroup: 'Slurm', description: 'slurm: CPUs for the task (sbatch --cpus-per-task)', min: 1}),
  mem: Flags.string({helpGroup: 'Slurm', description: 'slurm: memory for the task (sbatch --mem, e.g. 4G)'}),
  'drain-before-limit': Flags.string({helpGroup: 'Slurm', description: 'slurm: drain the task this long before the time limit, so an agent can be resumed (e.g. 5m; sbatch --signal=B:USR1@…)'}),
  'slurm-opt': Flags.string({helpGroup: 'Slurm', description: 'slurm: one more sbatch argument, passed as given (repeatable, e.g. --slurm-opt=--account=lab)', multiple: true}),
}

const SLURM_FLAG_NAMES = Object.keys(SLURM_FLAGS) as (keyof typeof SLURM_FLAGS)[]

export default class Start extends BaseCommand {
  static override summary = 'Start a command in the background, or start a finished task again.'
  static override description = `Runs CMD detached from this shell under a small runner of its own, with stdout and stderr appended to the task's output.log. Returns once the task is running (or has failed to start) and prints its id, so \`drover start … && drover logs -f ID\` never races.

With --follow it then streams the task's output like \`logs -f\` and exits with the task's own exit code; stdout carries only that output, and the id goes to stderr. As with \`logs -f\`, an agent's task is shown as a transcript on a terminal and as its raw event stream in a pipe; --pretty and --raw choose. With --follow --json, stdout is an NDJSON stream: {"type":"started","id","task"}, then the output objects and the final {"type":"end",…} of \`logs -f --json\`.

The command is run directly, never through a shell, unless you pass --shell "script". Put drover's flags before \`--\` and the command after it.

With --agent NAME --prompt "P" drover writes the agent's headless command itself, as the agent's own docs give it: ${headlessForms().map((f) => f.command).join('; ')}. Anything after \`--\` is then the agent's own flags, added at the end. config.json's "agents" gives each agent a model, a permission mode (one of the agent's own — ${headlessForms().map((f) => `${f.agent}: ${f.permissionModes.join(', ')}${f.defaultPermissionMode ? ` (default ${f.defaultPermissionMode}, which its headless mode needs)` : ''}`).join('; ')}) and flags, e.g. {"agents": {"claude": {"model": "sonnet", "permissionMode": "acceptEdits", "flags": ["--max-turns", "30"]}}}; a model or permission flag after \`--\` wins over the config's. The task is then exactly as if that command had been typed (resume, drain, budgets and usage work the same), and status shows the command and how it was written. --prompt - reads the prompt from stdin, --prompt-file from a file. See docs/agents.md.

With --worktree the task runs in a new git worktree of the repository you are in, on a new branch (default drover/<id>-<name>) from --base (default HEAD): your uncommitted changes are not carried, the worktree starts from the commit. A task that waits (--after, --queue) starts from the commit --base names when its first run starts, so it sees work merged meanwhile; --pin-base keeps the commit of the moment you typed start. status shows what it changed when a run ends, drover diff shows the diff, drover merge brings the branch into the one it started from once the task has ended, and rm --discard throws it away; rm and prune remove the worktree only when no work is lost.

--agent AGENT[:N],… with --prompt and --worktree is a fan-out: claude:2,codex starts one task per attempt (two of claude, one of codex), each with the command --agent NAME --prompt P writes, in a worktree of its own from the commit --base (default HEAD) names now, all in a group — --group NAME, else g<first id> — and named GROUP-AGENT-N; every other flag applies to each attempt (budgets, --on-limit, hooks, --queue and --after). stdout gets the ids, one a line; --json {group, base, tasks}. drover compare GROUP shows them side by side; drover merge ATTEMPT then drover rm --group GROUP --discard keeps one. --group NAME alone puts one task in a group. See docs/fleets.md.

--check CMD runs CMD through your shell in the task's cwd (its worktree) once a run has ended, unless it was cancelled or skipped, before the exit hooks, for at most --check-timeout (default 10m); its exit code and the last 8 KiB of its output are recorded on the task (status, compare, check in --json). Without --check a --worktree task gets config.json's "check", if any ({"check": "npm test"}); --check none turns it off.

--on-status CMD, and the state dir's executable hooks/on-status, run at every change of the task's status: queued, starting, running, stopping, waiting (a usage limit), and each end (succeeded, failed, stopped, cancelled, drained, lost, skipped). Each gets the record as that change left it on stdin, and DROVER_TASK_ID, DROVER_TASK_NAME, DROVER_STATUS, DROVER_PREV_STATUS (empty for a new task), DROVER_REASON, DROVER_CAUSE, DROVER_EXIT_CODE, DROVER_RUN and DROVER_STATE_DIR. They run after the change, in its order, one change at a time per task, in a process of their own: they never delay the task or its start. Each is stopped after --hook-timeout (default 60s); its output goes to hooks.log, and one that fails shows in status.

--notify tells of the end, and of a need for attention (waiting on a usage limit, a budget reached, lost): an http(s) URL gets a small JSON event POSTed — {"source":"drover","kind":"ended"|"attention","id","name","status","previous","cause","reason","exitCode","run","at","host","text"}, tried again with backoff after no answer, a 429 or a 5xx, up to 5 times within --hook-timeout — and "desktop" shows a desktop notification (notify-send on Linux, osascript on macOS, a toast through PowerShell on Windows). Without --notify, config.json's "notify" list applies (e.g. {"notify": ["desktop"]}); --notify none turns it off. A webhook's path is its secret: views show only its origin unless --show-env.

--on-limit wait: when an agent's run ends on its provider's usage limit, the task is waiting (status shows when it resumes) until the limit lifts, then resumes its own conversation; stop, cancel and drain work while it waits, and resume cuts the wait short. The default, fail, ends the task failed with the limit in its reason.

--executor slurm runs the task as a Slurm batch job (see docs/slurm.md). The executor comes from --executor, else DROVER_EXECUTOR, else the state dir's config.json, else local. config.json is optional and written by hand, e.g. {"executor": "slurm", "slurm": {"partition": "gpu", "time": "4:00:00", "cpus": 4, "mem": "16G", "drainBeforeLimit": "10m", "opts": ["--account=lab"]}}; its slurm defaults apply to Slurm tasks only, and each flag replaces its default (--slurm-opt values come after the config's opts). A config.json that is not valid is refused with one line naming it (exit 2).

--max-cost, --max-turns and --max-tokens are budgets over the agent's whole session, counted across resumes: reaching one drains the task (reason "budget: …"), and resume with a higher budget continues it.

With a task id or name instead of a command, starts that ended task (succeeded, failed, stopped, cancelled, drained or lost) again as a new run with the same command, cwd and -e variables; its output is appended after a separator line.`

  static override examples = [
    {description: 'Run a Claude Code agent in the background', command: '<%= config.bin %> start --name fix-tests -- claude -p "make the tests pass" --output-format stream-json --verbose'},
    {description: 'The same, with drover writing the agent\'s command (claude -p … --output-format stream-json --verbose)', command: '<%= config.bin %> start --name fix-tests --agent claude --prompt "make the tests pass"'},
    {description: 'codex from a prompt file, with a flag of its own', command: '<%= config.bin %> start --agent codex --prompt-file task.md -- --sandbox workspace-write'},
    {description: 'Start and follow, exiting with the job\'s own exit code', command: '<%= config.bin %> start --follow -- npm test'},
    {description: 'A shell pipeline, stopped if it runs longer than 2 hours', command: '<%= config.bin %> start --timeout 2h --shell "make build 2>&1 | tee build.txt"'},
    {
      description: 'Run an agent as a Slurm job, drained 10 minutes before its 4-hour limit so it can be resumed',
      command: '<%= config.bin %> start --executor slurm --partition gpu --time 4:00:00 --drain-before-limit 10m -- claude -p "port the solver" --output-format stream-json --verbose',
    },
    {description: 'Three attempts of one prompt, each in its own worktree, each checked; then compare them', command: '<%= config.bin %> start --agent claude:2,codex --prompt "fix the flaky test" --worktree --group flaky --check "npm test"'},
    {description: 'Start task 7 again after it stopped', command: '<%= config.bin %> start 7'},
    {description: 'An agent on its own branch and worktree, with a budget', command: '<%= config.bin %> start --worktree --name auth --max-turns 40 -- claude -p "add login" --output-format stream-json --verbose'},
    {description: 'A desktop notification when the agent ends or needs you', command: '<%= config.bin %> start --notify desktop --on-limit wait -- claude -p "refactor the parser" --output-format stream-json --verbose'},
    {description: 'Post to a Slack webhook (its `text` is the message)', command: '<%= config.bin %> start --notify https://hooks.slack.com/services/T000/B000/XXXX -- npm run e2e'},
  ]

  static override usage = ['<%= command.id %> [FLAGS] -- COMMAND [ARG...]', '<%= command.id %> [FLAGS] --agent NAME --prompt PROMPT [-- AGENT FLAGS...]', '<%= command.id %> [FLAGS] --agent AGENT[:N],... --prompt PROMPT --worktree', '<%= command.id %> [FLAGS] --shell SCRIPT', '<%= command.id %> TASK']

  static override args = {
    task: Args.string({description: 'id or name (or :latest) of a finished task to start again (instead of a command after --)'}),
  }

  static override flags = {
    name: Flags.string({description: 'a unique name for the task (letters, digits, . _ -; starts with a letter)'}),
    group: Flags.string({description: 'put the task in this group (a name as a task\'s): list --group, and --group of stop, drain, resume, wait, logs and rm act on the group; with a fan-out (--agent claude:2,codex), the group\'s name (default g<first id>)', helpValue: 'NAME'}),
    cwd: Flags.string({description: 'working directory of the command (default: the current one)'}),
    env: Flags.string({char: 'e', description: 'set an environment variable for the command (KEY=VALUE, repeatable)', multiple: true}),
    shell: Flags.string({description: 'run this script through your shell ($SHELL -c, or cmd.exe /c on Windows) instead of a command after --'}),
    follow: Flags.boolean({char: 'f', description: 'stream the output like `logs -f` and exit with the task\'s exit code (the id goes to stderr)'}),
    pretty: Flags.boolean({description: "with --follow, show an agent's events as a transcript, as logs -f does (the default on a terminal)", dependsOn: ['follow'], exclusive: ['raw']}),
    raw: Flags.boolean({description: "with --follow: the agent's own event stream, byte for byte (the default when piped)", dependsOn: ['follow'], exclusive: ['pretty']}),
    quiet: Flags.boolean({char: 'q', description: 'print nothing (not the id, nor notes that it was queued or reused) unless it failed to start or a warning: for cron'}),
    'keep-children': Flags.boolean({
      description: 'leave processes the command started running after it exits (by default they are stopped, so nothing of a task outlives it)',
    }),
    timeout: Flags.string({description: 'stop the task when it runs longer than this (e.g. 90s, 30m, 2h)', helpGroup: 'Limits'}),
    'idle-timeout': Flags.string({description: 'stop the task when its output does not grow for this long (e.g. 10m)', helpGroup: 'Limits'}),
    'max-output': Flags.string({description: `stop the task when output.log grows past this size; 0 for no limit (default ${DEFAULT_MAX_OUTPUT})`, helpGroup: 'Limits'}),
    'max-cost': Flags.string({
      description: `${agentsThat((a) => a.reports.cost).join(', ')}: drain the task once its session has cost this many US dollars (counted across resumes, as the agent reports it)`,
      helpValue: 'USD',
      helpGroup: 'Limits',
    }),
    'max-turns': Flags.integer({description: `${agentsThat((a) => a.reports.turns).join(', ')}: drain the task after this many model turns of its session (counted across resumes)`, min: 1, helpGroup: 'Limits'}),
    'max-tokens': Flags.string({description: `${agentsThat((a) => a.reports.tokens).join(', ')}: drain the task once its session used this many tokens, input plus output (counted across resumes; e.g. 500k, 2M)`, helpValue: 'N', helpGroup: 'Limits'}),
    'on-limit': Flags.string({
      description: `${knownAgentNames().join(', ')}: when the agent stops on its provider's usage limit, fail (the default) or wait: the task is waiting until the limit lifts (the reset time the agent names, else a backoff up to 1 h), then resumes its own conversation`,
      options: ['fail', 'wait'],
      helpGroup: 'Limits',
    }),
    queue: Flags.string({description: 'run in this queue: wait (status queued) while it already runs its parallel limit of tasks (see `drover queue set`)', helpGroup: 'Queue'}),
    priority: Flags.integer({description: 'in its queue, start before tasks of lower priority (-999 to 999; default 0, FIFO among equals)', helpGroup: 'Queue'}),
    after: Flags.string({description: 'start only once these tasks (ids or names; repeatable, or comma-separated) all succeeded; if one does not, this task ends skipped', multiple: true, helpGroup: 'Queue'}),
    'after-ended': Flags.string({description: 'start only once these tasks (ids or names) all ended, whatever the outcome', multiple: true, helpGroup: 'Queue'}),
    'if-absent': Flags.boolean({description: 'with --name: if a task of that name is queued or running, print its id and exit 0 instead of 4 (idempotent starts from cron)', helpGroup: 'Queue'}),
    agent: Flags.string({
      description: `agent profile, for session tracking and resume (default: from the program name): ${AGENT_NAMES.join(', ')}; with --prompt, the agent whose command drover writes, or several attempts as a fan-out (claude:2,codex: one task each, in a group, each in a worktree of its own)`,
      helpValue: 'NAME|AGENT[:N],…',
      helpGroup: 'Agents',
    }),
    prompt: Flags.string({
      description: `with --agent: what the agent is to do; drover writes the agent's headless command (${knownAgentNames().join(', ')}), and what follows -- is the agent's own flags; - reads it from stdin`,
      exclusive: ['prompt-file'],
      helpGroup: 'Agents',
    }),
    'prompt-file': Flags.string({description: 'with --agent: the prompt, read from this file', helpValue: 'FILE', exclusive: ['prompt'], helpGroup: 'Agents'}),
    'agent-hooks': Flags.boolean({
      description: "claude: add drover's PreToolUse hook (--settings) so a drain makes the agent end its turn instead of being signalled",
      default: true,
      allowNo: true,
      helpGroup: 'Agents',
    }),
    worktree: Flags.string({
      description: 'run in a new git worktree of the repository you are in, on a new BRANCH (default drover/<id>-<name>); resume and start ID run there too',
      helpValue: '[BRANCH]',
      helpGroup: 'Worktree',
    }),
    base: Flags.string({description: 'with --worktree: the commit, branch or tag the new branch starts from (default HEAD; uncommitted changes are not carried)', dependsOn: ['worktree'], helpGroup: 'Worktree'}),
    'existing-branch': Flags.boolean({description: 'with --worktree BRANCH: run on that branch, which exists already (it is never deleted by rm or prune)', dependsOn: ['worktree'], helpGroup: 'Worktree'}),
    'pin-base': Flags.boolean({
      description: 'with --worktree: fix the base commit now; by default a task that waits (--after, --queue) starts from what --base (or HEAD) names when it starts',
      dependsOn: ['worktree'],
      helpGroup: 'Worktree',
    }),
    retry: Flags.integer({description: 'try a failed run again up to N times (a non-zero exit or a signal; never after stop, cancel, drain or a limit)', min: 0, helpGroup: 'Retry'}),
    'retry-delay': Flags.string({description: 'wait this long before the first retry, doubling each time, with jitter (default 1s)', helpGroup: 'Retry'}),
    'retry-on': Flags.string({description: 'also retry a run stopped by --timeout', options: ['timeout'], helpGroup: 'Retry'}),
    'on-exit': Flags.string({description: 'a shell command run once the task has ended (each final status), with the final record as JSON on stdin and DROVER_TASK_ID, DROVER_STATUS, DROVER_EXIT_CODE set; its output goes to hooks.log in the task folder', helpGroup: 'Hooks'}),
    'on-status': Flags.string({description: 'a shell command run at every status change (queued, starting, running, stopping, waiting, each final one), with the record as JSON on stdin and DROVER_TASK_ID, DROVER_STATUS, DROVER_PREV_STATUS, DROVER_REASON, DROVER_CAUSE set; its output goes to hooks.log', helpGroup: 'Hooks'}),
    notify: Flags.string({description: 'tell of the end, or of a need for attention (waiting on a usage limit, a budget reached, lost): an http(s) URL gets a JSON event posted (retried with backoff), `desktop` shows a desktop notification; repeatable; default: config.json\'s notify; `none` for none', multiple: true, helpGroup: 'Hooks'}),
    check: Flags.string({
      description: "a shell command run in the task's cwd (its worktree) once a run has ended (not when cancelled or skipped), before the exit hooks: its exit code and the end of its output are recorded on the task (status, drover compare); default: config.json's check for a --worktree task; `none` for none",
      helpValue: 'CMD',
      helpGroup: 'Hooks',
    }),
    'check-timeout': Flags.string({description: 'stop the check when it runs longer than this (default 10m)', helpGroup: 'Hooks'}),
    'hook-timeout': Flags.string({description: 'stop an exit or status hook (--on-exit, --on-status, the state dir\'s hooks/on-exit and hooks/on-status) or a notification that runs longer than this (default 60s)', helpGroup: 'Hooks'}),
    ...SLURM_FLAGS,
  }

  async run(): Promise<(TaskJson & {reused: boolean}) | FanOutResult | void> {
    // Everything after `--` is the command, verbatim: oclif must not see it
    // (it would take the command's own flags for ours, and reorder repeats).
    const dash = this.argv.indexOf('--')
    const ours = optionalWorktreeValue(dash === -1 ? this.argv : this.argv.slice(0, dash))
    const command = dash === -1 ? [] : this.argv.slice(dash + 1)
    const {args, flags} = await this.parse(Start, ours).catch((error: Error) => {
      throw agentFlagBeforeDashes(ours, error) ?? (dash === -1 ? (forgottenDashes(ours, error) ?? error) : error)
    })
    // Every value is checked before the state dir is opened: a usage error changes nothing on disk.
    if (flags.pretty && this.jsonEnabled()) throw usageError('--pretty shows a transcript for people; --json streams the raw output: leave one out')
    if (args.task !== undefined) {
      if (command.length > 0 || flags.shell !== undefined) throw usageError('give either a task to start again or a command after --, not both')
      for (const flag of ['name', 'group', 'cwd', 'env', 'agent', 'prompt', 'prompt-file', 'keep-children', 'timeout', 'idle-timeout', 'max-output', 'queue', 'priority', 'after', 'after-ended', 'if-absent', 'on-exit', 'on-status', 'notify', 'hook-timeout', 'check', 'check-timeout', 'retry', 'retry-delay', 'retry-on', 'worktree', 'existing-branch', 'pin-base', 'max-cost', 'max-turns', 'max-tokens', 'on-limit', ...SLURM_FLAG_NAMES] as const) {
        if (flags[flag] !== undefined) throw startAgainMixed(`--${flag}`, ours, args.task)
      }
      if (ours.some((arg) => /^--(no-)?agent-hooks$/.test(arg))) throw startAgainMixed('--agent-hooks', ours, args.task)
    }
    if (flags.agent !== undefined && !isFanOut(flags.agent) && !AGENT_NAMES.includes(flags.agent)) throw unknownAgent(flags.agent)
    const prompt = args.task === undefined ? promptFromFlags(flags) : undefined
    if (args.task === undefined && flags.agent !== undefined && isFanOut(flags.agent)) {
      // several attempts of one prompt: their own path (cli/fan-out.ts), the rest of start's flags checked as for one task
      const {runFanOut} = await import('../fan-out.js')
      return runFanOut({json: this.jsonEnabled(), note: (m) => this.note(m), open: (dir) => this.drover(dir, {create: true})}, {flags, prompt, command})
    }
    // with a prompt what follows -- is the agent's flags; otherwise a program's name never starts with -
    if (prompt === undefined && command.length > 0 && command[0].startsWith('-')) throw flagAfterDashes(ours, command)
    // The state dir's config.json is read (not written) first: a bad one refuses the start, exit 2, with nothing changed.
    const prepared = args.task === undefined ? prepareStart(startOptions(command, prompt, flags), await startDefaults(flags['state-dir'])) : null

    const drover = await this.drover(flags['state-dir'], {create: true})
    let record: TaskJson
    let reused = false
    // --follow of a task started again shows this run, not the earlier ones above it.
    let followFrom = 0
    if (args.task !== undefined) {
      ;({task: record, offset: followFrom} = await drover.startAgain(args.task))
    } else {
      // Up front where it shows (a tmpfs state dir); a node that cannot read the state dir is found after the fact too.
      const unshared = prepared!.spec.executor === 'slurm' ? drover.unsharedStateDir() : null
      if (unshared) this.note(`drover: warning: ${unshared}`)
      const started = await drover.start(prepared!)
      record = started
      reused = started.reused
      if (reused && !flags.quiet) {
        this.note(`drover: task ${record.id} (${record.name}) is ${record.status} already: not started again (--if-absent)`)
      }
      if (record.worktree?.baseDirty && !reused && !flags.quiet) {
        this.note(`drover: note: uncommitted changes in ${record.worktree.repo} are not in the worktree (it starts from ${record.worktree.baseCommit.slice(0, 12)})`)
      }
    }

    // A worker that ran and already exited (a fast `exit 3`) did start: only a
    // run that never got a worker (command not found, bad cwd) failed to start.
    const failedToStart = record.status === 'failed' && record.pid === null
    if (failedToStart) {
      this.note(`drover: task ${record.id} failed to start: ${record.reason}`)
      process.exitCode = 1
    }
    if (record.status === 'queued' && !reused && !flags.quiet) this.note(`drover: task ${record.id} queued (${record.reason})`)
    if (flags.follow) {
      // stdout is the task's own output from here on (or its NDJSON stream): the id goes to stderr.
      if (!failedToStart && !flags.quiet) this.note(`drover: task ${record.id} ${record.status === 'queued' ? 'queued' : 'started'}; following it (Ctrl-C stops following, not the task)`)
      // The same default as `logs -f`: an agent's events as a transcript on a terminal, its raw stream in a pipe.
      const tty = process.stdout.isTTY === true && !this.jsonEnabled()
      if (!this.jsonEnabled() && (flags.pretty || (tty && !flags.raw && readsAgentEvents(record.agent)))) {
        const {followMany} = await import('../render/follow-many.js')
        process.exitCode = await followMany(drover, [await drover.get(record.id)], {
          follow: true,
          joinNew: false,
          pretty: () => true,
          full: false,
          timestamps: false,
          prefix: false,
          paint: painter(this.color(flags.color)),
          startOf: () => ({offset: followFrom}),
        })
        return
      }
      process.exitCode = await followToStdout(drover, record.id, followFrom, {json: this.jsonEnabled(), started: record})
      return
    }
    if (!failedToStart && !this.jsonEnabled() && !flags.quiet) process.stdout.write(`${record.id}\n`)
    return {...record, reused}
  }
}

/** `--agent cluade`: what oclif said when --agent listed its values, now that it also takes a fan-out's (claude:2,codex). */
function unknownAgent(agent: string): Error {
  const near = suggest(agent, [...AGENT_NAMES])
  return usageError(`--agent: unknown value '${agent}'${near ? ` (did you mean ${near}?)` : ''}; use one of: ${AGENT_NAMES.join(', ')}`)
}

/**
 * `--worktree` takes an optional BRANCH, which oclif flags cannot: a bare
 * `--worktree` (the next word a flag, or nothing) becomes `--worktree=`, the
 * empty value that means the default branch.
 */
function optionalWorktreeValue(argv: string[]): string[] {
  return argv.flatMap((arg, i) => (arg === '--worktree' && (i === argv.length - 1 || argv[i + 1].startsWith('-')) ? ['--worktree='] : [arg]))
}

/**
 * `drover start make build`: the `--` was forgotten, and oclif saw a second
 * argument (or the command's own flag, `make -j8`). Say how to write it.
 */
function forgottenDashes(argv: string[], error: Error): Error | null {
  if (!['UnexpectedArgsError', 'NonExistentFlagsError'].includes(error.constructor.name)) return null
  const takesValue = new Set(
    Object.entries({...Start.baseFlags, ...Start.flags}).flatMap(([name, flag]) =>
      flag.type === 'option' ? [`--${name}`, ...(flag.char ? [`-${flag.char}`] : [])] : [],
    ),
  )
  let i = 0
  while (i < argv.length && argv[i].startsWith('-')) i += takesValue.has(argv[i]) ? 2 : 1
  if (i >= argv.length) return null
  return usageError(`to run a command, put it after --: drover start -- ${argv.slice(i).join(' ')}`)
}

/**
 * `drover start -- --name x sleep 1`: a flag of start's after the `--`, where
 * it would be the program (a task failing with "command not found: --name").
 * A program's name never starts with `-`, so any option there is refused, and
 * one of start's own is moved in front of the `--` in the example.
 */
function flagAfterDashes(before: string[], command: string[]): Error {
  const [word] = command
  const name = word.split('=')[0]
  const flags = Object.entries({...Start.baseFlags, ...Start.flags})
  const own = flags.find(([long, flag]) => name === `--${long}` || (flag.char !== undefined && name === `-${flag.char}`) || name === `--no-${long}`)
  if (!own) return usageError(`'${word}' is an option, not a program: put drover's flags before -- and the command after it`)
  // the flag and its value (when it takes one and it was not given with =) go before the --
  const takesValue = own[1].type === 'option' && !word.includes('=')
  const moved = command.slice(0, takesValue ? 2 : 1)
  const rest = command.slice(moved.length)
  // --shell's script is the command: nothing goes after a --
  const after = own[0] === 'shell' ? [] : ['--', ...(rest.length > 0 ? rest : ['COMMAND'])]
  const example = ['drover start', ...before, ...moved, ...after].join(' ')
  return usageError(`${name} is a flag of drover start, after the --: flags before --, the command after it, e.g. ${example}`)
}

/**
 * `start --worktree echo hi` or `start --name x make`: a flag for a new task
 * with one word left over, which oclif took for a task to start again. Most
 * often the `--` was forgotten (and --worktree, whose BRANCH is optional, ate
 * the program's name), so the message shows the command line with the `--`
 * where it belongs; starting an ended task again takes no such flag at all.
 */
function startAgainMixed(flag: string, argv: string[], task: string): Error {
  // an id is no program name: the flag was meant for the task itself
  if (/^\d+$/.test(task)) return usageError(`${flag} cannot change task ${task} when it starts again: run drover start ${task} alone, or start a new task with ${flag}`)
  const takesValue = new Set(
    Object.entries({...Start.baseFlags, ...Start.flags}).flatMap(([name, f]) =>
      // --worktree's BRANCH is optional: the word after it was more likely the program
      f.type === 'option' && name !== 'worktree' ? [`--${name}`, ...(f.char ? [`-${f.char}`] : [])] : [],
    ),
  )
  let i = 0
  while (i < argv.length && argv[i].startsWith('-')) i += takesValue.has(argv[i]) ? 2 : 1
  const command = argv.slice(i)
  const flags = argv.slice(0, i).map((arg) => (arg.startsWith('--worktree=') && arg !== '--worktree=' ? arg : arg === '--worktree=' ? '--worktree' : arg))
  const fixed = `drover start ${[...flags, '--', ...command].join(' ')}`
  return usageError(
    `${flag} is for a new task, and '${task}' is not a command there: put the command after --, e.g. ${fixed}${flag === '--worktree' ? ' (a branch goes as --worktree=BRANCH)' : ''}; to start ended task ${task} again, give it alone`,
  )
}
