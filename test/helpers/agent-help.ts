// The real --help texts of the pinned agent versions (fixtures), as grammars.

import {readFileSync} from 'node:fs'
import {FlagTable, parseHelpFlags} from '../../src/agents/flags.js'
import {profileOf} from '../../src/agents/registry.js'
import {fixture} from './cli.js'

export const claudeHelp = () => readFileSync(fixture('help/claude-2.1.332.txt'), 'utf8')
export const codexHelp = () => readFileSync(fixture('help/codex-exec-0.171.0.txt'), 'utf8')
export const claudeFlags = () => new FlagTable(parseHelpFlags(claudeHelp()))
export const codexFlags = () => new FlagTable(parseHelpFlags(codexHelp()))

// the help that documents each agent's headless command: codex's and opencode's is their subcommand's
const HELP_FILES: Record<string, string> = {
  claude: 'claude-2.1.332.txt',
  codex: 'codex-exec-0.171.0.txt',
  gemini: 'gemini-0.61.0.txt',
  qwen: 'qwen-0.24.4.txt',
  copilot: 'copilot-1.0.102.txt',
  opencode: 'opencode-run-1.18.33.txt',
}

/** The --help of an agent drover ships, at its tested version (as its profile's helpArgv asks it). */
export const agentHelp = (agent: string): string => readFileSync(fixture(`help/${HELP_FILES[agent]}`), 'utf8')

/** That help as a grammar, read the way drover reads the agent's (its profile's helpGrammar). */
export const agentFlags = (agent: string): FlagTable => new FlagTable(parseHelpFlags(agentHelp(agent), profileOf(agent)?.helpGrammar))

/** The values a help text lists for a flag (`choices: "a", "b"` of commander and yargs, `[possible values: a, b]` of clap); null when it has no such flag. */
export function helpChoices(help: string, flag: string): string[] | null {
  const lines = help.split('\n')
  const at = lines.findIndex((line) => new RegExp(`^\\s+(-\\w, )?${flag}\\b`).test(line))
  if (at === -1) return null
  const next = lines.findIndex((line, i) => i > at && /^\s{1,8}-/.test(line))
  const text = lines.slice(at, next === -1 ? undefined : next).join(' ').replace(/\s+/g, ' ')
  const quoted = /choices: ((?:"[^"]+"(?:, )?)+)/.exec(text)?.[1]
  if (quoted) return [...quoted.matchAll(/"([^"]+)"/g)].map((m) => m[1])
  const clap = /possible values: ([^\]]+)\]/.exec(text)?.[1]
  return clap ? clap.split(',').map((v) => v.trim()) : []
}

/** A profile's permission modes that are one flag's values, by that flag (`--permission-mode` → its modes). */
export function modesByFlag(modes: Record<string, string[]>): Map<string, string[]> {
  const byFlag = new Map<string, string[]>()
  for (const argv of Object.values(modes)) if (argv.length === 2) byFlag.set(argv[0], [...(byFlag.get(argv[0]) ?? []), argv[1]])
  return byFlag
}
