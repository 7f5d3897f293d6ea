// Mistakes in the command after `--` that drover can see before it creates a
// task: a directory named as the program, or a whole command line passed as
// one argument. Both are usage errors (exit 2, nothing created); a program
// that merely does not exist is left to the runner, which records why the
// task failed to start.

import {statSync} from 'node:fs'
import path from 'node:path'

const exists = (file: string) => {
  try {
    statSync(file)
    return true
  } catch {
    return false
  }
}

const isDirectory = (file: string) => {
  try {
    return statSync(file).isDirectory()
  } catch {
    return false
  }
}

/** Whether `name` names a file the way exec does: a path (relative to cwd) when it has a separator, else a PATH lookup. */
function findsFile(name: string, cwd: string, env: NodeJS.ProcessEnv): boolean {
  if (name.includes('/') || name.includes(path.sep)) return exists(path.resolve(cwd, name))
  return (env.PATH ?? '').split(path.delimiter).some((dir) => dir !== '' && exists(path.join(dir, name)))
}

/** A one-line reason the command cannot be what the user meant, or null. */
export function commandProblem(command: string[], cwd: string, env: NodeJS.ProcessEnv): string | null {
  const [program] = command
  if (program === undefined) return null
  if ((program.includes('/') || program.includes(path.sep)) && isDirectory(path.resolve(cwd, program))) {
    return `'${program}' is a directory, not a command`
  }
  if (command.length === 1 && /\s/.test(program) && !findsFile(program, cwd, env)) {
    const words = program.trim().split(/\s+/).join(' ')
    return `no program is named '${program}' (the whole line is one argument): split it, drover start -- ${words}, or run it through your shell: drover start --shell '${program}'`
  }
  return null
}
