// The command line as oclif must see it. oclif finds the command in the first
// word, so `drover --json list` would read '--json' as a command name; people
// type global flags first (as with git and docker), so they are moved behind
// the command word here. Nothing after `--` is ever touched: that is the
// task's own command line.

const GLOBAL_SWITCHES = new Set(['--json', '--color', '--no-color'])
const GLOBAL_WITH_VALUE = new Set(['--state-dir'])

/** argv without node and script: leading global flags moved after the command word. */
export function hoistGlobalFlags(argv: readonly string[]): string[] {
  let i = 0
  while (i < argv.length) {
    const word = argv[i]
    if (GLOBAL_SWITCHES.has(word) || [...GLOBAL_WITH_VALUE].some((flag) => word.startsWith(`${flag}=`))) i += 1
    else if (GLOBAL_WITH_VALUE.has(word) && i + 1 < argv.length) i += 2
    else break
  }
  const command = argv[i]
  // `drover --state-dir X --version` (or `--help`): a state dir or an output
  // form changes nothing of what these print, so they answer as if alone.
  if (i > 0 && (command === '--version' || command === '--help' || command === '-h')) return argv.slice(i)
  // No command after them (or help, which takes none of them): oclif reports it as it is.
  if (i === 0 || command === undefined || command.startsWith('-') || command === 'help') return [...argv]
  return [command, ...argv.slice(0, i), ...argv.slice(i + 1)]
}

/** Whether help was asked for before any `--` (after it, `-h` belongs to the task's command). */
export function asksForHelp(argv: readonly string[]): boolean {
  for (const word of argv) {
    if (word === '--') return false
    if (word === '--help' || word === '-h') return true
  }
  return false
}

/** The commands scripts call in loops, which bin/run.js runs without oclif's Config.load (src/cli/hot.ts). */
export const HOT_COMMANDS: readonly string[] = ['list', 'status', 'start', 'logs', 'wait']

/** Whether the command line goes the hot way: one of those commands, no help asked for, and no DEBUG (oclif's own tracing shows). */
export function goesHot(argv: readonly string[], env: NodeJS.ProcessEnv = process.env): boolean {
  return HOT_COMMANDS.includes(argv[0] ?? '') && !asksForHelp(argv) && !env.DEBUG
}
