// Mistakes in the command after `--` that drover can see before it creates a
// task: a directory named as the program, an option in the program's place,
// or a whole command line passed as one argument. Both are usage errors (exit 2, nothing created); a program
// that merely does not exist is left to the runner, which records why the
// task failed to start.

import {statSync} from 'node:fs'
import path from 'node:path'

type Kind = 'file' | 'directory' | null

const kindOf = (file: string): Kind => {
  try {
    return statSync(file).isDirectory() ? 'directory' : 'file'
  } catch {
    return null
  }
}

const hasSeparator = (name: string) => name.includes('/') || name.includes(path.sep)

/**
 * What exec would find for `name`: the path itself (relative to cwd) when it
 * has a separator, else the first file of that name on PATH — a directory on
 * PATH ('.' is in every one) is passed over, as execvp does.
 */
function resolve(name: string, cwd: string, env: NodeJS.ProcessEnv): Kind {
  if (hasSeparator(name)) return kindOf(path.resolve(cwd, name))
  let found: Kind = null
  for (const dir of (env.PATH ?? '').split(path.delimiter)) {
    if (dir === '') continue
    const kind = kindOf(path.join(dir, name))
    if (kind === 'file') return 'file'
    found ??= kind
  }
  return found ?? (kindOf(path.resolve(cwd, name)) === 'directory' ? 'directory' : null)
}

/** A one-line reason the command cannot be what the user meant, or null. */
export function commandProblem(command: string[], cwd: string, env: NodeJS.ProcessEnv): string | null {
  const [program] = command
  if (program === undefined) return null
  const kind = resolve(program, cwd, env)
  // No program is named like an option: `start -- --name x sleep 1` put a flag of drover's after the `--`.
  if (program.startsWith('-') && kind === null) return `'${program}' is no program but an option: drover's flags go before --, the command after it`
  if (kind === 'directory') return `'${program}' is a directory, not a command`
  if (command.length === 1 && /\s/.test(program) && kind === null) {
    const words = program.trim().split(/\s+/).join(' ')
    return `no program is named '${program}' (the whole line is one argument): split it, drover start -- ${words}, or run it through your shell: drover start --shell '${program}'`
  }
  return null
}
