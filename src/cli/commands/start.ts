import {Args, Flags} from '@oclif/core'
import path from 'node:path'
import {BaseCommand} from '../base-command.js'
import {commandProblem} from '../../process/command-check.js'
import {usageError} from '../../base/errors.js'
import {parseDuration, parseEnvAssignment, parseSize, parseTaskName} from '../../base/parse.js'
import {resolveExecutable, shellCommand} from '../../platform/platform.js'
import {detectProfile} from '../../agents/profiles.js'
import {checkBudget, givenLimits, parseCost} from '../../api/budget.js'
import {AGENT_PROFILES, type AgentProfileName, type TaskRecord} from '../../state/record.js'
import {startTask, type TaskSpec} from '../../tasks/launch.js'
import {findTaskToRestart, restartTask} from '../../tasks/restart.js'
import {fileSize, taskPaths} from '../../state/store.js'
import {followToStdout} from '../render/follow-stdout.js'
import {taskJson} from '../../api/task-json.js'

const DEFAULT_MAX_OUTPUT = '1GiB'

export default class Start extends BaseCommand {
  static override summary = 'Start a command in the background, or start a finished task again.'
  static override description = `Runs CMD detached from this shell under a small runner of its own, with stdout and stderr appended to the task's output.log. Returns once the task is running (or has failed to start) and prints its id, so \`drover start … && drover logs -f ID\` never races.

With --follow it then streams the task's output like \`logs -f\` and exits with the task's own exit code; stdout carries only that output, and the id goes to stderr. With --follow --json, stdout is an NDJSON stream: {"type":"started","id","task"}, then the output objects and the final {"type":"end",…} of \`logs -f --json\`.

The command is run directly, never through a shell, unless you pass --shell "script". Put drover's flags before \`--\` and the command after it.

With --worktree the task runs in a new git worktree of the repository you are in, on a new branch (default drover/<id>-<name>) from --base (default HEAD): your uncommitted changes are not carried, the worktree starts from the commit. status shows what it changed when a run ends, drover diff shows the diff; rm and prune remove the worktree only when no work is lost.

--on-limit wait: when a claude or codex run ends on its provider's usage limit, the task is waiting (status shows when it resumes) until the limit lifts, then resumes its own conversation; stop, cancel and drain work while it waits, and resume cuts the wait short. The default, fail, ends the task failed with the limit in its reason.

--max-cost, --max-turns and --max-tokens are budgets over the agent's whole session, counted across resumes: reaching one drains the task (reason "budget: …"), and resume with a higher budget continues it.

With a task id or name instead of a command, starts that ended task (succeeded, failed, stopped, cancelled, drained or lost) again as a new run with the same command, cwd and -e variables; its output is appended after a separator line.`

  static override examples = [
    {description: 'Run a Claude Code agent in the background', command: '<%= config.bin %> start --name fix-tests -- claude -p "make the tests pass" --output-format stream-json --verbose'},
    {description: 'Start and follow, exiting with the job\'s own exit code', command: '<%= config.bin %> start --follow -- npm test'},
    {description: 'A shell pipeline, stopped if it runs longer than 2 hours', command: '<%= config.bin %> start --timeout 2h --shell "make build 2>&1 | tee build.txt"'},
    {description: 'Start task 7 again after it stopped', command: '<%= config.bin %> start 7'},
    {description: 'An agent on its own branch and worktree, with a budget', command: '<%= config.bin %> start --worktree --name auth --max-turns 40 -- claude -p "add login" --output-format stream-json --verbose'},
  ]

  static override usage = ['<%= command.id %> [FLAGS] -- COMMAND [ARG...]', '<%= command.id %> [FLAGS] --shell SCRIPT', '<%= command.id %> TASK']

  static override args = {
    task: Args.string({description: 'id or name of a finished task to start again (instead of a command after --)'}),
  }

  static override flags = {
    name: Flags.string({description: 'a unique name for the task (letters, digits, . _ -; starts with a letter)'}),
    cwd: Flags.string({description: 'working directory of the command (default: the current one)'}),
    env: Flags.string({char: 'e', description: 'set an environment variable for the command (KEY=VALUE, repeatable)', multiple: true}),
    shell: Flags.string({description: 'run this script through your shell ($SHELL -c, or cmd.exe /c on Windows) instead of a command after --'}),
    follow: Flags.boolean({char: 'f', description: 'stream the output like `logs -f` and exit with the task\'s exit code (the id goes to stderr)'}),
    agent: Flags.string({description: 'agent profile, for session tracking and resume (default: from the program name)', options: [...AGENT_PROFILES]}),
    'agent-hooks': Flags.boolean({
      description: "claude: add drover's PreToolUse hook (--settings) so a drain makes the agent end its turn instead of being signalled",
      default: true,
      allowNo: true,
    }),
    'keep-children': Flags.boolean({
      description: 'leave processes the command started running after it exits (by default they are stopped, so nothing of a task outlives it)',
    }),
    timeout: Flags.string({description: 'stop the task when it runs longer than this (e.g. 90s, 30m, 2h)'}),
    'idle-timeout': Flags.string({description: 'stop the task when its output does not grow for this long (e.g. 10m)'}),
    'max-output': Flags.string({description: `stop the task when output.log grows past this size; 0 for no limit (default ${DEFAULT_MAX_OUTPUT})`}),
    'max-cost': Flags.string({
      description: 'claude: drain the task once its session has cost this many US dollars (counted across resumes; claude reports cost when a run ends)',
      helpValue: 'USD',
    }),
    'max-turns': Flags.integer({description: 'claude, codex: drain the task after this many model turns of its session (counted across resumes)', min: 1}),
    'max-tokens': Flags.integer({description: 'claude, codex: drain the task once its session used this many tokens, input plus output (counted across resumes)', min: 1}),
    'on-limit': Flags.string({
      description: "claude, codex: when the agent stops on its provider's usage limit, fail (the default) or wait: the task is waiting until the limit lifts (the reset time the agent names, else a backoff up to 1 h), then resumes its own conversation",
      options: ['fail', 'wait'],
    }),
    worktree: Flags.string({
      description: 'run in a new git worktree of the repository you are in, on a new BRANCH (default drover/<id>-<name>); resume and start ID run there too',
      helpValue: '[BRANCH]',
    }),
    'existing-branch': Flags.boolean({description: 'with --worktree BRANCH: run on that branch, which exists already (it is never deleted by rm or prune)', dependsOn: ['worktree']}),
    base: Flags.string({description: 'with --worktree: the commit, branch or tag the new branch starts from (default HEAD; uncommitted changes are not carried)', dependsOn: ['worktree']}),
  }

  async run(): Promise<ReturnType<typeof taskJson> | void> {
    // Everything after `--` is the command, verbatim: oclif must not see it
    // (it would take the command's own flags for ours, and reorder repeats).
    const dash = this.argv.indexOf('--')
    const ours = optionalWorktreeValue(dash === -1 ? this.argv : this.argv.slice(0, dash))
    const command = dash === -1 ? [] : this.argv.slice(dash + 1)
    const {args, flags} = await this.parse(Start, ours).catch((error: Error) => {
      throw dash === -1 ? (forgottenDashes(ours, error) ?? error) : error
    })
    // Every value is checked before the state dir is opened: a usage error changes nothing on disk.
    if (args.task !== undefined) {
      if (command.length > 0 || flags.shell !== undefined) throw usageError('give either a task to start again or a command after --, not both')
      for (const flag of ['name', 'cwd', 'env', 'agent', 'keep-children', 'timeout', 'idle-timeout', 'max-output', 'worktree', 'existing-branch', 'max-cost', 'max-turns', 'max-tokens', 'on-limit'] as const) {
        if (flags[flag] !== undefined) throw usageError(`--${flag} cannot change a task that is started again; start a new task instead`)
      }
      if (ours.some((arg) => /^--(no-)?agent-hooks$/.test(arg))) {
        throw usageError('--agent-hooks cannot change a task that is started again; start a new task instead')
      }
    }
    const spec = args.task === undefined ? buildSpec(command, flags) : null

    const stateDir = await this.openStateDir(flags['state-dir'])
    let record: TaskRecord
    // --follow of a task started again shows this run, not the earlier ones above it.
    let followFrom = 0
    if (args.task !== undefined) {
      const previous = findTaskToRestart(stateDir, args.task)
      followFrom = fileSize(taskPaths(stateDir, previous.id).output) ?? 0
      record = await restartTask(stateDir, args.task)
    } else {
      record = await startTask(stateDir, spec!)
      if (record.worktree?.baseDirty) {
        this.note(`drover: note: uncommitted changes in ${record.worktree.repo} are not in the worktree (it starts from ${record.worktree.baseCommit.slice(0, 12)})`)
      }
    }

    // A worker that ran and already exited (a fast `exit 3`) did start: only a
    // run that never got a worker (command not found, bad cwd) failed to start.
    const failedToStart = record.status === 'failed' && record.worker === null
    if (failedToStart) {
      this.note(`drover: task ${record.id} failed to start: ${record.reason}`)
      process.exitCode = 1
    }
    if (flags.follow) {
      // stdout is the task's own output from here on (or its NDJSON stream): the id goes to stderr.
      if (!failedToStart) this.note(`drover: task ${record.id} started; following it (Ctrl-C stops following, not the task)`)
      process.exitCode = await followToStdout(stateDir, record.id, followFrom, {json: this.jsonEnabled(), started: record})
      return
    }
    if (!failedToStart && !this.jsonEnabled()) process.stdout.write(`${record.id}\n`)
    return taskJson(record)
  }
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

function buildSpec(
  command: string[],
  flags: {
    name?: string
    cwd?: string
    env?: string[]
    shell?: string
    agent?: string
    'agent-hooks': boolean
    'keep-children'?: boolean
    timeout?: string
    'idle-timeout'?: string
    'max-output'?: string
    worktree?: string
    base?: string
    'existing-branch'?: boolean
    'max-cost'?: string
    'max-turns'?: number
    'max-tokens'?: number
    'on-limit'?: string
  },
): TaskSpec {
  if (flags.shell !== undefined && command.length > 0) throw usageError('give either --shell "script" or a command after --, not both')
  if (flags.shell === undefined && command.length === 0) {
    throw usageError('no command given: put it after --, e.g. drover start -- sleep 60 (or use --shell "script")')
  }
  if (flags.shell !== undefined && flags.shell.trim() === '') throw usageError('--shell needs a non-empty script')
  if (command.length > 0 && command[0] === '') throw usageError('the command name is empty')
  if (flags.shell !== undefined && (flags.agent === 'claude' || flags.agent === 'codex')) {
    throw usageError(
      `--agent ${flags.agent} needs the command after --, not --shell: drover rewrites the agent's own command line to resume it, which a shell script does not allow`,
    )
  }
  const argv = flags.shell !== undefined ? shellCommand(flags.shell) : command
  const env: Record<string, string> = {}
  for (const assignment of flags.env ?? []) {
    const [key, value] = parseEnvAssignment(assignment)
    env[key] = value
  }
  const cwd = path.resolve(flags.cwd ?? process.cwd())
  if (flags.shell === undefined) {
    const problem = commandProblem(command, cwd, {...process.env, ...env})
    if (problem) throw usageError(problem)
  }
  const maxOutput = parseSize(flags['max-output'] ?? DEFAULT_MAX_OUTPUT, '--max-output', {allowZero: true})
  // Resolved now, with the PATH this start sees: a later resume from cron
  // (PATH=/usr/bin:/bin) runs the same program with the same PATH.
  const pathEnv = env.PATH ?? process.env.PATH ?? null
  const agent = (flags.agent as AgentProfileName | undefined) ?? (flags.shell === undefined ? detectProfile(command) : 'generic')
  const budget = {
    maxCostUsd: flags['max-cost'] === undefined ? null : parseCost(flags['max-cost']),
    maxTurns: flags['max-turns'] ?? null,
    maxTokens: flags['max-tokens'] ?? null,
  }
  checkBudget(agent, budget)
  if (flags['on-limit'] === 'wait' && agent === 'generic') throw usageError('--on-limit wait needs an agent whose usage limits drover can read (claude or codex)')
  return {
    command: argv,
    executable: resolveExecutable(argv[0], {pathEnv: pathEnv ?? undefined, cwd, pathExt: process.env.PATHEXT}),
    pathEnv,
    agentHooks: flags['agent-hooks'],
    keepChildren: flags['keep-children'] ?? false,
    worktree:
      flags.worktree === undefined
        ? null
        : {branch: flags.worktree === '' ? null : flags.worktree, base: flags.base ?? null, existingBranch: flags['existing-branch'] ?? false},
    shell: flags.shell ?? null,
    name: flags.name === undefined ? null : parseTaskName(flags.name),
    cwd,
    env,
    agent,
    policies: {
      ...givenLimits(budget),
      ...(flags['on-limit'] === 'wait' ? {onLimit: 'wait' as const} : {}),
      timeoutMs: flags.timeout === undefined ? null : parseDuration(flags.timeout, '--timeout'),
      idleTimeoutMs: flags['idle-timeout'] === undefined ? null : parseDuration(flags['idle-timeout'], '--idle-timeout'),
      maxOutputBytes: maxOutput === 0 ? null : maxOutput,
    },
  }
}
