// Answers that need no command and no oclif: `--version`, and help printed to
// a pipe. Loading oclif is most of what drover costs to start, and these two
// are what scripts and shells call in loops. Each answer is exactly what
// oclif prints (test/cli/fast-paths.test.ts holds them side by side for every
// command); whenever anything could make oclif print something else, the
// answer is null and bin/run.js hands the command line to oclif.

import {existsSync, readFileSync} from 'node:fs'
import os from 'node:os'

type PackageJson = {name: string; version: string; oclif?: Record<string, unknown>}

/**
 * oclif's user agent, what `--version` prints: name/version platform-arch
 * node-version. On a Linux that could be WSL, oclif says "wsl" for the
 * platform after checks of its own; there the answer is null (ask oclif).
 */
export function userAgent(pjson: PackageJson): string | null {
  if (mayBeWsl()) return null
  const arch = os.arch() === 'ia32' ? 'x86' : os.arch()
  return `${pjson.name}/${pjson.version} ${os.platform()}-${arch} node-${process.version}`
}

/** oclif's `--version`: only as the first word, as in oclif (no additionalVersionFlags are configured). */
export function versionLine(argv: readonly string[], pjson: PackageJson): string | null {
  if (argv[0] !== '--version' || pjson.oclif?.additionalVersionFlags !== undefined) return null
  const agent = userAgent(pjson)
  return agent === null ? null : `${agent}\n`
}

function mayBeWsl(): boolean {
  if (process.platform !== 'linux') return false
  if (os.release().toLowerCase().includes('microsoft')) return true
  try {
    if (readFileSync('/proc/version', 'utf8').toLowerCase().includes('microsoft')) return true
  } catch {
    // no /proc: decided by the paths below
  }
  return existsSync('/proc/sys/fs/binfmt_misc/WSLInterop') || existsSync('/run/WSL')
}

const HELP_FLAGS = new Set(['--help', '-h'])

/**
 * Which help the command line asks for — '' for drover's own, else a command
 * id — in the shapes people type: `drover`, `drover --help`, `drover help`,
 * `drover CMD --help`, `drover help CMD`. Anything else (more words, flags
 * besides the help flag) is null: oclif decides.
 */
export function helpSubject(argv: readonly string[]): string | null {
  if (argv.length === 0) return ''
  if (argv.length === 1) return HELP_FLAGS.has(argv[0]) || argv[0] === 'help' ? '' : null
  if (argv.length !== 2) return null
  if (argv[0] === 'help' && !argv[1].startsWith('-')) return argv[1]
  if (HELP_FLAGS.has(argv[1]) && !argv[0].startsWith('-') && argv[0] !== 'help') return argv[0]
  return null
}

/**
 * oclif renders help for a pipe at 80 columns without colour; OCLIF_COLUMNS,
 * FORCE_COLOR or a terminal change that, so only the plain case is served
 * from the help rendered at build time (scripts/render-help.mjs). On Windows
 * oclif continues multi-line examples with `^` (cmd) or a backtick
 * (PowerShell, found by asking for the parent process), where the build
 * rendered `\`: there oclif always renders help itself.
 */
export function helpIsPlain(env: NodeJS.ProcessEnv, stdoutIsTTY: boolean | undefined, platform: string = process.platform): boolean {
  return platform !== 'win32' && !stdoutIsTTY && env.OCLIF_COLUMNS === undefined && env.FORCE_COLOR === undefined
}

/** Stands for the user agent in the rendered help: the Node version and platform are the running ones, not the build's. */
export const USER_AGENT_MARK = '\u0000user-agent\u0000'

/** The rendered help for a subject, with the user agent filled in; null when there is none. */
export function helpText(rendered: Record<string, string>, subject: string, agent: string | null): string | null {
  if (!Object.hasOwn(rendered, subject)) return null
  const text = rendered[subject]
  if (!text.includes(USER_AGENT_MARK)) return text
  return agent === null ? null : text.replaceAll(USER_AGENT_MARK, agent)
}
