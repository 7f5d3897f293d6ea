// Making a real claude honour drover's control file. claude does not read
// $DROVER_CONTROL_FILE, but it runs the hooks its settings name: drover adds a
// PreToolUse hook (through `--settings`) that refuses every new tool call once
// the control file says STOP, with a message telling the model to end its turn.
// The model then finishes its reply, `claude -p` exits on its own, and the
// drain is cooperative instead of a signal mid-work. Node builtins only: the
// runner calls this when it launches the worker.

import {readFileSync} from 'node:fs'
import path from 'node:path'
import {writeFileAtomic} from '../state/store.js'
import type {TaskRecord} from '../state/record.js'

/** The message the model sees as the refused tool call's result. */
export const DRAIN_HOOK_MESSAGE =
  'drover: this task is being drained (stopped for now, to be resumed later). Do not start any new tool call. End your turn now with a short note of what is done and what remains.'

// POSIX sh: claude runs hook commands through a shell (Git Bash on Windows),
// and a shell built-in test costs a millisecond where a node start costs 50
// on every tool call. stdin (the tool call as JSON) is drained so claude never
// sees EPIPE writing it.
const HOOK_COMMAND = `cat >/dev/null; case "$(cat "$DROVER_CONTROL_FILE" 2>/dev/null)" in STOP*) echo '${DRAIN_HOOK_MESSAGE}' >&2; exit 2;; esac; exit 0`

type Settings = Record<string, unknown> & {hooks?: Record<string, unknown[]>}

export function drainHookSettings(user: Settings = {}): Settings {
  const hooks = {...(user.hooks ?? {})}
  const ours = {matcher: '*', hooks: [{type: 'command', command: HOOK_COMMAND}]}
  hooks.PreToolUse = [...(Array.isArray(hooks.PreToolUse) ? hooks.PreToolUse : []), ours]
  return {...user, hooks}
}

export type HookedArgv = {argv: string[]; note: string | null}

/**
 * The worker's argv with drover's `--settings` added: a settings file in the
 * task folder holding the user's own `--settings` (if any; it is replaced, so
 * claude reads one merged file whatever it does with two) plus drover's hook.
 * Returns the argv unchanged, with a note, when the user's settings cannot be read.
 */
export function withDrainHooks(record: TaskRecord, argv: string[], settingsFile: string): HookedArgv {
  if (record.agent !== 'claude' || !record.agentHooks || record.shell !== null) return {argv, note: null}
  const [program, ...args] = argv
  const end = args.includes('--') ? args.indexOf('--') : args.length
  let user: Settings = {}
  const rest: string[] = []
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]
    const inline = arg.startsWith('--settings=') ? arg.slice('--settings='.length) : null
    if (i < end && (arg === '--settings' || inline !== null)) {
      const value = inline ?? args[++i] ?? ''
      const read = readUserSettings(value, record.cwd)
      if (read === null) return {argv, note: `drain hooks not added: cannot read --settings ${value} as JSON`}
      user = {...user, ...read, hooks: {...(user.hooks ?? {}), ...(read.hooks ?? {})}}
      continue
    }
    rest.push(arg)
  }
  // Right after the program (and before any `--`), so no flag before it can take
  // it as a value; behind a launcher (`node cli.js -p …`), right before -p.
  const direct = /^claude(\.(exe|cmd|bat|ps1))?$/i.test(path.basename(program))
  const at = direct ? 0 : rest.findIndex((a) => a === '-p' || a === '--print')
  if (at === -1) return {argv, note: 'drain hooks not added: cannot tell where claude\'s own arguments start (no -p)'}
  // rewritten at every launch: no fsync (see writeFileAtomic)
  writeFileAtomic(settingsFile, JSON.stringify(drainHookSettings(user), null, 2) + '\n', {durable: false})
  return {argv: [program, ...rest.slice(0, at), '--settings', settingsFile, ...rest.slice(at)], note: null}
}

function readUserSettings(value: string, cwd: string): Settings | null {
  try {
    const text = value.trimStart().startsWith('{') ? value : readFileSync(path.resolve(cwd, value), 'utf8')
    const parsed = JSON.parse(text) as unknown
    return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? (parsed as Settings) : null
  } catch {
    return null
  }
}
