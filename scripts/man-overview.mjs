// The overview page, drover(1): the static text about the state dir, files,
// environment and exit codes, around the command list and global flags that
// come from the commands' metadata.

import {escapeText, expandTemplates, flagEntries, inline, nameLine, page, paragraphs, verbatim} from './man-roff.mjs'

const section = (title, body) => `.SH ${title}\n${body}`

/** `.TP` list of term → text pairs; terms are plain text set in bold. */
const terms = (pairs) => pairs.map(([term, text]) => `.TP\n\\fB${escapeText(term)}\\fR\n${inline(text)}`).join('\n')

const DESCRIPTION = `drover runs long jobs, above all AI coding agents such as \`claude -p\` or \`codex exec\`, in the background and lets any shell manage them afterwards. There is no daemon: every command works directly on one shared state directory, and each running task is watched by a small runner process of its own.

The runner starts the command in a process group of its own, appends its stdout and stderr straight to the task's output.log (the command keeps writing even if the runner dies), acts on requests that other drover invocations drop for it (stop, cancel, drain), and records how the command ended.

A task has a small integer id that is never reused and, optionally, a unique name given with \`start --name\`; every command that takes a task accepts either. Every command accepts \`--json\` (stdout then holds JSON only and diagnostics go to stderr) and \`--state-dir\`, before or after the command word. No command reads its standard input, so drover is safe inside \`while read\` loops; a task's own standard input is /dev/null. Durations take a unit (90s, 30m, 2h, 7d, 1h30m): a bare number is refused, except 0 and the seconds of \`stop -t\`. Each command has its own page, drover-COMMAND(1); \`drover COMMAND --help\` shows the same text.`

const STATUSES = [
  ['starting', 'the runner is being launched'],
  ['running', 'the command is running'],
  ['stopping', 'a stop, cancel or drain is in progress'],
  ['succeeded', 'the command exited by itself with code 0'],
  ['failed', 'the command exited by itself with another code or was ended by a signal, or could not be started'],
  ['stopped', 'stopped by `drover stop`; can be started again (`drover start ID`) or resumed'],
  ['cancelled', 'aborted by `drover cancel`; never resumed, but `drover start ID` runs it again as a new run'],
  ['drained', 'checkpointed by `drover drain`; `drover resume` continues it'],
  ['lost', 'the runner vanished without recording an end (reboot, kill -9); resumable when a checkpoint exists'],
]

const STATE_DIR = `All state lives in one directory, chosen in this order: the \`--state-dir\` flag, the DROVER_STATE_DIR environment variable, then the per-user data directory of the operating system:`

const STATE_DIR_PER_OS = [
  ['Linux', '$XDG_DATA_HOME/drover, that is ~/.local/share/drover'],
  ['macOS', '~/Library/Application Support/drover'],
  ['Windows', '%LOCALAPPDATA%\\drover\\Data'],
]

const STATE_DIR_AFTER = `The directory is created with mode 0700 and its files with mode 0600, since transcripts hold prompts and secrets. Only start and queue set create it (and top, ui and mcp, which watch it); any other command reads a state dir that does not exist as an empty one and creates nothing, so a mistyped --state-dir leaves no new directory behind (list says it does not exist yet). A state dir that is not a directory, cannot be written, is writable by other users or was written by a newer drover is refused (exit status 5); for a shared directory such as /tmp drover suggests a private subdirectory of it, never a chmod. Everything in it is plain files: a person with ls and cat can see what every task is doing.`

const FILES = [
  ['STATE_DIR/format', 'one line, "drover-state 1": the version of the layout below, written when drover makes the directory (a directory of drover 0.1.0 has none until a command writes in it, and is format 1); a newer format is refused with exit status 5: upgrade drover'],
  ['STATE_DIR/tasks/ID/', 'one folder per task; the id is taken with an atomic mkdir and never reused'],
  ['STATE_DIR/tasks/ID/task.json', 'the task record: command, cwd, status, exit code, runs; written atomically, and only by the live runner once the task has started'],
  ['STATE_DIR/tasks/ID/output.log', 'the command\'s stdout and stderr, appended across runs; each restart or resume begins with a line starting "── drover: run"'],
  ['STATE_DIR/tasks/ID/events.ndjson', 'lifecycle events, one JSON object per line: created, started, request, signal, exit'],
  ['STATE_DIR/tasks/ID/control', 'the control file given to the command as DROVER_CONTROL_FILE'],
  ['STATE_DIR/tasks/ID/requests/', 'pending stop, cancel and drain requests, one file each, for the runner to act on'],
  ['STATE_DIR/tasks/ID/followups/', 'prompts queued for an agent at work (`drover resume ID --prompt`), one numbered file each, delivered one run each by the task\'s runner; `drover followups ID` lists and withdraws them'],
  ['STATE_DIR/tasks/ID/session/', 'the command\'s own resumable state (DROVER_SESSION_DIR)'],
  ['STATE_DIR/tasks/ID/runner.json', 'the live runner\'s identity: pid and process start time, so a recycled pid is never signalled'],
  ['STATE_DIR/tasks/ID/heartbeat', 'for a task run as a Slurm job: the host and pid of its runner, rewritten every few seconds while it lives; a task on another host is lost only when Slurm says its job ended and this has gone stale; on Windows every runner keeps one, so that list and status know it lives without starting PowerShell'],
  ['STATE_DIR/live/ID', 'an empty hint for each task that may be meant to run, so drover list finds them without opening every task folder'],
  ['STATE_DIR/hooks/on-exit', 'an executable you may put there: run once every task has ended, with the final record on stdin (see drover-start(1), --on-exit)'],
  ['STATE_DIR/hooks/on-status', 'an executable you may put there: run at every change of every task\'s status, with the record on stdin and DROVER_STATUS, DROVER_PREV_STATUS set (see drover-start(1), --on-status)'],
  ['STATE_DIR/config.json', 'optional defaults for new tasks, written by hand: "executor", "slurm" (sbatch options), "notify" (where ends and needs for attention are told; see drover-start(1), --notify)'],
]

const ENVIRONMENT = [
  ['DROVER_STATE_DIR', 'the state directory, unless `--state-dir` is given'],
  ['DROVER_EXECUTOR', 'where `start` runs a new task unless `--executor` is given: `local` (the default) or `slurm` (a batch job; the state dir must be on a file system the nodes share)'],
  ['DROVER_HEARTBEAT_MS', 'for a Slurm task, and any task on Windows: how often its runner rewrites its heartbeat, in milliseconds (default 10000); a task is judged by three missed beats'],
  ['SLURM_CONF', 'read by the Slurm commands drover runs (sbatch, squeue, scontrol, sacct, scancel) and passed to the job'],
  ['NO_COLOR', 'when set to a non-empty value, output has no colour unless `--color` is given; without either, colour is used only on a terminal'],
  ['DEBUG', 'when set, unexpected errors print their stack trace after the one-line message'],
]

const WORKER_ENVIRONMENT = [
  ['DROVER_TASK_ID', 'the task\'s id'],
  ['DROVER_STATE_DIR', 'the state directory the task belongs to'],
  ['DROVER_CONTROL_FILE', 'a file into which drover writes one word, WRAP_UP or STOP: a polite request that a cooperative agent reads at its next step'],
  ['DROVER_SESSION_DIR', 'a per-task folder where the command may keep resumable state; the same folder on every run of the task'],
  ['DROVER_RESUME', 'set to 1 on a run started by `drover resume`; unset otherwise'],
  ['DROVER_RUN', 'the number of this run of the task: 1 for the first, then one more for each restart or resume'],
]

const EXIT_STATUS = [
  ['0', 'done'],
  ['1', 'the operation failed: a task could not be started, a stop did not complete'],
  ['2', 'usage: a bad flag, a bad value, a missing argument'],
  ['3', 'no such task (or no task in a named group)'],
  ['4', 'conflict: the task is in a state that forbids this (resuming a running task, a name already taken, a lock held); a merge that conflicts (left as git leaves it), or whose target checkout has uncommitted changes'],
  ['5', 'the state directory is unusable: not a directory, no permission, unsafe permissions, or written by a newer drover (upgrade drover)'],
]

const EXIT_STATUS_AFTER = `\`drover logs -f\`, \`drover start --follow\` and \`drover status --wait\` instead exit with the task's own exit code, or 128 plus the signal number when a signal ended it, so a script can wait for a task and use its result.

Two more follow the shell's conventions. 130: Ctrl-C; following stops and the task runs on, and \`stop\`, \`drain\` and \`cancel\` stop waiting while their requests carry on (\`drover status ID\` shows how it ends). 141: the reader of drover's output went away (\`drover logs -f 3 | head -1\`); drover ends at once and quietly, as a process killed by SIGPIPE does, and the task runs on.`

const COMPLETION = `\`drover completion SHELL\` prints the completion script for bash, zsh, fish or powershell (see \`drover-completion\`(1) for where each shell loads it). It completes command names, flags, the fixed values of flags such as \`start --agent\`, and every TASK argument with task ids, names and \`:latest\`: the live tasks and the 50 newest, read quickly from the state dir named on the line (--state-dir, else $DROVER_STATE_DIR, else the default) on each Tab. Digits typed also bring the tasks of that id and those one digit longer.`

const EXAMPLES = [
  ['Run a Claude Code agent in the background and follow it:', [
    'drover start --name fix-tests -- claude -p "make the tests pass" \\',
    '    --output-format stream-json --verbose',
    'drover logs -f fix-tests',
  ]],
  ['Run a build, wait for it in a script and use its exit code:', ['drover start --follow -- npm test']],
  ['See what runs, and the ids of running tasks only:', ['drover list', 'drover list --status running -q']],
  ['Checkpoint every running agent before a reboot, and continue them afterwards:', ['drover drain --all', 'drover resume --all']],
  ['Tell an agent at work what to do next, once its run ends; take it over in this terminal, then send it back:', [
    'drover resume fix-tests --prompt "Then update the changelog."',
    'drover attach fix-tests',
    'drover resume fix-tests --prompt "Carry on as we agreed."',
  ]],
  ['Keep a private state directory for one project:', ['export DROVER_STATE_DIR="$PWD/.drover"']],
  ['Crontab lines: every night remove tasks that ended more than a week ago, and after a reboot resume the tasks that were running:', [
    '0 3 * * * drover prune --older-than 7d -q',
    '@reboot drover resume --interrupted -q',
  ]],
]

/** The full drover(1) page. `commands` are the manifest's own commands, sorted by id. */
export function overviewPage({version, commands, globalFlags}) {
  const commandList = commands
    .map((command) => `.TP\n\\fBdrover ${escapeText(command.id.replaceAll(':', ' '))}\\fR\n${inline(expandTemplates(command.summary ?? '', command.id))}\nSee \\fB${pageName(command.id)}\\fR(1).`)
    .join('\n')
  const builtIn = terms([
    ['drover help [COMMAND]', 'the help of drover or of one command; the same as COMMAND --help'],
  ])
  const examples = EXAMPLES.map(([text, lines]) => `.PP\n${inline(text)}\n${verbatim(lines)}`).join('\n')
  const seeAlso = commands.map((command, i) => `.BR ${pageName(command.id)} (1)${i < commands.length - 1 ? ',' : ''}`).join('\n')

  const body = [
    section('NAME', `drover \\- ${inline(nameLine('Run long jobs, above all AI coding agents, in the background with no daemon.'))}`),
    section('SYNOPSIS', '\\fBdrover\\fR \\fICOMMAND\\fR [\\fIoptions\\fR] [\\fIarguments\\fR]\n.br\n\\fBdrover\\fR \\fICOMMAND\\fR \\fB\\-\\-help\\fR\n.br\n\\fBdrover \\-\\-version\\fR'),
    section('DESCRIPTION', paragraphs(DESCRIPTION)),
    section('COMMANDS', `${commandList}\n${builtIn}`),
    section('GLOBAL OPTIONS', `Every command accepts these:\n${flagEntries(globalFlags)}\n${terms([['--help', 'show the help of the command and exit'], ['--version', 'print drover\'s version and platform and exit (without a command)']])}`),
    section('TASK STATUS', `A task's status is one of:\n${terms(STATUSES)}`),
    section('STATE DIRECTORY', `${paragraphs(STATE_DIR)}\n${terms(STATE_DIR_PER_OS)}\n${paragraphs(STATE_DIR_AFTER)}`),
    section('FILES', terms(FILES)),
    section('ENVIRONMENT', `${terms(ENVIRONMENT)}\n.PP\nThe command run as a task gets, besides the environment of the shell that started it and any \\fB\\-e\\fR variables:\n${terms(WORKER_ENVIRONMENT)}`),
    section('EXIT STATUS', `Every command exits with:\n${terms(EXIT_STATUS)}\n${paragraphs(EXIT_STATUS_AFTER)}`),
    section('SHELL COMPLETION', paragraphs(COMPLETION)),
    section('EXAMPLES', examples),
    section('SEE ALSO', seeAlso),
  ].join('\n')
  return page('drover', version, body)
}

export function pageName(id) {
  return `drover\\-${escapeText(id.replaceAll(':', '-').replaceAll(' ', '-'))}`
}
