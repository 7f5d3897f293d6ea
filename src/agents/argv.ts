// An agent's command line, shared by the profiles: where its own arguments
// start when it was started through a launcher (`node …/cli.js -p …`, `npx
// @google/gemini-cli …`) rather than by its own name, and which tokens a
// resume keeps.

import path from 'node:path'
import type {Token} from './flags.js'
import type {AgentArgs} from './profile.js'

const programName = (program: string) => path.basename(program).replace(/\.(exe|cmd|bat|ps1)$/i, '').toLowerCase()

export function launcherSplit(args: string[], program: string, binaries: string[], packages: string[] = []): AgentArgs {
  if (binaries.includes(programName(program))) return {head: [], rest: args}
  // the first script file or package name is what the launcher runs: the agent's arguments follow it
  const at = args.findIndex((a) => /\.(c|m)?js$/.test(a) || packages.some((p) => a === p || a.startsWith(`${p}@`)) || binaries.includes(programName(a)))
  if (at !== -1) return {head: args.slice(0, at + 1), rest: args.slice(at + 1)}
  const flag = args.findIndex((a) => a.startsWith('-'))
  return flag === -1 ? {head: [], rest: args} : {head: args.slice(0, flag), rest: args.slice(flag)}
}

/** The kept tokens of a resume: every flag and its values, not the positionals (the old prompt), not the flags in `drop`. */
export function keptTokens(tokens: Token[], drop: string[]): string[] {
  return tokens.filter((t) => t.role !== 'positional' && t.role !== 'separator' && !(t.flag && drop.includes(t.flag))).map((t) => t.text)
}

/** The flags in `keep` (by long name) with their values, as given: what an interactive session carries over of a headless command. */
export function carriedTokens(tokens: Token[], keep: string[]): string[] {
  return tokens.filter((t) => (t.role === 'flag' || t.role === 'value') && t.flag !== undefined && keep.includes(t.flag)).map((t) => t.text)
}

/**
 * A prompt the documented headless form would misread where it stands as a
 * positional: one that starts with `-` is taken for a flag, and a single word
 * may be one of the agent's subcommands (`codex exec review`, `qwen update`).
 */
export const positionalMisread = (prompt: string): boolean => prompt.startsWith('-') || !/\s/.test(prompt.trim())

/** Permission modes that are values of one flag (`--permission-mode plan`), as the argv each adds. */
export function flagModes(flag: string, modes: string[]): Record<string, string[]> {
  return Object.fromEntries(modes.map((mode) => [mode, [flag, mode]]))
}

/** Whether `args` give one of `flags`, alone or as `--flag=value`. */
export function givesFlag(args: string[], flags: string[]): boolean {
  const end = args.indexOf('--')
  return (end === -1 ? args : args.slice(0, end)).some((a) => flags.some((f) => a === f || a.startsWith(`${f}=`)))
}
