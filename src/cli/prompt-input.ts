// `start --agent NAME --prompt P`, `--prompt -` (stdin, only when asked) and
// `--prompt-file F`: the prompt's text, read before the state dir is opened,
// so a prompt that cannot be read refuses the start with nothing written; and
// what a person may have mixed up on that command line, said in its words.

import {closeSync, constants as fsc, fstatSync, openSync, readFileSync, readSync} from 'node:fs'
import {isatty} from 'node:tty'
import {knownAgentNames, usageError} from '../api/values.js'

// A prompt is text for a model, and it travels as one argument of the agent's
// command line: far below this. More is a mistake (a binary, the wrong file).
const MAX_PROMPT_BYTES = 1024 * 1024

/** As `$(cat F)` gives it: without the line ends at its end. */
const withoutFinalNewlines = (text: string) => text.replace(/(\r?\n)+$/, '')

function checked(text: string, where: string): string {
  if (text.includes('\0')) throw usageError(`${where} holds a NUL byte: a prompt is text`)
  if (text.trim() === '') throw usageError(`${where} is empty: say what the agent is to do`)
  return text
}

function readStdin(): string {
  // isatty, not process.stdin: that stream would put a pipe in non-blocking mode before it is read
  if (isatty(0)) throw usageError('--prompt - reads the prompt from stdin, which is a terminal: pipe it in (e.g. drover start --agent claude --prompt - < task.md), or use --prompt-file')
  const chunks: Buffer[] = []
  const buffer = Buffer.alloc(64 * 1024)
  let total = 0
  for (;;) {
    let n: number
    try {
      n = readSync(0, buffer, 0, buffer.length, null)
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code
      // a pipe another reader left non-blocking, with nothing in it yet: wait for it, as `cat` would
      if (code === 'EAGAIN') {
        Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 10)
        continue
      }
      if (code === 'EOF') break
      throw usageError(`--prompt -: cannot read stdin (${code ?? (error as Error).message})`)
    }
    if (n === 0) break
    total += n
    if (total > MAX_PROMPT_BYTES) throw usageError(`--prompt -: the prompt on stdin is over ${MAX_PROMPT_BYTES} bytes`)
    chunks.push(Buffer.from(buffer.subarray(0, n)))
  }
  return checked(withoutFinalNewlines(Buffer.concat(chunks).toString('utf8')), 'the prompt read from stdin')
}

function readPromptFile(file: string): string {
  let fd: number
  try {
    fd = openSync(file, fsc.O_RDONLY)
  } catch (error) {
    throw usageError(`--prompt-file ${file}: cannot read it (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`)
  }
  try {
    const stats = fstatSync(fd)
    if (!stats.isFile()) throw usageError(`--prompt-file ${file}: not a regular file`)
    if (stats.size > MAX_PROMPT_BYTES) throw usageError(`--prompt-file ${file}: ${stats.size} bytes, over the ${MAX_PROMPT_BYTES} a prompt may have`)
    return checked(withoutFinalNewlines(readFileSync(fd, 'utf8')), `--prompt-file ${file}`)
  } finally {
    closeSync(fd)
  }
}

/** The prompt the flags give, or undefined when they give none. */
export function promptFromFlags(flags: {prompt?: string; 'prompt-file'?: string}): string | undefined {
  if (flags['prompt-file'] !== undefined) return readPromptFile(flags['prompt-file'])
  if (flags.prompt === '-') return readStdin()
  if (flags.prompt !== undefined) return checked(flags.prompt, '--prompt')
  return undefined
}

/** start --agent NAME --prompt P: what the CLI's user may have mixed up, in the flags' words (the API checks the rest). */
export function checkPromptStart(command: string[], flags: {agent?: string; shell?: string}): void {
  const given = flags.agent === undefined ? '' : ` ${flags.agent}`
  if (flags.agent === undefined) throw usageError(`--prompt needs --agent NAME, the agent to give it to: ${knownAgentNames().join(', ')}`)
  if (flags.shell !== undefined) throw usageError('give --prompt or --shell, not both: with --prompt drover writes the agent\'s command')
  if (command.length > 0 && !command[0].startsWith('-')) {
    const own = command[0] === flags.agent || command[0].endsWith(`/${flags.agent}`)
    throw usageError(
      `with --prompt drover writes the${given} command itself: after -- give only the agent's own flags (e.g. -- --model NAME)${own ? `, not the command; or drop --prompt and give the whole command after --` : `, not '${command[0]}'`}`,
    )
  }
}

/**
 * `start --agent claude --prompt P --model sonnet`: one of the agent's flags
 * before the `--`, where oclif takes it for drover's own and refuses it.
 * Said with the flag moved after the `--`, where the agent's flags go.
 */
export function agentFlagBeforeDashes(argv: string[], error: Error): Error | null {
  if (error.constructor.name !== 'NonExistentFlagsError') return null
  if (!argv.some((a) => /^--prompt(-file)?(=|$)/.test(a))) return null
  const flag = /--?[\w-]+/.exec(error.message.split('\n')[0].replace(/^.*?:\s*/, ''))?.[0]
  if (!flag) return null
  const at = argv.findIndex((a) => a === '--agent' || a.startsWith('--agent='))
  const agent = at === -1 ? 'NAME' : argv[at].startsWith('--agent=') ? argv[at].slice('--agent='.length) : (argv[at + 1] ?? 'NAME')
  return usageError(`${flag} is not a flag of drover start: with --prompt, the agent's own flags go after --, e.g. drover start --agent ${agent} --prompt … -- ${flag} …`)
}
