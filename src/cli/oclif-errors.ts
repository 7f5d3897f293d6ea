// oclif's parse errors in drover's own words: one sentence that names the
// flag and says what to do ("--base goes with --worktree: add --worktree, or
// leave out --base"), instead of oclif's "The following error occurred: All
// of the following must be provided when using --base: --worktree". Matched on
// oclif 4's wording (test/cli/oclif-errors.test.ts runs the real parser);
// anything not recognised is passed through, joined onto one line.

import {suggest} from '../api/suggest.js'

/** A flag as typed (`-n` where oclif says `--tail`). */
type AsTyped = (flag: string) => string
type Rewrite = (match: RegExpExecArray, command: string, asTyped: AsTyped) => string

const RULES: [RegExp, Rewrite][] = [
  // dependsOn: "All of the following must be provided when using --base: --worktree"
  [/All of the following must be provided when using (--[\w-]+): (.+)$/, ([, flag, needs]) => {
    const list = needs.split(/,\s*/).join(' and ')
    return `${flag} goes with ${list}: add ${list}, or leave out ${flag}`
  }],
  // exclusive: "--pretty=true cannot also be provided when using --raw" (both directions, joined)
  [/(--[\w-]+)(?:=\S*)? cannot also be provided when using (--[\w-]+)/, ([, a, b]) => `${a} and ${b} do not go together: give one of them`],
  // options: "Expected --agent=foo to be one of: claude, codex, generic"
  [/Expected (--[\w-]+)=(.*) to be one of: (.+)$/, ([, flag, value, options]) => {
    const close = suggest(value, options.split(/,\s*/))
    return `${flag}: unknown value '${value}'${close ? ` (did you mean ${close}?)` : ''}; use one of: ${options}`
  }],
  // an argument's options
  [/Expected (.*) to be one of: (.+)$/, ([, value, options]) => `unknown value '${value}'; use one of: ${options}`],
  // integer flags
  [/Parsing (--[\w-]+): Expected an integer greater than or equal to (-?\d+) but received: (.*)$/, ([, flag, min, got]) => `${flag} must be a whole number of at least ${min}, got '${got}'`],
  [/Parsing (--[\w-]+): Expected an integer less than or equal to (-?\d+) but received: (.*)$/, ([, flag, max, got]) => `${flag} must be a whole number of at most ${max}, got '${got}'`],
  [/Parsing (--[\w-]+): Expected an integer but received: (.*)$/, ([, flag, got]) => `${flag} needs a whole number, got '${got}'`],
  // a custom flag's own parse error: drop oclif's "Parsing" frame
  [/^Parsing (--[\w-]+): (.+)$/, ([, flag, said]) => `${flag}: ${said}`],
  [/Flag (--[\w-]+) expects a value/, ([, long], _command, asTyped) => {
    const flag = asTyped(long)
    return `${flag} needs a value: ${flag}${flag.startsWith('--') ? '=' : ' '}VALUE`
  }],
  [/Flag (--[\w-]+) can only be specified once/, ([, flag]) => `${flag} was given more than once: give it once`],
  // "Missing 1 required arg: task: task id or name"
  [
    /Missing \d+ required args?: (\w+)(?:: (.+))?$/,
    ([, name, what], command) => {
      // an argument with fixed values (completion's SHELL): oclif lists them first, and the example takes one
      const fixed = /^\(([\w-]+(?:\|[\w-]+)*)\) ?/.exec(what ?? '')
      const said = fixed ? what!.slice(fixed[0].length) : what
      return `${command} needs a ${name.toUpperCase()}${said ? `: ${said}` : ''}; e.g. drover ${command} ${fixed ? fixed[1].split('|')[0] : '3'}`
    },
  ],
  [/Unexpected arguments?: (.+)$/, ([, extra], command) => `too many arguments: ${extra.split(/,\s*/).map((a) => `'${a}'`).join(', ')} (see drover ${command} --help)`],
]

/**
 * One drover sentence for an oclif parse error message (already on one line,
 * or with oclif's tab-indented detail lines), or null when it is not one of
 * oclif's. `command` is the command id as typed (`start`, `queue set`).
 */
export function droverWords(message: string, command: string, asTyped: AsTyped = (flag) => flag): string | null {
  const said: string[] = []
  for (const line of statements(message)) {
    for (const [pattern, rewrite] of RULES) {
      const match = pattern.exec(line)
      if (!match) continue
      const sentence = rewrite(match, command, asTyped)
      if (!said.includes(sentence) && !isMirror(sentence, said)) said.push(sentence)
      break
    }
  }
  return said.length > 0 ? said.join('; ') : null
}

/**
 * oclif's message as one statement per line: its frame ("The following
 * errors occurred:", "See more help with --help") dropped, and the two
 * messages that put their detail on the next line ("Parsing --n" + "Expected
 * an integer …", "Missing 1 required arg:" + "task  task id or name") joined.
 */
function statements(message: string): string[] {
  const lines = message
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !/^See more help/.test(line) && !/^The following errors? occurred:?$/.test(line))
  const out: string[] = []
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]
    if ((/^Parsing --[\w-]+$/.test(line) || /^Missing \d+ required args?:$/.test(line)) && i + 1 < lines.length) {
      out.push(`${line.replace(/:$/, '')}: ${lines[++i].replace(/\s{2,}/, ': ')}`)
    } else {
      out.push(line)
    }
  }
  return out
}

/** "--raw and --pretty …" after "--pretty and --raw …": oclif reports an exclusive pair from both ends. */
function isMirror(sentence: string, said: string[]): boolean {
  const pair = /^(--[\w-]+) and (--[\w-]+) do not go together/.exec(sentence)
  return pair !== null && said.some((s) => s.startsWith(`${pair[2]} and ${pair[1]} do not go together`))
}
